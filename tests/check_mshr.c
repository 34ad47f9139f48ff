/* check_mshr.c - properties of the MSHR occupancy model.
 *
 * References are computed here by a different method: direct product-form
 * summation in long double with lgammal, not the solver's ratio recursion. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/params.h"
#include "models/mshr.h"
#include "tests/testutil.h"

/* An input whose memory system never queues: holding time = lat. */
static cm_mshr_input ideal_input(double warps, double rate, double mshrs,
                                 double lat)
{
    cm_mshr_input in = {0};
    in.warps = warps;
    in.max_outstanding = 1;
    in.mem_rate = rate;
    in.reqs_per_inst = 1;
    in.l1_miss = 1;
    in.merge_prob = 0;
    in.merge_limit = 8;
    in.mshrs = mshrs;
    /* an L1 whose ways never bind: one line per instruction, 4096 ways */
    in.sets = 64;
    in.ways = 4096;
    in.line_stride = 1;
    in.set_clustering = 1;
    in.hit_latency = 1;
    in.sms = 1;
    in.l2_miss = 0;
    in.lat_l2 = lat;
    in.lat_dram = lat;
    in.banks = 1;
    in.channels = 1;
    in.l2_mshrs_per_bank = 1e6;
    in.line_bytes = 128;
    in.core_clock_mhz = 1000;
    return in;
}

static cm_mshr_result solve(const cm_mshr_input *in, double *pmf)
{
    cm_mshr_ws *ws = cm_mshr_ws_new();
    ck_assert_ptr_nonnull(ws);
    cm_mshr_result r;
    cm_err err = {0};
    ck_assert_msg(cm_mshr_solve(in, ws, &r, pmf, &err) == CM_OK, "%s",
                  err.msg);
    cm_mshr_ws_free(ws);
    return r;
}

static cm_mshr_result solve_params(const cm_params *p, double *pmf)
{
    cm_mshr_input in;
    cm_mshr_input_from_params(p, &in);
    return solve(&in, pmf);
}

START_TEST(test_reduces_to_machine_repairman)
{
    /* One request per instruction, all missing, no merging and no memory
     * queueing: the MSHRs are exactly M/M/E/N/N with think Z and service
     * T. */
    const int W = 24, E = 8;
    const double rate = 0.004, T = 400;
    cm_mshr_input in = ideal_input(W, rate, E, T);
    double pmf[E + 1];
    cm_mshr_result r = solve(&in, pmf);
    long double ref[W + 1];
    tu_ref_pmf(E, W, W, (long double)T * rate, ref);
    long double busy = 0, full = 0;
    for (int n = 0; n <= W; n++) {
        busy += (n < E ? n : E) * ref[n];
        if (n >= E) full += ref[n];
    }
    for (int j = 0; j < E; j++) ck_assert_close(pmf[j], (double)ref[j], 1e-9);
    ck_assert_close(pmf[E], (double)full, 1e-9);
    ck_assert_close(r.mean_occupancy, (double)busy, 1e-9);
    ck_assert_close(r.p_full, (double)full, 1e-9);
    ck_assert_close(r.latency_mem, T, 1e-12);
    ck_assert_uint_eq(r.sources, W);
}
END_TEST

START_TEST(test_reduces_to_engset_when_replaying)
{
    /* Replay mode: a miss finding all entries busy is lost to its slot, so
     * P(full) is Engset's time congestion and the reservation-fail
     * probability its call congestion (N-1 sources). */
    const int W = 40, E = 10;
    const double rate = 0.002, T = 500;
    cm_mshr_input in = ideal_input(W, rate, E, T);
    in.full_policy = CM_MSHR_REPLAY;
    cm_mshr_result r = solve(&in, NULL);
    long double beta = (long double)T * rate;
    long double time_sum = 0, call_sum = 0, time_top = 0, call_top = 0;
    for (int i = 0; i <= E; i++) {
        long double t = expl(lgammal(W + 1) - lgammal(i + 1) -
                             lgammal(W - i + 1) + i * logl(beta));
        long double c = expl(lgammal(W) - lgammal(i + 1) - lgammal(W - i) +
                             i * logl(beta));
        time_sum += t;
        call_sum += c;
        if (i == E) {
            time_top = t;
            call_top = c;
        }
    }
    ck_assert_close(r.p_full, (double)(time_top / time_sum), 1e-9);
    ck_assert_close(r.p_resfail, (double)(call_top / call_sum), 1e-9);
    ck_assert(r.p_resfail < r.p_full); /* an arrival sees fewer busy */
}
END_TEST

