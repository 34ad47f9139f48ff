/* check_params.c - the parameter registry, presets and sweeps. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/number.h"
#include "data/params.h"
#include "data/sweep.h"
#include "tests/testutil.h"

START_TEST(test_defaults_match_tc2013_preset)
{
    /* The embedded default restates data/configs/tc2013.csv exactly. */
    cm_params def, pre;
    cm_params_init(&def);
    cm_params_init(&pre);
    for (size_t i = 0; i < cm_param_count(); i++) /* poison */
        cm_param_put(&pre, cm_param_at(i), -12345);
    cm_err err = {0};
    ck_assert_msg(cm_params_load(&pre, "tc2013", &err) == CM_OK, "%s",
                  err.msg);
    for (size_t i = 0; i < cm_param_count(); i++) {
        const cm_param_info *pi = cm_param_at(i);
        static const char *const machine[] = {"gpu.", "sched.", "l1.",
                                              "l2.", "dram.", "noc."};
        int is_machine = 0;
        for (size_t m = 0; m < sizeof machine / sizeof machine[0]; m++)
            is_machine |= strncmp(pi->name, machine[m],
                                  strlen(machine[m])) == 0;
        if (!is_machine) continue; /* workload, model, measurement knobs */
        ck_assert_msg(cm_param_get(&pre, pi) == cm_param_get(&def, pi),
                      "%s: preset %g, default %g", pi->name,
                      cm_param_get(&pre, pi), cm_param_get(&def, pi));
    }
}
END_TEST

START_TEST(test_every_default_in_range_and_presets_valid)
{
    for (size_t i = 0; i < cm_param_count(); i++) {
        const cm_param_info *pi = cm_param_at(i);
        char text[64];
        double v;
        cm_param_format(pi, pi->def, text, sizeof text);
        cm_err err = {0};
        ck_assert_msg(cm_param_parse(pi, text, &v, &err) == CM_OK, "%s: %s",
                      pi->name, err.msg);
        ck_assert_msg(v == pi->def, "%s does not round-trip", pi->name);
        ck_assert_ptr_eq(cm_param_find(pi->name), pi);
    }
    ck_assert_uint_ge(cm_preset_count(), 2);
    for (size_t i = 0; i < cm_preset_count(); i++) {
        cm_params p;
        cm_params_init(&p);
        cm_err err = {0};
        ck_assert_msg(cm_params_load(&p, cm_preset_name(i), &err) == CM_OK,
                      "%s", err.msg);
        ck_assert_msg(cm_params_validate(&p, &err) == CM_OK, "%s", err.msg);
    }
}
END_TEST

START_TEST(test_set_errors_name_the_range)
{
    cm_params p;
    cm_params_init(&p);
    cm_err err = {0};
    ck_assert_int_eq(cm_params_assign(&p, "l1.mshrs=64", &err), CM_OK);
    ck_assert_double_eq(p.l1_mshrs, 64);
    ck_assert_int_eq(cm_params_assign(&p, "l1.mshrs=0", &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "l1.mshrs"));
    ck_assert_ptr_nonnull(strstr(err.msg, "1..100000"));
    ck_assert_int_eq(cm_params_assign(&p, "l1.mshrs=3.5", &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "integer"));
    ck_assert_int_eq(cm_params_assign(&p, "l1.mshrs=abc", &err), CM_EINPUT);
    ck_assert_int_eq(cm_params_assign(&p, "l1.mshrs=", &err), CM_EINPUT);
    ck_assert_int_eq(cm_params_assign(&p, "l1.mshrs=nan", &err), CM_EINPUT);
    ck_assert_int_eq(cm_params_assign(&p, "no.such=1", &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "unknown parameter 'no.such'"));
    ck_assert_int_eq(cm_params_assign(&p, "noequals", &err), CM_EINPUT);
    ck_assert_double_eq(p.l1_mshrs, 64); /* failures change nothing */
    ck_assert_int_eq(cm_params_assign(&p, "l1.size=16K", &err), CM_OK);
    ck_assert_double_eq(p.l1_size, 16384);
    ck_assert_int_eq(cm_params_assign(&p, "l2.bank_size=1M", &err), CM_OK);
    ck_assert_double_eq(p.l2_bank_size, 1048576);
    ck_assert_int_eq(cm_params_assign(&p, "l1.mshrs=2K", &err), CM_EINPUT);
    ck_assert_int_eq(cm_params_assign(&p, "l1.size=16Q", &err), CM_EINPUT);
    ck_assert_int_eq(cm_params_assign(&p, "sched.policy=gto", &err), CM_OK);
    ck_assert_double_eq(p.sched_policy, 1);
    ck_assert_int_eq(cm_params_assign(&p, "sched.policy=fifo", &err),
                     CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "lrr|gto|two-level"));
}
END_TEST

