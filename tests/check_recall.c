/* check_recall.c - the directory recall model (models/recall.h) against an
 * independent Monte Carlo, its limits and invariants, and the CLI.
 *
 * The Monte Carlo simulates the model's assumptions, not the model: a
 * directory of S sets x W ways with true LRU replacement, each line placed
 * in a set by a hash, fed by a stream from the LRU stack model (Spirn): at
 * each access a stack distance d is drawn from a known law (or a new line,
 * with probability p_cold) and the line at depth d of the LRU stack is
 * accessed, so the stream's stack distances follow the law exactly.  Time
 * advances 1/lambda cycles per access.  Each access fills a copy at the
 * accessing L1 that lives an independent residency drawn from a known law;
 * an eviction counts the L1s on the entry's list (recall messages) and
 * those whose copy has not yet expired (live recalls).  The model is given
 * the two laws as distributions and nothing measured, except the sharer
 * counts per eviction in the multi-L1 test, which is how the simulator
 * reports dir.sharers. */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "models/dist.h"
#include "models/profile.h"
#include "models/recall.h"
#include "models/recall_impl.h"
#include "tests/testutil.h"

/* ---- laws ------------------------------------------------------------------ */

/* A law of bins [lo, hi) with weights, uniform over the integers (counts)
 * or the reals (times) inside, plus a weight at infinity. */
typedef struct law {
    size_t n;
    double lo[8], hi[8], w[8];
    double w_inf;
} law;

static double law_total(const law *l)
{
    double t = l->w_inf;
    for (size_t i = 0; i < l->n; i++) t += l->w[i];
    return t;
}

/* A draw; INFINITY for the mass at infinity.  integer: floor to an
 * integer of the bin. */
static double law_draw(const law *l, gsl_rng *r, int integer)
{
    double u = gsl_rng_uniform(r) * law_total(l);
    for (size_t i = 0; i < l->n; i++) {
        if (u < l->w[i]) {
            double x = l->lo[i] + gsl_rng_uniform(r) * (l->hi[i] - l->lo[i]);
            return integer ? floor(x) : x;
        }
        u -= l->w[i];
    }
    return INFINITY;
}

static void law_to_dist(const law *l, cm_dist *d)
{
    cm_err err = {0};
    cm_dist_init(d);
    for (size_t i = 0; i < l->n; i++)
        ck_assert_int_eq(cm_dist_add_bin(d, l->lo[i], l->hi[i], l->w[i], &err),
                         CM_OK);
    if (l->w_inf > 0)
        ck_assert_int_eq(cm_dist_add_bin(d, INFINITY, INFINITY, l->w_inf,
                                         &err), CM_OK);
}

/* ---- the Monte Carlo --------------------------------------------------------- */

#define MC_MAX_L1 8

typedef struct mc_config {
    uint64_t sets, ways;
    law dist;       /* stack distances of the stream (integers) */
    double p_cold;  /* probability of a new line */
    law residency;  /* cycles */
    double lambda;  /* accesses per cycle */
    unsigned l1s;   /* L1s issuing accesses, chosen uniformly */
    size_t accesses, warmup;
    unsigned long seed;
} mc_config;

typedef struct mc_result {
    double accesses, evictions, msgs, live;
    double sharers_hist[MC_MAX_L1 + 1]; /* evictions by listed sharers */
} mc_result;

typedef struct entry {
    uint64_t line, stamp;
    unsigned listed; /* bit per L1 */
    double expire[MC_MAX_L1];
} entry;

static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* One directory access by L1 l at time t (access number i). */
static void mc_access(const mc_config *c, entry *dir, uint64_t line,
                      unsigned l, double t, uint64_t i, gsl_rng *r,
                      mc_result *res, int count)
{
    entry *set = dir + (mix(line) % c->sets) * c->ways;
    double life = law_draw(&c->residency, r, 0);
    entry *e = NULL, *victim = &set[0];
    for (uint64_t w = 0; w < c->ways; w++) {
        if (set[w].line == line) e = &set[w];
        if (set[w].stamp < victim->stamp) victim = &set[w];
    }
    if (count) res->accesses++;
    if (!e) {
        e = victim;
        if (e->line != UINT64_MAX && count) {
            unsigned k = 0;
            res->evictions++;
            for (unsigned j = 0; j < c->l1s; j++)
                if (e->listed >> j & 1) {
                    k++;
                    res->live += e->expire[j] > t;
                }
            res->msgs += k;
            res->sharers_hist[k]++;
        }
        e->line = line;
        e->listed = 0;
    }
    e->stamp = i;
    e->listed |= 1u << l;
    e->expire[l] = t + life;
}

static void mc_run(const mc_config *c, mc_result *res)
{
    memset(res, 0, sizeof *res);
    ck_assert_uint_le(c->l1s, MC_MAX_L1);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, c->seed);
    size_t depth = (size_t)c->dist.hi[c->dist.n - 1]; /* deepest + 1 */
    uint64_t *stack = malloc(depth * sizeof *stack), next = 0;
    entry *dir = malloc(c->sets * c->ways * sizeof *dir);
    ck_assert(stack && dir);
    for (size_t i = 0; i < c->sets * c->ways; i++)
        dir[i] = (entry){.line = UINT64_MAX, .stamp = 0};
    /* Start from a full stack whose history the directory has seen: replay
     * it bottom to top, so distances drawn at once are true distances. */
    uint64_t stamp = 1;
    for (size_t p = depth; p-- > 0;) {
        stack[p] = next++;
        mc_access(c, dir, stack[p], (unsigned)gsl_rng_uniform_int(r, c->l1s),
                  -(double)(p + 1) / c->lambda, stamp++, r, res, 0);
    }
    for (size_t i = 0; i < c->accesses; i++) {
        size_t d = depth - 1;
        uint64_t line;
        if (gsl_rng_uniform(r) < c->p_cold) {
            line = next++; /* the bottom line falls off: never used again */
        } else {
            d = (size_t)law_draw(&c->dist, r, 1);
            line = stack[d];
        }
        memmove(stack + 1, stack, d * sizeof *stack);
        stack[0] = line;
        mc_access(c, dir, line, (unsigned)gsl_rng_uniform_int(r, c->l1s),
                  (double)i / c->lambda, stamp++, r, res, i >= c->warmup);
    }
    free(dir);
    free(stack);
    gsl_rng_free(r);
}

