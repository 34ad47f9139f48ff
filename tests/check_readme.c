/* check_readme.c - the README's and docs/cli.md's commands as a user runs
 * them (issues 23 and 24).
 *
 * The scan runs the README's five-minute tour (its "$ " lines) and then
 * every command of the indented block under docs/cli.md's "## Every
 * command", read from the files themselves so that it follows them, in
 * one empty working directory, in order (later commands read what earlier
 * ones wrote; a command given twice runs once), and asserts each exits 0
 * and that no CSV any of them wrote, to a file or to stdout, holds a NaN
 * or an infinity outside the columns whose documentation says when one
 * appears.  Every output line the tour shows must be one the command
 * printed (a line ending in "..." its start), so the README's examples
 * stay real.  To keep it to about a minute the
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

#include "data/params.h"
#include "data/table.h"
#include "data/workload.h"
#include "sim/protocol.h"
#include "tests/testutil.h"

#define MAX_CMDS 128
#define CMD_MAX 2048

/* The first indented block under heading `head` of file `path`, one line
 * each (the four-space indent removed). */
static size_t block_lines(const char *path, const char *head,
                          char lines[][CMD_MAX], size_t max)
{
    char *text = tu_read_file(path, NULL);
    ck_assert_msg(text != NULL, "%s: run from the source root", path);
    char *p = strstr(text, head);
    ck_assert_msg(p != NULL, "%s: no '%s'", path, head);
    p = strchr(p + 1, '\n') + 1;
    size_t n = 0;
    int started = 0;
    for (char *line = p; *line;) {
        char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        if (len >= 4 && !strncmp(line, "    ", 4)) {
            ck_assert(n < max && len - 4 < CMD_MAX);
            memcpy(lines[n], line + 4, len - 4);
            lines[n++][len - 4] = '\0';
            started = 1;
        } else if (!strncmp(line, "## ", 3) && started) {
            break; /* the next section */
        } else if (len > 0 && started && !strncmp(head, "\n## Every", 9)) {
            break; /* docs/cli.md: the block's end */
        }
        if (!eol) break;
        line = eol + 1;
    }
    free(text);
    return n;
}

/* The README's tour: each "$ cohmod ..." command (without the "$ ") and
 * the output lines shown after it (out[i] "\n"-joined). */
static size_t readme_tour(char cmds[][CMD_MAX], char out[][CMD_MAX],
                          size_t max)
{
    static char lines[MAX_CMDS * 4][CMD_MAX];
    size_t nl = block_lines("README.md", "\n## Five-minute tour\n", lines,
                            MAX_CMDS * 4);
    size_t n = 0;
    for (size_t i = 0; i < nl; i++) {
        if (!strncmp(lines[i], "$ ", 2)) {
            ck_assert(n < max);
            snprintf(cmds[n], CMD_MAX, "%s", lines[i] + 2);
            out[n++][0] = '\0';
        } else if (n > 0) {
            size_t k = strlen(out[n - 1]);
            snprintf(out[n - 1] + k, CMD_MAX - k, "%s\n", lines[i]);
        }
    }
    return n;
}

/* Whether every line shown is one the command printed: "..." alone skips,
 * a line ending in "..." is a line's start. */