START_TEST(test_config_file_errors_have_positions)
{
    char *dir = tu_tmpdir();
    char *bad = tu_write_file(dir, "m.csv",
                              "parameter,value\nl1.mshrs,64\nl1.ways,x\n");
    cm_params p;
    cm_params_init(&p);
    cm_err err = {0};
    ck_assert_int_eq(cm_params_load(&p, bad, &err), CM_EINPUT);
    ck_assert_msg(strstr(err.msg, "m.csv:3:9:") != NULL, "%s", err.msg);
    char *unk = tu_write_file(dir, "u.csv", "parameter,value\nl9.x,1\n");
    ck_assert_int_eq(cm_params_load(&p, unk, &err), CM_EINPUT);
    ck_assert_msg(strstr(err.msg, "u.csv:2:1: unknown parameter 'l9.x'"),
                  "%s", err.msg);
    ck_assert_int_eq(cm_params_load(&p, "nosuchpreset", &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "tc2013"));
    unlink(bad);
    unlink(unk);
    rmdir(dir);
    free(bad);
    free(unk);
    free(dir);
}
END_TEST

START_TEST(test_validate_cross_checks)
{
    cm_params p;
    cm_params_init(&p);
    cm_err err = {0};
    p.sched_active_warps = 64;
    ck_assert_int_eq(cm_params_validate(&p, &err), CM_EINPUT);
    cm_params_init(&p);
    p.l1_size = 32768 + 128;
    ck_assert_int_eq(cm_params_validate(&p, &err), CM_EINPUT);
    cm_params_init(&p);
    p.l2_line = 96;
    ck_assert_int_eq(cm_params_validate(&p, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "l2.line: 96 B is not a power"));
}
END_TEST

START_TEST(test_sweep_grid)
{
    cm_sweep sw[2];
    cm_err err = {0};
    ck_assert_int_eq(cm_sweep_parse("l1.mshrs=8:32:8", &sw[0], &err), CM_OK);
    ck_assert_uint_eq(sw[0].n, 4);
    ck_assert_double_eq(sw[0].values[3], 32);
    ck_assert_int_eq(cm_sweep_parse("wl.mem_rate=0.01,0.1", &sw[1], &err),
                     CM_OK);
    cm_grid g;
    ck_assert_int_eq(cm_grid_init(&g, sw, 2, &err), CM_OK);
    ck_assert_uint_eq(g.points, 8);
    cm_params p;
    cm_params_init(&p);
    size_t n = 0;
    double seen_rate_sum = 0;
    while (cm_grid_next(&g, &p)) {
        ck_assert_double_eq(p.l1_mshrs, 8 + 8 * (double)(n / 2));
        seen_rate_sum += p.wl_mem_rate;
        n++;
    }
    ck_assert_uint_eq(n, 8);
    ck_assert_close(seen_rate_sum, 4 * 0.11, 1e-12);
    cm_grid_free(&g);
    cm_sweep_free(&sw[0]);
    cm_sweep_free(&sw[1]);
    cm_sweep bad;
    ck_assert_int_eq(cm_sweep_parse("l1.mshrs=0:8:1", &bad, &err), CM_EINPUT);
    ck_assert_int_eq(cm_sweep_parse("l1.mshrs=8:4:1", &bad, &err), CM_EINPUT);
    ck_assert_int_eq(cm_sweep_parse("l1.mshrs=1:8:0", &bad, &err), CM_EINPUT);
    ck_assert_int_eq(cm_sweep_parse("zz=1:8:1", &bad, &err), CM_EINPUT);
    ck_assert_int_eq(cm_sweep_parse("l1.mshrs", &bad, &err), CM_EINPUT);
}
END_TEST