/* The model on the Monte Carlo's laws; sharers from its eviction counts. */
static void model_of(const mc_config *c, const mc_result *mc,
                     cm_recall_result *out)
{
    law sd = c->dist;
    double fin = law_total(&sd);
    for (size_t i = 0; i < sd.n; i++) sd.w[i] *= (1 - c->p_cold) / fin;
    sd.w_inf = c->p_cold;
    cm_dist dsd, dres, dsh;
    law_to_dist(&sd, &dsd);
    law_to_dist(&c->residency, &dres);
    cm_dist_init(&dsh);
    cm_err err = {0};
    for (unsigned k = 0; k <= c->l1s; k++)
        ck_assert_int_eq(cm_dist_add_bin(&dsh, k, k + 1, mc->sharers_hist[k],
                                         &err), CM_OK);
    cm_recall_input in = {.stack_distance = &dsd, .residency = &dres,
                          .sharers = &dsh, .access_rate = c->lambda,
                          .dir_sets = c->sets, .dir_ways = c->ways,
                          .l2_sets = c->sets, .l2_ways = c->ways,
                          .ctrl_flits = 1};
    ck_assert_int_eq(cm_recall_solve(&in, out, &err), CM_OK);
    cm_dist_free(&dsd);
    cm_dist_free(&dres);
    cm_dist_free(&dsh);
}

static mc_config base_config(void)
{
    mc_config c = {
        .sets = 32, .ways = 8,
        .dist = {2, {0, 64}, {64, 1024}, {1, 1}, 0},
        .p_cold = 0.02,
        .residency = {2, {0, 200}, {200, 2000}, {0.3, 0.5}, 0.2},
        .lambda = 0.25, .l1s = 1,
        .accesses = 300000, .warmup = 30000, .seed = 12345};
    return c;
}

/* The model against the Monte Carlo over five geometries of 256 entries
 * (direct mapped to fully associative) and one of 512.  Tolerances: the
 * eviction probability is exact under the binomial set model, so only the
 * Monte Carlo's noise separates them (270k accesses: one standard error is
 * ~0.25% of p_evict, ~0.5% of p_live; 2% leaves room for the correlation
 * of successive accesses); liveness adds the model's one approximation,
 * the footprint conversion from cycles to distinct lines, which costs up
 * to 2% here, so 4%.  Dropping the conditioning on the eviction (using the
 * unconditioned entry age) misses W = 1 by 18% and W = 4 by 6%. */
START_TEST(test_model_matches_monte_carlo)
{
    const uint64_t geo[][2] = {{32, 8}, {256, 1}, {1, 256}, {8, 32}, {128, 4}};
    for (size_t g = 0; g < sizeof geo / sizeof geo[0]; g++) {
        mc_config c = base_config();
        c.sets = geo[g][0];
        c.ways = geo[g][1];
        c.seed += g;
        mc_result mc;
        mc_run(&c, &mc);
        cm_recall_result m;
        model_of(&c, &mc, &m);
        ck_assert_msg(mc.evictions > 50000, "too few evictions to compare");
        ck_assert_close(m.p_dir_evict, mc.evictions / mc.accesses, 0.02);
        ck_assert_close(m.p_live, mc.live / mc.msgs, 0.04);
        ck_assert_close(m.recalls_per_access, mc.live / mc.accesses, 0.04);
        ck_assert_close(m.mean_sharers, 1, 1e-12);
        ck_assert_close(m.recall_msgs_per_access, m.p_dir_evict, 1e-12);
        ck_assert_close(m.dir_entries, (double)(c.sets * c.ways), 1e-12);
    }
}
END_TEST

/* Four L1s share the lines.  Messages go to every listed L1, so they are
 * p_evict x E[listed], with E[listed] read from the eviction counts the way
 * the simulator writes dir.sharers; the model times every listed copy from
 * the entry's last access, so its live recalls bound the true ones from
 * above (the earlier sharers' copies are older), here by 9%. */
START_TEST(test_many_sharers_bound)
{
    mc_config c = base_config();
    c.l1s = 4;
    mc_result mc;
    mc_run(&c, &mc);
    cm_recall_result m;
    model_of(&c, &mc, &m);
    ck_assert_close(m.mean_sharers, mc.msgs / mc.evictions, 1e-9);
    ck_assert_msg(m.mean_sharers > 1.5, "sharers %g", m.mean_sharers);
    ck_assert_close(m.recall_msgs_per_access, mc.msgs / mc.accesses, 0.02);
    double live = mc.live / mc.accesses;
    ck_assert_msg(m.recalls_per_access >= 0.98 * live &&
                      m.recalls_per_access <= 1.25 * live,
                  "model %g, Monte Carlo %g", m.recalls_per_access, live);
}
END_TEST

/* ---- a realistic profile: limits, monotonicity and invariants -------------- */

/* Stack distances over log2 bins to 2^18 with a long tail and 2% cold,
 * residencies over log bins with 15% never leaving, 1-8 sharers. */
static cm_profile *realistic_profile(int with_footprint, double footprint)
{
    cm_err err = {0};
    cm_profile *p = cm_profile_new();
    ck_assert_ptr_nonnull(p);
    double lo = 0;
    for (double hi = 1; hi <= 262144; lo = hi, hi *= 2)
        ck_assert_int_eq(cm_profile_add_bin(p, "dir.stack_distance", lo, hi,
                                            (hi - lo) * pow(1 + lo / 3000,
                                                            -1.6),
                                            &err), CM_OK);
    ck_assert_int_eq(cm_profile_add_bin(p, "dir.stack_distance", INFINITY,
                                        INFINITY, 60, &err), CM_OK);
    const double t[] = {0, 10, 100, 300, 1000, 3000, 10000, 30000, 100000};
    for (size_t i = 0; i + 1 < sizeof t / sizeof t[0]; i++)
        ck_assert_int_eq(cm_profile_add_bin(p, "l1.residency", t[i], t[i + 1],
                                            (t[i + 1] - t[i]) *
                                                exp(-t[i] / 4000),
                                            &err), CM_OK);
    ck_assert_int_eq(cm_profile_add_bin(p, "l1.residency", INFINITY, INFINITY,
                                        900, &err), CM_OK);
    const double sh[][2] = {{1, 60}, {2, 20}, {3, 10}, {4, 5}, {8, 5}};
    for (size_t i = 0; i < 5; i++)
        ck_assert_int_eq(cm_profile_add_bin(p, "dir.sharers", sh[i][0],
                                            sh[i][0] + 1, sh[i][1], &err),
                         CM_OK);
    ck_assert_int_eq(cm_profile_set_rate(p, "rate.dir_accesses", 0.4, &err),
                     CM_OK);
    if (with_footprint)
        ck_assert_int_eq(cm_profile_set_rate(p, "rate.dir_footprint",
                                             footprint, &err), CM_OK);
    return p;
}

