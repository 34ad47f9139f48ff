/* check_cli_directory.c - `cohmod model directory` end to end: a sweep of
 * L1 sizes for one protocol and for all, the parameter dump, byte-identical
 * reruns, help, and bad input as one line and exit 2 with no file
 * written. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "data/table.h"
#include "tests/testutil.h"

/* Loads with spread gaps and distances, a few remote writes, stores with
 * one or two other holders. */
static const char profile_csv[] = "quantity,lo,hi,value\n"
                                  "rate.l1_loads,,,0.8\n"
                                  "rate.l1_stores,,,0.2\n"
                                  "rate.l1_atomics,,,0\n"
                                  "rate.fill_latency,,,300\n"
                                  "l1.load_gap,0,100,30\n"
                                  "l1.load_gap,100,10000,40\n"
                                  "l1.load_gap,inf,inf,30\n"
                                  "l1.load_distance,0,64,30\n"
                                  "l1.load_distance,64,1024,40\n"
                                  "l1.load_distance,inf,inf,30\n"
                                  "l1.load_flags,0,1,30\n"
                                  "l1.load_flags,32,33,60\n"
                                  "l1.load_flags,33,34,10\n"
                                  "l1.store_gap,0,100,5\n"
                                  "l1.store_gap,inf,inf,5\n"
                                  "l1.store_flags,0,1,5\n"
                                  "l1.store_flags,1,2,5\n"
                                  "l1.write_sharers,0,1,5\n"
                                  "l1.write_sharers,1,3,5\n";

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

START_TEST(directory_sweep_to_file)
{
    char *dir = tu_tmpdir();
    char *prof = tu_write_file(dir, "prof.csv", profile_csv);
    char *out = tu_path_in(dir, "d.csv"),
         *dump = tu_path_in(dir, "d.params.csv");
    /* the model's own columns (its error estimates: check_cli_validity) */
    tu_run r = tu_cohmodf("model directory --profile %s --protocol gpu-vi "
                          "--sweep l1.size=8192,32768,131072 --validity "
                          "none --out %s",
                          prof, out);
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    ck_assert_str_eq(r.out, "");
    tu_run_free(&r);
    ck_assert(file_exists(dump));
    cm_table *t;
    cm_err err = {0};
    ck_assert_int_eq(cm_table_read_file(out, &t, &err), CM_OK);
    ck_assert_uint_eq(cm_table_nrows(t), 3);
    ck_assert_str_eq(cm_table_colname(t, 0), "l1.size");
    ck_assert_str_eq(cm_table_colname(t, 1), "protocol");
    ck_assert_str_eq(cm_table_colname(t, 2), "msgs_per_access");
    ck_assert_str_eq(cm_table_colname(t, 3), "flits_per_access");
    ck_assert_str_eq(cm_table_cell(t, 0, 1), "gpu-vi");
    for (size_t i = 0; i < 3; i++) {
        /* the classes sum to the total; the L1 helps more as it grows */
        double sum = 0;
        for (size_t c = 5; c < cm_table_ncols(t); c++) {
            ck_assert(strncmp(cm_table_colname(t, c), "msgs.", 5) == 0);
            sum += tu_num(t, i, cm_table_colname(t, c));
        }
        /* to the last digits: the cells carry every digit (6 digits
         * would leave the sum off by ~1e-6) */
        ck_assert_close(sum, tu_num(t, i, "msgs_per_access"), 1e-13);
        ck_assert(tu_num(t, i, "flits_per_access") >
                  tu_num(t, i, "msgs_per_access"));
        if (i)
            ck_assert(tu_num(t, i, "msgs_per_access") <
                      tu_num(t, i - 1, "msgs_per_access"));
    }
    ck_assert(tu_num(t, 0, "msgs.inv") > 0);
    cm_table_free(t);

    size_t len;
    char *first = tu_read_file(out, &len);
    r = tu_cohmodf("model directory --sweep l1.size=8192,32768,131072 "
                   "--protocol gpu-vi --profile %s --validity none --out %s",
                   prof, out);
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

/* --protocol all: one row per protocol per point, on stdout. */
START_TEST(directory_all_protocols)
{
    char *dir = tu_tmpdir();
    char *prof = tu_write_file(dir, "prof.csv", profile_csv);
    tu_run r = tu_cohmodf("model directory --profile %s --protocol all "
                          "--sweep l1.size=16384,65536", prof);
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    cm_table *t;
    cm_err err = {0};
    ck_assert_int_eq(cm_table_read_buffer("stdout", r.out, strlen(r.out), &t,
                                          &err), CM_OK);
    ck_assert_uint_eq(cm_table_nrows(t), 22);
    ck_assert_str_eq(cm_table_cell(t, 0, 1), "no-l1");
    ck_assert_str_eq(cm_table_cell(t, 10, 1), "tcw-fixed");
    ck_assert_str_eq(cm_table_cell(t, 11, 1), "no-l1");
    /* NO-L1 ignores the L1 size; NO-COH sends no invalidations */
    ck_assert_close(tu_num(t, 0, "msgs_per_access"),
                    tu_num(t, 11, "msgs_per_access"), 1e-9);
    ck_assert_double_eq(tu_num(t, 1, "msgs.inv"), 0);
    cm_table_free(t);
    tu_run_free(&r);
    tu_rm_tree(dir);
    free(dir);
    free(prof);
}
END_TEST

START_TEST(directory_help)
{
    tu_run r = tu_cohmod("model directory --help");
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "Usage: cohmod model directory"));
    ck_assert_ptr_nonnull(strstr(r.out, "--profile"));
    ck_assert_ptr_nonnull(strstr(r.out, "--sweep"));
    ck_assert_ptr_nonnull(strstr(r.out, "l1.accesses"));
    tu_run_free(&r);
    r = tu_cohmod("model --help");
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "directory"));
    tu_run_free(&r);
}
END_TEST

