/* check_cli_lifetime.c - `cohmod model lifetime` end to end: the table it
 * writes is the library's, the equilibrium columns agree with the Brent
 * root, --out leaves the parameter dump beside the result, and bad input is
 * one line and exit 2. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/params.h"
#include "data/table.h"
#include "models/lifetime.h"
#include "models/profile.h"
#include "tests/testutil.h"

/* A small profile with every quantity the model reads; `skip` names one
 * distribution to leave out (or NULL). */
static char *write_profile(const char *dir, const char *skip)
{
    static const char *const names[] = {
        "l1.reuse_time", "l1.residency", "l2.read_to_write",
        "l2.load_gap",   "l2.evict_age", "warp.store_to_fence"};
    static const struct { const char *name; double v; } rates[] = {
        {"rate.l1_fills", 0.5},     {"rate.l1_loads", 2},
        {"rate.l2_loads", 0.6},     {"rate.l2_stores", 0.2},
        {"rate.l2_evictions", 0.3}, {"rate.fences", 0.01},
        {"rate.l2_banks", 8},       {"rate.store_ack_latency", 300}};
    cm_profile *p = cm_profile_new();
    cm_err err = {0};
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++)
        ck_assert_int_eq(cm_profile_set_rate(p, rates[i].name, rates[i].v,
                                             &err), CM_OK);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (skip && strcmp(skip, names[i]) == 0) continue;
        /* geometric bins, weights falling with a scale per quantity */
        double scale = 300.0 * (double)(i + 1), lo = 0;
        for (int k = 0; k < 30; k++) {
            double hi = 10 * pow(1.35, k);
            ck_assert_int_eq(cm_profile_add_bin(p, names[i], lo, hi,
                                                exp(-lo / scale) -
                                                    exp(-hi / scale), &err),
                             CM_OK);
            lo = hi;
        }
        ck_assert_int_eq(cm_profile_add_bin(p, names[i], lo, INFINITY, 0.25,
                                            &err), CM_OK);
    }
    char *path = tu_path_in(dir, skip ? "partial.csv" : "profile.csv");
    ck_assert_msg(cm_profile_write(p, path, &err) == CM_OK, "%s", err.msg);
    cm_profile_free(p);
    return path;
}

static tu_run cohmod(const char *fmt, const char *a, const char *b)
{
    char args[4096];
    snprintf(args, sizeof args, fmt, a, b);
    return tu_cohmod(args);
}

/* A run that must fail with exit 2, one line on stderr naming `want`. */
static void expect_usage_error(tu_run r, const char *want)
{
    ck_assert_msg(r.status == 2, "exit %d: %s", r.status, r.err);
    ck_assert_str_eq(r.out, "");
    ck_assert_msg(tu_count_lines(r.err) == 1 && strstr(r.err, want),
                  "stderr '%s' lacks '%s'", r.err, want);
    tu_run_free(&r);
}

START_TEST(lifetime_help)
{
    tu_run r = tu_cohmod("model lifetime --help");
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "Usage: cohmod model lifetime"));
    ck_assert_ptr_nonnull(strstr(r.out, "--profile FILE"));
    ck_assert_ptr_nonnull(strstr(r.out, "--equilibrium"));
    tu_run_free(&r);
    r = tu_cohmod("model --help");
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "model lifetime"));
    tu_run_free(&r);
}
END_TEST

START_TEST(lifetime_table_is_the_model)
{
    char *dir = tu_tmpdir(), *prof = write_profile(dir, NULL);
    /* the model's own columns (its error estimates: check_cli_validity) */
    tu_run r = cohmod("model lifetime --profile %s --lifetimes %s "
                      "--equilibrium --set tc.t_hit=2 --validity none",
                      prof, "0:1500:500");
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    ck_assert_str_eq(r.err, "");
    static const char hdr[] =
        "lifetime,p_hit,p_expired,p_evicted,p_unused,store_stall,hol_delay,"
        "fence_wait,parked_mshrs,drift,store_stall_rate,parked_rate,"
        "store_stall_shared,speed_strong,speed_weak,p_hit_strong,"
        "p_expired_strong,equilibrium,"
        "equilibrium_bound,stationary_mean\n";
    ck_assert_msg(strncmp(r.out, hdr, strlen(hdr)) == 0, "%s", r.out);
    cm_table *t;
    cm_err err = {0};
    ck_assert_int_eq(cm_table_read_buffer("out", r.out, strlen(r.out), &t,
                                          &err), CM_OK);
    ck_assert_uint_eq(cm_table_nrows(t), 4);

    /* the library on the same profile and parameters */
    cm_profile *p;
    ck_assert_int_eq(cm_profile_read(prof, &p, &err), CM_OK);
    cm_params par;
    cm_params_init(&par);
    par.tc_t_hit = 2;
    cm_lifetime_input in;
    ck_assert_int_eq(cm_lifetime_input_from_profile(p, &par, &in, &err),
                     CM_OK);
    double eq;
    cm_lifetime_bound b;
    ck_assert_int_eq(cm_lifetime_equilibrium(&in, &eq, &b, &err), CM_OK);
    for (size_t i = 0; i < 4; i++) {
        cm_lifetime_result m;
        ck_assert_int_eq(cm_lifetime_eval(&in, 500.0 * (double)i, &m, &err),
                         CM_OK);
        ck_assert_double_eq(tu_num(t, i, "lifetime"), 500.0 * (double)i);
        ck_assert_double_eq(tu_num(t, i, "p_hit"), m.p_hit);
        ck_assert_double_eq(tu_num(t, i, "fence_wait"), m.fence_wait);
        ck_assert_msg(tu_num(t, i, "drift") == m.drift, "row %zu: drift %.17g, library %.17g", i, tu_num(t, i, "drift"), m.drift);
        double sum = tu_num(t, i, "p_hit") + tu_num(t, i, "p_expired") +
                     tu_num(t, i, "p_evicted") + tu_num(t, i, "p_unused");
        ck_assert_double_eq_tol(sum, 1, 1e-12);
        ck_assert_double_eq(tu_num(t, i, "equilibrium"), eq);
        ck_assert_str_eq(cm_table_cell(t, i, 18), cm_lifetime_bound_name(b));
    }
    ck_assert_int_eq(b, CM_LIFETIME_ROOT);
    double smean = tu_num(t, 0, "stationary_mean");
    ck_assert_double_eq_tol(smean, eq, 0.1 * eq);
    cm_profile_free(p);
    cm_table_free(t);
    tu_run_free(&r);

    /* --out: nothing on stdout, the result and its parameter dump */
    char *out = tu_path_in(dir, "life.csv");
    r = cohmod("model lifetime --profile %s --out %s", prof, out);
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    ck_assert_str_eq(r.out, "");
    tu_run_free(&r);
    char *text = tu_read_file(out, NULL), *dump = tu_path_in(dir,
                                                             "life.params.csv");
    ck_assert_ptr_nonnull(text);
    ck_assert_uint_eq(tu_count_lines(text), 3); /* the two fixed lifetimes */
    ck_assert_ptr_nonnull(strstr(text, "\n400,"));
    ck_assert_ptr_nonnull(strstr(text, "\n1600,"));
    char *dtext = tu_read_file(dump, NULL);
    ck_assert_ptr_nonnull(dtext);
    ck_assert_ptr_nonnull(strstr(dtext, "tc.t_hit,4"));
    free(dtext), free(text), free(dump), free(out);
    tu_rm_tree(dir);
    free(prof), free(dir);
}
END_TEST

