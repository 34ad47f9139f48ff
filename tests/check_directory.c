/* check_directory.c - the directory-bandwidth model (models/directory.h):
 * hand-checked limits (every load hits: no load traffic; NO-L1 with every
 * load cold: GETS + DATA per load, WRITE + ACK per store, flits = count x
 * size), invariants (classes sum to the totals, bigger L1 fewer misses),
 * bad input, and the model against the simulator on a short run
 * of a seed-000 workload. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/directory.h"
#include "models/directory_impl.h"
#include "models/profile.h"
#include "sim/protocol.h"
#include "study/validate.h"
#include "sim/stats.h"
#include "data/workload.h"
#include "tests/testutil.h"

static cm_profile *profile_of(const char *text)
{
    cm_profile *p = NULL;
    cm_err err = {0};
    ck_assert_msg(cm_profile_read_buffer("test", text, strlen(text), &p,
                                         &err) == CM_OK,
                  "%s", err.msg);
    return p;
}

static size_t cls(const char *name)
{
    for (size_t i = 1; i < CM_DIR_NCLASSES; i++)
        if (strcmp(cm_directory_class_name(i), name) == 0) return i;
    ck_abort_msg("no class %s", name);
    return 0;
}

static cm_directory_result predict(const char *proto, const cm_profile *prof,
                                   const cm_params *p)
{
    cm_directory_result r;
    cm_err err = {0};
    cm_ptable *pt = NULL;
    ck_assert(cm_validate_ptable(cm_protocol_find(proto), &pt, &err) == CM_OK);
    ck_assert_msg(cm_directory_predict(p, pt, prof, &r, &err) == CM_OK,
                  "%s: %s", proto, err.msg);
    cm_ptables_free(pt, 1);
    return r;
}

/* Loads only, each a re-load one cycle or less after the previous one at
 * stack distance 0, nothing between. */
static const char all_hit[] = "quantity,lo,hi,value\n"
                              "rate.l1_loads,,,1\n"
                              "rate.l1_stores,,,0\n"
                              "rate.l1_atomics,,,0\n"
                              "rate.store_ack_latency,,,300\n"
                              "l1.load_gap,0,1,100\n"
                              "l1.load_distance,0,1,100\n"
                              "l1.load_flags,32,33,100\n";

START_TEST(test_every_load_hits)
{
    cm_profile *prof = profile_of(all_hit);
    cm_params p;
    cm_params_init(&p);
    const char *protos[] = {"no-coh", "wt", "gpu-vi", "tcs", "tcw-fixed",
                            "mesi"};
    for (size_t i = 0; i < sizeof protos / sizeof *protos; i++) {
        cm_directory_result r = predict(protos[i], prof, &p);
        if (strncmp(protos[i], "tc", 2) == 0) {
            /* a chain lasts the lifetime plus the round trip (300): gaps
             * of half a cycle on average chain about 2L loads per GETS */
            double L = r.lifetime + 300, want = 1 / (1 + 2 * L);
            ck_assert_msg(L > 0, "%s", protos[i]);
            ck_assert_msg(fabs(r.p_load_miss / want - 1) < 0.1,
                          "%s: miss %g, want about %g", protos[i],
                          r.p_load_miss, want);
            ck_assert_close(r.msgs_per_access, 2 * r.p_load_miss, 1e-9);
            continue;
        }
        ck_assert_msg(r.msgs_per_access < 1e-6, "%s: %g msgs", protos[i],
                      r.msgs_per_access);
        ck_assert_msg(r.p_load_miss < 1e-6, "%s", protos[i]);
    }
    cm_profile_free(prof);
}
END_TEST

/* Every load cold, 60% loads and 40% stores: NO-L1 sends GETS and gets
 * DATA per load, WRITE and ACK per store.  Flits at noc.flit 32, header 8,
 * line 128: control ceil(12/32) = 1, data ceil(136/32) = 5. */