START_TEST(directory_bad_input)
{
    char *dir = tu_tmpdir();
    char *prof = tu_write_file(dir, "prof.csv", profile_csv);
    char *nost_text = strdup(profile_csv);
    *strstr(nost_text, "l1.store_gap") = '\0';
    char *nost = tu_write_file(dir, "nost.csv", nost_text);
    char *bad = tu_write_file(dir, "bad.csv",
                              "quantity,lo,hi,value\n"
                              "l1.load_gap,10,5,1\n");
    char *out = tu_path_in(dir, "o.csv");
    struct {
        const char *profile, *opts, *want;
    } cases[] = {
        {NULL, "--protocol wt", "--profile"},
        {prof, "", "--protocol"},
        {prof, "--protocol msi", "'msi'"},
        {nost, "--protocol wt", "l1.store_gap"},
        {bad, "--protocol wt", "bad.csv:2"},
        {"/nonexistent/none.csv", "--protocol wt", "none.csv"},
        {prof, "--protocol wt --sweep l1.size=0", "l1.size"},
        {prof, "--protocol wt extra", "'extra'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char args[2048];
        snprintf(args, sizeof args, "model directory%s%s %s --out %s",
                 cases[i].profile ? " --profile " : "",
                 cases[i].profile ? cases[i].profile : "", cases[i].opts,
                 out);
        tu_expect_rejected(args, cases[i].want);
        ck_assert_msg(!file_exists(out), "%s wrote %s", args, out);
    }
    tu_rm_tree(dir);
    free(dir);
    free(prof);
    free(nost_text);
    free(nost);
    free(bad);
    free(out);
}
END_TEST

Suite *suite_cli_directory(void)
{
    Suite *s = suite_create("cli_directory");
    TCase *tc = tcase_create("directory");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, directory_sweep_to_file);
    tcase_add_test(tc, directory_all_protocols);
    tcase_add_test(tc, directory_help);
    tcase_add_test(tc, directory_bad_input);
    suite_add_tcase(s, tc);
    return s;
}