static void assert_shown(const char *cmd, const char *shown,
                         const char *printed)
{
    char want[CMD_MAX];
    snprintf(want, sizeof want, "%s", shown);
    for (char *l = strtok(want, "\n"); l; l = strtok(NULL, "\n")) {
        if (!strcmp(l, "...")) continue;
        size_t n = strlen(l), start = n > 3 && !strcmp(l + n - 3, "...");
        if (start) l[n - 3] = '\0';
        int found = 0;
        for (const char *p = printed; p && *p && !found;) {
            const char *eol = strchr(p, '\n');
            size_t len = eol ? (size_t)(eol - p) : strlen(p);
            found = start ? !strncmp(p, l, strlen(l))
                          : len == strlen(l) && !strncmp(p, l, len);
            p = eol ? eol + 1 : NULL;
        }
        ck_assert_msg(found, "README: `%s` no longer prints: %s", cmd, l);
    }
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

/* Runs one documented command in `work`, capped; 1 when it ran (0 for the
 * valgrind line, stood in for).  Its stdout and stderr, joined, in
 * *printed (malloc'd) when asked for. */
static int run_documented(char *cmd, size_t i, const char *work,
                          char **printed)
{
    strip_command(cmd);
    if (!strncmp(cmd, "valgrind ", 9)) {
        stand_in_trace(cmd, work);
        return 0;
    }
    ck_assert_msg(!strncmp(cmd, "cohmod ", 7) || !strcmp(cmd, "cohmod"),
                  "documented line not a command: %s", cmd);
    char args[CMD_MAX + 256];
    snprintf(args, sizeof args, "%s", cmd + 6);
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
    if (printed) {
        size_t a = strlen(r.out), b = strlen(r.err);
        *printed = malloc(a + b + 2);
        ck_assert_ptr_nonnull(*printed);
        snprintf(*printed, a + b + 2, "%s\n%s", r.out, r.err);
    }
    tu_run_free(&r);
    return 1;
}

START_TEST(test_readme_commands_leave_no_nan)
{
    static char cmds[MAX_CMDS][CMD_MAX], shown[MAX_CMDS][CMD_MAX];
    static char every[MAX_CMDS][CMD_MAX];
    size_t nt = readme_tour(cmds, shown, MAX_CMDS);
    ck_assert_uint_ge(nt, 6);
    size_t n = block_lines("docs/cli.md", "\n## Every command\n", every,
                           MAX_CMDS);
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
    static char done[2 * MAX_CMDS][CMD_MAX];
    size_t ndone = 0;
    for (size_t i = 0; i < nt; i++) {
        char *printed = NULL;
        ran += run_documented(cmds[i], i, work, &printed);
        assert_shown(cmds[i], shown[i], printed);
        free(printed);
        snprintf(done[ndone++], CMD_MAX, "%.2000s", cmds[i]);
    }
    for (size_t i = 0; i < n; i++) {
        strip_command(every[i]);
        int again = 0;
        for (size_t k = 0; k < ndone && !again; k++)
            again = !strcmp(done[k], every[i]);
        if (again) continue; /* the tour ran it */
        ran += run_documented(every[i], nt + i, work, NULL);
        snprintf(done[ndone++], CMD_MAX, "%.2000s", every[i]);
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

/* The glossary names every protocol, every choice of every policy and
 * every built-in workload, the workload with the description `cohmod sim
 * --list-workloads` gives (issue 24: jargon was never explained). */
START_TEST(test_glossary_names_everything)
{
    char *g = tu_read_file("docs/glossary.md", NULL);
    ck_assert_msg(g != NULL, "docs/glossary.md: run from the source root");
    for (size_t i = 0; i < cm_protocol_count(); i++) {
        char key[64];
        snprintf(key, sizeof key, "(`%s`)", cm_protocol_at(i)->name);
        ck_assert_msg(strstr(g, key), "glossary: no protocol %s", key);
    }
    for (size_t i = 0; i < cm_param_count(); i++) {
        const cm_param_info *pi = cm_param_at(i);
        if (pi->type != CM_PT_ENUM || !strcmp(pi->name, "sim.sample"))
            continue;
        char choices[256];
        snprintf(choices, sizeof choices, "%s", pi->choices);
        for (char *c = strtok(choices, "|"); c; c = strtok(NULL, "|")) {
            char key[64];
            snprintf(key, sizeof key, "`%s`", c);
            ck_assert_msg(strstr(g, key), "glossary: %s has no %s", pi->name,
                          key);
        }
    }
    for (size_t i = 0; i < cm_workload_builtin_count(); i++) {
        const char *w = cm_workload_builtin_name(i);
        char row[256];
        snprintf(row, sizeof row, "| %s | %s |", w,
                 cm_workload_description(w));
        ck_assert_msg(strstr(g, row), "glossary: no row '%s'", row);
    }
    free(g);
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
    TCase *docs = tcase_create("docs");
    tcase_add_test(docs, test_glossary_names_everything);
    suite_add_tcase(s, docs);
    return s;
}
