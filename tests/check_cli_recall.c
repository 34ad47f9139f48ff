/* check_cli_recall.c - `cohmod model recall` end to end: a sweep of
 * directory sizes and associativities from a profile file, the parameter
 * dump, byte-identical reruns, the L2 geometry of GPU-VI, help, and bad
 * input as one line and exit 2 with no file written. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "data/table.h"
#include "tests/testutil.h"

/* A small profile: log2 stack-distance bins with a tail and cold lines,
 * residencies with a never-evicted share, one to four sharers. */
static const char profile_csv[] =
    "quantity,lo,hi,value\n"
    "rate.dir_accesses,,,0.5\n"
    "rate.l2_banks,,,8\n"
    "dir.stack_distance,0,1,40\n"
    "dir.stack_distance,1,16,200\n"
    "dir.stack_distance,16,256,300\n"
    "dir.stack_distance,256,4096,250\n"
    "dir.stack_distance,4096,65536,150\n"
    "dir.stack_distance,65536,1048576,40\n"
    "dir.stack_distance,inf,inf,20\n"
    "l1.residency,0,100,10\n"
    "l1.residency,100,1000,30\n"
    "l1.residency,1000,10000,40\n"
    "l1.residency,10000,100000,10\n"
    "l1.residency,inf,inf,10\n"
    "dir.sharers,1,2,70\n"
    "dir.sharers,2,3,20\n"
    "dir.sharers,4,5,10\n";

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

START_TEST(recall_sweep_to_file)
{
    char *dir = tu_tmpdir();
    char *prof = tu_write_file(dir, "prof.csv", profile_csv);
    char *out = tu_path_in(dir, "r.csv"), *dump = tu_path_in(dir,
                                                             "r.params.csv");
    tu_run r = tu_cohmodf("model recall --profile %s --protocol gpu-vini "
                       "--sweep dir.ratio=1,2,4,16 --sweep dir.ways=8,16,32 "
                       "--out %s", prof, out);
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    ck_assert_str_eq(r.out, "");
    tu_run_free(&r);
    ck_assert(file_exists(dump));
    size_t len;
    char *params = tu_read_file(dump, &len);
    ck_assert_ptr_nonnull(strstr(params, "dir.ratio"));
    free(params);

    cm_table *t;
    cm_err err = {0};
    ck_assert_int_eq(cm_table_read_file(out, &t, &err), CM_OK);
    ck_assert_uint_eq(cm_table_nrows(t), 12);
    ck_assert_str_eq(cm_table_colname(t, 0), "dir.ratio");
    ck_assert_str_eq(cm_table_colname(t, 1), "dir.ways");
    ck_assert_str_eq(cm_table_cell(t, 0, 2), "gpu-vini");
    /* rows: ratio slowest, ways fastest; recalls fall along both */
    for (size_t i = 0; i < 12; i++) {
        double ratio = tu_num(t, i, "dir.ratio"), ways = tu_num(t, i, "dir.ways");
        /* tc2013: 16 SMs x 256 L1 lines */
        ck_assert_double_eq(tu_num(t, i, "dir_entries"), ratio * 4096);
        ck_assert_double_eq(tu_num(t, i, "dir_ways"), ways);
        double p = tu_num(t, i, "p_live");
        ck_assert(p >= 0 && p <= 1);
        ck_assert(tu_num(t, i, "recalls_per_access") > 0);
        if (i % 3)
            ck_assert(tu_num(t, i, "recalls_per_access") <
                      tu_num(t, i - 1, "recalls_per_access"));
        if (i >= 3)
            ck_assert(tu_num(t, i, "recalls_per_access") <
                      tu_num(t, i - 3, "recalls_per_access"));
        ck_assert_double_eq_tol(tu_num(t, i, "recalls_per_cycle"),
                                0.5 * tu_num(t, i, "recalls_per_access"),
                                1e-12);
    }
    cm_table_free(t);

    /* deterministic: the same inputs give the same bytes */
    char *first = tu_read_file(out, &len);
    r = tu_cohmodf("model recall --protocol gpu-vini --sweep dir.ratio=1,2,4,16 "
                "--sweep dir.ways=8,16,32 --profile %s --out %s", prof, out);
    ck_assert_int_eq(r.status, 0);
    tu_run_free(&r);
    char *second = tu_read_file(out, &len);
    ck_assert_str_eq(first, second);
    free(first);
    free(second);
    tu_rm_tree(dir);
    free(dir);
    free(prof);
    free(out);
    free(dump);
}
END_TEST

/* GPU-VI's directory is the L2 (8 banks x 128 KB / 128 B, 8-way on
 * tc2013), whatever dir.ratio says; CSV on stdout. */
START_TEST(recall_gpu_vi_stdout)
{
    char *dir = tu_tmpdir();
    char *prof = tu_write_file(dir, "prof.csv", profile_csv);
    tu_run r = tu_cohmodf("model recall --profile %s --protocol gpu-vi "
                       "--set dir.ratio=16", prof);
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    cm_table *t;
    cm_err err = {0};
    ck_assert_int_eq(cm_table_read_buffer("stdout", r.out, strlen(r.out), &t,
                                          &err), CM_OK);
    ck_assert_uint_eq(cm_table_nrows(t), 1);
    ck_assert_double_eq(tu_num(t, 0, "dir_entries"), 8192);
    ck_assert_double_eq(tu_num(t, 0, "dir_sets"), 1024);
    ck_assert_double_eq(tu_num(t, 0, "l2_evict_per_access"),
                        tu_num(t, 0, "p_dir_evict"));
    /* sharers 1, 2, 4 with weights 70, 20, 10 */
    ck_assert_double_eq_tol(tu_num(t, 0, "mean_sharers"), 1.5, 1e-12);
    cm_table_free(t);
    tu_run_free(&r);
    tu_rm_tree(dir);
    free(dir);
    free(prof);
}
END_TEST

