/* check_mshr.c - properties of the MSHR occupancy model.
 *
 * References are computed here by a different method: direct product-form
 * summation in long double with lgammal, exact MVA of the whole network
 * (solvers/mva.c) and the textbook loss formulas in the limits where the
 * model's core reduces to them, not the model's flow-equivalent server
 * and level reduction. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/params.h"
#include "models/mshr.h"
#include "solvers/queue.h"
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

/* log of the core's normalising constant with m tokens: two FCFS servers
 * of demands c (issue) and r (LD/ST) in a cycle, no delay (every line
 * misses): G(m) = sum_{a=0..m} c^a r^(m-a). */
static long double log_core_g(unsigned long m, long double c, long double r)
{
    long double mx = -INFINITY, s = 0;
    for (unsigned long a = 0; a <= m; a++) {
        long double l = a * logl(c) + (m - a) * logl(r);
        if (l > mx) mx = l;
    }
    for (unsigned long a = 0; a <= m; a++)
        s += expl(a * logl(c) + (m - a) * logl(r) - mx);
    return mx + logl(s);
}

START_TEST(test_reduces_to_product_form_repairman)
{
    /* One line per instruction, all missing, no merging, no memory
     * queueing, and MSHRs (E = N) and ways that never refuse: the SM is a
     * machine-repairman network with two repair stages, the shared issue
     * server (demand c = 1/rate) and the LD/ST unit (1 line), and the
     * memory an infinite server of holding time T.  Product form:
     *     P(k in memory) = T^k / k! G_core(N - k) / G,
     * summed here directly in long double; the model gets there through
     * the core's flow-equivalent server and the QBD chain.  Its means are
     * checked against solvers/mva.c on the whole network as well. */
    const int W = 24, E = 24;
    const double rate = 0.05, T = 400;
    cm_mshr_input in = ideal_input(W, rate, E, T);
    double pmf[E + 1];
    cm_mshr_result r = solve(&in, pmf);
    long double lc = logl(1 / (long double)rate), ref[W + 1], mx = -INFINITY;
    for (int k = 0; k <= W; k++) {
        ref[k] = k * logl((long double)T) - lgammal(k + 1) +
                 log_core_g((unsigned long)(W - k), expl(lc), 1);
        if (ref[k] > mx) mx = ref[k];
    }
    long double g = 0, busy = 0;
    for (int k = 0; k <= W; k++) g += ref[k] = expl(ref[k] - mx);
    for (int k = 0; k <= W; k++) {
        ref[k] /= g;
        busy += k * ref[k];
    }
    for (int k = 0; k <= E; k++)
        ck_assert_msg(fabs(pmf[k] - (double)ref[k]) <= 1e-9 * (double)ref[k] +
                                                          1e-15,
                      "pmf[%d] = %.12g, product form %.12g", k, pmf[k],
                      (double)ref[k]);
    ck_assert_close(r.mean_occupancy, (double)busy, 1e-9);
    ck_assert_close(r.p_full, (double)ref[E], 1e-9);
    ck_assert(r.mean_occupancy > 10); /* the memory holds tokens */
    ck_assert_close(r.latency_mem, T, 1e-12);
    ck_assert_uint_eq(r.sources, W);

    cm_mva_station st[3] = {{"issue", CM_MVA_QUEUE, 1 / rate},
                            {"ldst", CM_MVA_QUEUE, 1},
                            {"memory", CM_MVA_DELAY, T}};
    double q[3], res[3], u[3];
    cm_mva_result mva = {.queue_len = q, .residence = res, .util = u};
    cm_err err = {0};
    ck_assert_int_eq(cm_mva_solve(st, 3, W, &mva, &err), CM_OK);
    ck_assert_close(r.mean_occupancy, q[2], 1e-9);
    ck_assert_close(r.miss_throughput, mva.throughput, 1e-9);
    ck_assert_close(r.inst_rate, mva.throughput, 1e-9);
}
END_TEST