START_TEST(test_large_population_tends_to_erlang_c)
{
    /* N -> infinity with N x rate fixed: the station becomes M/M/E and
     * P(all busy) (PASTA) tends to Erlang-C's probability of waiting. */
    const int E = 8;
    const double T = 100, a = 6.0; /* offered load in Erlangs */
    const double N = 200000;
    cm_mshr_input in = ideal_input(N, a / (N * T), E, T);
    cm_mshr_result r = solve(&in, NULL);
    long double s = 0, term = 1;
    for (int k = 0; k < E; k++) {
        if (k) term *= a / k;
        s += term;
    }
    long double top = term * a / E * E / (E - a);
    double erlang_c = (double)(top / (s + top));
    ck_assert_msg(fabs(r.p_full - erlang_c) < 1e-3 * erlang_c,
                  "p_full %.9g vs Erlang-C %.9g", r.p_full, erlang_c);
}
END_TEST

START_TEST(test_littles_law_and_pmf)
{
    /* On the loaded tc2013 machine, with the memory system queueing. */
    cm_params p;
    cm_params_init(&p);
    const double rates[] = {0.002, 0.01, 0.03, 0.1};
    const double mshrs[] = {8, 32, 128};
    for (size_t i = 0; i < 4; i++) {
        for (size_t j = 0; j < 3; j++) {
            p.wl_mem_rate = rates[i];
            p.l1_mshrs = mshrs[j];
            double *pmf = calloc((size_t)p.l1_mshrs + 1, sizeof *pmf);
            cm_mshr_result r = solve_params(&p, pmf);
            double sum = 0, mean = 0;
            for (int k = 0; k <= (int)p.l1_mshrs; k++) {
                ck_assert(pmf[k] >= 0);
                sum += pmf[k];
                mean += k * pmf[k];
            }
            ck_assert_close(sum, 1.0, 1e-12);
            ck_assert_close(mean, r.mean_occupancy, 1e-9);
            ck_assert_close(pmf[(int)p.l1_mshrs], r.p_full, 1e-9);
            /* Little: entries busy = allocation rate x holding time. */
            ck_assert_close(r.mean_occupancy,
                            r.miss_throughput * r.latency_mem, 1e-9);
            ck_assert(r.latency_eff >= r.latency_mem);
            ck_assert(r.issue_fraction > 0 && r.issue_fraction <= 1);
            free(pmf);
        }
    }
}
END_TEST

START_TEST(test_fixed_point_is_consistent)
{
    /* Only DRAM queues: T must equal the unloaded latency plus m2 times the
     * M/D/1 wait at the throughput the model itself reports. */
    cm_mshr_input in = ideal_input(48, 0.05, 64, 300);
    in.sms = 16;
    in.l2_miss = 0.5;
    in.lat_dram = 500;
    in.channels = 8;
    in.svc_dram = 20;
    cm_mshr_result r = solve(&in, NULL);
    double lam = in.sms * r.miss_throughput * in.l2_miss / in.channels;
    double rho = lam * in.svc_dram;
    ck_assert(rho > 0.3 && rho < 1);
    double wq = lam * in.svc_dram * in.svc_dram / (2 * (1 - rho));
    double T = 0.5 * 300 + 0.5 * 500 + 0.5 * wq;
    ck_assert_close(r.latency_mem, T, 1e-9);
    ck_assert_close(r.util[CM_RES_DRAM], rho, 1e-9);
    ck_assert_int_eq(r.bottleneck, CM_RES_DRAM);
}
END_TEST

START_TEST(test_monotone_in_load)
{
    cm_params p;
    cm_params_init(&p);
    double prev_occ = -1, prev_full = -1, prev_lat = 0;
    for (double rate = 0.001; rate < 0.5; rate *= 1.5) {
        p.wl_mem_rate = rate;
        cm_mshr_result r = solve_params(&p, NULL);
        ck_assert_msg(r.mean_occupancy >= prev_occ - 1e-12,
                      "occupancy fell at rate %g", rate);
        ck_assert(r.p_full >= prev_full - 1e-12);
        ck_assert(r.latency_eff >= prev_lat - 1e-9);
        prev_occ = r.mean_occupancy;
        prev_full = r.p_full;
        prev_lat = r.latency_eff;
    }
    /* and in the number of active warps */
    p.wl_mem_rate = 0.02;
    prev_occ = -1;
    for (double w = 1; w <= 48; w += 1) {
        p.sched_active_warps = w;
        cm_mshr_result r = solve_params(&p, NULL);
        ck_assert(r.mean_occupancy >= prev_occ - 1e-12);
        prev_occ = r.mean_occupancy;
    }
}
END_TEST