static void solve_at(const cm_profile *prof, cm_recall_protocol proto,
                     double ratio, double ways, cm_recall_result *r)
{
    cm_params p;
    cm_params_init(&p);
    p.dir_ratio = ratio;
    p.dir_ways = ways;
    cm_recall_input in;
    cm_err err = {0};
    ck_assert_msg(cm_recall_input_from_params(&p, proto, prof, &in, &err) ==
                      CM_OK, "%s", err.msg);
    ck_assert_msg(cm_recall_solve(&in, r, &err) == CM_OK, "%s", err.msg);
}

static void assert_invariants(const cm_recall_result *r)
{
    ck_assert(r->p_dir_evict >= 0 && r->p_dir_evict <= r->p_dir_miss &&
              r->p_dir_miss <= 1);
    ck_assert(r->p_live >= 0 && r->p_live <= 1);
    ck_assert(r->mean_sharers >= 0);
    ck_assert(r->recalls_per_access <= r->recall_msgs_per_access);
    ck_assert_close(r->recalls_per_access,
                    r->p_dir_evict * r->p_live * r->mean_sharers, 1e-12);
    ck_assert_close(r->recalls_per_cycle, 0.4 * r->recalls_per_access, 1e-12);
    ck_assert_close(r->inv_msgs_per_access, 2 * r->recall_msgs_per_access,
                    1e-12);
    ck_assert_close(r->dir_entries, r->dir_sets * r->dir_ways, 1e-12);
}

/* Recalls fall as the directory grows (R) and as it gets more associative
 * (W at fixed size) on a profile whose distances thin out past the L1
 * capacity; with cold misses and no footprint they never reach zero (the
 * seed: larger directories cut recalls, never to zero). */
START_TEST(test_recalls_fall_with_size_and_ways)
{
    cm_profile *prof = realistic_profile(0, 0);
    const double R[] = {0.25, 0.5, 1, 2, 4, 16, 64};
    cm_recall_result prev = {0}, r;
    for (size_t i = 0; i < sizeof R / sizeof R[0]; i++) {
        solve_at(prof, CM_RECALL_GPU_VINI, R[i], 8, &r);
        assert_invariants(&r);
        /* 16 SMs x 32 KB / 128 B = 4096 L1 lines (tc2013) */
        ck_assert_close(r.dir_entries, R[i] * 4096, 1e-12);
        ck_assert(r.recalls_per_access > 0);
        if (i > 0) {
            ck_assert_msg(r.recalls_per_access < prev.recalls_per_access,
                          "R=%g: %g !< %g", R[i], r.recalls_per_access,
                          prev.recalls_per_access);
            ck_assert(r.recall_msgs_per_access < prev.recall_msgs_per_access);
            ck_assert(r.p_dir_evict < prev.p_dir_evict);
            ck_assert(r.p_live <= prev.p_live);
            /* the L2 of GPU-VIni does not depend on its directory */
            ck_assert_double_eq(r.l2_evict_per_access,
                                prev.l2_evict_per_access);
        }
        prev = r;
    }
    /* the never-evicted cold floor: every new line still evicts */
    ck_assert(r.p_dir_evict > 0.02 && r.p_dir_evict < 0.03);
    const double W[] = {1, 2, 4, 8, 16, 32};
    for (size_t i = 0; i < sizeof W / sizeof W[0]; i++) {
        solve_at(prof, CM_RECALL_GPU_VINI, 2, W[i], &r);
        assert_invariants(&r);
        if (i > 0)
            ck_assert_msg(r.recalls_per_access < prev.recalls_per_access,
                          "W=%g: %g !< %g", W[i], r.recalls_per_access,
                          prev.recalls_per_access);
        prev = r;
    }
    cm_profile_free(prof);
}
END_TEST

/* The L2 as directory: tc2013's 8 banks x 128 KB / 128 B lines, 8-way, is
 * 1024 sets x 8 ways; recalls then equal the L2's own evictions' recalls,
 * and dir.ratio and dir.ways do not matter.  MESI's L1s notify their
 * evictions, so its profiled sharers are all live: its recalls are
 * GPU-VI's RCL messages, and at another L1 size they follow GPU-VI's
 * liveness there. */