START_TEST(lifetime_bad_input)
{
    char *dir = tu_tmpdir(), *prof = write_profile(dir, NULL);
    char *partial = write_profile(dir, "l2.load_gap");
    char *bad = tu_write_file(dir, "bad.csv",
                              "quantity,lo,hi,value\n"
                              "rate.fences,,,1\n"
                              "l1.reuse_time,0,ten,1\n");
    expect_usage_error(tu_cohmod("model lifetime --lifetimes 1,2"),
                       "which profile");
    expect_usage_error(cohmod("model lifetime --profile %s --lifetimes %s",
                              prof, "1,x"), "--lifetimes '1,x'");
    expect_usage_error(cohmod("model lifetime --profile %s --lifetimes %s",
                              prof, "9:1:1"), "--lifetimes");
    expect_usage_error(cohmod("model lifetime --profile %s%s", bad, ""),
                       "bad.csv:3:17:");
    expect_usage_error(cohmod("model lifetime --profile %s%s", partial, ""),
                       "no distribution 'l2.load_gap'");
    expect_usage_error(cohmod("model lifetime --profile %s --bogus%s", prof,
                              ""), "'--bogus'");
    expect_usage_error(cohmod("model lifetime --profile %s --set %s", prof,
                              "tc.predictor_min=-1"), "tc.predictor_min");
    /* issue 25: above tc.lifetime_*'s maximum it used to compute inf */
    expect_usage_error(cohmod("model lifetime --profile %s --lifetimes %s",
                              prof, "4294967296"), "out of range");
    expect_usage_error(cohmod("model lifetime --profile %s --lifetimes %s",
                              prof, "0:4294967296:1000000"), "out of range");
    free(bad), free(partial), free(prof);
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

/* Rates of 1e308 drove the drift to inf, reported as an internal failure
 * (exit 1); the profile is the bad input, and its cell is named. */
START_TEST(lifetime_profile_out_of_domain)
{
    char *dir = tu_tmpdir(), *prof = write_profile(dir, NULL);
    char *text = tu_read_file(prof, NULL);
    ck_assert_ptr_nonnull(text);
    const char *cases[][2] = {{"rate.l2_loads,,,0.6\n", "rate.l2_loads,,,1e308\n"},
                              {"rate.fences,,,0.01\n", "rate.fences,,,1e-320\n"}};
    const char *want[] = {"'1e308' is beyond 1e15", "'1e-320' underflows"};
    for (size_t i = 0; i < 2; i++) {
        char *at = strstr(text, cases[i][0]);
        ck_assert_msg(at != NULL, "no '%s' in the profile", cases[i][0]);
        char body[65536];
        snprintf(body, sizeof body, "%.*s%s%s", (int)(at - text), text,
                 cases[i][1], at + strlen(cases[i][0]));
        char *bad = tu_write_file(dir, "hostile.csv", body);
        tu_run r = cohmod("model lifetime --profile %s%s", bad,
                          " --equilibrium");
        expect_usage_error(r, want[i]);
        r = cohmod("model lifetime --profile %s%s", bad, "");
        ck_assert_ptr_nonnull(strstr(r.err, "hostile.csv:"));
        tu_run_free(&r);
        free(bad);
    }
    free(text);
    free(prof);
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

Suite *suite_cli_lifetime(void)
{
    Suite *s = suite_create("cli_lifetime");
    TCase *tc = tcase_create("lifetime");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, lifetime_help);
    tcase_add_test(tc, lifetime_table_is_the_model);
    tcase_add_test(tc, lifetime_bad_input);
    tcase_add_test(tc, lifetime_profile_out_of_domain);
    suite_add_tcase(s, tc);
    return s;
}
