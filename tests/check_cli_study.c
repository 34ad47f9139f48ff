/* check_cli_study.c - `cohmod study` end to end: the files it promises,
 * byte-identical reruns, and clean failures.  The runs set sim.max_cycles
 * low: the coherence section cuts its simulations there (at most 5e4
 * cycles otherwise), which keeps each study run to seconds. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/table.h"
#include "tests/testutil.h"

/* Short coherence runs (cycles per simulation). */
#define QUICK "--set sim.max_cycles=5000"

static const char *const promised[] = {
    "params.csv",           "summary.txt",
    "mshr_vs_entries.csv",  "mshr_vs_warps.csv",
    "mshr_occupancy_pmf.csv", "mshr_grid.csv",
    "mshr_pfull_vs_entries.png", "mshr_occupancy_vs_entries.png",
    "mshr_bandwidth_vs_entries.png", "mshr_pfull_vs_warps.png",
    "mshr_throughput_vs_warps.png", "mshr_occupancy_pmf.png",
    "reuse_mrc.csv", "reuse_mrc.png", "reuse_setassoc.csv",
    "reuse_setassoc.png", "reuse_fit.csv", "reuse_interleave.csv",
    "reuse_interleave.png", "report.html",
    /* every figure also as SVG, for print and report.html */
    "mshr_pfull_vs_entries.svg", "mshr_occupancy_vs_entries.svg",
    "mshr_bandwidth_vs_entries.svg", "mshr_pfull_vs_warps.svg",
    "mshr_throughput_vs_warps.svg", "mshr_occupancy_pmf.svg",
    "reuse_mrc.svg", "reuse_setassoc.svg", "reuse_interleave.svg"};
#define NPROMISED (sizeof promised / sizeof promised[0])

static const char *const coh_promised[] = {
    "compare.csv",        "speed.png",          "traffic.png",
    "traffic_class.csv",  "traffic_class.png",  "tc_outcomes.csv",
    "tc_outcomes.png",    "lifetime_sweep.csv", "lifetime_sweep.png",
    "dir_sweep.csv",      "dir_sweep_speed.png", "dir_sweep_recalls.png",
    "predictor_sweep.csv", "predictor_sweep.png", "seed_compare.csv",
    "speed.svg",          "traffic.svg",        "traffic_class.svg",
    "tc_outcomes.svg",    "lifetime_sweep.svg", "dir_sweep_speed.svg",
    "dir_sweep_recalls.svg", "predictor_sweep.svg"};
#define NCOH (sizeof coh_promised / sizeof coh_promised[0])

/* The protocols the coherence section must run. */
static const char *const coh_protocols[] = {
    "no-l1", "no-coh", "mesi",  "gpu-vi", "gpu-vini",
    "tcsuo", "tcs",    "tcsoo", "tcw",    "tcw-fixed"};
#define NCOH_PROTOCOLS (sizeof coh_protocols / sizeof *coh_protocols)
/* Seed 000's workloads, those needing coherence first. */
static const char *const coh_workloads[] = {"bh",  "cc",  "cl",  "dlb",
                                            "stn", "vpr", "hsp", "kmn",
                                            "lps", "ndl", "rg",  "sr"};
#define NCOH_ALL 12
#define NCOH_INTER 6

/* A small synthetic lackey trace (a loop over a working set with some
 * streaming), so reruns stay quick. */
static char *small_trace(const char *dir)
{
    size_t cap = 1 << 20, n = 0;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    unsigned long long x = 7;
    for (int i = 0; i < 20000; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        unsigned long long addr = (x >> 33) % 3 ? 0x10000 + ((x >> 40) % 512) * 64
                                                 : 0x900000 + (unsigned)i * 64;
        n += (size_t)snprintf(text + n, cap - n, " %c %08llx,8\n",
                              (x >> 20) % 4 ? 'L' : 'S', addr);
    }
    char *path = tu_write_file(dir, "small.lackey", text);
    free(text);
    return path;
}

static tu_run study(const char *dir, const char *extra)
{
    char args[9000];
    snprintf(args, sizeof args, "study --out %s %s", dir, extra);
    return tu_cohmod(args);
}

