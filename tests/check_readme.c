/* check_readme.c - the README's workflows as a user runs them (issue 23,
 * "Done when").
 *
 * The scan runs every command of the indented block under "## What works
 * now", read from README.md itself so that it follows the README, in one
 * empty working directory, in order (later commands read what earlier ones
 * wrote), and asserts each exits 0 and that no CSV any of them wrote, to a
 * file or to stdout, holds a NaN or an infinity outside the columns whose
 * documentation says when one appears.  To keep it to about a minute the
 * simulating commands are capped (sim.max_cycles at most 200k for sim, 20k
 * for validate with one replicate, 5k for the study; litmus 200 runs), the
 * optional [...] groups are left out, and the valgrind line is the lackey
 * trace of ls that scripts/make_traces.sh made ($COHMOD_TRACES).
 *
 * Beside it, the workflows that chain two commands are checked for what
 * the chain must preserve: a timing profile from `sim` gives `model
 * recall` the simulated recall rate at the profiled directory; a trace's
 * `reuse` histogram gives its `mrc` exactly, and `cache` agrees but for
 * the few accesses that straddle two lines.  (sim -> fit ->
 * calibrated model is check_cli_fit.c's test_fit_writes_a_config.) */
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/table.h"
#include "tests/testutil.h"

#define MAX_CMDS 128
#define CMD_MAX 2048

/* The command block of README.md's "What works now", one line each. */
static size_t readme_commands(char cmds[][CMD_MAX], size_t max)
{
    char *text = tu_read_file("README.md", NULL);
    ck_assert_msg(text != NULL, "README.md: run from the source root");
    char *p = strstr(text, "\n## What works now\n");
    ck_assert_ptr_nonnull(p);
    p = strchr(p + 1, '\n') + 1;
    size_t n = 0;
    int started = 0;
    for (char *line = p; *line;) {
        char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        if (len >= 4 && !strncmp(line, "    ", 4)) {
            ck_assert(n < max && len - 4 < CMD_MAX);
            memcpy(cmds[n], line + 4, len - 4);
            cmds[n++][len - 4] = '\0';
            started = 1;
        } else if (len > 0 && started) {
            break; /* the block's end */
        }
        if (!eol) break;
        line = eol + 1;
    }
    free(text);
    return n;
}

/* Drops a trailing "# comment" and every [optional group], and squeezes
 * the blanks. */
static void strip_command(char *c)
{
    char *hash = strstr(c, " #");
    if (hash) *hash = '\0';
    char out[CMD_MAX];
    size_t k = 0;
    int depth = 0;
    for (const char *s = c; *s; s++) {
        if (*s == '[') depth++;
        else if (*s == ']' && depth) depth--;
        else if (!depth && !(isspace((unsigned char)*s) &&
                             (k == 0 || out[k - 1] == ' ')))
            out[k++] = isspace((unsigned char)*s) ? ' ' : *s;
    }
    while (k && out[k - 1] == ' ') k--;
    out[k] = '\0';
    strcpy(c, out);
}

/* The value of option `opt` set to `val`: replaced where the command
 * gives it, else added (so that no single-valued option is repeated). */
static void set_option(char *c, const char *opt, const char *val)
{
    char key[64];
    snprintf(key, sizeof key, " %s ", opt);
    char *at = strstr(c, key);
    char out[CMD_MAX];
    if (!at) {
        snprintf(out, sizeof out, "%s %s %s", c, opt, val);
    } else {
        const char *v = at + strlen(key), *end = strchr(v, ' ');
        snprintf(out, sizeof out, "%.*s%s%s", (int)(v - c), c, val,
                 end ? end : "");
    }
    strcpy(c, out);
}

/* --set name=V with V at most `cap`: lowered where the command sets it
 * higher, added where it does not set it. */
static void cap_param(char *c, const char *name, double cap)
{
    char key[96], out[CMD_MAX];
    snprintf(key, sizeof key, "--set %s=", name);
    char *at = strstr(c, key);
    if (at && strtod(at + strlen(key), NULL) <= cap) return;
    if (!at) {
        snprintf(out, sizeof out, "%s %s%.0f", c, key, cap);
    } else {
        const char *end = strchr(at + strlen(key), ' ');
        snprintf(out, sizeof out, "%.*s%s%.0f%s", (int)(at - c), c, key, cap,
                 end ? end : "");
    }
    strcpy(c, out);
}

