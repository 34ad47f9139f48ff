/* testutil.h - helpers shared by the Check suites.
 *
 * Each tests/check_<name>.c defines `Suite *suite_<name>(void)`; the Makefile
 * lists them and run_tests.c runs them all under one summary line.  The CLI
 * tests run the real binary (COHMOD_BIN) and look at its exit status, stdout
 * and stderr. */
#ifndef CM_TESTUTIL_H
#define CM_TESTUTIL_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "data/table.h"

typedef struct tu_run {
    int status;   /* exit status, or -1 if the process did not exit */
    char *out;    /* stdout, NUL-terminated, malloc'd */
    char *err;    /* stderr */
} tu_run;

/* Runs `$COHMOD_BIN <args>` through /bin/sh (args are shell words). */
tu_run tu_cohmod(const char *args);
/* The same from working directory cwd (NULL: this one). */
tu_run tu_cohmod_in(const char *cwd, const char *args);
/* The same with stderr on a pseudo-terminal, as a user at a terminal sees
 * it: err holds what was written there (a terminal turns "\n" into
 * "\r\n"). */
tu_run tu_cohmod_tty(const char *args);
void tu_run_free(tu_run *r);
/* The same with printf-style arguments. */
tu_run tu_cohmodf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Runs a shell command line (printf-style), capturing as tu_cohmod. */
tu_run tu_shf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The build directory: where COHMOD_BIN is (build/cohmod.1 is beside
 * it); malloc'd. */
char *tu_build_dir(void);

/* The number in row `row` of column `col` of a table; fails the test if the
 * column is missing or the cell is not a number. */
struct cm_table;
double tu_num(const struct cm_table *t, size_t row, const char *col);

/* The CSV file dir/name as a table (dir NULL: name is the path); fails the
 * test when it cannot be read. */
struct cm_table *tu_read_table(const char *dir, const char *name);
/* The text of row `row` of column `col`; fails the test if the column is
 * missing. */
const char *tu_cell(const struct cm_table *t, size_t row, const char *col);
/* A fresh empty directory under $TMPDIR; caller frees the string. */
char *tu_tmpdir(void);

/* Writes `text` to `dir/name`; returns the malloc'd path. */
char *tu_write_file(const char *dir, const char *name, const char *text);

/* Whole file as a malloc'd string, or NULL. */
char *tu_read_file(const char *path, size_t *len);

/* dir/name, malloc'd. */
char *tu_path_in(const char *dir, const char *name);

/* Entries in a directory, "." and ".." not counted. */
size_t tu_dir_entries(const char *dir);

/* Removes a directory and everything below it. */
void tu_rm_tree(const char *path);

/* ---- the simulator on a hand-written program ------------------------------ */

struct cm_profile;
struct cm_stats;
typedef struct tu_sim {
    struct cm_stats *stats;   /* the registry: the rows' components live in it */
    struct cm_stat_row *rows; /* the run's statistics */
    size_t n;
    struct cm_profile *prof;  /* its timing profile, when asked for */
    uint64_t cycles, instructions;
    int finished;
} tu_sim;

/* Runs src on protocol `protocol` on the machine of prm (gpu.sms and
 * gpu.warps_per_sm as set there), to the end or sim.max_cycles, observed
 * by obs (may be NULL), recording the profile when `profile`; fails the
 * test on an error. */
struct cm_params;
struct cm_warp_source;
struct cm_observer;
void tu_sim_run(const struct cm_params *prm, const char *protocol,
                struct cm_warp_source src, const struct cm_observer *obs,
                int profile, tu_sim *out);
/* The same for built-in workload `workload`. */
void tu_sim_run_workload(const struct cm_params *prm, const char *protocol,
                         const char *workload, int profile, tu_sim *out);
void tu_sim_free(tu_sim *s);
/* A statistic of component "all"; fails the test when absent. */
double tu_sim_stat(const tu_sim *s, const char *metric);

/* Reference distribution of a birth-death queue with c servers, K places
 * and `sources` finite sources (0: Poisson arrivals), offered load rho per
 * source (or total, for Poisson), by direct product-form summation in long
 * double with lgammal: p[0..K]; tu_ref_logw is the log of the unnormalised
 * weight of state n.  Independent of the solvers' recursions. */
long double tu_ref_logw(unsigned long n, unsigned long c,
                        unsigned long sources, long double rho);
void tu_ref_pmf(unsigned long c, unsigned long K, unsigned long sources,
                long double rho, long double *p);


/* Number of '\n'-terminated lines in s. */
size_t tu_count_lines(const char *s);

/* Runs `cohmod <args>` and asserts bad usage or input: exit status 2 and
 * exactly one line on stderr, containing needle. */
void tu_expect_rejected(const char *args, const char *needle);

/* Relative closeness |a-b| <= tol * max(|a|,|b|) (or both tiny). */
int tu_close(double a, double b, double tol);

#define ck_assert_close(a, b, tol)                                        \
    ck_assert_msg(tu_close((a), (b), (tol)), "%s = %.17g, %s = %.17g, "   \
                  "rel tol %g", #a, (double)(a), #b, (double)(b),          \
                  (double)(tol))

#endif