static const char all_miss[] = "quantity,lo,hi,value\n"
                               "rate.l1_loads,,,0.6\n"
                               "rate.l1_stores,,,0.4\n"
                               "rate.l1_atomics,,,0\n"
                               "rate.store_ack_latency,,,300\n"
                               "l1.load_gap,inf,inf,100\n"
                               "l1.load_distance,inf,inf,100\n"
                               "l1.load_flags,0,1,100\n"
                               "l1.store_gap,inf,inf,10\n"
                               "l1.store_flags,0,1,10\n"
                               "l1.write_sharers,0,1,10\n";

/* Loads only, each a re-load 1000 cycles after the previous one with 20
 * distinct lines between; in an L1 of 16 sets x 4 ways.  Spread over the
 * sets (the binomial placement) 20 lines rarely put 4 into the load's set:
 * nearly every load hits.  Camping on a few sets, as the set-local rows
 * say (5 set mates, 4 ways), every load misses; with 2 set mates every
 * load hits.  Rows of another set count (32 sets) do not apply.  Loads at
 * infinite distance, which the set rows do not hold, miss. */
static const char camp[] = "quantity,lo,hi,value\n"
                           "rate.l1_loads,,,0.001\n"
                           "rate.l1_stores,,,0\n"
                           "rate.l1_atomics,,,0\n"
                           "rate.store_ack_latency,,,300\n"
                           "l1.load_gap,1000,1001,100\n"
                           "l1.load_distance,20,21,100\n"
                           "l1.load_flags,32,33,100\n";

START_TEST(test_set_local_capacity)
{
    cm_params p;
    cm_params_init(&p);
    p.l1_size = 8192;
    p.l1_line = 128;
    p.l1_ways = 4;
    char text[1024];
    const char *rows[] = {"", "joint.l1.set_mates_4,20.5,5,100\n",
                          "joint.l1.set_mates_4,20.5,2,100\n",
                          "joint.l1.set_mates_5,20.5,5,100\n",
                          "joint.l1.set_mates_4,20.5,2,100\n"
                          "l1.load_distance,inf,inf,100\n"};
    double miss[5];
    for (int i = 0; i < 5; i++) {
        snprintf(text, sizeof text, "%s%s", camp, rows[i]);
        cm_profile *prof = profile_of(text);
        miss[i] = predict("no-coh", prof, &p).p_load_miss;
        cm_profile_free(prof);
    }
    ck_assert_msg(miss[0] < 0.05, "spread: %g", miss[0]);
    ck_assert_msg(miss[1] > 0.99, "camping: %g", miss[1]);
    ck_assert_msg(miss[2] < 1e-9, "two set mates: %g", miss[2]);
    ck_assert_double_eq(miss[3], miss[0]);
    /* as many loads again beyond the stack's reach: they miss */
    ck_assert_msg(fabs(miss[4] - 0.5) < 1e-9, "half at infinity: %g",
                  miss[4]);
}
END_TEST

START_TEST(test_no_l1_all_miss)
{
    cm_profile *prof = profile_of(all_miss);
    cm_params p;
    cm_params_init(&p);
    p.noc_flit = 32;
    p.noc_header = 8;
    p.l1_line = p.l2_line = 128;
    cm_directory_result r = predict("no-l1", prof, &p);
    ck_assert_close(r.msgs[cls("gets")], 0.6, 1e-12);
    ck_assert_close(r.msgs[cls("data")], 0.6, 1e-12);
    ck_assert_close(r.msgs[cls("write")], 0.4, 1e-12);
    ck_assert_close(r.msgs[cls("ack")], 0.4, 1e-12);
    ck_assert_close(r.msgs_per_access, 2.0, 1e-12);
    ck_assert_close(r.flits_per_access, 0.6 * (1 + 5) + 0.4 * (1 + 1), 1e-12);
    /* the same stream on GPU-VI: stores are GETX, answered by ACK */
    r = predict("gpu-vi", prof, &p);
    ck_assert_close(r.msgs[cls("getx")], 0.4, 1e-12);
    ck_assert_close(r.msgs[cls("ack")], 0.4, 1e-12);
    ck_assert_close(r.msgs[cls("inv")], 0, 1e-12);
    ck_assert_close(r.msgs_per_access, 2.0, 1e-12);
    cm_profile_free(prof);
}
END_TEST

