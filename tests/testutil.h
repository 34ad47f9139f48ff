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

typedef struct tu_run {
    int status;   /* exit status, or -1 if the process did not exit */
    char *out;    /* stdout, NUL-terminated, malloc'd */
    char *err;    /* stderr */
} tu_run;

/* Runs `$COHMOD_BIN <args>` through /bin/sh (args are shell words). */
tu_run tu_cohmod(const char *args);
void tu_run_free(tu_run *r);

/* A fresh empty directory under $TMPDIR; caller frees the string. */
char *tu_tmpdir(void);

/* Writes `text` to `dir/name`; returns the malloc'd path. */
char *tu_write_file(const char *dir, const char *name, const char *text);

/* Whole file as a malloc'd string, or NULL. */
char *tu_read_file(const char *path, size_t *len);

/* Number of '\n'-terminated lines in s. */
size_t tu_count_lines(const char *s);

/* Relative closeness |a-b| <= tol * max(|a|,|b|) (or both tiny). */
int tu_close(double a, double b, double tol);

#define ck_assert_close(a, b, tol)                                        \
    ck_assert_msg(tu_close((a), (b), (tol)), "%s = %.17g, %s = %.17g, "   \
                  "rel tol %g", #a, (double)(a), #b, (double)(b),          \
                  (double)(tol))

#endif