START_TEST(test_l2_as_directory)
{
    cm_profile *prof = realistic_profile(0, 0);
    cm_recall_result a, b, m;
    solve_at(prof, CM_RECALL_GPU_VI, 2, 8, &a);
    solve_at(prof, CM_RECALL_GPU_VI, 16, 32, &b);
    solve_at(prof, CM_RECALL_MESI, 2, 8, &m);
    assert_invariants(&a);
    ck_assert_double_eq(a.dir_sets, 1024);
    ck_assert_double_eq(a.dir_ways, 8);
    ck_assert_double_eq(a.l2_evict_per_access, a.p_dir_evict);
    ck_assert_double_eq(a.recalls_per_access, b.recalls_per_access);
    ck_assert_double_eq(m.recalls_per_access, a.recall_msgs_per_access);
    ck_assert_double_eq(m.recall_msgs_per_access, a.recall_msgs_per_access);
    ck_assert(m.recalls_per_access > a.recalls_per_access);
    /* profiled at a quarter of the L1: copies live longer here */
    cm_err err = {0};
    cm_profile *big = realistic_profile(0, 0);
    cm_params prm;
    cm_params_init(&prm);
    double lines = floor(prm.l1_size / prm.l1_line);
    ck_assert_int_eq(cm_profile_set_rate(big, "rate.l1_lines", lines / 4,
                                         &err), CM_OK);
    for (int i = 0; i < 8; i++)
        ck_assert_int_eq(cm_profile_add_bin(big, "l1.load_distance",
                                            i * lines / 4, (i + 1) * lines / 4,
                                            1, &err), CM_OK);
    ck_assert_int_eq(cm_profile_add_bin(big, "l1.load_distance", INFINITY,
                                        INFINITY, 1, &err), CM_OK);
    cm_recall_input in;
    cm_recall_result vi, mesi;
    ck_assert_int_eq(cm_recall_input_from_params(&prm, CM_RECALL_GPU_VI, big,
                                                 &in, &err), CM_OK);
    ck_assert(in.residency_scale > 1);
    ck_assert_int_eq(cm_recall_solve(&in, &vi, &err), CM_OK);
    ck_assert(vi.p_live > a.p_live);
    ck_assert_int_eq(cm_recall_input_from_params(&prm, CM_RECALL_MESI, big,
                                                 &in, &err), CM_OK);
    ck_assert_int_eq(cm_recall_solve(&in, &mesi, &err), CM_OK);
    ck_assert_double_eq_tol(mesi.recalls_per_access,
                            a.recall_msgs_per_access * vi.p_live / a.p_live,
                            1e-12);
    cm_profile_free(big);
    /* GPU-VIni at R = 2, W = 8 has the same geometry on tc2013 */
    cm_recall_result v;
    solve_at(prof, CM_RECALL_GPU_VINI, 2, 8, &v);
    ck_assert_double_eq(v.recalls_per_access, a.recalls_per_access);
    cm_profile_free(prof);
}
END_TEST

/* Exact zeros only where they belong. */
START_TEST(test_zero_limits)
{
    cm_err err = {0};
    cm_dist sd, res, sh, inf_res;
    cm_dist_init(&sd);
    cm_dist_init(&res);
    cm_dist_init(&sh);
    cm_dist_init(&inf_res);
    /* distances 0..15 only, no cold line */
    ck_assert_int_eq(cm_dist_add_bin(&sd, 0, 16, 1, &err), CM_OK);
    ck_assert_int_eq(cm_dist_add_bin(&res, 0, 5000, 1, &err), CM_OK);
    ck_assert_int_eq(cm_dist_add_bin(&sh, 2, 3, 1, &err), CM_OK);
    ck_assert_int_eq(cm_dist_add_bin(&inf_res, INFINITY, INFINITY, 1, &err),
                     CM_OK);
    cm_recall_input in = {.stack_distance = &sd, .residency = &res,
                          .sharers = &sh, .access_rate = 1,
                          .dir_sets = 64, .dir_ways = 16,
                          .l2_sets = 64, .l2_ways = 16, .ctrl_flits = 1};
    cm_recall_result r;
    /* 16 ways hold any 15 other lines of a set: no miss at all */
    ck_assert_int_eq(cm_recall_solve(&in, &r, &err), CM_OK);
    ck_assert_double_eq(r.p_dir_miss, 0);
    ck_assert_double_eq(r.recalls_per_access, 0);
    ck_assert_double_eq(r.recall_msgs_per_access, 0);
    /* 15 ways miss a little; fully associative misses exactly 1/16 */
    in.dir_ways = in.l2_ways = 15;
    ck_assert_int_eq(cm_recall_solve(&in, &r, &err), CM_OK);
    ck_assert(r.p_dir_evict > 0 && r.recalls_per_access > 0);
    in.dir_sets = in.l2_sets = 1;
    ck_assert_int_eq(cm_recall_solve(&in, &r, &err), CM_OK);
    ck_assert_close(r.p_dir_evict, 1.0 / 16, 1e-12);
    ck_assert_close(r.mean_sharers, 2, 1e-12);

    /* cold lines: a footprint that fits the ways never evicts, a larger
     * one does, an unknown one (steady state) always does */
    cm_dist_free(&sd);
    cm_dist_init(&sd);
    ck_assert_int_eq(cm_dist_add_bin(&sd, 0, 8, 3, &err), CM_OK);
    ck_assert_int_eq(cm_dist_add_bin(&sd, INFINITY, INFINITY, 1, &err),
                     CM_OK);
    in.dir_sets = in.l2_sets = 4;
    in.dir_ways = in.l2_ways = 16;
    in.footprint = 16;
    ck_assert_int_eq(cm_recall_solve(&in, &r, &err), CM_OK);
    ck_assert_double_eq(r.p_dir_evict, 0);
    ck_assert_double_eq(r.recalls_per_access, 0);
    in.footprint = 1000;
    ck_assert_int_eq(cm_recall_solve(&in, &r, &err), CM_OK);
    ck_assert(r.p_dir_evict > 0.2 && r.p_dir_evict < 0.25);
    in.footprint = 0;
    ck_assert_int_eq(cm_recall_solve(&in, &r, &err), CM_OK);
    ck_assert_close(r.p_dir_evict, 0.25, 1e-12);
    ck_assert_close(r.p_dir_miss, 0.25, 1e-12);
    /* copies that never leave are always live */
    in.residency = &inf_res;
    ck_assert_int_eq(cm_recall_solve(&in, &r, &err), CM_OK);
    ck_assert_close(r.p_live, 1, 1e-12);
    /* copies that leave within a cycle are never live: the directory
     * cannot see 16 new lines of a set in under one access */
    cm_dist_free(&res);
    cm_dist_init(&res);
    ck_assert_int_eq(cm_dist_add_bin(&res, 0, 1, 1, &err), CM_OK);
    in.residency = &res;
    ck_assert_int_eq(cm_recall_solve(&in, &r, &err), CM_OK);
    ck_assert(r.p_dir_evict > 0 && r.recall_msgs_per_access > 0);
    ck_assert_double_eq(r.p_live, 0);
    ck_assert_double_eq(r.recalls_per_access, 0);
    cm_dist_free(&sd);
    cm_dist_free(&res);
    cm_dist_free(&sh);
    cm_dist_free(&inf_res);
}
END_TEST