static char *read_in(const char *dir, const char *name)
{
    char *p = tu_path_in(dir, name);
    char *text = tu_read_file(p, NULL);
    free(p);
    return text;
}

/* Each file is there, not tiny, and a PNG where it says so. */
static void check_files(const char *dir, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t len = 0;
        char *p = tu_path_in(dir, names[i]);
        char *bytes = tu_read_file(p, &len);
        ck_assert_msg(bytes != NULL && len > 100, "%s missing or tiny", p);
        if (strstr(names[i], ".png"))
            ck_assert_int_eq(memcmp(bytes, "\x89PNG", 4), 0);
        if (strstr(names[i], ".svg"))
            ck_assert_ptr_nonnull(strstr(bytes, "<svg"));
        free(bytes);
        free(p);
    }
}

#define read_table tu_read_table
#define cell tu_cell

/* A number, or NaN for an empty cell (no value); "nan" is never written. */
static double num_or_nan(const cm_table *t, size_t row, const char *col)
{
    const char *s = cell(t, row, col);
    ck_assert_msg(strcmp(s, "nan") != 0, "%s row %zu %s: nan written",
                  cm_table_name(t), row, col);
    if (!*s) return NAN;
    char *end;
    double v = strtod(s, &end);
    ck_assert_msg(end != s && !*end, "%s row %zu %s: '%s'", cm_table_name(t),
                  row, col, s);
    return v;
}

static int is_tc(const char *protocol)
{
    return strncmp(protocol, "tc", 2) == 0;
}

static int in_list(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, list[i]) == 0) return (int)i;
    return -1;
}

static int is_row(const cm_table *t, size_t r, const char *col,
                  const char *value)
{
    return strcmp(cell(t, r, col), value) == 0;
}

/* The seed_compare.csv row whose claim starts with `claim`. */
static size_t claim_row(const cm_table *t, const char *claim)
{
    for (size_t r = 0; r < cm_table_nrows(t); r++)
        if (strncmp(cell(t, r, "claim"), claim, strlen(claim)) == 0) return r;
    ck_abort_msg("seed_compare.csv: no claim '%s'", claim);
    return 0;
}

/* The coherence section's files, columns and invariants, run on the
 * workloads `expect` (NULL: any two or more with both sets).  `orderings`:
 * also the seed's orderings that hold at every run length we tried (5e3 to
 * 1e5 cycles on tc2013). */
