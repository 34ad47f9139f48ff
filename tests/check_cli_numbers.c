/* check_cli_numbers.c - numbers in every CSV that cohmod writes take one
 * form: the shortest that reads back to the same double (data/table.h,
 * cm_fmt_double), and values that really are round read as such ("8",
 * "1", a swept 0.03), across the writers of models, solvers, the
 * simulators, profiles and the parameter dump. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/table.h"
#include "tests/testutil.h"

/* A whole-cell number other than nan/inf, as strtod reads it. */
static int cell_number(const char *s, double *v)
{
    char *end;
    if (!*s || !strchr("0123456789-.", *s)) return 0;
    *v = strtod(s, &end);
    return *end == '\0' && isfinite(*v);
}

/* Every numeric cell of the CSV text is written as cm_fmt_double writes
 * its value; returns the number of numeric cells seen. */
static size_t check_canonical(const char *what, const char *csv)
{
    cm_table *t = NULL;
    cm_err err = {0};
    ck_assert_msg(cm_table_read_buffer(what, csv, strlen(csv), &t, &err) ==
                      CM_OK, "%s", err.msg);
    size_t seen = 0;
    for (size_t r = 0; r < cm_table_nrows(t); r++)
        for (size_t c = 0; c < cm_table_ncols(t); c++) {
            const char *cell = cm_table_cell(t, r, c);
            double v;
            if (!cell_number(cell, &v)) continue;
            char want[32];
            cm_fmt_double(want, v);
            ck_assert_msg(strcmp(cell, want) == 0,
                          "%s row %zu column %s: '%s', not '%s'", what, r + 1,
                          cm_table_colname(t, c), cell, want);
            seen++;
        }
    cm_table_free(t);
    return seen;
}

static char *stdout_of(const char *args)
{
    tu_run r = tu_cohmod(args);
    ck_assert_msg(r.status == 0, "cohmod %s: %s", args, r.err);
    char *out = r.out;
    r.out = NULL;
    tu_run_free(&r);
    return out;
}

START_TEST(test_writers_use_one_form)
{
    static const char *const commands[] = {
        "model mshr --sweep l1.mshrs=8:32:8 --sweep wl.mem_rate=0.005:0.05:0.005",
        "model mshr --pmf --set l1.mshrs=16",
        "params --csv --config li2014",
        "queue erlang-b --servers 32 --load 25",
        "sim --workload kmn --set sim.max_cycles=5000 --set gpu.sms=1",
        "sim --workload bh --protocol tcw --set sim.max_cycles=3000"};
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
        char *out = stdout_of(commands[i]);
        ck_assert_msg(check_canonical(commands[i], out) >= 5, "%s: few numbers",
                      commands[i]);
        free(out);
    }
    /* the timing profile a coherence protocol's run records */
    char *dir = tu_tmpdir(), *prof = tu_path_in(dir, "p.csv");
    char args[4200];
    snprintf(args, sizeof args,
             "sim --workload bh --protocol tcw --set sim.max_cycles=3000 "
             "--profile-out %s --out %s/s.csv", prof, dir);
    free(stdout_of(args));
    char *text = tu_read_file(prof, NULL);
    ck_assert_uint_gt(check_canonical(prof, text), 10);
    free(text);
    free(prof);
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

/* A saturated MSHR file reads exactly full (it read 8.000000000000004
 * busy entries of 8 and P(full) 1.0000000000000004, above one), and
 * probabilities never leave [0, 1] nor occupancy [0, mshrs].  Since the
 * chain model of issue 26 (models/mshr.c: "P(full) between 0 and 1, not
 * a steady state that saturates") a returning request opens the pool
 * until the refused line takes the entry, so P(full) approaches 1 with
 * the load rather than reaching it: 8 MSHRs are nearly full at every
 * rate, fuller as the rate grows, and never more than full. */
START_TEST(test_saturated_values_are_round)
{
    char *out = stdout_of("model mshr --sweep l1.mshrs=8:32:8 "
                          "--sweep wl.mem_rate=0.1:0.7:0.1");
    cm_table *t = NULL;
    cm_err err = {0};
    ck_assert_int_eq(cm_table_read_buffer("mshr", out, strlen(out), &t, &err),
                     CM_OK);
    ck_assert_uint_eq(cm_table_nrows(t), 4 * 7);
    static const char *const rates[] = {"0.1", "0.2", "0.3", "0.4",
                                        "0.5", "0.6", "0.7"};
    double last_occ = 0, last_pf = 0;
    for (size_t r = 0; r < cm_table_nrows(t); r++) {
        ck_assert_str_eq(cm_table_cell(t, r, 1), rates[r % 7]);
        double mshrs = tu_num(t, r, "l1.mshrs");
        double occ = tu_num(t, r, "mean_occupancy");
        double pf = tu_num(t, r, "p_full"), rf = tu_num(t, r, "p_resfail");
        ck_assert(occ >= 0 && occ <= mshrs);
        ck_assert(pf >= 0 && pf <= 1);
        ck_assert(rf >= 0 && rf <= 1);
        if (pf == 1) ck_assert(occ == mshrs);
        if (mshrs == 8) { /* saturated: nearly full, rising with the rate */
            ck_assert_msg(occ >= 0.95 * mshrs && pf >= 0.9, "%g %g", occ, pf);
            ck_assert(occ >= last_occ && pf >= last_pf);
            last_occ = occ;
            last_pf = pf;
        }
    }
    cm_table_free(t);
    free(out);
}
END_TEST

Suite *suite_cli_numbers(void)
{
    Suite *s = suite_create("cli_numbers");
    TCase *tc = tcase_create("numbers");
    tcase_add_test(tc, test_writers_use_one_form);
    tcase_add_test(tc, test_saturated_values_are_round);
    suite_add_tcase(s, tc);
    return s;
}
