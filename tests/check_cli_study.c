/* check_cli_study.c - `cohmod study` end to end: the files it promises,
 * byte-identical reruns, and clean failures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testutil.h"

static const char *const promised[] = {
    "params.csv",           "summary.txt",
    "mshr_vs_entries.csv",  "mshr_vs_warps.csv",
    "mshr_occupancy_pmf.csv", "mshr_grid.csv",
    "mshr_pfull_vs_entries.png", "mshr_occupancy_vs_entries.png",
    "mshr_bandwidth_vs_entries.png", "mshr_pfull_vs_warps.png",
    "mshr_throughput_vs_warps.png", "mshr_occupancy_pmf.png",
    "reuse_mrc.csv", "reuse_mrc.png", "reuse_setassoc.csv",
    "reuse_setassoc.png", "reuse_fit.csv", "reuse_interleave.csv",
    "reuse_interleave.png"};
#define NPROMISED (sizeof promised / sizeof promised[0])

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
    char args[4400];
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

START_TEST(test_study_writes_everything)
{
    char *dir = tu_tmpdir();
    tu_run r = study(dir, "");
    ck_assert_msg(r.status == 0, "%s", r.err);
    /* The files above and the model-against-simulation subdirectories. */
    ck_assert_uint_eq(tu_dir_entries(dir), NPROMISED + 2);
    static const char *const validated[] = {
        "validate_mshr/points.csv", "validate_mshr/summary.csv",
        "validate_mshr/parity_occupancy.png", "validate_reuse/summary.csv",
        "validate_reuse/parity_l1_miss_ratio.png"};
    for (size_t i = 0; i < 5; i++) {
        size_t len = 0;
        char *p = tu_path_in(dir, validated[i]);
        char *bytes = tu_read_file(p, &len);
        ck_assert_msg(bytes != NULL && len > 100, "%s missing or tiny",
                      validated[i]);
        free(bytes);
        free(p);
    }
    for (size_t i = 0; i < NPROMISED; i++) {
        size_t len = 0;
        char *p = tu_path_in(dir, promised[i]);
        char *bytes = tu_read_file(p, &len);
        ck_assert_msg(bytes != NULL && len > 100, "%s missing or tiny",
                      promised[i]);
        if (strstr(promised[i], ".png"))
            ck_assert_int_eq(memcmp(bytes, "\x89PNG", 4), 0);
        free(bytes);
        free(p);
    }
    char *summary = read_in(dir, "summary.txt");
    ck_assert_ptr_nonnull(strstr(summary, "MSHRs saturate"));
    ck_assert_ptr_nonnull(strstr(summary, "mshr model against the simulator"));
    ck_assert_ptr_nonnull(strstr(summary, "reuse model against the simulator"));
    ck_assert_ptr_nonnull(strstr(summary, "16 SMs x 48 warps"));
    ck_assert_ptr_nonnull(strstr(summary, "Reuse distances of a real trace"));
    ck_assert_ptr_nonnull(strstr(summary, "mean absolute MRC error"));
    ck_assert_ptr_nonnull(strstr(r.out, "MSHRs saturate")); /* echoed */
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
    snprintf(opt, sizeof opt, "--trace %s", trace);
    tu_run ra = study(a, opt);
    char li[4300];
    snprintf(li, sizeof li, "%s --config li2014", opt);
    tu_run rb = study(b, li);
    ck_assert_int_eq(ra.status, 0);
    ck_assert_int_eq(rb.status, 0);
    char *sb = read_in(b, "summary.txt");
    ck_assert_ptr_nonnull(strstr(sb, "15 SMs x 48 warps, 32 L1 MSHRs"));
    free(sb);
    tu_run_free(&rb);
    tu_rm_tree(b);
    free(b);
    b = tu_tmpdir();
    rb = study(b, opt);
    const char *files[] = {"mshr_grid.csv", "mshr_vs_warps.csv",
                           "summary.txt",   "params.csv",
                           "reuse_mrc.csv", "reuse_setassoc.csv",
                           "reuse_fit.csv", "reuse_interleave.csv"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *x = read_in(a, files[i]), *y = read_in(b, files[i]);
        ck_assert_msg(x && y && strcmp(x, y) == 0, "%s differs", files[i]);
        free(x);
        free(y);
    }
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
    r = study(dir, "--trace /nonexistent.lackey");
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "/nonexistent.lackey"));
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
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_study_writes_everything);
    tcase_add_test(tc, test_study_is_deterministic_and_follows_config);
    tcase_add_test(tc, test_study_fails_cleanly);
    suite_add_tcase(s, tc);
    return s;
}