/* The caps of the header comment, by subcommand. */
static void cap_command(char *args)
{
    char sub[32] = "";
    sscanf(args, "%31s", sub);
    if (!strcmp(sub, "sim") && !strstr(args, "--list-workloads")) {
        cap_param(args, "sim.max_cycles", 200000);
    } else if (!strcmp(sub, "validate")) {
        cap_param(args, "sim.max_cycles", 20000);
        set_option(args, "--replicates", "1");
    } else if (!strcmp(sub, "study")) {
        cap_param(args, "sim.max_cycles", 5000);
    } else if (!strcmp(sub, "litmus")) {
        set_option(args, "--runs", "200");
    }
}

/* Cells that may hold an infinity because their documentation says when:
 * a timing profile's mass at infinity (models/profile.h: lo, hi of
 * quantity,lo,hi,value rows), a reuse histogram's cold row (distance_lo,
 * distance_hi: `cohmod reuse --help`), and the lifetime model's
 * head-of-line delay where the bank saturates (`cohmod model lifetime
 * --help`).  No column may hold a NaN. */
static int documented_inf(const cm_table *t, size_t col)
{
    const char *name = cm_table_colname(t, col);
    if ((!strcmp(name, "lo") || !strcmp(name, "hi")) &&
        cm_table_col_find(t, "quantity") >= 0)
        return 1;
    if ((!strcmp(name, "distance_lo") || !strcmp(name, "distance_hi")) &&
        cm_table_col_find(t, "kind") >= 0)
        return 1;
    return !strcmp(name, "hol_delay");
}

static int non_finite_word(const char *s)
{
    static const char *const words[] = {"nan", "-nan", "+nan", "inf",
                                        "-inf", "+inf", "infinity",
                                        "-infinity"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (!strcasecmp(s, words[i])) return i < 3 ? 1 : 2;
    return 0;
}

typedef struct scan {
    char report[4096];
    size_t k, bad, files, cells;
} scan;

static void scan_csv(scan *sc, const char *path, const char *rel)
{
    cm_table *t = NULL;
    cm_err err = {0};
    if (cm_table_read_file(path, &t, &err)) {
        sc->k += (size_t)snprintf(sc->report + sc->k,
                                  sizeof sc->report - sc->k,
                                  "%s: not a CSV (%s)\n", rel, err.msg);
        sc->bad++;
        return;
    }
    sc->files++;
    for (size_t r = 0; r < cm_table_nrows(t); r++)
        for (size_t c = 0; c < cm_table_ncols(t); c++) {
            int w = non_finite_word(cm_table_cell(t, r, c));
            sc->cells++;
            if (!w || (w == 2 && documented_inf(t, c))) continue;
            if (sc->bad++ < 20 && sc->k < sizeof sc->report)
                sc->k += (size_t)snprintf(
                    sc->report + sc->k, sizeof sc->report - sc->k,
                    "%s: row %zu, column %s: %s\n", rel, r + 2,
                    cm_table_colname(t, c), cm_table_cell(t, r, c));
        }
    cm_table_free(t);
}

static void scan_dir(scan *sc, const char *dir, const char *rel)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "tests")) continue;
        char path[4096], sub[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "",
                 e->d_name);
        struct stat sb;
        if (lstat(path, &sb)) continue;
        size_t n = strlen(e->d_name);
        if (S_ISDIR(sb.st_mode)) scan_dir(sc, path, sub);
        else if (n > 4 && !strcmp(e->d_name + n - 4, ".csv"))
            scan_csv(sc, path, sub);
    }
    closedir(d);
}

/* "valgrind ... --log-file=F ...": F is the lackey trace of a program. */
static void stand_in_trace(const char *cmd, const char *work)
{
    const char *f = strstr(cmd, "--log-file=");
    ck_assert_ptr_nonnull(f);
    char name[256];
    sscanf(f + strlen("--log-file="), "%255s", name);
    const char *traces = getenv("COHMOD_TRACES");
    ck_assert_msg(traces != NULL, "COHMOD_TRACES is not set (make test)");
    char *src = tu_path_in(traces, "ls.lackey");
    size_t len;
    char *bytes = tu_read_file(src, &len);
    ck_assert_ptr_nonnull(bytes);
    char *dst = tu_path_in(work, name);
    FILE *o = fopen(dst, "wb");
    ck_assert_ptr_nonnull(o);
    ck_assert_uint_eq(fwrite(bytes, 1, len, o), len);
    fclose(o);
    free(dst);
    free(bytes);
    free(src);
}