/* GPU-VIni's own stream (dir.alloc_distance per GETS) and its sharer-less
 * victims, against closed forms on the realistic profile.  The directory
 * stream given as the same law as the L2's, with loads a share f of the
 * accesses, scales the evictions per access by f.  Emptied lines whose
 * access hits (distance 0) and that are never loaded again live until
 * their set's next full allocation, so by Little's law a set holds
 * e / p_full of them on average (e emptyings and p_full full allocations
 * per GETS) and a full allocation finds one with probability
 * 1 - exp(-e / p_full): recalls scale by exp(-e / p_full).  The old model
 * (every access allocating, no sharer-less victim) fails both. */
/* A profile with GPU-VIni's stream (the L2 stream of base as
 * dir.alloc_distance, 0.3 GETS per cycle, footprint lines) and, when
 * empties > 0, emptyings per GETS at distance 0 followed by the line's
 * next GETS at gap (INFINITY: never). */
static cm_profile *vini_profile(const cm_dist *sd, double footprint,
                                double empties, double gap)
{
    cm_err err = {0};
    cm_profile *p = realistic_profile(1, 200000);
    for (size_t b = 0; b < sd->n; b++)
        ck_assert_int_eq(cm_profile_add_bin(p, "dir.alloc_distance",
                                            sd->lo[b], sd->hi[b], sd->w[b],
                                            &err), CM_OK);
    ck_assert_int_eq(cm_profile_add_bin(p, "dir.alloc_distance", INFINITY,
                                        INFINITY, sd->w_inf, &err), CM_OK);
    ck_assert_int_eq(cm_profile_set_rate(p, "rate.l2_loads", 0.3, &err),
                     CM_OK);
    if (footprint > 0)
        ck_assert_int_eq(cm_profile_set_rate(p, "rate.dir_alloc_footprint",
                                             footprint, &err), CM_OK);
    if (empties > 0) {
        ck_assert_int_eq(cm_profile_add_bin(p, "dir.empty_distance", 0, 1,
                                            5, &err), CM_OK);
        ck_assert_int_eq(cm_profile_add_bin(p, "dir.empty_gap", gap,
                                            isinf(gap) ? gap : gap + 1, 5,
                                            &err), CM_OK);
        ck_assert_int_eq(cm_profile_set_rate(p, "rate.dir_empties",
                                             empties * 0.3, &err), CM_OK);
    }
    return p;
}

START_TEST(test_gpu_vini_stream_and_sharerless)
{
    cm_err err = {0};
    cm_profile *base = realistic_profile(1, 200000);
    cm_recall_result r0, r1, r2;
    solve_at(base, CM_RECALL_GPU_VINI, 2, 8, &r0);
    /* from base: adding rows to a profile may move its distributions */
    const cm_dist *sd;
    ck_assert_int_eq(cm_profile_dist(base, "dir.stack_distance", &sd, &err),
                     CM_OK);
    cm_profile *p = vini_profile(sd, 200000, 0, 0);
    solve_at(p, CM_RECALL_GPU_VINI, 2, 8, &r1);
    double f = 0.3 / 0.4;
    ck_assert_double_eq_tol(r1.p_dir_evict, f * r0.p_dir_evict,
                            1e-12 * r0.p_dir_evict);
    ck_assert_double_eq_tol(r1.recall_msgs_per_access,
                            f * r0.recall_msgs_per_access,
                            1e-12 * r0.recall_msgs_per_access);
    ck_assert_double_eq(r1.p_sharerless, 0);
    cm_profile_free(p);
    /* emptyings at distance 0, never reloaded: the footprint fills every
     * set, so each emptied entry waits for its set's next full allocation,
     * S / p_full GETS */
    double p_full = r0.p_dir_evict, e = 0.2 * p_full;
    p = vini_profile(sd, 200000, e, INFINITY);
    solve_at(p, CM_RECALL_GPU_VINI, 2, 8, &r2);
    double want = 1 - exp(-e / p_full);
    ck_assert_double_eq_tol(r2.p_sharerless, want, 1e-9);
    ck_assert_double_eq_tol(r2.p_dir_evict, f * p_full * (1 - want), 1e-9);
    assert_invariants(&r2);
    cm_profile_free(p);
    /* a footprint of 2 lines per set: only the sets more than W of them
     * map to (P(Bin(U, 1/S) > W)) allocate into a full set, so there the
     * wait is that share of S / p_full (the bug this guards against: the
     * average over all sets made it S / p_full, near 1 sharer-less) */
    double U = 2 * r2.dir_sets;
    p = vini_profile(sd, U, 0, 0);
    solve_at(p, CM_RECALL_GPU_VINI, 2, 8, &r1);
    cm_profile_free(p);
    double p_full_sparse = r1.p_dir_evict / f;
    ck_assert(p_full_sparse > 0 && p_full_sparse < p_full);
    p = vini_profile(sd, U, 0.2 * p_full_sparse, INFINITY);
    solve_at(p, CM_RECALL_GPU_VINI, 2, 8, &r2);
    double share = gsl_cdf_binomial_Q(8, 1 / r2.dir_sets, (unsigned)U);
    ck_assert_double_eq_tol(r2.p_sharerless, 1 - exp(-0.2 * share), 1e-9);
    ck_assert(r2.p_sharerless < 1e-3);
    cm_profile_free(p);
    /* reloaded at once: the emptied entry is refilled before any
     * allocation can take it */
    p = vini_profile(sd, 0, e, 0);
    solve_at(p, CM_RECALL_GPU_VINI, 2, 8, &r2);
    ck_assert(r2.p_sharerless < 1e-3);
    cm_profile_free(p);
    cm_profile_free(base);
}
END_TEST