/* Writes to lines two other cores hold: GPU-VI invalidates both (INV and
 * INVACK each), NO-COH sends none. */
START_TEST(test_invalidations_follow_sharers)
{
    char text[1024];
    snprintf(text, sizeof text, "%s", all_miss);
    char *w = strstr(text, "l1.write_sharers,0,1,10");
    ck_assert_ptr_nonnull(w);
    memcpy(w, "l1.write_sharers,2,3,10", 23);
    cm_profile *prof = profile_of(text);
    cm_params p;
    cm_params_init(&p);
    cm_directory_result r = predict("gpu-vi", prof, &p);
    ck_assert_close(r.msgs[cls("inv")], 0.8, 1e-12);
    ck_assert_close(r.msgs[cls("invack")], 0.8, 1e-12);
    ck_assert_close(r.msgs[cls("ack")], 0.4, 1e-12);
    r = predict("no-coh", prof, &p);
    ck_assert_close(r.msgs[cls("inv")], 0, 1e-12);
    cm_profile_free(prof);
}
END_TEST

/* A mixed profile: gaps and distances spread out, some remote writes,
 * own stores, atomics and fences. */
static const char mixed[] = "quantity,lo,hi,value\n"
                            "rate.l1_loads,,,0.8\n"
                            "rate.l1_stores,,,0.15\n"
                            "rate.l1_atomics,,,0.05\n"
                            "rate.store_ack_latency,,,400\n"
                            "l1.load_gap,0,10,20\n"
                            "l1.load_gap,10,100,20\n"
                            "l1.load_gap,100,1000,20\n"
                            "l1.load_gap,1000,100000,20\n"
                            "l1.load_gap,inf,inf,20\n"
                            "l1.load_distance,0,16,20\n"
                            "l1.load_distance,16,128,20\n"
                            "l1.load_distance,128,1024,20\n"
                            "l1.load_distance,1024,65536,20\n"
                            "l1.load_distance,inf,inf,20\n"
                            "l1.load_flags,0,1,15\n"
                            "l1.load_flags,16,17,5\n"
                            "l1.load_flags,32,33,60\n"
                            "l1.load_flags,33,34,8\n"
                            "l1.load_flags,34,35,6\n"
                            "l1.load_flags,36,37,3\n"
                            "l1.load_flags,40,41,3\n"
                            "l1.store_gap,0,100,5\n"
                            "l1.store_gap,100,10000,3\n"
                            "l1.store_gap,inf,inf,2\n"
                            "l1.store_flags,0,1,3\n"
                            "l1.store_flags,1,2,3\n"
                            "l1.store_flags,3,4,4\n"
                            "l1.write_sharers,0,1,6\n"
                            "l1.write_sharers,1,2,2\n"
                            "l1.write_sharers,3,4,2\n";

START_TEST(test_invariants)
{
    cm_profile *prof = profile_of(mixed);
    cm_params p;
    cm_params_init(&p);
    for (size_t i = 0; i < cm_protocol_count(); i++) {
        const char *name = cm_protocol_at(i)->name;
        cm_directory_result r = predict(name, prof, &p);
        double m = 0, f = 0;
        for (size_t c = 1; c < CM_DIR_NCLASSES; c++) {
            ck_assert_msg(r.msgs[c] >= 0 && r.flits[c] >= 0, "%s", name);
            ck_assert_msg(r.flits[c] >= r.msgs[c] - 1e-12, "%s", name);
            m += r.msgs[c];
            f += r.flits[c];
        }
        ck_assert_close(m, r.msgs_per_access, 1e-12);
        ck_assert_close(f, r.flits_per_access, 1e-12);
        ck_assert_msg(r.msgs[0] == 0, "%s", name);
        ck_assert_msg(r.p_load_miss >= 0 && r.p_load_miss <= 1, "%s", name);
        /* every request gets one reply: at least two messages per miss */
        ck_assert_msg(r.msgs_per_access >= 2 * r.p_load * r.p_load_miss -
                                               1e-12,
                      "%s", name);
        /* a bigger L1 never misses more */
        cm_params big = p;
        big.l1_size = 4 * p.l1_size;
        cm_directory_result rb = predict(name, prof, &big);
        ck_assert_msg(rb.p_load_miss <= r.p_load_miss + 1e-12, "%s: %g > %g",
                      name, rb.p_load_miss, r.p_load_miss);
    }
    /* write-evict loses the copy at own stores, write-update keeps it */
    ck_assert(predict("no-coh", prof, &p).p_load_miss >
              predict("wt", prof, &p).p_load_miss - 0.0);
    /* a longer TC lifetime expires fewer copies */
    cm_params longer = p;
    longer.tc_lifetime_strong = 10 * p.tc_lifetime_strong;
    ck_assert(predict("tcs", prof, &longer).p_load_miss <
              predict("tcs", prof, &p).p_load_miss);
    cm_profile_free(prof);
}
END_TEST