START_TEST(test_readme_commands_leave_no_nan)
{
    static char cmds[MAX_CMDS][CMD_MAX];
    size_t n = readme_commands(cmds, MAX_CMDS);
    ck_assert_uint_gt(n, 20);
    char *work = tu_tmpdir(), cwd[4096], link[4200];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    snprintf(link, sizeof link, "%s/tests", work);
    snprintf(cwd + strlen(cwd), sizeof cwd - strlen(cwd), "/tests");
    ck_assert_int_eq(symlink(cwd, link), 0); /* tests/data/... paths */
    /* the MVA stations a user writes for `queue mva --stations` */
    free(tu_write_file(work, "stations.csv",
                       "name,type,demand\ncore,delay,10\nl1,queue,0.5\n"
                       "dram,queue,0.8\n"));
    size_t ran = 0;
    for (size_t i = 0; i < n; i++) {
        strip_command(cmds[i]);
        if (!strncmp(cmds[i], "valgrind ", 9)) {
            stand_in_trace(cmds[i], work);
            continue;
        }
        ck_assert_msg(!strncmp(cmds[i], "cohmod ", 7) ||
                          !strcmp(cmds[i], "cohmod"),
                      "README line not a command: %s", cmds[i]);
        char args[CMD_MAX + 256];
        snprintf(args, sizeof args, "%s", cmds[i] + 6);
        cap_command(args + 1);
        tu_run r = tu_cohmod_in(work, args);
        ck_assert_msg(r.status == 0, "cohmod%s: exit %d: %s", args, r.status,
                      r.err);
        /* a table on stdout is an output CSV too */
        cm_table *t = NULL;
        cm_err err = {0};
        if (r.out[0] && strchr(r.out, ',') && !strstr(args, "--help") &&
            strncmp(args, " study", 6) &&
            !cm_table_read_buffer("stdout", r.out, strlen(r.out), &t, &err)) {
            char name[64];
            snprintf(name, sizeof name, "stdout-%02zu.csv", i);
            free(tu_write_file(work, name, r.out));
        }
        cm_table_free(t);
        tu_run_free(&r);
        ran++;
    }
    scan sc = {.k = 0};
    scan_dir(&sc, work, "");
    fprintf(stderr, "readme: %zu commands, %zu CSV files, %zu cells "
            "scanned\n", ran, sc.files, sc.cells);
    ck_assert_msg(sc.files > 20, "only %zu CSV files", sc.files);
    ck_assert_msg(sc.bad == 0, "%zu non-finite cells outside documented "
                  "columns:\n%s", sc.bad, sc.report);
    tu_rm_tree(work);
    free(work);
}
END_TEST

/* sim -> profile -> model: the recall model on the timing profile of a
 * GPU-VIni run gives that run's own recall rate at its directory (RCL
 * messages per directory access; within 1% on bh and kmn when written,
 * bound 5%). */