/* A range's values are the decimals the user meant, not lo + i step with
 * its binary error (0.030000000000000002 in every table), and a step too
 * fine for 15 digits still gives distinct increasing values. */
START_TEST(test_sweep_range_is_decimal)
{
    static const char *const want[] = {"0.005", "0.01", "0.015", "0.02",
                                       "0.025", "0.03", "0.035", "0.04",
                                       "0.045", "0.05"};
    cm_sweep sw;
    cm_err err = {0};
    ck_assert_int_eq(cm_sweep_parse("wl.mem_rate=0.005:0.05:0.005", &sw, &err),
                     CM_OK);
    ck_assert_uint_eq(sw.n, 10);
    for (size_t i = 0; i < 10; i++) {
        char buf[32];
        cm_fmt_double(buf, sw.values[i]);
        ck_assert_str_eq(buf, want[i]);
    }
    cm_sweep_free(&sw);
    ck_assert_int_eq(cm_sweep_parse("wl.mem_rate=0.1:0.7:0.1", &sw, &err),
                     CM_OK);
    ck_assert_uint_eq(sw.n, 7);
    ck_assert_double_eq(sw.values[2], 0.3);
    cm_sweep_free(&sw);
    ck_assert_int_eq(cm_sweep_parse("wl.mem_rate=0.1:0.1000000000000004:1e-16",
                                    &sw, &err), CM_OK);
    ck_assert_uint_ge(sw.n, 4);
    for (size_t i = 1; i < sw.n; i++)
        ck_assert(sw.values[i] > sw.values[i - 1]);
    cm_sweep_free(&sw);
}
END_TEST

/* Shard I of N: contiguous slices that cover every point once, in order,
 * and a grid whose first sweep carries the shard yields exactly its
 * slice of the whole grid's points. */
START_TEST(test_shard_slices)
{
    static const size_t sizes[] = {0, 1, 5, 27, 100};
    for (size_t k = 0; k < 5; k++)
        for (unsigned n = 1; n <= 9; n++) {
            size_t next = 0;
            for (unsigned i = 1; i <= n; i++) {
                cm_shard sh = {i, n};
                size_t first, end;
                cm_shard_range(&sh, sizes[k], &first, &end);
                ck_assert_uint_eq(first, next);
                ck_assert_uint_le(first, end);
                ck_assert_uint_le(end - first, sizes[k] / n + 1);
                next = end;
            }
            ck_assert_uint_eq(next, sizes[k]);
        }
    cm_sweep sw[2];
    cm_err err = {0};
    ck_assert_int_eq(cm_sweep_parse("l1.mshrs=8:40:8", &sw[0], &err), CM_OK);
    ck_assert_int_eq(cm_sweep_parse("l1.ways=1,2,4", &sw[1], &err), CM_OK);
    size_t seen = 0;
    for (unsigned i = 1; i <= 4; i++) {
        sw[0].shard = (cm_shard){i, 4};
        cm_grid g;
        ck_assert_int_eq(cm_grid_init(&g, sw, 2, &err), CM_OK);
        cm_params p;
        cm_params_init(&p);
        while (cm_grid_next(&g, &p)) { /* point k is (k / 3, k % 3) */
            ck_assert_double_eq(p.l1_mshrs, 8 + 8 * (double)(seen / 3));
            ck_assert_double_eq(p.l1_ways, (double)(1u << (seen % 3)));
            seen++;
        }
        cm_grid_free(&g);
    }
    ck_assert_uint_eq(seen, 15);
    cm_shard bad;
    ck_assert_int_eq(cm_shard_parse("2/1", &bad, &err), CM_EINPUT);
    ck_assert_int_eq(cm_shard_parse("1/", &bad, &err), CM_EINPUT);
    ck_assert_int_eq(cm_shard_parse("-1/3", &bad, &err), CM_EINPUT);
    ck_assert_int_eq(cm_shard_parse("1/3x", &bad, &err), CM_EINPUT);
    ck_assert_int_eq(cm_shard_parse("3/3", &bad, &err), CM_OK);
    cm_sweep_free(&sw[0]);
    cm_sweep_free(&sw[1]);
}
END_TEST