START_TEST(test_reduces_to_engset_when_replaying)
{
    /* Replay mode: a load finding every entry busy goes back to its warp,
     * so the MSHRs are a loss system.  The model admits Engset's limit
     * when the shared issue and LD/ST servers' demands (c = r = 1 cycle)
     * vanish against a warp's think time: most loads hit and wait the hit
     * latency h, so a warp in the core sends a miss after
     * (c + r + (1 - m) h) / m cycles with no contention to speak of (the
     * issue server is busy N / (h / m) ~ 4e-6 of the time, which is the
     * size of the departure from Engset).  P(full) is then Engset's time
     * congestion with N sources, and the share of loads refused (per
     * instruction that reaches the unit: m x the share of misses) its
     * call congestion with N - 1. */
    const int W = 40, E = 10;
    const double m = 0.01, h = 1e7, T = 1e9;
    cm_mshr_input in = ideal_input(W, 1, E, T);
    in.l1_miss = m;
    in.hit_latency = h;
    in.full_policy = CM_MSHR_REPLAY;
    cm_mshr_result r = solve(&in, NULL);
    long double beta = (long double)T * m / (2 + (1 - m) * h);
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
    ck_assert(time_top / time_sum > 0.1); /* the limit binds */
    ck_assert_close(r.p_full, (double)(time_top / time_sum), 1e-4);
    ck_assert_close(r.p_resfail / m, (double)(call_top / call_sum), 1e-4);
    ck_assert(r.p_resfail / m < r.p_full); /* an arrival sees fewer busy */
}
END_TEST

START_TEST(test_large_population_tends_to_erlang_b)
{
    /* Many warps (1024, the registry's most) and one shared issue server
     * of demand c = 10 cycles, LD/ST demand 1: the issue server is never
     * idle (Lambda(m) = (1 - 0.1^m) / (1 - 0.1^(m+1)) / c, within 1e-1000
     * of 1/c), so loads reach the MSHRs as a Poisson stream of rate 1/c.
     * Replaying the refused ones, the MSHRs are M/M/E/E: P(full) is
     * Erlang-B's blocking at a = T / c Erlangs, and (PASTA) so is the
     * share refused. */
    const int E = 8;
    const double T = 60, c = 10, a = T / c;
    cm_mshr_input in = ideal_input(1024, 1 / c, E, T);
    in.ways = E + 1; /* a set holds at most E fills: never refuses */
    in.full_policy = CM_MSHR_REPLAY;
    cm_mshr_result r = solve(&in, NULL);
    long double s = 0, term = 1;
    for (int k = 0; k <= E; k++) {
        if (k) term *= a / k;
        s += term;
    }
    double erlang_b = (double)(term / s);
    ck_assert_close(r.p_full, erlang_b, 1e-9);
    ck_assert_close(r.p_resfail, erlang_b, 1e-9);
    ck_assert_close(r.mean_occupancy, a * (1 - erlang_b), 1e-9);
}
END_TEST