/* The directory's sets as the profile measures them (recall.c, "Sets"):
 * GETS at distance 100, three of four, the rest cold.  On the default
 * machine (16 L1s of 256 lines, 8 banks) R = 2, W = 8 gives 128 sets per
 * bank, index width 7: with every GETS's set-local distance j = 10 >= W
 * each misses, and every index holding 12 of the run's lines, a third of
 * the cold ones find their set full (the first 8 of 12 fill it), so
 * P(evict) = 3/4 + 1/4 x 1/3 per GETS; at j = 5 only the cold third.  The
 * binomial (no rows) says neither.  R = 1.5 gives 96 sets, 128 indices
 * reduced modulo 96: indices 0-31 share a set with 96-127, so half the
 * lines meet Poisson(100 / (8 x 128)) more set-mates in their window, and
 * those sets hold 24 lines against 12 (worked below). */
static cm_profile *measured_profile_of(unsigned b, double j, double lines,
                                      double acc)
{
    cm_err err = {0};
    cm_profile *p = cm_profile_new();
    ck_assert_ptr_nonnull(p);
    const char *names[] = {"dir.stack_distance", "dir.alloc_distance"};
    for (int k = 0; k < 2; k++) { /* acc accesses: 3 in 4 at 100, 1 cold */
        ck_assert_int_eq(
            cm_profile_add_bin(p, names[k], 100, 101, 0.75 * acc, &err),
            CM_OK);
        ck_assert_int_eq(cm_profile_add_bin(p, names[k], INFINITY, INFINITY,
                                            0.25 * acc, &err),
                         CM_OK);
    }
    ck_assert_int_eq(cm_profile_add_bin(p, "l1.residency", 0, 1000, 1, &err),
                     CM_OK);
    ck_assert_int_eq(cm_profile_add_bin(p, "dir.sharers", 1, 2, 1, &err),
                     CM_OK);
    ck_assert_int_eq(cm_profile_set_rate(p, "rate.dir_accesses", 0.4, &err),
                     CM_OK);
    ck_assert_int_eq(cm_profile_set_rate(p, "rate.l2_loads", 0.3, &err), CM_OK);
    ck_assert_int_eq(cm_profile_set_rate(p, "rate.l2_banks", 8, &err), CM_OK);
    if (b) {
        char name[48];
        snprintf(name, sizeof name, "joint.dir.set_mates_%u", b);
        ck_assert_int_eq(cm_profile_add_point(p, name, 100, j, 3, &err), CM_OK);
        ck_assert_int_eq(cm_profile_add_point(p, "joint.dir.index_lines", b,
                                              lines, 8 << b, &err),
                         CM_OK);
    }
    return p;
}

static cm_profile *measured_profile(unsigned b, double j, double lines)
{
    return measured_profile_of(b, j, lines, 4);
}

START_TEST(test_measured_sets)
{
    cm_recall_result r;
    double f = 0.3 / 0.4; /* GETS per directory access */
    cm_profile *p = measured_profile(7, 10, 12);
    solve_at(p, CM_RECALL_GPU_VINI, 2, 8, &r);
    ck_assert_double_eq_tol(r.p_dir_evict, f * (0.75 + 0.25 / 3), 1e-12);
    ck_assert_double_eq(r.dir_sets, 8 * 128);
    assert_invariants(&r);
    cm_profile_free(p);
    p = measured_profile(7, 5, 12);
    solve_at(p, CM_RECALL_GPU_VINI, 2, 8, &r);
    ck_assert_double_eq_tol(r.p_dir_evict, f * 0.25 / 3, 1e-12);
    cm_profile_free(p);
    /* the binomial, without the rows: 1024 sets, 100 lines, W = 8, so
     * only the cold GETS (every one, no footprint given) */
    p = measured_profile(0, 0, 0);
    solve_at(p, CM_RECALL_GPU_VINI, 2, 8, &r);
    ck_assert_double_eq_tol(r.p_dir_evict, f * 0.25, 1e-6);
    cm_profile_free(p);
    /* 96 sets per bank: 32 hold two indices (24 lines), 64 one (12):
     * mean 16 lines per set, (24 - 8) x 32/96 + (12 - 8) x 64/96 = 8 full
     * per set, so c_full = 8 / 16; the paired half of the GETS at j = 5
     * miss iff Poisson(100 / 1024) brings 3 more mates */
    p = measured_profile(7, 5, 12);
    solve_at(p, CM_RECALL_GPU_VINI, 1.5, 8, &r);
    double mates = gsl_cdf_poisson_Q(2, 100.0 / 1024);
    ck_assert_double_eq(r.dir_sets, 8 * 96);
    ck_assert_double_eq_tol(r.p_dir_evict,
                            f * (0.75 * 0.5 * mates + 0.25 * 0.5), 1e-12);
    cm_profile_free(p);
}
END_TEST

/* The reply port's work per access (recall_geom.c, "The run's length") by
 * the simulator's flit count on the default machine (8-byte header,
 * 32-byte flits, 128-byte lines): a data reply 5 flits, an ack or an RCL
 * one. */
START_TEST(test_port_work_flits)
{
    cm_params p;
    cm_params_init(&p);
    ck_assert_double_eq(p.noc_header, 8);
    ck_assert_double_eq(p.noc_flit, 32);
    ck_assert_double_eq(p.l1_line, 128);
    ck_assert_double_eq_tol(cm_recall_port_work(&p, 1, 0), 5, 1e-12);
    ck_assert_double_eq_tol(cm_recall_port_work(&p, 0, 0), 1, 1e-12);
    ck_assert_double_eq_tol(cm_recall_port_work(&p, 0.5, 0.2), 3.2, 1e-12);
}
END_TEST

/* c_full of the run s times as long, for test_run_length's pairs (12
 * lines of which 3 came last, W = 8; with empty = 1 as many empty pairs
 * too): the other half of the fixed point s = w(r0) / w(r1(s)). */
static double run_cfull(double s, int empty)
{
    if (s >= 1) { /* every pair gains Poisson(4 (s - 1) E[late]) lines */
        double mu = 4 * (s - 1) * (empty ? 1.5 : 3), excess = 0;
        if (empty) /* an empty pair over W = 8: E[(X - 8)+] */
            for (unsigned k = 9; k < 200; k++)
                excess += (k - 8.0) * gsl_ran_poisson_pdf(k, mu);
        return empty ? (4 + mu + excess) / (12 + 2 * mu)
                     : (4 + mu) / (12 + mu);
    }
    double q = fmin(1, 4 * (1 - s)); /* each of the 3 late lines goes */
    return (4 - 3 * q) / (12 - 3 * q);
}