static void check_coh(const char *dir, const char *const *expect,
                      size_t nexpect, int orderings)
{
    char *cdir = tu_path_in(dir, "coh");
    ck_assert_uint_eq(tu_dir_entries(cdir), NCOH);
    check_files(cdir, coh_promised, NCOH);
    free(cdir);

    cm_table *t = read_table(dir, "coh/compare.csv");
    static const char *const cols[] = {
        "workload", "set", "protocol", "cycles", "ipc", "speed_vs_nocoh",
        "noc.flits", "flits_per_kinst", "flits_vs_nocoh", "noc.msgs.gets",
        "noc.msgs.data", "noc.msgs.inv", "noc.msgs.rcl", "noc.msgs.put",
        "noc.msgs.total", "dir.recalls", "l2.store_stall_cycles",
        "fence.wait_cycles", "tc.outcome.hit", "tc.outcome.expired",
        "tc.outcome.evicted", "tc.outcome.unused", "tc.lifetime_mean",
        "error"};
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
        ck_assert_msg(cm_table_col_find(t, cols[i]) >= 0,
                      "compare.csv: no column %s", cols[i]);
    /* runs[w][p]: workload w ran under protocol p */
    size_t runs[NCOH_ALL][NCOH_PROTOCOLS] = {{0}};
    for (size_t r = 0; r < cm_table_nrows(t); r++) {
        const char *p = cell(t, r, "protocol");
        int w = in_list(cell(t, r, "workload"), coh_workloads, NCOH_ALL);
        int pi = in_list(p, coh_protocols, NCOH_PROTOCOLS);
        ck_assert_msg(w >= 0 && pi >= 0, "row %zu: %s under %s", r,
                      cell(t, r, "workload"), p);
        runs[w][pi]++;
        ck_assert_str_eq(cell(t, r, "set"), w < NCOH_INTER ? "inter" : "intra");
        ck_assert_str_eq(cell(t, r, "error"), ""); /* every run ran */
        ck_assert(tu_num(t, r, "ipc") > 0);
        ck_assert(tu_num(t, r, "noc.flits") > 0);
        ck_assert(tu_num(t, r, "cycles") <= 5000);
        if (strcmp(p, "no-coh") == 0) { /* normalised to itself: exactly 1 */
            ck_assert(tu_num(t, r, "speed_vs_nocoh") == 1.0);
            ck_assert(tu_num(t, r, "flits_vs_nocoh") == 1.0);
        }
        /* Only the directory protocols invalidate and recall; stores stall
         * at the L2 only for invalidations (GPU-VI) or unexpired lifetimes
         * (TC-Strong), never under TC-Weak; only MESI writes back. */
        int directory = strcmp(p, "mesi") == 0 || strncmp(p, "gpu-vi", 6) == 0;
        if (!directory) {
            ck_assert(tu_num(t, r, "noc.msgs.inv") == 0);
            ck_assert(tu_num(t, r, "noc.msgs.rcl") == 0);
        }
        if (!directory && strcmp(p, "tcsuo") && strcmp(p, "tcs") &&
            strcmp(p, "tcsoo"))
            ck_assert_msg(tu_num(t, r, "l2.store_stall_cycles") == 0,
                          "%s stalls stores", p);
        if (strcmp(p, "mesi") == 0) ck_assert(tu_num(t, r, "noc.msgs.put") > 0);
        else ck_assert(tu_num(t, r, "noc.msgs.wb") == 0);
        double sum = 0;
        int finite = 1;
        static const char *const out[] = {"tc.outcome.hit",
                                          "tc.outcome.expired",
                                          "tc.outcome.evicted",
                                          "tc.outcome.unused"};
        for (size_t o = 0; o < 4; o++) {
            double f = num_or_nan(t, r, out[o]);
            finite &= isfinite(f);
            if (isfinite(f)) {
                ck_assert(f >= 0 && f <= 1);
                sum += f;
            }
        }
        if (is_tc(p)) {
            ck_assert_msg(finite, "%s: no lifetime outcomes", p);
            ck_assert_msg(fabs(sum - 1) <= 1e-9, "%s %s: outcomes sum to %.17g",
                          cell(t, r, "workload"), p, sum);
            ck_assert(tu_num(t, r, "tc.lifetime_mean") >= 0);
        } else {
            ck_assert(isnan(num_or_nan(t, r, "tc.outcome.hit")));
        }
    }
    /* Every protocol once on each workload run, and on nothing else. */
    size_t nwl = 0, ninter = 0;
    for (size_t w = 0; w < NCOH_ALL; w++) {
        int want = expect ? in_list(coh_workloads[w], expect, nexpect) >= 0
                          : runs[w][0] > 0;
        for (size_t p = 0; p < NCOH_PROTOCOLS; p++)
            ck_assert_msg(runs[w][p] == (size_t)want, "%s under %s: %zu runs",
                          coh_workloads[w], coh_protocols[p], runs[w][p]);
        nwl += (size_t)want;
        ninter += want && w < NCOH_INTER;
    }
    if (expect) ck_assert_uint_eq(nwl, nexpect);
    else ck_assert(nwl >= 2 && ninter >= 1 && ninter < nwl);
    cm_table_free(t);

    /* Lifetimes: 6 per protocol on each workload, and a geomean row that
     * is the geomean of the workload rows. */
    t = read_table(dir, "coh/lifetime_sweep.csv");
    ck_assert_uint_eq(cm_table_nrows(t), 2 * 6 * (nwl + 1));
    size_t zero = 0, longest = 0;
    for (size_t r = 0; r < cm_table_nrows(t); r++) {
        zero += tu_num(t, r, "lifetime") == 0;
        longest += tu_num(t, r, "lifetime") == 50000;
        if (!is_row(t, r, "workload", "geomean")) continue;
        double logsum = 0;
        size_t n = 0;
        for (size_t q = 0; q < cm_table_nrows(t); q++)
            if (!is_row(t, q, "workload", "geomean") &&
                is_row(t, q, "protocol", cell(t, r, "protocol")) &&
                tu_num(t, q, "lifetime") == tu_num(t, r, "lifetime")) {
                logsum += log(tu_num(t, q, "speed_vs_nocoh"));
                n++;
            }
        ck_assert_uint_eq(n, nwl);
        ck_assert_double_eq_tol(tu_num(t, r, "speed_vs_nocoh"),
                                exp(logsum / (double)n), 1e-9);
    }
    ck_assert_uint_eq(zero, 2 * (nwl + 1));
    ck_assert_uint_eq(longest, 2 * (nwl + 1));
    cm_table_free(t);

    /* The directory: R x W on one workload, exactly 1 at the default. */
    t = read_table(dir, "coh/dir_sweep.csv");
    ck_assert_uint_eq(cm_table_nrows(t), 4 * 3);
    size_t defaults = 0;
    for (size_t r = 0; r < cm_table_nrows(t); r++) {
        ck_assert_str_eq(cell(t, r, "workload"), cell(t, 0, "workload"));
        ck_assert(tu_num(t, r, "recalls_per_kinst") >= 0);
        if (tu_num(t, r, "dir.ratio") == 2 && tu_num(t, r, "dir.ways") == 8) {
            ck_assert(tu_num(t, r, "speed_vs_default") == 1.0);
            defaults++;
        }
    }
    ck_assert_uint_eq(defaults, 1);
    cm_table_free(t);

    /* The predictor: 3 constants x 3 values on one workload; at the
     * default constants speed_vs_default is exactly 1. */
    t = read_table(dir, "coh/predictor_sweep.csv");
    ck_assert_uint_eq(cm_table_nrows(t), 3 * 3);
    defaults = 0;
    for (size_t r = 0; r < cm_table_nrows(t); r++) {
        ck_assert_str_eq(cell(t, r, "workload"), cell(t, 0, "workload"));
        if (tu_num(t, r, "tc.t_hit") == 4 && tu_num(t, r, "tc.t_evict") == 8 &&
            tu_num(t, r, "tc.t_write") == 8) {
            ck_assert(tu_num(t, r, "speed_vs_default") == 1.0);
            defaults++;
        }
    }
    ck_assert_uint_eq(defaults, 3);
    cm_table_free(t);

    /* The seed comparison: its columns; every claim computed (MESI's
     * too); an explanation exactly where the ordering or the magnitude
     * (more than 2x either way) differs. */
    t = read_table(dir, "coh/seed_compare.csv");
    static const char *const scols[] = {"claim",         "seed_value",
                                        "our_value",     "ordering_holds",
                                        "ratio_to_seed", "note",
                                        "explanation"};
    ck_assert_uint_eq(cm_table_ncols(t), 7);
    for (size_t i = 0; i < 7; i++)
        ck_assert_str_eq(cm_table_colname(t, i), scols[i]);
    ck_assert_uint_eq(cm_table_nrows(t), 10);
    for (size_t r = 0; r < cm_table_nrows(t); r++) {
        const char *h = cell(t, r, "ordering_holds");
        ck_assert_msg(*cell(t, r, "note"), "claim %zu has no note", r);
        ck_assert_msg(strcmp(h, "0") == 0 || strcmp(h, "1") == 0,
                      "%s: ordering_holds '%s'", cell(t, r, "claim"), h);
        ck_assert(isfinite(num_or_nan(t, r, "our_value")));
        double ratio = num_or_nan(t, r, "ratio_to_seed");
        int differs = strcmp(h, "0") == 0 ||
                      (isfinite(ratio) && (ratio > 2 || ratio < 0.5));
        ck_assert_msg(differs == (*cell(t, r, "explanation") != 0),
                      "%s: differs %d, explanation '%s'", cell(t, r, "claim"),
                      differs, cell(t, r, "explanation"));
    }
    if (orderings) {
        static const char *const robust[] = {
            "traffic MESI vs NO-COH", "speed TCW vs TCS-FIXED",
            "speed TCW-FIXED vs TCS-FIXED", "directory R=16 W=32"};
        for (size_t i = 0; i < 4; i++)
            ck_assert_msg(
                strcmp(cell(t, claim_row(t, robust[i]), "ordering_holds"),
                       "1") == 0,
                "%s: the ordering does not hold", robust[i]);
    }
    cm_table_free(t);
}