START_TEST(test_littles_law_where_nothing_binds)
{
    /* Where neither the MSHRs nor the ways ever refuse, the chain is the
     * product-form birth-death chain and Little's law holds to rounding:
     * entries busy = requests sent x round trip.  Stores add their own
     * population, iterated to a fixed point that stops once the store
     * instructions in flight mu change by 1e-6 (1 + mu) or less: the
     * occupancy counts the last iterate, the throughput the one before,
     * so Little holds to that times the lines per store. */
    cm_params p;
    cm_params_init(&p);
    p.l1_ways = 1024; /* 48 warps x 3 lines: a set never fills */
    p.l1_mshrs = 100000;
    p.l1_mshr_merge = 64; /* an entry never refuses a merge (0.1^63) */
    const double rates[] = {0.002, 0.03, 0.1};
    const double writes[] = {0, 0.1};
    for (size_t i = 0; i < 3; i++)
        for (size_t k = 0; k < 2; k++) {
            p.wl_mem_rate = rates[i];
            p.wl_write_frac = writes[k];
            cm_mshr_result r = solve_params(&p, NULL);
            double xt = r.miss_throughput * r.latency_mem;
            double mu = p.wl_write_frac * r.inst_rate * r.latency_mem;
            double tol = 1e-9 * xt +
                         1e-6 * (1 + mu) * ceil(p.wl_reqs_per_inst);
            ck_assert_msg(fabs(r.mean_occupancy - xt) <= tol,
                          "rate %g w %g: occupancy %.12g, X T %.12g",
                          rates[i], writes[k], r.mean_occupancy, xt);
            ck_assert_msg(r.p_full < 1e-12 && r.p_stall_line < 1e-12,
                          "p_full %g, p_stall_line %g", r.p_full,
                          r.p_stall_line);
        }
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
            /* Little (entries busy = requests sent x round trip) is exact
             * only where nothing refuses (the test above).  The chain
             * departs from it in two places, both approximations of the
             * model, not numerics: blocked, the unit sees the next return
             * after T / (j + 1) (the least residual), not T / j, so
             * instructions held while it waits come back early (at most
             * ceil(r) requests per unit of P(waits)); and the pool's
             * content is E when full and O_j given that it fits when
             * open, not O_j (at most E per unit of P(full)).  Plus the
             * store fixed point's tolerance (previous test). */
            double xt = r.miss_throughput * r.latency_mem;
            double mu = p.wl_write_frac * r.inst_rate * r.latency_mem;
            double gap = p.l1_mshrs * r.p_full +
                         ceil(p.wl_reqs_per_inst) *
                             (r.p_stall_mshr + r.p_stall_line) +
                         1e-6 * (1 + mu) * ceil(p.wl_reqs_per_inst) +
                         1e-9 * xt;
            ck_assert_msg(fabs(r.mean_occupancy - xt) <= gap,
                          "rate %g E %g: occupancy %.9g, X T %.9g, "
                          "allowed %.3g", rates[i], mshrs[j],
                          r.mean_occupancy, xt, gap);
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

/* The fast path (warm-started store population, bracket from T(X(lo)),
 * loose inner solves far from T*) against the direct solve, which solves
 * each fixed point from scratch to 1e-12: the same model to solver
 * tolerance, at points that exercise each part of the chain (stores,
 * divergent gathers, a full pool, a saturated NoC, few ways, replay). */
typedef struct fast_case {
    const char *preset, *label;
    double warps, rate, reqs, write, mshrs, ways;
    int bimodal, replay;
} fast_case;

static void solve_both(const cm_params *p, cm_mshr_result *fast,
                       cm_mshr_result *direct, double *pf, double *pd)
{
    cm_mshr_input in;
    cm_mshr_input_from_params(p, &in);
    cm_mshr_ws *ws = cm_mshr_ws_new(), *wd = cm_mshr_ws_new();
    ck_assert(ws && wd);
    cm_mshr_ws_direct(wd, 1);
    cm_err err = {0};
    ck_assert_msg(cm_mshr_solve(&in, ws, fast, pf, &err) == CM_OK, "%s",
                  err.msg);
    ck_assert_msg(cm_mshr_solve(&in, wd, direct, pd, &err) == CM_OK, "%s",
                  err.msg);
    cm_mshr_ws_free(ws);
    cm_mshr_ws_free(wd);
}

START_TEST(test_fast_path_matches_direct_solve)
{
    static const fast_case cases[] = {
        {"tc2013", "default", 48, 0.002, 2, 0.1, 128, 4, 0, 0},
        {"tc2013", "stores, load near the pool", 48, 0.1, 2, 0.3, 32, 4, 0, 0},
        {"tc2013", "divergent, 8 MSHRs full", 48, 0.1, 8, 0.1, 8, 4, 0, 0},
        {"tc2013", "saturated memory", 40, 0.3, 4, 0.2, 128, 4, 0, 0},
        {"li2014", "bimodal gathers, stores", 24, 0.2, 4, 0.2, 64, 4, 1, 0},
        {"li2014", "few warps, ways bind", 8, 0.15, 8, 0.05, 32, 2, 0, 0},
        {"tc2013", "replay", 32, 0.05, 4, 0.1, 16, 4, 0, 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const fast_case *c = &cases[k];
        cm_params p;
        cm_params_init(&p);
        cm_err err = {0};
        ck_assert_int_eq(cm_params_load(&p, c->preset, &err), CM_OK);
        p.sched_active_warps = c->warps;
        p.wl_mem_rate = c->rate;
        p.wl_reqs_per_inst = c->reqs;
        p.wl_write_frac = c->write;
        p.l1_mshrs = c->mshrs;
        p.l1_ways = c->ways;
        p.wl_reqs_dist = c->bimodal;
        p.model_mshr_full = c->replay;
        size_t E = (size_t)c->mshrs;
        double *pf = calloc(E + 1, sizeof *pf), *pd = calloc(E + 1, sizeof *pd);
        ck_assert(pf && pd);
        cm_mshr_result f, d;
        solve_both(&p, &f, &d, pf, pd);
        ck_assert_msg(d.mean_occupancy > 0, "%s: no occupancy", c->label);
        double rel = fabs(f.mean_occupancy - d.mean_occupancy) /
                     d.mean_occupancy;
        ck_assert_msg(rel <= 1e-6, "%s: occupancy %.12g against %.12g",
                      c->label, f.mean_occupancy, d.mean_occupancy);
        ck_assert_msg(fabs(f.p_full - d.p_full) <= 1e-6,
                      "%s: P(full) %.12g against %.12g", c->label, f.p_full,
                      d.p_full);
        ck_assert_msg(fabs(f.latency_mem - d.latency_mem) <=
                          1e-6 * d.latency_mem,
                      "%s: T %.12g against %.12g", c->label, f.latency_mem,
                      d.latency_mem);
        ck_assert_msg(fabs(f.inst_rate - d.inst_rate) <= 1e-6 * d.inst_rate,
                      "%s: instruction rate", c->label);
        ck_assert(fabs(f.p_resfail - d.p_resfail) <= 1e-6);
        ck_assert(fabs(f.p_stall_mshr - d.p_stall_mshr) <= 1e-6);
        ck_assert(fabs(f.p_stall_line - d.p_stall_line) <= 1e-6);
        for (size_t x = 0; x <= E; x++)
            ck_assert_msg(fabs(pf[x] - pd[x]) <= 1e-6, "%s: pmf[%zu]",
                          c->label, x);
        free(pf);
        free(pd);
    }
}
END_TEST

Suite *suite_mshr(void)
{
    Suite *s = suite_create("mshr");
    TCase *tc = tcase_create("model");
    tcase_add_test(tc, test_reduces_to_product_form_repairman);
    tcase_add_test(tc, test_reduces_to_engset_when_replaying);
    tcase_add_test(tc, test_large_population_tends_to_erlang_b);
    tcase_add_test(tc, test_littles_law_where_nothing_binds);
    tcase_add_test(tc, test_littles_law_and_pmf);
    tcase_add_test(tc, test_fixed_point_is_consistent);
    tcase_add_test(tc, test_monotone_in_load);
    tcase_add_test(tc, test_more_mshrs_never_hurt);
    tcase_add_test(tc, test_merging);
    tcase_add_test(tc, test_li2014_mshrs_saturate_first);
    tcase_add_test(tc, test_no_misses);
    tcase_add_test(tc, test_bad_input);
    tcase_add_test(tc, test_fast_path_matches_direct_solve);
    suite_add_tcase(s, tc);
    return s;
}