START_TEST(test_dump_round_trips)
{
    char *dir = tu_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/d.csv", dir);
    cm_params p, q;
    cm_params_init(&p);
    p.l1_mshrs = 77;
    p.wl_mem_rate = 0.0123;
    p.sched_policy = 2;
    cm_err err = {0};
    ck_assert_int_eq(cm_params_write_dump(&p, path, &err), CM_OK);
    cm_params_init(&q);
    ck_assert_msg(cm_params_load(&q, path, &err) == CM_OK, "%s", err.msg);
    ck_assert_int_eq(memcmp(&p, &q, sizeof p), 0);
    unlink(path);
    rmdir(dir);
    free(dir);
}
END_TEST

START_TEST(test_number_read)
{
    static const struct {
        const char *text;
        cm_num_status want;
    } cs[] = {{"1.5", CM_NUM_OK},         {" 2e3 ", CM_NUM_OK},
              {"0", CM_NUM_OK},           {"-0.0", CM_NUM_OK},
              {"0x1p-1022", CM_NUM_OK},   {"2.2250738585072014e-308", CM_NUM_OK},
              {"1e-320", CM_NUM_UNDERFLOW}, {"-1e-320", CM_NUM_UNDERFLOW},
              {"0x1p-1074", CM_NUM_UNDERFLOW}, {"1e-400", CM_NUM_UNDERFLOW},
              {"1e999", CM_NUM_OVERFLOW}, {"-1e999", CM_NUM_OVERFLOW},
              {"inf", CM_NUM_NOT_FINITE}, {"nan", CM_NUM_NOT_FINITE},
              {"", CM_NUM_SYNTAX},        {"1x", CM_NUM_SYNTAX},
              {"abc", CM_NUM_SYNTAX},     {"1 2", CM_NUM_SYNTAX}};
    for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
        double v = -1;
        ck_assert_msg(cm_number_read(cs[i].text, &v) == cs[i].want,
                      "'%s'", cs[i].text);
        ck_assert(cm_number_why(cs[i].want) != NULL);
    }
    double v;
    ck_assert_int_eq(cm_number_read("1e-320", &v), CM_NUM_UNDERFLOW);
    ck_assert(v > 0 && v < DBL_MIN); /* what strtod gave */
    ck_assert_ptr_nonnull(strstr(cm_number_why(CM_NUM_UNDERFLOW),
                                 "underflows"));
}
END_TEST

START_TEST(test_grid_refuses_a_parameter_twice)
{
    cm_sweep sw[2];
    cm_err err = {0};
    ck_assert_int_eq(cm_sweep_parse("l1.mshrs=8,16", &sw[0], &err), CM_OK);
    ck_assert_int_eq(cm_sweep_parse("l1.mshrs=32,64", &sw[1], &err), CM_OK);
    cm_grid g;
    ck_assert_int_eq(cm_grid_init(&g, sw, 2, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "l1.mshrs given twice"));
    cm_sweep_free(&sw[1]);
    ck_assert_int_eq(cm_sweep_parse("l1.mshrs=8:16:1e-320", &sw[1], &err),
                     CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "underflows"));
    cm_sweep_free(&sw[0]);
}
END_TEST

/* Every design range (params.def CM_DESIGN) lies inside its parameter's
 * registry range, belongs to a validation that exists, and draws values
 * in range, integral where the parameter is, equally often per level, and
 * valid on both presets' machines. */
