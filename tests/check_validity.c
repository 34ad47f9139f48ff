/* check_validity.c - the validity table (data/validity.h): a point gets the
 * held-out error of the most specific validated region that holds it, and
 * a point no region holds gets no estimate and a reason, never the
 * nearest region's error. */
#include <math.h>
#include <string.h>

#include "data/validity.h"
#include "tests/testutil.h"

/* Two machines: tc2013 with a whole region and two parts, and one
 * workload's region; li2014 whole.  Errors are distinct so the tests can
 * tell which region answered. */
static const char table_text[] =
    "model,protocol,quantity,output,measure,preset,workload,scope,region,"
    "machine,heldout_points,error\n"
    "mshr,no-coh,occupancy,mean_occupancy,mare,tc2013,all,whole,"
    "l1.mshrs=4:128 wl.mem_rate=0.01:0.5,sim.max_cycles=300000,40,0.11\n"
    "mshr,no-coh,occupancy,mean_occupancy,mare,tc2013,all,part,"
    "l1.mshrs=4:20 wl.mem_rate=0.01:0.5,,12,0.07\n"
    "mshr,no-coh,occupancy,mean_occupancy,mare,tc2013,all,part,"
    "l1.mshrs=30:128 wl.mem_rate=0.02:0.4,,12,0.15\n"
    "mshr,no-coh,occupancy,mean_occupancy,mare,tc2013,kmn,workload,"
    "l1.mshrs=8:100 wl.mem_rate=0.05:0.1,,4,0.02\n"
    "mshr,no-coh,p_full,p_full,mean_abs_error,tc2013,all,whole,"
    "l1.mshrs=4:128 wl.mem_rate=0.01:0.5,,40,0.09\n"
    "mshr,no-coh,occupancy,mean_occupancy,mare,li2014,all,whole,"
    "l1.mshrs=4:128 wl.mem_rate=0.01:0.5,,40,0.3\n";

static cm_validity *load(cm_table **t)
{
    cm_err err = {0};
    cm_validity *v = NULL;
    ck_assert(!cm_table_read_buffer("validity.csv", table_text,
                                    sizeof table_text - 1, t, &err));
    ck_assert_msg(!cm_validity_from_table(*t, &v, &err), "%s", err.msg);
    ck_assert_uint_eq(cm_validity_rows(v), 6);
    return v;
}

static void at(const cm_validity *v, const cm_params *p, const char *wl,
               const char *output, cm_validity_uses_fn uses,
               cm_validity_estimate *e)
{
    cm_validity_query q = {"mshr", NULL, output, wl, p, uses};
    cm_validity_estimate_at(v, &q, e);
}

static int no_tc(const char *param, const char *protocol)
{
    (void)protocol;
    return strncmp(param, "tc.", 3) != 0;
}

START_TEST(test_most_specific_region_answers)
{
    cm_table *t;
    cm_validity *v = load(&t);
    cm_params p;
    cm_params_init(&p); /* tc2013 */
    p.wl_mem_rate = 0.07;
    cm_validity_estimate e;
    p.l1_mshrs = 16; /* the lower part */
    at(v, &p, NULL, "mean_occupancy", NULL, &e);
    ck_assert(e.inside && e.relative && e.error == 0.07);
    ck_assert_ptr_nonnull(strstr(e.note, "tc2013"));
    p.l1_mshrs = 25; /* between the parts: the whole */
    at(v, &p, NULL, "mean_occupancy", NULL, &e);
    ck_assert(e.inside && e.error == 0.11);
    at(v, &p, "kmn", "mean_occupancy", NULL, &e); /* its workload's */
    ck_assert(e.inside && e.error == 0.02);
    at(v, &p, "bfs", "mean_occupancy", NULL, &e);
    ck_assert(e.inside && e.error == 0.11);
    at(v, &p, NULL, "p_full", NULL, &e);
    ck_assert(e.inside && !e.relative && e.error == 0.09);
    /* run control does not make another machine */
    p.sim_max_cycles = 1e6;
    at(v, &p, NULL, "p_full", NULL, &e);
    ck_assert(e.inside);
    /* li2014's machine, li2014's region */
    cm_err err = {0};
    ck_assert(!cm_params_load(&p, "li2014", &err));
    at(v, &p, NULL, "mean_occupancy", NULL, &e);
    ck_assert(e.inside && e.error == 0.3);
    cm_validity_free(v);
    cm_table_free(t);
}
END_TEST

START_TEST(test_outside_says_why)
{
    cm_table *t;
    cm_validity *v = load(&t);
    cm_params p;
    cm_params_init(&p);
    p.wl_mem_rate = 0.07;
    cm_validity_estimate e;
    p.l1_mshrs = 256; /* beyond every box */
    at(v, &p, NULL, "mean_occupancy", NULL, &e);
    ck_assert(!e.inside && isnan(e.error));
    ck_assert_msg(strstr(e.note, "outside") && strstr(e.note, "l1.mshrs=256"),
                  "%s", e.note);
    p.l1_mshrs = 16;
    p.wl_mem_rate = 0.9; /* a measured input never seen */
    at(v, &p, NULL, "mean_occupancy", NULL, &e);
    ck_assert_msg(!e.inside && strstr(e.note, "wl.mem_rate"), "%s", e.note);
    p.wl_mem_rate = 0.07;
    p.l2_latency = 500; /* another machine */
    at(v, &p, NULL, "mean_occupancy", NULL, &e);
    ck_assert_msg(!e.inside && strstr(e.note, "l2.latency=500"), "%s",
                  e.note);
    cm_params_init(&p);
    p.wl_mem_rate = 0.07;
    p.tc_lifetime_strong = 9; /* a parameter the protocol does not use */
    at(v, &p, NULL, "mean_occupancy", NULL, &e);
    ck_assert(!e.inside);
    at(v, &p, NULL, "mean_occupancy", no_tc, &e);
    ck_assert(e.inside);
    at(v, &p, NULL, "latency_mem", no_tc, &e); /* no validation of it */
    ck_assert_msg(!e.inside && strstr(e.note, "no validation"), "%s",
                  e.note);
    cm_validity_free(v);
    cm_table_free(t);
}
END_TEST