START_TEST(test_readme_sim_profile_model)
{
    static const char *const wl[] = {"bh", "kmn"};
    char *dir = tu_tmpdir();
    for (size_t w = 0; w < 2; w++) {
        tu_run r = tu_cohmodf(
            "sim --workload %s --protocol gpu-vini --set dir.ratio=2 --set "
            "dir.ways=8 --set sim.max_cycles=100000 --quiet --profile-out "
            "%s/p.csv --out %s/s.csv", wl[w], dir, dir);
        ck_assert_msg(r.status == 0, "%s", r.err);
        tu_run_free(&r);
        r = tu_cohmodf("model recall --profile %s/p.csv --protocol gpu-vini "
                       "--set dir.ratio=2 --set dir.ways=8", dir);
        ck_assert_msg(r.status == 0, "%s", r.err);
        cm_table *m = NULL, *s = NULL, *p = NULL;
        cm_err err = {0};
        ck_assert_int_eq(cm_table_read_buffer("m", r.out, strlen(r.out), &m,
                                              &err), CM_OK);
        char *sp = tu_path_in(dir, "s.csv"), *pp = tu_path_in(dir, "p.csv");
        ck_assert_int_eq(cm_table_read_file(sp, &s, &err), CM_OK);
        ck_assert_int_eq(cm_table_read_file(pp, &p, &err), CM_OK);
        double recalls = NAN, cycles = NAN, rate = NAN;
        for (size_t i = 0; i < cm_table_nrows(s); i++) {
            const char *name = cm_table_cell(s, i, 0);
            if (strcmp(cm_table_cell(s, i, 1), "all")) continue;
            if (!strcmp(name, "dir.recalls")) recalls = tu_num(s, i, "value");
            if (!strcmp(name, "gpu.cycles")) cycles = tu_num(s, i, "value");
        }
        for (size_t i = 0; i < cm_table_nrows(p); i++)
            if (!strcmp(cm_table_cell(p, i, 0), "rate.dir_accesses"))
                rate = tu_num(p, i, "value");
        double sim = recalls / (rate * cycles);
        double model = tu_num(m, 0, "recall_msgs_per_access");
        fprintf(stderr, "readme: %s GPU-VIni R=2 W=8: recalls per access "
                "%.4f simulated, %.4f modelled from its profile\n", wl[w],
                sim, model);
        ck_assert_msg(sim > 0.01 && fabs(model - sim) <= 0.05 * sim,
                      "%s: model %g, sim %g", wl[w], model, sim);
        cm_table_free(m);
        cm_table_free(s);
        cm_table_free(p);
        free(sp);
        free(pp);
        tu_run_free(&r);
    }
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

/* trace -> reuse -> mrc (and cache): the histogram of `reuse` gives the
 * curve of `mrc` exactly (the miss ratio of C lines is the share of
 * references at distance C or more, cold ones included), and a fully
 * associative LRU `cache` of C lines misses exactly that share of
 * accesses for C up to the exact bins. */
START_TEST(test_readme_trace_reuse_mrc)
{
    const char *trace = "tests/data/traces/ls.lackey";
    cm_err err = {0};
    cm_table *h = NULL, *m = NULL;
    tu_run r = tu_cohmodf("reuse %s --line 64", trace);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_int_eq(cm_table_read_buffer("h", r.out, strlen(r.out), &h,
                                          &err), CM_OK);
    tu_run_free(&r);
    r = tu_cohmodf("mrc %s --line 64 --exact", trace);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_int_eq(cm_table_read_buffer("m", r.out, strlen(r.out), &m,
                                          &err), CM_OK);
    tu_run_free(&r);
    size_t checked = 0;
    for (size_t j = 0; j < cm_table_nrows(m); j++) {
        double cap = tu_num(m, j, "capacity_lines");
        if (cap > 4096) continue; /* the exact bins (reuse.exact_bins) */
        double miss = 0;
        for (size_t i = 0; i < cm_table_nrows(h); i++)
            if (!strcmp(cm_table_cell(h, i, 1), "cold") ||
                tu_num(h, i, "distance_lo") >= cap)
                miss += tu_num(h, i, "fraction");
        ck_assert_close(tu_num(m, j, "miss_ratio"), miss, 1e-12);
        checked++;
    }
    ck_assert_uint_gt(checked, 20);
    /* 16 and 64 lines, one set: the cache simulator per line reference */
    static const int lines[] = {16, 64};
    for (size_t k = 0; k < 2; k++) {
        double cap = lines[k], want = NAN;
        for (size_t j = 0; j < cm_table_nrows(m); j++)
            if (tu_num(m, j, "capacity_lines") == cap)
                want = tu_num(m, j, "miss_ratio");
        /* mrc counts line references, cache accesses (one straddling two
         * lines counts once): 3 of 3000 here */
        r = tu_cohmodf("cache %s --line 64 --size %d --ways %d", trace,
                       lines[k] * 64, lines[k]);
        ck_assert_msg(r.status == 0, "%s", r.err);
        cm_table *c = NULL;
        ck_assert_int_eq(cm_table_read_buffer("c", r.out, strlen(r.out), &c,
                                              &err), CM_OK);
        double got = NAN;
        for (size_t i = 0; i < cm_table_nrows(c); i++)
            if (!strcmp(cm_table_cell(c, i, 0), "all"))
                got = tu_num(c, i, "miss_ratio");
        ck_assert_msg(isfinite(want) && fabs(got - want) <= 0.01,
                      "%d lines: cache %g, mrc %g", lines[k], got, want);
        cm_table_free(c);
        tu_run_free(&r);
    }
    cm_table_free(h);
    cm_table_free(m);
}
END_TEST

Suite *suite_readme(void)
{
    Suite *s = suite_create("readme");
    TCase *tc = tcase_create("workflows");
    tcase_set_timeout(tc, 400);
    tcase_add_test(tc, test_readme_sim_profile_model);
    tcase_add_test(tc, test_readme_trace_reuse_mrc);
    tcase_add_test(tc, test_readme_commands_leave_no_nan);
    suite_add_tcase(s, tc);
    return s;
}