START_TEST(test_design_ranges)
{
    static const char *const known[] = {"mshr", "reuse", "lifetime",
                                        "recall", "directory"};
    ck_assert_uint_ge(cm_param_design_count(), 8);
    for (size_t i = 0; i < cm_param_design_count(); i++) {
        const cm_param_design *d = cm_param_design_at(i);
        const cm_param_info *pi = cm_param_design_param(d);
        ck_assert_ptr_nonnull(pi);
        ck_assert_msg(d->lo < d->hi && d->lo >= pi->min && d->hi <= pi->max,
                      "%s: design range %g..%g outside %g..%g", pi->name,
                      d->lo, d->hi, pi->min, pi->max);
        int any = 0;
        for (size_t k = 0; k < sizeof known / sizeof *known; k++)
            any |= cm_param_design_for(d, known[k]);
        ck_assert_msg(any, "%s: no known validation in '%s'", pi->name,
                      d->validations);
        ck_assert_msg(d->why && strlen(d->why) > 10, "%s: say why",
                      pi->name);
        if (d->scale == CM_DS_INPUT) {
            ck_assert(isnan(cm_param_design_value(d, 0.5, NULL)));
            continue;
        }
        /* 400 stratified draws: every value in range, and the extremes
         * reached */
        double vmin = INFINITY, vmax = -INFINITY;
        for (int k = 0; k < 400; k++) {
            double v = cm_param_design_value(d, (k + 0.5) / 400, NULL);
            ck_assert_msg(v >= d->lo && v <= d->hi, "%s: %g", pi->name, v);
            if (pi->type != CM_PT_REAL) ck_assert(v == floor(v));
            if (d->scale == CM_DS_POW2) {
                int e;
                ck_assert_msg(frexp(v, &e) == 0.5, "%s: %g", pi->name, v);
            }
            vmin = fmin(vmin, v);
            vmax = fmax(vmax, v);
        }
        ck_assert_msg(vmin < d->lo * 1.05 && vmax > d->hi * 0.95,
                      "%s: drew %g..%g of %g..%g", pi->name, vmin, vmax,
                      d->lo, d->hi);
        for (size_t pr = 0; pr < cm_preset_count(); pr++) {
            cm_params p;
            cm_params_init(&p);
            cm_err err = {0};
            ck_assert(!cm_params_load(&p, cm_preset_name(pr), &err));
            for (int k = 0; k < 50; k++) {
                cm_param_put(&p, pi, cm_param_design_value(d, k / 50.0, &p));
                ck_assert_msg(!cm_params_validate(&p, &err), "%s on %s: %s",
                              pi->name, cm_preset_name(pr), err.msg);
            }
        }
    }
    const cm_param_design *ws = NULL, *size = NULL;
    for (size_t i = 0; i < cm_param_design_count(); i++) {
        const cm_param_design *d = cm_param_design_at(i);
        if (!strcmp(cm_param_design_param(d)->name, "sched.active_warps"))
            ws = d;
        if (!strcmp(cm_param_design_param(d)->name, "l1.size")) size = d;
    }
    ck_assert(ws && size && cm_param_design_for(ws, "mshr") &&
              !cm_param_design_for(ws, "lifetime"));
    /* the machine caps the active warps */
    cm_params p;
    cm_params_init(&p);
    p.gpu_warps_per_sm = 24;
    ck_assert(cm_param_design_value(ws, 0.999, &p) == 24);
    /* powers of two: each of 8K..128K a fifth of the draws */
    int count[5] = {0};
    for (int k = 0; k < 500; k++) {
        int e;
        frexp(cm_param_design_value(size, (k + 0.5) / 500, NULL), &e);
        count[e - 14]++; /* 8192 = 0.5 x 2^14 */
    }
    for (int k = 0; k < 5; k++) ck_assert_int_eq(count[k], 100);
}
END_TEST

Suite *suite_params(void)
{
    Suite *s = suite_create("params");
    TCase *tc = tcase_create("registry");
    tcase_add_test(tc, test_defaults_match_tc2013_preset);
    tcase_add_test(tc, test_every_default_in_range_and_presets_valid);
    tcase_add_test(tc, test_set_errors_name_the_range);
    tcase_add_test(tc, test_config_file_errors_have_positions);
    tcase_add_test(tc, test_validate_cross_checks);
    tcase_add_test(tc, test_sweep_grid);
    tcase_add_test(tc, test_sweep_range_is_decimal);
    tcase_add_test(tc, test_shard_slices);
    tcase_add_test(tc, test_dump_round_trips);
    tcase_add_test(tc, test_number_read);
    tcase_add_test(tc, test_grid_refuses_a_parameter_twice);
    tcase_add_test(tc, test_design_ranges);
    suite_add_tcase(s, tc);
    return s;
}