/* measured_profile(7, 5, 12)'s directory (no reuse misses: j = 5 < W; a
 * third of the cold GETS find their set full) with the run's late lines
 * (3 of each pair's 12), listing `listed` RCL per access for its own run
 * (the one listed sharer over 1 / listed accesses); empty: as many empty
 * index pairs as full ones. */
static cm_profile *run_profile(double listed, int empty)
{
    cm_err err = {0};
    cm_profile *p = measured_profile_of(7, 5, 12, 1 / listed);
    ck_assert_int_eq(cm_profile_add_point(p, "joint.dir.index_late_7", 12, 3,
                                          8 << 7, &err), CM_OK);
    if (empty)
        ck_assert_int_eq(cm_profile_add_point(p, "joint.dir.index_lines", 7,
                                              0, 8 << 7, &err), CM_OK);
    return p;
}

/* The run's length (recall_geom.c): a profile that recalled r0 per access
 * where this geometry recalls r1 makes s = w(r0) / w(r1) times its GETS,
 * w(r) = 0.75 x 5 + 0.25 x 1 + r flits; the model's pairs grow or shrink
 * by the late lines and its c_full follows.  The fixed point is found here
 * by bisection from closed forms, independently of the model's
 * iteration. */
START_TEST(test_run_length)
{
    double f = 0.3 / 0.4; /* GETS per directory access */
    const struct {
        double listed;
        int empty;
    } cases[] = {{0.25, 0}, {0.25, 1}, {0.01, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        cm_profile *p = run_profile(cases[c].listed, cases[c].empty);
        double w0 = 4 + cases[c].listed, lo = 0.5, hi = 2;
        for (int it = 0; it < 200; it++) { /* s - w0 / w(r1(s)) rises */
            double s = (lo + hi) / 2;
            double r1 = f * 0.25 * run_cfull(s, cases[c].empty);
            if (s - w0 / (4 + r1) > 0) hi = s;
            else lo = s;
        }
        double s = (lo + hi) / 2;
        cm_recall_result r;
        solve_at(p, CM_RECALL_GPU_VINI, 2, 8, &r);
        assert_invariants(&r);
        ck_assert_msg(isfinite(r.p_dir_evict), "case %zu", c);
        ck_assert_double_eq_tol(r.p_dir_evict,
                                f * 0.25 * run_cfull(s, cases[c].empty),
                                1e-6);
        /* longer when the profile recalled more, shorter when less */
        if (cases[c].listed > r.recall_msgs_per_access)
            ck_assert(r.p_dir_evict > f * 0.25 / 3 + 1e-4);
        else
            ck_assert(r.p_dir_evict < f * 0.25 / 3 - 1e-4);
        cm_profile_free(p);
    }
}
END_TEST

/* cm_recall_predict is cm_recall_input_from_params then cm_recall_solve,
 * to the bit, though it walks the distributions once: on GPU-VIni's run's
 * length (the scale moves the input after its walk: longer, shorter, with
 * empty pairs), the measured sets, the binomial and the L2's protocols. */
static void assert_predict_as_solve(const cm_profile *prof,
                                    cm_recall_protocol proto, double ratio)
{
    cm_params p;
    cm_params_init(&p);
    p.dir_ratio = ratio;
    cm_recall_input in1, in2;
    cm_recall_result r1, r2;
    cm_err err = {0};
    ck_assert_msg(cm_recall_input_from_params(&p, proto, prof, &in1, &err) ==
                      CM_OK, "%s", err.msg);
    ck_assert_msg(cm_recall_solve(&in1, &r1, &err) == CM_OK, "%s", err.msg);
    ck_assert_msg(cm_recall_predict(&p, proto, prof, &in2, &r2, &err) ==
                      CM_OK, "%s", err.msg);
    ck_assert_double_eq(in1.run_scale, in2.run_scale);
    ck_assert_double_eq(in1.q_cold, in2.q_cold);
    ck_assert_msg(memcmp(&r1, &r2, sizeof r1) == 0,
                  "%s at ratio %g: RCL per access %.17g solved, %.17g "
                  "predicted", cm_recall_protocol_name(proto), ratio,
                  r1.recall_msgs_per_access, r2.recall_msgs_per_access);
}

START_TEST(test_predict_one_walk)
{
    const struct {
        double listed;
        int empty;
    } runs[] = {{0.25, 0}, {0.25, 1}, {0.01, 0}};
    for (size_t c = 0; c < sizeof runs / sizeof *runs; c++) {
        cm_profile *p = run_profile(runs[c].listed, runs[c].empty);
        cm_params q;
        cm_params_init(&q);
        cm_recall_input in;
        cm_err err = {0};
        /* the case this is about: the run's length moved the input */
        ck_assert_int_eq(cm_recall_input_from_params(&q, CM_RECALL_GPU_VINI,
                                                     p, &in, &err), CM_OK);
        ck_assert(in.run_rows && in.run_scale != 1);
        for (double ratio = 1; ratio <= 8; ratio *= 2)
            assert_predict_as_solve(p, CM_RECALL_GPU_VINI, ratio);
        cm_profile_free(p);
    }
    cm_profile *p = measured_profile(7, 10, 12);
    assert_predict_as_solve(p, CM_RECALL_GPU_VINI, 2);
    cm_profile_free(p);
    p = realistic_profile(1, 200000);
    for (int proto = 0; proto < 3; proto++)
        assert_predict_as_solve(p, (cm_recall_protocol)proto, 2);
    cm_profile_free(p);
}
END_TEST

/* The footprint's lookups from a walk's last segment give the searches'
 * answers to the bit, up and down the distances, past the last edge and
 * into a saturated footprint (no cold misses: r infinite there). */
START_TEST(test_fp_near_as_search)
{
    cm_profile *prof = realistic_profile(0, 0);
    const cm_dist *sd;
    cm_err err = {0};
    ck_assert_int_eq(cm_profile_dist(prof, "dir.stack_distance", &sd, &err),
                     CM_OK);
    cm_dist sat;
    cm_dist_init(&sat);
    for (size_t b = 0; b < sd->n; b++)
        ck_assert_int_eq(cm_dist_add_bin(&sat, sd->lo[b], sd->hi[b],
                                         sd->w[b], &err), CM_OK);
    const cm_dist *laws[] = {sd, &sat};
    for (int l = 0; l < 2; l++) {
        cm_recall_fp f;
        ck_assert_int_eq(cm_recall_fp_build(laws[l], &f, &err), CM_OK);
        size_t sa = 0, sl = 0;
        /* up, then down again, then up in big steps */
        for (int pass = 0; pass < 3; pass++)
            for (int i = 0; i <= 400; i++) {
                int k = pass == 1 ? 400 - i : pass == 2 ? (i * 37) % 401 : i;
                double x = 1e6 * pow(k / 400.0, 3), r = x * 3;
                ck_assert_msg(cm_recall_fp_accesses_near(&f, x, &sa) ==
                                  cm_recall_fp_accesses(&f, x),
                              "r(%g)", x);
                ck_assert_msg(cm_recall_fp_lines_near(&f, r, &sl) ==
                                  cm_recall_fp_lines(&f, r),
                              "g(%g)", r);
            }
        cm_recall_fp_free(&f);
    }
    cm_dist_free(&sat);
    cm_profile_free(prof);
}
END_TEST

START_TEST(test_bad_input)
{
    cm_err err = {0};
    cm_recall_protocol proto;
    ck_assert_int_eq(cm_recall_protocol_parse("gpu-vini", &proto, &err),
                     CM_OK);
    ck_assert_int_eq(proto, CM_RECALL_GPU_VINI);
    ck_assert_str_eq(cm_recall_protocol_name(CM_RECALL_MESI), "mesi");
    ck_assert_int_eq(cm_recall_protocol_parse("tc-weak", &proto, &err),
                     CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "tc-weak"));

    /* a profile without dir.sharers names what is missing */
    cm_profile *prof = cm_profile_new();
    ck_assert_int_eq(cm_profile_add_bin(prof, "dir.stack_distance", 0, 10, 1,
                                        &err), CM_OK);
    ck_assert_int_eq(cm_profile_add_bin(prof, "l1.residency", 0, 10, 1, &err),
                     CM_OK);
    ck_assert_int_eq(cm_profile_set_rate(prof, "rate.dir_accesses", 1, &err),
                     CM_OK);
    cm_params p;
    cm_params_init(&p);
    cm_recall_input in;
    ck_assert_int_eq(cm_recall_input_from_params(&p, CM_RECALL_GPU_VI, prof,
                                                 &in, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "dir.sharers"));
    /* a sharer count at infinity, a zero rate */
    ck_assert_int_eq(cm_profile_add_bin(prof, "dir.sharers", INFINITY,
                                        INFINITY, 1, &err), CM_OK);
    ck_assert_int_eq(cm_recall_input_from_params(&p, CM_RECALL_GPU_VI, prof,
                                                 &in, &err), CM_OK);
    cm_recall_result r;
    ck_assert_int_eq(cm_recall_solve(&in, &r, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "dir.sharers"));
    cm_dist sh;
    cm_dist_init(&sh);
    ck_assert_int_eq(cm_dist_add_bin(&sh, 1, 2, 1, &err), CM_OK);
    in.sharers = &sh;
    in.access_rate = 0;
    ck_assert_int_eq(cm_recall_solve(&in, &r, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "rate.dir_accesses"));
    cm_dist_free(&sh);
    cm_profile_free(prof);
    /* an L2 bank too small for its ways */
    p.l2_bank_size = 1024;
    p.l2_ways = 16;
    uint64_t sets, ways;
    ck_assert_int_eq(cm_recall_geometry(&p, CM_RECALL_MESI, &sets, &ways,
                                        &err), CM_EINPUT);
}
END_TEST