/* Issue 23, item 2: a profile taken under a protocol without sharer lists
 * (tcw: dir.sharers all at 0) gave recalls_per_access = 0 on every row at
 * exit 0.  It is refused, and so is a profile without the row; the error
 * names the protocol to profile under, and nothing is written. */
START_TEST(recall_refuses_sharerless_profile)
{
    char *dir = tu_tmpdir();
    char text[sizeof profile_csv + 64];
    snprintf(text, sizeof text, "%s", profile_csv);
    char *cut = strstr(text, "dir.sharers");
    strcpy(cut, "dir.sharers,0,1,5235340\n");
    char *zero = tu_write_file(dir, "zero.csv", text);
    *cut = '\0';
    char *none = tu_write_file(dir, "none.csv", text);
    char *out = tu_path_in(dir, "r.csv"), args[4096];
    static const char *const protos[] = {"gpu-vini", "gpu-vi", "mesi"};
    for (int i = 0; i < 3; i++) {
        char want[64];
        snprintf(want, sizeof want, "profile under %s", protos[i]);
        snprintf(args, sizeof args, "model recall --profile %s --protocol %s "
                 "--sweep dir.ratio=1,2 --out %s", zero, protos[i], out);
        tu_expect_rejected(args, want);
        tu_expect_rejected(args, "lists no sharer");
        snprintf(args, sizeof args, "model recall --profile %s --protocol %s "
                 "--out %s", none, protos[i], out);
        tu_expect_rejected(args, want);
        tu_expect_rejected(args, "dir.sharers");
        ck_assert(!file_exists(out));
    }
    free(zero);
    free(none);
    free(out);
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

START_TEST(recall_help)
{
    tu_run r = tu_cohmod("model recall --help");
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "Usage: cohmod model recall"));
    ck_assert_ptr_nonnull(strstr(r.out, "--profile"));
    ck_assert_ptr_nonnull(strstr(r.out, "--config"));
    ck_assert_ptr_nonnull(strstr(r.out, "dir.stack_distance"));
    tu_run_free(&r);
    r = tu_cohmod("model --help");
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "recall"));
    tu_run_free(&r);
}
END_TEST

START_TEST(recall_bad_input)
{
    char *dir = tu_tmpdir();
    char *prof = tu_write_file(dir, "prof.csv", profile_csv);
    /* the same profile without its sharer counts */
    char *nosh_text = strdup(profile_csv);
    *strstr(nosh_text, "dir.sharers") = '\0';
    char *nosh = tu_write_file(dir, "nosh.csv", nosh_text);
    char *bad = tu_write_file(dir, "bad.csv",
                              "quantity,lo,hi,value\n"
                              "dir.stack_distance,10,5,1\n");
    char *out = tu_path_in(dir, "o.csv");
    const char *none = "/nonexistent/none.csv";
    struct {
        const char *profile, *opts, *want;
    } cases[] = {
        {NULL, "--protocol mesi", "--profile"},
        {prof, "", "--protocol"},
        {prof, "--protocol msi", "'msi'"},
        {nosh, "--protocol mesi", "dir.sharers"},
        {bad, "--protocol mesi", "bad.csv:2"},
        {none, "--protocol mesi", "none.csv"},
        {prof, "--protocol gpu-vini --sweep dir.ways=0", "dir.ways"},
        {prof, "--protocol gpu-vi --set l2.ways=2048", "l2.ways"},
        {prof, "--protocol mesi extra", "'extra'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char args[2048];
        snprintf(args, sizeof args, "model recall%s%s %s --out %s",
                 cases[i].profile ? " --profile " : "",
                 cases[i].profile ? cases[i].profile : "", cases[i].opts,
                 out);
        tu_run r = tu_cohmod(args);
        ck_assert_msg(r.status == 2, "%s: exit %d, %s", args, r.status, r.err);
        ck_assert_str_eq(r.out, "");
        ck_assert_msg(tu_count_lines(r.err) == 1, "%s: %s", args, r.err);
        ck_assert_msg(strstr(r.err, cases[i].want) != NULL, "%s: '%s'", args,
                      r.err);
        ck_assert_msg(!file_exists(out), "%s wrote %s", args, out);
        tu_run_free(&r);
    }
    tu_rm_tree(dir);
    free(dir);
    free(prof);
    free(nosh_text);
    free(nosh);
    free(bad);
    free(out);
}
END_TEST

Suite *suite_cli_recall(void)
{
    Suite *s = suite_create("cli_recall");
    TCase *tc = tcase_create("recall");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, recall_sweep_to_file);
    tcase_add_test(tc, recall_gpu_vi_stdout);
    tcase_add_test(tc, recall_help);
    tcase_add_test(tc, recall_refuses_sharerless_profile);
    tcase_add_test(tc, recall_bad_input);
    suite_add_tcase(s, tc);
    return s;
}