START_TEST(test_bad_input)
{
    cm_params p;
    cm_params_init(&p);
    cm_directory_result r;
    cm_err err = {0};
    /* no op mix */
    cm_profile *prof = profile_of("quantity,lo,hi,value\n"
                                  "l1.load_gap,0,1,1\n");
    cm_ptable *wt = NULL;
    ck_assert(cm_validate_ptable(cm_protocol_find("wt"), &wt, &err) == CM_OK);
    ck_assert_int_eq(cm_directory_predict(&p, wt, prof, &r, &err),
                     CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "rate.l1_loads"));
    cm_profile_free(prof);
    /* stores but no write statistics */
    prof = profile_of(all_hit);
    cm_profile_set_rate(prof, "rate.l1_stores", 0.5, &err);
    ck_assert_int_eq(cm_directory_predict(&p, wt, prof, &r, &err),
                     CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "l1.store_gap"));
    cm_profile_free(prof);
    cm_ptables_free(wt, 1);
}
END_TEST

/* The model against the simulator: a short run of kmn on four SMs gives
 * the profile, and the model predicts that run's messages and flits per L1
 * access within a loose 25% (in sample), and a run at half the L1 from the
 * same profile within 30% (held out). */
static cm_profile *sim_run(const cm_params *p, const char *proto,
                           int profile, double *msgs, double *flits)
{
    tu_sim r;
    tu_sim_run_workload(p, proto, "kmn", profile, &r);
    double acc = 0, m = 0, f = 0;
    for (size_t i = 0; i < r.n; i++) {
        if (strcmp(r.rows[i].component, "all")) continue;
        if (!strcmp(r.rows[i].metric, "l1.accesses")) acc = r.rows[i].value;
        if (!strcmp(r.rows[i].metric, "noc.flits")) f = r.rows[i].value;
        if (!strncmp(r.rows[i].metric, "noc.msgs.", 9)) m += r.rows[i].value;
    }
    ck_assert(acc > 0);
    *msgs = m / acc;
    *flits = f / acc;
    cm_profile *prof = r.prof;
    r.prof = NULL;
    tu_sim_free(&r);
    return prof;
}

START_TEST(test_model_vs_simulator)
{
    const char *protos[] = {"no-l1", "wt", "gpu-vi", "tcs"};
    cm_params p;
    cm_params_init(&p);
    p.gpu_sms = 4;
    p.sim_max_cycles = 20000;
    for (size_t i = 0; i < sizeof protos / sizeof *protos; i++) {
        double sm, sf, hm, hf;
        cm_profile *prof = sim_run(&p, protos[i], 1, &sm, &sf);
        cm_directory_result r = predict(protos[i], prof, &p);
        ck_assert_msg(fabs(r.msgs_per_access / sm - 1) < 0.25,
                      "%s: model %g msgs/access, simulator %g", protos[i],
                      r.msgs_per_access, sm);
        ck_assert_msg(fabs(r.flits_per_access / sf - 1) < 0.25,
                      "%s: model %g flits/access, simulator %g", protos[i],
                      r.flits_per_access, sf);
        cm_params half = p;
        half.l1_size = p.l1_size / 2;
        sim_run(&half, protos[i], 0, &hm, &hf);
        r = predict(protos[i], prof, &half);
        ck_assert_msg(fabs(r.msgs_per_access / hm - 1) < 0.30,
                      "%s held out: model %g msgs/access, simulator %g",
                      protos[i], r.msgs_per_access, hm);
        cm_profile_free(prof);
    }
}
END_TEST