/* Stack distances uniform on [0, N) with no cold misses: m(c) = 1 - c/N,
 * so the accesses to touch C distinct lines are r(C) = -N ln(1 - C/N), and
 * a residency at C2 lines is r(C2) / r(C1) times the one at C1. */
START_TEST(test_residency_scale_closed_form)
{
    cm_dist d;
    cm_err err = {0};
    cm_dist_init(&d);
    const double N = 1000;
    for (int i = 0; i < 10; i++)
        ck_assert_int_eq(
            cm_dist_add_bin(&d, N * i / 10, N * (i + 1) / 10, 1, &err), CM_OK);
    double want = log(1 - 500 / N) / log(1 - 250 / N);
    ck_assert(tu_close(cm_recall_residency_scale(&d, 250, 500), want, 1e-9));
    ck_assert(tu_close(cm_recall_residency_scale(&d, 500, 250), 1 / want,
                       1e-9));
    ck_assert_double_eq(cm_recall_residency_scale(&d, 300, 300), 1);
    ck_assert_double_eq(cm_recall_residency_scale(NULL, 250, 500), 1);
    /* beyond the footprint the copies outlive the run: the clamp */
    ck_assert_double_eq(cm_recall_residency_scale(&d, 250, 2 * N), 1e3);
    cm_dist_free(&d);
}
END_TEST

Suite *suite_recall(void)
{
    Suite *s = suite_create("recall");
    TCase *tc = tcase_create("model");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_model_matches_monte_carlo);
    tcase_add_test(tc, test_many_sharers_bound);
    tcase_add_test(tc, test_recalls_fall_with_size_and_ways);
    tcase_add_test(tc, test_l2_as_directory);
    tcase_add_test(tc, test_zero_limits);
    tcase_add_test(tc, test_gpu_vini_stream_and_sharerless);
    tcase_add_test(tc, test_measured_sets);
    tcase_add_test(tc, test_port_work_flits);
    tcase_add_test(tc, test_run_length);
    tcase_add_test(tc, test_predict_one_walk);
    tcase_add_test(tc, test_fp_near_as_search);
    tcase_add_test(tc, test_bad_input);
    tcase_add_test(tc, test_residency_scale_closed_form);
    suite_add_tcase(s, tc);
    return s;
}