START_TEST(test_study_writes_everything)
{
    /* from another working directory: the shipped trace is found all the
     * same (issue 23, item 5: the reuse section was skipped, exit 0) */
    char *dir = tu_tmpdir(), *cwd = tu_tmpdir(), args[4400];
    snprintf(args, sizeof args, "study --out %s %s", dir, QUICK);
    tu_run r = tu_cohmod_in(cwd, args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_uint_eq(tu_dir_entries(cwd), 0);
    rmdir(cwd);
    free(cwd);
    /* The files above, the model-against-simulation subdirectories (but
     * recall's: 5000-cycle runs are too short to validate it), coh/, and
     * the run's manifest and finished points (run.csv, runs/: what
     * --resume and merge read). */
    ck_assert_uint_eq(tu_dir_entries(dir), NPROMISED + 7);
    check_coh(dir, NULL, 0, 1);
    static const char *const validated[] = {
        "validate_mshr/points.csv", "validate_mshr/summary.csv",
        "validate_mshr/parity_occupancy.png", "validate_reuse/summary.csv",
        "validate_reuse/parity_l1_miss_ratio.png",
        "validate_mshr/summary_workloads.csv",
        "validate_mshr/summary_presets.csv", "validate_mshr/validity.csv",
        "validate_directory/summary.csv", "validate_lifetime/summary.csv"};
    for (size_t i = 0; i < sizeof validated / sizeof *validated; i++) {
        size_t len = 0;
        char *p = tu_path_in(dir, validated[i]);
        char *bytes = tu_read_file(p, &len);
        ck_assert_msg(bytes != NULL && len > 100, "%s missing or tiny",
                      validated[i]);
        free(bytes);
        free(p);
    }
    check_files(dir, promised, NPROMISED);
    char *summary = read_in(dir, "summary.txt");
    ck_assert_ptr_nonnull(strstr(summary, "MSHRs saturate"));
    ck_assert_ptr_nonnull(strstr(summary, "mshr model against the simulator"));
    /* the broad design: every workload on both presets (issue 26) */
    ck_assert_ptr_nonnull(strstr(summary, "150 points, a Latin hypercube "
                                          "over 25 workloads x 2 presets"));
    ck_assert_ptr_nonnull(strstr(summary, "on li2014 ("));
    ck_assert_ptr_nonnull(strstr(summary, "directory model against the "
                                          "simulator"));
    ck_assert_ptr_nonnull(strstr(summary, "lifetime model against the "
                                          "simulator"));
    ck_assert_ptr_nonnull(strstr(summary, "recall model against the "
                                          "simulator: not validated: runs of "
                                          "5000 cycles"));
    cm_table *sw = read_table(dir, "validate_mshr/summary_workloads.csv");
    ck_assert_uint_eq(cm_table_nrows(sw), 25 * 2);
    cm_table_free(sw);
    ck_assert_ptr_nonnull(strstr(summary, "reuse model against the simulator"));
    ck_assert_ptr_nonnull(strstr(summary, "16 SMs x 48 warps"));
    ck_assert_ptr_nonnull(strstr(summary, "Reuse distances of a real trace"));
    ck_assert_ptr_nonnull(strstr(summary, "data/traces/sort.lackey: 200000 "
                                          "accesses"));
    /* degenerate fits flagged, what the calibration held named, and each
     * validated quantity with its worst held-out point (items 6, 7) */
    ck_assert_ptr_nonnull(strstr(summary, "flagged: alpha (at its bound 8"));
    char *calib = read_in(dir, "validate_mshr/calib.csv");
    ck_assert_ptr_nonnull(calib);
    if (strstr(calib, "not identifiable"))
        ck_assert_ptr_nonnull(strstr(summary, "calibration: "
                                              "model.extra_latency not "
                                              "identifiable"));
    free(calib);
    ck_assert_ptr_nonnull(strstr(summary, "p_full: held-out mean |error| "));
    ck_assert_ptr_nonnull(strstr(summary, "where the simulator reads "));
    ck_assert_ptr_nonnull(strstr(summary, "mean absolute MRC error"));
    ck_assert_ptr_nonnull(strstr(r.out, "MSHRs saturate")); /* echoed */
    ck_assert_ptr_nonnull(strstr(summary, "Coherence protocols on the "
                                          "simulated machine"));
    ck_assert_ptr_nonnull(strstr(summary, "Seed 000's statements"));
    ck_assert_ptr_nonnull(strstr(summary, "best fixed lifetime TCS"));
    ck_assert_ptr_nonnull(strstr(summary, "from set-local stack distances"));
    /* Set-local distances give the set-associative LRU miss ratio exactly:
     * every geometry (3 ways x 6 sizes) equals the simulation; the region
     * and binomial models' predictions are reported beside it. */
    cm_table *sa = read_table(dir, "reuse_setassoc.csv");
    ck_assert_uint_eq(cm_table_nrows(sa), 18);
    for (size_t r = 0; r < 18; r++) {
        ck_assert_double_eq(num_or_nan(sa, r, "miss_ratio_setlocal"),
                            num_or_nan(sa, r, "miss_ratio_sim"));
        ck_assert(num_or_nan(sa, r, "miss_ratio_setassoc") > 0);
        ck_assert(num_or_nan(sa, r, "miss_ratio_binomial") > 0);
    }
    cm_table_free(sa);
    /* the model's grids carry its error estimates: a row has an error
     * exactly when its domain is not "outside", and the summary counts
     * the rows inside */
    static const char *const grids[] = {"mshr_vs_entries.csv",
                                        "mshr_vs_warps.csv", "mshr_grid.csv"};
    size_t inside = 0, rows = 0;
    for (size_t k = 0; k < 3; k++) {
        cm_table *g = read_table(dir, grids[k]);
        for (size_t r = 0; r < cm_table_nrows(g); r++) {
            const char *d = cell(g, r, "p_full_domain");
            const char *e = cell(g, r, "p_full_abs_err");
            ck_assert_msg(!strncmp(d, "outside: ", 9) == !*e,
                          "%s row %zu: error '%s' with domain '%s'",
                          grids[k], r, e, d);
            ck_assert(*cell(g, r, "mean_occupancy_domain"));
            inside += *e != '\0';
        }
        rows += cm_table_nrows(g);
        cm_table_free(g);
    }
    char said[96];
    snprintf(said, sizeof said, "%zu of their %zu rows lie inside", inside,
             rows);
    ck_assert_msg(strstr(summary, said) != NULL, "summary lacks '%s'", said);
    free(summary);
    char *grid = read_in(dir, "mshr_grid.csv");
    /* 3 intensities x 12 warp counts x 10 MSHR counts, plus the header */
    ck_assert_uint_eq(tu_count_lines(grid), 361);
    free(grid);
    tu_run_free(&r);
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

START_TEST(test_study_is_deterministic_and_follows_config)
{
    char *a = tu_tmpdir(), *b = tu_tmpdir(), *tdir = tu_tmpdir();
    char *trace = small_trace(tdir), opt[4200];
    snprintf(opt, sizeof opt, "--trace %s " QUICK, trace);
    tu_run ra = study(a, opt);
    char li[4300];
    snprintf(li, sizeof li, "%s --config li2014 --coh-workloads ndl,cc", opt);
    tu_run rb = study(b, li);
    ck_assert_int_eq(ra.status, 0);
    ck_assert_int_eq(rb.status, 0);
    static const char *const chosen[] = {"cc", "ndl"};
    check_coh(b, chosen, 2, 0);
    char *sb = read_in(b, "summary.txt");
    ck_assert_ptr_nonnull(strstr(sb, "15 SMs x 48 warps, 32 L1 MSHRs"));
    free(sb);
    tu_run_free(&rb);
    tu_rm_tree(b);
    free(b);
    /* The same study again, as three shards merged: every file, figures
     * included, byte for byte the first run's (so the study is
     * deterministic, and sharding changes nothing). */
    b = tu_tmpdir();
    for (int i = 1; i <= 3; i++) {
        char shard[4300];
        snprintf(shard, sizeof shard, "%s --shard %d/3", opt, i);
        char *sub = tu_path_in(b, i == 1 ? "s1" : i == 2 ? "s2" : "s3");
        rb = study(sub, shard);
        ck_assert_msg(rb.status == 0, "shard %d: %s", i, rb.err);
        tu_run_free(&rb);
        free(sub);
    }
    rb = tu_cohmodf("merge %s/s3 %s/s1 %s/s2 --out %s/m", b, b, b, b);
    ck_assert_msg(rb.status == 0, "merge: %s", rb.err);
    ck_assert_ptr_nonnull(strstr(rb.out, "MSHRs saturate")); /* summary */
    tu_run_free(&rb);
    rb = tu_shf("diff -r %s %s/m", a, b);
    ck_assert_msg(rb.status == 0, "merged shards differ:\n%s", rb.out);
    tu_run_free(&ra);
    tu_run_free(&rb);
    tu_rm_tree(a);
    tu_rm_tree(b);
    tu_rm_tree(tdir);
    free(a);
    free(b);
    free(tdir);
    free(trace);
}
END_TEST

START_TEST(test_study_fails_cleanly)
{
    /* /proc refuses new directories even to root. */
    tu_run r = study("/proc/cohmod-study", "");
    ck_assert_int_eq(r.status, 2);
    ck_assert_uint_eq(tu_count_lines(r.err), 1);
    ck_assert_ptr_nonnull(strstr(r.err, "/proc/cohmod-study"));
    tu_run_free(&r);
    char *dir = tu_tmpdir();
    char *file = tu_write_file(dir, "plain", "x\n");
    r = study(file, "");
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "not a directory"));
    tu_run_free(&r);
    r = study(dir, "--set l1.mshrs=-1");
    ck_assert_int_eq(r.status, 2);
    ck_assert_uint_eq(tu_dir_entries(dir), 1); /* nothing but "plain" */
    tu_run_free(&r);
    /* the shipped trace missing: an error naming it, not a skipped
     * section */
    setenv("COHMOD_DATA", "/nonexistent", 1);
    r = study(dir, "");
    unsetenv("COHMOD_DATA");
    ck_assert_int_eq(r.status, 2);
    ck_assert_msg(strstr(r.err, "traces/sort.lackey: not found in cohmod's "
                                "data directory /nonexistent"), "%s", r.err);
    ck_assert_uint_eq(tu_count_lines(r.err), 1);
    tu_run_free(&r);
    r = study(dir, "--trace /nonexistent.lackey");
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "/nonexistent.lackey"));
    ck_assert_uint_eq(tu_dir_entries(dir), 1);
    tu_run_free(&r);
    r = study(dir, "--coh-workloads bh,nope");
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "'nope'"));
    ck_assert_uint_eq(tu_count_lines(r.err), 1);
    ck_assert_uint_eq(tu_dir_entries(dir), 1);
    tu_run_free(&r);
    r = study(dir, "--sweep x=1");
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "unknown option '--sweep'"));
    ck_assert_uint_eq(tu_count_lines(r.err), 1);
    tu_run_free(&r);
    r = tu_cohmod("study --out");
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "needs a value"));
    tu_run_free(&r);
    free(file);
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

Suite *suite_cli_study(void)
{
    Suite *s = suite_create("cli_study");
    TCase *tc = tcase_create("e2e");
    /* A study at 5000 cycles a run takes ~20 s of CPU (its validations
     * ~8 s of it, most the L1 model's predictions); the determinism case
     * runs five of them, on a machine others may share. */
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_study_writes_everything);
    tcase_add_test(tc, test_study_is_deterministic_and_follows_config);
    tcase_add_test(tc, test_study_fails_cleanly);
    suite_add_tcase(s, tc);
    return s;
}