START_TEST(test_more_mshrs_never_hurt)
{
    cm_params p;
    cm_params_init(&p);
    p.wl_mem_rate = 0.05;
    double prev_full = 2, prev_x = 0;
    for (double e = 4; e <= 256; e *= 2) {
        p.l1_mshrs = e;
        cm_mshr_result r = solve_params(&p, NULL);
        ck_assert(r.p_full <= prev_full + 1e-12);
        ck_assert(r.miss_throughput >= prev_x * (1 - 1e-9));
        prev_full = r.p_full;
        prev_x = r.miss_throughput;
    }
}
END_TEST

START_TEST(test_merging)
{
    /* Load misses only (no stores): of the load misses a share q find
     * their line in flight; an entry holds M accesses, the waiters on a
     * line geometric, so a share q^(M-1) of those find it full and are
     * refused (sim/l1.c FAIL_MERGE).  Against the allocations (load misses
     * x (1 - q)): merges / allocations = (q - q^M) / (1 - q), refusals /
     * allocations = q^M / (1 - q). */
    cm_params p;
    cm_params_init(&p);
    p.wl_write_frac = 0;
    p.wl_merge_prob = 0.5;
    p.l1_mshr_merge = 1; /* an entry holds one request: nothing merges */
    cm_mshr_result one = solve_params(&p, NULL);
    ck_assert_double_eq_tol(one.merge_rate, 0, 1e-15);
    p.l1_mshr_merge = 8;
    cm_mshr_result eight = solve_params(&p, NULL);
    ck_assert_close(eight.merge_rate / eight.miss_throughput,
                    (0.5 - pow(0.5, 8)) / 0.5, 1e-12);
    ck_assert_close(eight.merge_full_rate / eight.miss_throughput,
                    pow(0.5, 8) / 0.5, 1e-12);
    /* a full entry stalls the LD/ST unit as a full set does */
    ck_assert(one.p_stall_line > eight.p_stall_line);
}
END_TEST

START_TEST(test_li2014_mshrs_saturate_first)
{
    /* Seed 002: with 32 L1 MSHRs and memory-divergent warps, MSHR
     * reservation fails dominate (II, BFS, SS, SSSP in Table 4.2). */
    cm_params p;
    cm_params_init(&p);
    cm_err err = {0};
    ck_assert_int_eq(cm_params_load(&p, "li2014", &err), CM_OK);
    p.wl_mem_rate = 0.05;
    p.wl_reqs_per_inst = 8;
    p.wl_l1_miss_ratio = 0.6;
    cm_mshr_result r = solve_params(&p, NULL);
    /* the LD/ST unit waits on MSHRs more than on ways */
    ck_assert(r.p_stall_mshr > r.p_stall_line);
    ck_assert(r.p_full > 0.5);
    p.l1_mshrs = 256;
    cm_mshr_result big = solve_params(&p, NULL);
    ck_assert(big.p_full < r.p_full);
    ck_assert(big.miss_throughput > r.miss_throughput);
}
END_TEST

START_TEST(test_no_misses)
{
    cm_params p;
    cm_params_init(&p);
    p.wl_l1_miss_ratio = 0;
    p.wl_write_frac = 0; /* stores always miss */
    double pmf[129];
    cm_mshr_result r = solve_params(&p, pmf);
    ck_assert_double_eq(r.mean_occupancy, 0);
    ck_assert_double_eq(pmf[0], 1);
    ck_assert_double_eq(r.issue_fraction, 1);
}
END_TEST

START_TEST(test_bad_input)
{
    cm_mshr_input in = ideal_input(8, 0.01, 4, 100);
    in.l1_miss = 1.5;
    cm_mshr_ws *ws = cm_mshr_ws_new();
    cm_mshr_result r;
    cm_err err = {0};
    ck_assert_int_eq(cm_mshr_solve(&in, ws, &r, NULL, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "l1_miss"));
    in = ideal_input(8, 0.01, 4, 0);
    ck_assert_int_eq(cm_mshr_solve(&in, ws, &r, NULL, &err), CM_EINPUT);
    cm_mshr_ws_free(ws);
}
END_TEST

Suite *suite_mshr(void)
{
    Suite *s = suite_create("mshr");
    TCase *tc = tcase_create("model");
    tcase_add_test(tc, test_reduces_to_machine_repairman);
    tcase_add_test(tc, test_reduces_to_engset_when_replaying);
    tcase_add_test(tc, test_large_population_tends_to_erlang_c);
    tcase_add_test(tc, test_littles_law_and_pmf);
    tcase_add_test(tc, test_fixed_point_is_consistent);
    tcase_add_test(tc, test_monotone_in_load);
    tcase_add_test(tc, test_more_mshrs_never_hurt);
    tcase_add_test(tc, test_merging);
    tcase_add_test(tc, test_li2014_mshrs_saturate_first);
    tcase_add_test(tc, test_no_misses);
    tcase_add_test(tc, test_bad_input);
    suite_add_tcase(s, tc);
    return s;
}