START_TEST(test_annotate_a_sweep)
{
    cm_table *t, *res = NULL, *out = NULL;
    cm_validity *v = load(&t);
    static const char sweep[] =
        "l1.mshrs,mean_occupancy,p_full\n16,3,0.1\n25,4,0.2\n256,5,0.3\n";
    cm_err err = {0};
    ck_assert(!cm_table_read_buffer("sweep.csv", sweep, sizeof sweep - 1,
                                    &res, &err));
    cm_params base;
    cm_params_init(&base);
    base.wl_mem_rate = 0.07;
    const cm_validity_output outs[] = {{"mean_occupancy", 1},
                                       {"p_full", 0},
                                       {"not_there", 0}};
    ck_assert_msg(!cm_validity_annotate(v, "mshr", NULL, NULL, &base, res,
                                        outs, 3, NULL, NULL, &out, &err),
                  "%s", err.msg);
    ck_assert_uint_eq(cm_table_ncols(out), 3 + 4);
    ck_assert_close(tu_num(out, 0, "mean_occupancy_rel_err"), 0.07, 0);
    ck_assert_close(tu_num(out, 1, "mean_occupancy_rel_err"), 0.11, 0);
    ck_assert_close(tu_num(out, 1, "p_full_abs_err"), 0.09, 0);
    ck_assert_str_eq(tu_cell(out, 2, "mean_occupancy_rel_err"), "");
    ck_assert_str_eq(tu_cell(out, 2, "p_full_abs_err"), "");
    ck_assert_ptr_nonnull(strstr(tu_cell(out, 2, "p_full_domain"),
                                 "outside"));
    ck_assert_ptr_null(strstr(tu_cell(out, 1, "p_full_domain"), "outside"));
    cm_table_free(out);
    /* a cell that is no value of its parameter is an error at its place */
    static const char bad[] = "l1.mshrs,p_full\nmany,0.1\n";
    cm_table *b = NULL;
    ck_assert(!cm_table_read_buffer("bad.csv", bad, sizeof bad - 1, &b,
                                    &err));
    ck_assert_int_eq(cm_validity_annotate(v, "mshr", NULL, NULL, &base, b,
                                          outs, 3, NULL, NULL, &out, &err),
                     CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "bad.csv:2:1"));
    cm_table_free(b);
    cm_table_free(res);
    cm_validity_free(v);
    cm_table_free(t);
}
END_TEST

START_TEST(test_bad_tables_name_the_cell)
{
    static const char *const bad[][2] = {
        {"mshr,no-coh,q,o,median,,all,whole,l1.mshrs=4:8,,3,0.1",
         "validity.csv:2:17: column 'measure'"},
        {"mshr,no-coh,q,o,mare,,all,everywhere,l1.mshrs=4:8,,3,0.1",
         "column 'scope'"},
        {"mshr,no-coh,q,o,mare,,all,whole,l1.mshrs=8:4,,3,0.1",
         "lo <= hi"},
        {"mshr,no-coh,q,o,mare,,all,whole,nope=1:2,,3,0.1",
         "not a registry parameter"},
        {"mshr,no-coh,q,o,mare,,all,whole,l1.mshrs=4:8,l1.mshrs=x,3,0.1",
         "column 'machine'"},
        {"mshr,no-coh,q,o,mare,mars,all,whole,l1.mshrs=4:8,,3,0.1",
         "column 'preset'"},
        {"mshr,no-coh,q,o,mare,,all,whole,l1.mshrs=4:8,,3,lots",
         "column 'error'"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[1024];
        snprintf(text, sizeof text, "model,protocol,quantity,output,measure,"
                 "preset,workload,scope,region,machine,heldout_points,error"
                 "\n%s\n", bad[i][0]);
        cm_table *t = NULL;
        cm_validity *v = NULL;
        cm_err err = {0};
        ck_assert(!cm_table_read_buffer("validity.csv", text, strlen(text),
                                        &t, &err));
        ck_assert_int_eq(cm_validity_from_table(t, &v, &err), CM_EINPUT);
        ck_assert_msg(strstr(err.msg, bad[i][1]), "%zu: %s", i, err.msg);
        cm_table_free(t);
    }
}
END_TEST

Suite *suite_validity(void)
{
    Suite *s = suite_create("validity");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_most_specific_region_answers);
    tcase_add_test(tc, test_outside_says_why);
    tcase_add_test(tc, test_annotate_a_sweep);
    tcase_add_test(tc, test_bad_tables_name_the_cell);
    suite_add_tcase(s, tc);
    return s;
}