/* The capacity's fixed point of lines in flight (directory.c), found by
 * Brent's method, against the damped iteration it replaced run until it
 * moves less than 1e-10 lines: within CM_DIRECTORY_CAP_TOL lines, and
 * P(hit) within what that moves it, on the binomial placement (mixed) and
 * on set-local cells, at several L1 geometries, MSHR limits and round
 * trips (some binding the MSHRs, some leaving nothing in flight). */
static void assert_capacity_as_damped(const cm_profile *prof,
                                      const cm_params *p, double rtt)
{
    const cm_dist *dist;
    double loads, extra, x = 0;
    cm_err err = {0};
    ck_assert_int_eq(cm_profile_dist(prof, "l1.load_distance", &dist, &err),
                     CM_OK);
    ck_assert_int_eq(cm_profile_rate(prof, "rate.l1_loads", &loads, &err),
                     CM_OK);
    cm_directory_capacity c;
    cm_directory_capacity_init(&c, p, prof, dist, loads, rtt);
    double hit = cm_directory_capacity_solve(&c, &extra);
    int it = 0;
    for (; it < 100000; it++) {
        double want = cm_directory_capacity_want(&c, x);
        if (fabs(want - x) < 1e-10) break;
        x = 0.5 * (x + want);
    }
    ck_assert_int_lt(it, 100000);
    double ref = cm_directory_capacity_hit(&c, x);
    /* P(hit) moves by at most its slope times the lines apart */
    double slope = fabs(cm_directory_capacity_hit(&c, x + 0.01) - ref) / 0.01;
    ck_assert_msg(fabs(extra - x) <= CM_DIRECTORY_CAP_TOL,
                  "%g KB x %g ways, %g MSHRs, rtt %g: %.9g lines in flight, "
                  "%.9g damped", p->l1_size / 1024, p->l1_ways, p->l1_mshrs,
                  rtt, extra, x);
    ck_assert_msg(fabs(hit - ref) <= 2 * slope * CM_DIRECTORY_CAP_TOL + 1e-12,
                  "P(hit) %.12g against %.12g", hit, ref);
}

START_TEST(test_capacity_fixed_point)
{
    char text[8192];
    int len = snprintf(text, sizeof text, "%s", mixed);
    /* set-local cells of an L1 of 16 sets: the distances' mates spread */
    for (int k = 0; k < 24; k++)
        len += snprintf(text + len, sizeof text - (size_t)len,
                        "joint.l1.set_mates_4,%g,%d,%g\n", 4.0 + 9 * k,
                        k % 9, 60.0 / 24);
    const char *texts[] = {mixed, text};
    const double sizes[] = {8192, 32768, 131072}, ways[] = {4, 8},
                 mshrs[] = {4, 128}, rtts[] = {50, 400, 3000};
    for (int t = 0; t < 2; t++) {
        cm_profile *prof = profile_of(texts[t]);
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 2; b++)
                for (int m = 0; m < 2; m++)
                    for (int r = 0; r < 3; r++) {
                        cm_params p;
                        cm_params_init(&p);
                        /* the cells are 16 sets' */
                        p.l1_size = t ? 8192 : sizes[a];
                        p.l1_ways = t ? 4 : ways[b];
                        p.l1_mshrs = mshrs[m];
                        assert_capacity_as_damped(prof, &p, rtts[r]);
                    }
        cm_profile_free(prof);
    }
}
END_TEST

Suite *suite_directory(void)
{
    Suite *s = suite_create("directory");
    TCase *tc = tcase_create("model");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_every_load_hits);
    tcase_add_test(tc, test_set_local_capacity);
    tcase_add_test(tc, test_no_l1_all_miss);
    tcase_add_test(tc, test_invalidations_follow_sharers);
    tcase_add_test(tc, test_invariants);
    tcase_add_test(tc, test_capacity_fixed_point);
    tcase_add_test(tc, test_bad_input);
    tcase_add_test(tc, test_model_vs_simulator);
    suite_add_tcase(s, tc);
    return s;
}
