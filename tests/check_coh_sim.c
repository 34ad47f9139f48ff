/* check_coh_sim.c - the simulator (sim/gpu.h) on every protocol:
 * a small machine runs a synthetic sharing program to completion, and the
 * run must conserve messages (every request answered, every INV, RCL or
 * FWD answered), leave each line holding a value some store wrote (the
 * last one when a single warp writes it), repeat byte for byte, and give
 * lifetime outcomes that account for every installed fill. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/lifetime.h"
#include "models/profile.h"
#include "sim/gpu.h"
#include "sim/profile_rec.h"
#include "data/workload.h"
#include "tests/testutil.h"

enum { CORES = 4, WARPS = 4, ITERS = 60, SHARED = 24, PRIVATE_BASE = 1000 };

/* Per warp: ITERS rounds of load shared[i], store shared[j] (or, for warp
 * 0 of each core, a private line only it writes), a fence every 10th
 * round, an atomic every 15th; then END.  Lines are picked by a fixed LCG
 * so every protocol sees the same program. */
typedef struct prog {
    uint32_t pc[CORES][WARPS];
    uint64_t addr[CORES][WARPS];
} prog;

static uint64_t pick(uint32_t core, uint32_t warp, uint32_t i)
{
    uint64_t x = (uint64_t)core * 7919 + warp * 104729 + i * 1299709;
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return (x >> 33) % SHARED;
}

static cm_status prog_next(void *obj, uint32_t core, uint32_t warp,
                           cm_inst *in, cm_err *err)
{
    (void)err;
    prog *p = obj;
    uint32_t pc = p->pc[core][warp]++;
    uint32_t i = pc / 3, step = pc % 3;
    memset(in, 0, sizeof *in);
    if (i >= ITERS) {
        in->kind = CM_INST_END;
        return CM_OK;
    }
    in->n = 1;
    in->addrs = &p->addr[core][warp];
    if (step == 0) {
        in->kind = CM_INST_LOAD;
        p->addr[core][warp] = pick(core, warp, i);
    } else if (step == 1) {
        in->kind = i % 15 == 14 ? CM_INST_ATOMIC : CM_INST_STORE;
        p->addr[core][warp] = warp == 0 ? PRIVATE_BASE + core
                                        : pick(core, warp, i + 7);
        if (warp == 0 && in->kind == CM_INST_ATOMIC)
            in->kind = CM_INST_STORE; /* private lines: stores only */
    } else {
        in->kind = i % 10 == 9 ? CM_INST_FENCE : CM_INST_COMPUTE;
        in->n = 3;
        in->addrs = NULL;
    }
    return CM_OK;
}

static void small_machine(cm_params *p)
{
    cm_params_init(p);
    p->gpu_sms = CORES;
    p->gpu_warps_per_sm = WARPS;
    p->sched_active_warps = WARPS;
    p->sim_max_cycles = 10000000;
    p->l1_size = 1024; /* 8 lines: evictions */
    p->l1_ways = 2;
    p->l2_banks = 2;
    p->l2_bank_size = 1024; /* 8 lines per bank: L2 evictions, recalls */
    p->l2_ways = 2;
    p->l2_mshrs = 8;
    p->dir_ratio = 1;
    p->dir_ways = 2;
    p->tc_lifetime_strong = 300;
    p->tc_lifetime_weak = 600;
}

static double stat(const cm_stat_row *rows, size_t n, const char *name)
{
    const cm_stat_row *r = cm_stats_find(rows, n, name, "all");
    return r ? r->value : 0;
}

typedef struct run {
    cm_stats *stats; /* owns the rows' names */
    cm_stat_row *rows;
    size_t n;
    uint64_t value[SHARED + CORES];
    cm_profile *prof;
    uint64_t cycles;
} run;

/* One run of src on protocol pr with random message timing (noc.jitter
 * 16, seeded), its statistics in *out, the profile with `profile`, the
 * lines' final values in value[]; *res its result. */
static void sim_run(const cm_protocol *pr, const cm_params *pp, uint64_t seed,
                    cm_warp_source src, int profile, run *out,
                    cm_gpu_result *res)
{
    cm_params p = *pp;
    p.noc_jitter = 16;
    p.sim_seed = (double)seed;
    memset(out, 0, sizeof *out);
    cm_stats *s = cm_stats_new();
    ck_assert_ptr_nonnull(s);
    cm_err err = {0};
    cm_profile_rec *rec = NULL;
    if (profile)
        ck_assert_msg(cm_profile_rec_new(&p, pr, &rec, &err) == CM_OK, "%s",
                      err.msg);
    uint64_t lines[SHARED + CORES];
    for (uint32_t i = 0; i < SHARED; i++) lines[i] = i;
    for (uint32_t i = 0; i < CORES; i++) lines[SHARED + i] = PRIVATE_BASE + i;
    cm_gpu_run_config cfg = {.params = &p, .protocol = pr, .source = src,
                             .observer = rec ? cm_profile_rec_observer(rec)
                                             : NULL,
                             .probe_lines = lines, .probe_values = out->value,
                             .nprobe = SHARED + CORES};
    ck_assert_msg(cm_gpu_run(&cfg, s, res, &err) == CM_OK, "%s: %s", pr->name,
                  err.msg);
    if (rec) {
        cm_table *t = NULL;
        ck_assert(cm_profile_rec_table(rec, s, res->cycles, &t, &err) ==
                  CM_OK);
        ck_assert(cm_profile_from_table(t, &out->prof, &err) == CM_OK);
        cm_table_free(t);
        cm_profile_rec_free(rec);
    }
    ck_assert(cm_stats_rows(s, &out->rows, &out->n, &err) == CM_OK);
    out->cycles = res->cycles;
    out->stats = s;
}

/* Runs the program next (prog_next unless given) to its end. */
static void run_program(const cm_protocol *pr, const cm_params *pp,
                        uint64_t seed,
                        cm_status (*next)(void *, uint32_t, uint32_t,
                                          cm_inst *, cm_err *),
                        run *out)
{
    prog g = {0};
    cm_gpu_result res;
    sim_run(pr, pp, seed, (cm_warp_source){next ? next : prog_next, &g}, 1,
            out, &res);
    ck_assert_msg(res.finished, "%s did not finish", pr->name);
}

static void run_on(const cm_protocol *pr, const cm_params *pp,
                   uint64_t seed, run *out)
{
    run_program(pr, pp, seed, NULL, out);
}

static void run_protocol(const cm_protocol *pr, uint64_t seed, run *out)
{
    cm_params p;
    small_machine(&p);
    run_on(pr, &p, seed, out);
}

/* A TC-Strong protocol by name on the small machine at lifetime L. */
static void run_strong(const char *proto, uint64_t lifetime, uint64_t seed,
                       run *out)
{
    cm_params p;
    small_machine(&p);
    p.tc_lifetime_strong = lifetime;
    run_on(cm_protocol_find(proto), &p, seed, out);
}

static void run_free(run *r)
{
    cm_profile_free(r->prof);
    free(r->rows);
    cm_stats_free(r->stats);
}

/* Whether v is a value the program stored (or 0, the initial one). */
static int stored_value(uint64_t v)
{
    if (v == 0) return 1;
    uint64_t who = (v >> 32) - 1, k = v & 0xffffffffu;
    return who < CORES * WARPS && k >= 1 && k <= ITERS;
}

/* The profile's speed rates (models/lifetime.c carries a profile across
 * lifetimes with them): the reply ports are busy a fraction of the time,
 * the MSHR occupancy is the stats' time average over the banks, and the
 * fixed lifetime is the protocol's own (none for MESI and the adaptive
 * predictor). */
START_TEST(test_profile_speed_rates)
{
    static const struct {
        const char *proto;
        int which; /* 0 none, 1 strong, 2 weak */
    } cases[] = {{"mesi", 0}, {"tcs", 1}, {"tcw-fixed", 2}, {"tcw", 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cm_params p;
        small_machine(&p);
        p.tc_lifetime_strong = 700, p.tc_lifetime_weak = 900;
        run r;
        run_on(cm_protocol_find(cases[i].proto), &p, 3, &r);
        double busy, occ, life;
        cm_err err = {0};
        ck_assert(cm_profile_rate(r.prof, "rate.l2_reply_busy", &busy,
                                  &err) == CM_OK);
        ck_assert(cm_profile_rate(r.prof, "rate.l2_mshr_occupancy", &occ,
                                  &err) == CM_OK);
        ck_assert(cm_profile_rate(r.prof, "rate.lifetime", &life, &err) ==
                  CM_OK);
        ck_assert_msg(busy > 0 && busy <= 1, "%s: reply busy %g",
                      cases[i].proto, busy);
        double mean = 0;
        for (uint32_t b = 0; b < p.l2_banks; b++) {
            char comp[16];
            snprintf(comp, sizeof comp, "bank%u", (unsigned)b);
            const cm_stat_row *row = cm_stats_find(
                r.rows, r.n, "l2.mshr.occupancy_mean", comp);
            ck_assert_ptr_nonnull(row);
            mean += row->value / p.l2_banks;
        }
        ck_assert_msg(fabs(occ - mean) <= 1e-9 * (1 + mean),
                      "%s: occupancy %g, stats %g", cases[i].proto, occ, mean);
        double want[3] = {0, p.tc_lifetime_strong, p.tc_lifetime_weak};
        ck_assert_msg(life == want[cases[i].which], "%s: lifetime %g",
                      cases[i].proto, life);
        run_free(&r);
    }
}
END_TEST

START_TEST(test_every_protocol_conserves)
{
    for (size_t i = 0; i < cm_protocol_count(); i++) {
        const cm_protocol *pr = cm_protocol_at(i);
        const char *name = pr->name;
        run r;
        run_protocol(pr, 7, &r);
        double req = stat(r.rows, r.n, "noc.msgs.gets") +
                     stat(r.rows, r.n, "noc.msgs.getx") +
                     stat(r.rows, r.n, "noc.msgs.upgr") +
                     stat(r.rows, r.n, "noc.msgs.write") +
                     stat(r.rows, r.n, "noc.msgs.atomic");
        double rep = stat(r.rows, r.n, "noc.msgs.data") +
                     stat(r.rows, r.n, "noc.msgs.data_e") +
                     stat(r.rows, r.n, "noc.msgs.data_m") +
                     stat(r.rows, r.n, "noc.msgs.ack") +
                     stat(r.rows, r.n, "noc.msgs.areply");
        ck_assert_msg(req > 0 && req == rep, "%s: %g requests, %g replies",
                      name, req, rep);
        /* MESI: an owner answers FWD_GETS and FWD_GETX by WB or NODATA */
        double inv = stat(r.rows, r.n, "noc.msgs.inv") +
                     stat(r.rows, r.n, "noc.msgs.rcl") +
                     stat(r.rows, r.n, "noc.msgs.fwd_gets") +
                     stat(r.rows, r.n, "noc.msgs.fwd_getx");
        double ack = stat(r.rows, r.n, "noc.msgs.invack") +
                     stat(r.rows, r.n, "noc.msgs.wb") +
                     stat(r.rows, r.n, "noc.msgs.nodata");
        ck_assert_msg(inv == ack, "%s: %g INV+RCL+FWD, %g answers", name, inv,
                      ack);
        ck_assert_msg(stat(r.rows, r.n, "dir.recalls") ==
                          stat(r.rows, r.n, "noc.msgs.rcl"),
                      "%s", name);
        for (uint32_t l = 0; l < SHARED + CORES; l++)
            ck_assert_msg(stored_value(r.value[l]),
                          "%s: line %u holds %llx, no store wrote it", name,
                          (unsigned)l, (unsigned long long)r.value[l]);
        /* warp 0 of core c alone writes line PRIVATE_BASE + c: its last
         * store (the ITERS-th) is what memory holds */
        for (uint32_t c = 0; c < CORES; c++)
            ck_assert_msg(r.value[SHARED + c] ==
                              cm_store_value(c, 0, WARPS, ITERS),
                          "%s: private line of core %u", name, (unsigned)c);
        double out = stat(r.rows, r.n, "tc.outcome.hit") +
                     stat(r.rows, r.n, "tc.outcome.expired") +
                     stat(r.rows, r.n, "tc.outcome.evicted") +
                     stat(r.rows, r.n, "tc.outcome.unused");
        if (strncmp(name, "tc", 2) == 0)
            ck_assert_msg(out > 0, "%s: no lifetime outcome", name);
        run_free(&r);
    }
}
END_TEST

START_TEST(test_same_seed_same_run)
{
    const cm_protocol *pr = cm_protocol_find("gpu-vini");
    ck_assert_ptr_nonnull(pr);
    run a, b, c;
    run_protocol(pr, 11, &a);
    run_protocol(pr, 11, &b);
    run_protocol(pr, 12, &c);
    ck_assert_uint_eq(a.n, b.n);
    int differs = 0;
    for (size_t i = 0; i < a.n; i++) {
        ck_assert_str_eq(a.rows[i].metric, b.rows[i].metric);
        ck_assert_msg(a.rows[i].value == b.rows[i].value ||
                          (isnan(a.rows[i].value) && isnan(b.rows[i].value)),
                      "%s", a.rows[i].metric);
    }
    for (size_t i = 0; i < a.n && i < c.n; i++)
        differs |= a.rows[i].value != c.rows[i].value;
    ck_assert_msg(differs, "the seed changes nothing");
    run_free(&a);
    run_free(&b);
    run_free(&c);
}
END_TEST

START_TEST(test_recalls_and_stalls_where_expected)
{
    /* GPU-VI recalls on L2 evictions of shared lines, TC-Strong stalls
     * stores at the L2 and sends no invalidation, TC-Weak never stalls a
     * store but makes fences wait. */
    run vi, tcs, tcw;
    run_protocol(cm_protocol_find("gpu-vi"), 3, &vi);
    run_protocol(cm_protocol_find("tcs"), 3, &tcs);
    run_protocol(cm_protocol_find("tcw-fixed"), 3, &tcw);
    ck_assert(stat(vi.rows, vi.n, "dir.recalls") > 0);
    ck_assert(stat(vi.rows, vi.n, "dir.invalidations") > 0);
    ck_assert(stat(tcs.rows, tcs.n, "l2.store_stall_cycles") > 0);
    ck_assert(stat(tcs.rows, tcs.n, "noc.msgs.inv") == 0);
    ck_assert(stat(tcw.rows, tcw.n, "l2.store_stall_cycles") == 0);
    ck_assert(stat(tcw.rows, tcw.n, "fence.wait_cycles") > 0);
    run_free(&vi);
    run_free(&tcs);
    run_free(&tcw);
}
END_TEST

/* Bug: a fence waiting out a long GWCT left one wake-up event behind per
 * cycle the other warps kept the core ticking, until the event queue
 * overflowed (bh under TC-Weak, whose predicted lifetimes grow long, at
 * 300k cycles on 2 SMs). */
START_TEST(test_long_gwct_wait_finishes)
{
    cm_params p;
    cm_params_init(&p);
    p.gpu_sms = 2;
    p.sim_max_cycles = 300000;
    cm_stats *s = cm_stats_new();
    cm_gpu_result res;
    cm_err err = {0};
    cm_gpu_run_config cfg = {.params = &p,
                             .workload = cm_workload_builtin("bh"),
                             .protocol = cm_protocol_find("tcw")};
    ck_assert_msg(cm_gpu_run(&cfg, s, &res, &err) == CM_OK, "%s", err.msg);
    cm_stat_row *rows;
    size_t n;
    ck_assert(cm_stats_rows(s, &rows, &n, &err) == CM_OK);
    ck_assert(stat(rows, n, "fence.wait_cycles") > 0);
    free(rows);
    cm_stats_free(s);
}
END_TEST

/* Loads only: ITERS rounds of load shared[i] and compute per warp. */
static cm_status loads_next(void *obj, uint32_t core, uint32_t warp,
                            cm_inst *in, cm_err *err)
{
    (void)err;
    prog *p = obj;
    uint32_t pc = p->pc[core][warp]++;
    memset(in, 0, sizeof *in);
    if (pc / 2 >= ITERS) {
        in->kind = CM_INST_END;
    } else if (pc % 2 == 0) {
        in->kind = CM_INST_LOAD;
        in->n = 1;
        p->addr[core][warp] = pick(core, warp, pc / 2);
        in->addrs = &p->addr[core][warp];
    } else {
        in->kind = CM_INST_COMPUTE;
        in->n = 3;
    }
    return CM_OK;
}

/* Bug: a load that missed at the L2 was served again after the fill, on a
 * line whose GT the fill had left at 0, and the predictor took it for a
 * load to a valid line whose GT expired (+t_hit on every L2 miss; the
 * replay counted a load's L1-expired +t_hit twice too).  With loads only
 * and a lifetime longer than the run, no lease ever expires, so no
 * predictor event may happen, while every L1 fill's last use is in the
 * profile. */
START_TEST(test_predictor_events_only_real_expiries)
{
    cm_params p;
    small_machine(&p);
    p.tc_lifetime_weak = 1000000; /* beyond the run */
    p.l2_bank_size = 4096; /* no L2 eviction parks a timestamp for so long */
    run r;
    run_program(cm_protocol_find("tcw-fixed"), &p, 5, loads_next, &r);
    ck_assert_msg(stat(r.rows, r.n, "l2.misses") > 0, "no L2 miss to test");
    static const char *const ev[] = {
        "tc.pred.l1_expired", "tc.pred.l2_expired",
        "tc.pred.evict_unexpired", "tc.pred.write_unexpired"};
    for (int k = 0; k < 4; k++) {
        ck_assert_ptr_nonnull(cm_stats_find(r.rows, r.n, ev[k], "all"));
        ck_assert_msg(stat(r.rows, r.n, ev[k]) == 0, "%s = %g", ev[k],
                      stat(r.rows, r.n, ev[k]));
    }
    const cm_dist *v;
    double fills;
    cm_err err = {0};
    ck_assert(cm_profile_dist(r.prof, "l1.last_use", &v, &err) == CM_OK);
    ck_assert(cm_profile_rate(r.prof, "rate.l1_fills", &fills, &err) ==
              CM_OK);
    ck_assert_double_eq_tol(cm_dist_total(v), fills * (double)r.cycles,
                            1e-6 * cm_dist_total(v));
    run_free(&r);
}
END_TEST

/* Bug: a request that missed at the L2 was recorded again when the fill
 * served it, so the profile counted it twice in rate.dir_accesses and
 * rate.l2_loads and gave it a second directory stack distance (0): on cc
 * 1.77 directory accesses a cycle where the L2 served 1.03.  The profile
 * must count each request once, as the L2's statistics do. */
START_TEST(test_profile_counts_requests_once)
{
    static const char *const proto[] = {"gpu-vini", "tcw-fixed", "mesi"};
    for (size_t k = 0; k < sizeof proto / sizeof *proto; k++) {
        run r;
        run_protocol(cm_protocol_find(proto[k]), 7, &r);
        double acc = stat(r.rows, r.n, "l2.accesses");
        ck_assert_msg(stat(r.rows, r.n, "l2.misses") > 0, "%s: no L2 miss",
                      proto[k]);
        double dir;
        const cm_dist *sd;
        cm_err err = {0};
        ck_assert(cm_profile_rate(r.prof, "rate.dir_accesses", &dir, &err) ==
                  CM_OK);
        ck_assert(cm_profile_dist(r.prof, "dir.stack_distance", &sd, &err) ==
                  CM_OK);
        ck_assert_msg(fabs(dir * (double)r.cycles - acc) < 1e-6 * acc,
                      "%s: profile %g directory accesses, L2 %g", proto[k],
                      dir * (double)r.cycles, acc);
        ck_assert_double_eq_tol(cm_dist_total(sd), acc, 1e-6 * acc);
        run_free(&r);
    }
}
END_TEST

/* The predictor's +t_hit at the L2 counts loads to a valid line whose GT
 * passed.  Bug: a line a store brought into the L2 has GT 0, so its first
 * load is such an expiry at every lifetime, but the profile gave it no
 * load gap (l2.load_gap inf), and the model left it out (cc under TC-Weak:
 * 46% of those expiries).  On the small machine, whose stores refill
 * evicted lines, the model's L2 expiry rate at the run's own lifetime,
 * from the run's profile, must match the run's count. */
START_TEST(test_l2_expiries_match_profile)
{
    cm_params p;
    small_machine(&p);
    run r;
    run_on(cm_protocol_find("tcw-fixed"), &p, 3, &r);
    double sim = stat(r.rows, r.n, "tc.pred.l2_expired") / (double)r.cycles;
    cm_lifetime_input in;
    cm_err err = {0};
    ck_assert_msg(cm_lifetime_input_from_profile(r.prof, &p, &in, &err) ==
                      CM_OK, "%s", err.msg);
    cm_lifetime_rates rates;
    cm_lifetime_event_rates(&in, p.tc_lifetime_weak, &rates);
    /* the case the bug missed is a real share of them here */
    ck_assert_msg(in.l2_unleased > 0.1 * sim, "unleased %g of %g",
                  in.l2_unleased, sim);
    ck_assert_msg(fabs(rates.l2_expired - sim) <= 0.05 * sim,
                  "model %g, simulator %g L2 expiries per cycle",
                  rates.l2_expired, sim);
    run_free(&r);
}
END_TEST

/* Per warp: ITERS rounds of load L, store (or, in atomics_next, atomic) to
 * L, fence, where L is the warp's own line (fence_private) or one line all
 * warps share (fence_shared). */
typedef struct fence_prog {
    prog g;
    int shared, atomic;
} fence_prog;

static cm_status fence_next(void *obj, uint32_t core, uint32_t warp,
                            cm_inst *in, cm_err *err)
{
    (void)err;
    fence_prog *f = obj;
    uint32_t pc = f->g.pc[core][warp]++;
    memset(in, 0, sizeof *in);
    if (pc / 3 >= ITERS) {
        in->kind = CM_INST_END;
        return CM_OK;
    }
    static const cm_inst_kind kind[2][3] = {
        {CM_INST_LOAD, CM_INST_STORE, CM_INST_FENCE},
        {CM_INST_LOAD, CM_INST_ATOMIC, CM_INST_FENCE}};
    in->kind = kind[f->atomic][pc % 3];
    if (in->kind == CM_INST_FENCE) return CM_OK;
    in->n = 1;
    f->g.addr[core][warp] = f->shared ? 0 : 100 + core * WARPS + warp;
    in->addrs = &f->g.addr[core][warp];
    return CM_OK;
}

/* Runs the fence program f on protocol proto to its end; its profile. */
static cm_profile *fence_run(const char *proto, const cm_params *p,
                             fence_prog *f)
{
    run r;
    cm_gpu_result res;
    sim_run(cm_protocol_find(proto), p, 3, (cm_warp_source){fence_next, f}, 1,
            &r, &res);
    ck_assert_msg(res.finished, "%s did not finish", proto);
    cm_profile *prof = r.prof;
    r.prof = NULL;
    run_free(&r);
    return prof;
}

/* The fence lease slack (Z, the profile input of the TC-Weak fence-wait
 * model) follows the GWCTs the sim's fences wait out.  Bug: it counted
 * private writes, whose acks carry no GWCT (seed 000 section 4.3), and
 * missed atomics, whose replies do; the model then overpredicted the
 * fence wait at its own calibration point 3x (stn, L = 16000: 1065 cycles
 * against 319 simulated). */
START_TEST(test_fence_lease_slack_follows_gwct)
{
    cm_params p;
    small_machine(&p);
    p.l2_bank_size = 65536; /* no L2 eviction: every lease stays */
    for (int mode = 0; mode < 3; mode++) {
        fence_prog f = {.shared = mode > 0, .atomic = mode == 2};
        cm_profile *prof = fence_run("tcw-fixed", &p, &f);
        cm_err err = {0};
        const cm_dist *z;
        ck_assert(cm_profile_dist(prof, "warp.fence_lease_slack", &z,
                                  &err) == CM_OK);
        double never = cm_dist_mass_inf(z) * cm_dist_total(z);
        /* A warp's stores to its own line alternate between private
         * writes (ACK, no GWCT) and stale ones (DATA-G): the private
         * write's ack leaves the L1's timestamp behind the incremented GT
         * (seed 000 Tables 4.3-4.4), so half the fences name no lease;
         * shared stores and atomics always return the line's GWCT. */
        double want_lo = mode == 0 ? 0.4 : 0, want_hi = mode == 0 ? 0.6 : 0.1;
        ck_assert_msg(never >= want_lo * cm_dist_total(z) &&
                          never <= want_hi * cm_dist_total(z),
                      "%s: %g of %g fences named no lease",
                      mode == 0 ? "private stores"
                      : mode == 1 ? "shared stores"
                                  : "atomics",
                      never, cm_dist_total(z));
        cm_profile_free(prof);
    }
}
END_TEST

/* A fence waits for every store its warp issued before it.  Bug: a fence
 * could issue while the LD/ST unit still held its warp's store, refused
 * by a full L1 (l1.mshrs), with no ack outstanding yet, and pass at once:
 * the store then went after the fence (tcw-fixed, tc2013, L = 16000: 495
 * of 6676 fences on bh, 373 of 3042 on cl).  Here every fence comes right
 * after its warp's store, so each must wait for that store's ack, and the
 * L1's one MSHR makes the other warps' loads refuse stores. */
START_TEST(test_fence_waits_for_refused_store)
{
    static const char *const proto[] = {"tcw-fixed", "tcs", "gpu-vi"};
    for (size_t i = 0; i < sizeof proto / sizeof *proto; i++) {
        cm_params p;
        small_machine(&p);
        p.l1_mshrs = 1;
        fence_prog f = {.shared = 0};
        cm_profile *prof = fence_run(proto[i], &p, &f);
        cm_err err = {0};
        const cm_dist *a;
        ck_assert(cm_profile_dist(prof, "warp.fence_ack_wait", &a, &err) ==
                  CM_OK);
        ck_assert_msg(cm_dist_total(a) == CORES * WARPS * ITERS,
                      "%s: %g fences", proto[i], cm_dist_total(a));
        ck_assert_msg(cm_dist_cdf(a, 1) == 0,
                      "%s: %g of %g fences passed without their store's ack",
                      proto[i], cm_dist_cdf(a, 1) * cm_dist_total(a),
                      cm_dist_total(a));
        cm_profile_free(prof);
    }
}
END_TEST

/* A run's own profile gives back its L1 fill outcomes (models/lifetime.c
 * cm_lifetime_outcomes at its lifetime, unscaled): the first reuse while
 * the copy is held and the lease's delay to the fill decide hit or
 * expired.  Bug: the model also required the copy to outlive L by
 * capacity (R is already cut short by eviction), so at long lifetimes it
 * saw 5x too few expiries (bh, tc2013, L = 16000); and every fill has a
 * lease delay.  The split of the reused copies assumes R and the delay
 * independent, and reads a little high: pooled over seeds 3-6 (2442 and
 * 2025 fills) hit +5.0% and expired -1.5% on tcsuo, +1.5% and -0.2% on
 * tcw-fixed.  One seed's 40-70 tcsuo hits scatter hit +2 to +9%, so the
 * seeds are pooled. */
START_TEST(test_outcomes_from_own_profile)
{
    static const char *const proto[] = {"tcw-fixed", "tcsuo"};
    for (int i = 0; i < 2; i++) {
        double model[2] = {0, 0}, sim[2] = {0, 0}, fills_all = 0;
        for (uint64_t seed = 3; seed <= 6; seed++) {
            cm_params p;
            small_machine(&p);
            p.tc_lifetime_strong = p.tc_lifetime_weak = 2000; /* past eviction */
            run r;
            run_on(cm_protocol_find(proto[i]), &p, seed, &r);
            const cm_dist *reuse, *resid, *delay;
            double fills;
            cm_err err = {0};
            ck_assert(cm_profile_dist(r.prof, "l1.reuse_time", &reuse,
                                      &err) == CM_OK);
            ck_assert(cm_profile_dist(r.prof, "l1.residency", &resid,
                                      &err) == CM_OK);
            ck_assert(cm_profile_dist(r.prof, "l1.lease_delay", &delay,
                                      &err) == CM_OK);
            ck_assert(cm_profile_rate(r.prof, "rate.l1_fills", &fills,
                                      &err) == CM_OK);
            ck_assert_double_eq_tol(cm_dist_total(delay),
                                    fills * (double)r.cycles,
                                    1e-6 * cm_dist_total(delay));
            ck_assert(cm_dist_mass_inf(delay) == 0);
            double hit = stat(r.rows, r.n, "tc.outcome.hit");
            double exp_ = stat(r.rows, r.n, "tc.outcome.expired");
            double all = hit + exp_ + stat(r.rows, r.n, "tc.outcome.evicted") +
                         stat(r.rows, r.n, "tc.outcome.unused");
            double p4[4];
            cm_lifetime_outcomes(reuse, resid, delay, 2000, 1, &p4[0], &p4[1],
                                 &p4[2], &p4[3]);
            model[0] += p4[0] * all;
            model[1] += p4[1] * all;
            sim[0] += hit;
            sim[1] += exp_;
            fills_all += all;
            run_free(&r);
        }
        ck_assert_msg(sim[1] > 0.01 * fills_all,
                      "%s: too few expiries to test", proto[i]);
        ck_assert_msg(fabs(model[0] / sim[0] - 1) < 0.06,
                      "%s: hit %g, simulated %g", proto[i],
                      model[0] / fills_all, sim[0] / fills_all);
        ck_assert_msg(fabs(model[1] / sim[1] - 1) < 0.06,
                      "%s: expired %g, simulated %g", proto[i],
                      model[1] / fills_all, sim[1] / fills_all);
    }
}
END_TEST

/* The profile's split of S by the storing warp (models/lifetime.c,
 * "Carrying S"): every store with a finite S is in exactly one class,
 * the _shared pair drops only private writes, and a store after its own
 * warp's load reaches the bank no sooner than that load's reply and its
 * own flight (the round trip the model keeps unscaled). */
/* sim.max_instructions stops a run once the machine has executed that
 * many warp instructions (a compute group of 3 may carry it past by 2),
 * so runs at different lifetimes cover the same program; the run is not
 * finished and took fewer cycles than the whole program. */
static cm_gpu_result run_budget(uint64_t budget)
{
    cm_params p;
    small_machine(&p);
    p.sim_max_instructions = (double)budget;
    prog g = {0};
    run r;
    cm_gpu_result res;
    sim_run(cm_protocol_find("tcsuo"), &p, 3,
            (cm_warp_source){prog_next, &g}, 0, &r, &res);
    run_free(&r);
    return res;
}

START_TEST(test_max_instructions_stops_run)
{
    cm_gpu_result all = run_budget(0);
    ck_assert(all.finished);
    uint64_t budget = all.instructions / 3;
    cm_gpu_result part = run_budget(budget);
    ck_assert(!part.finished);
    ck_assert_msg(part.instructions >= budget && part.instructions <= budget + 2,
                  "%llu instructions for a budget of %llu",
                  (unsigned long long)part.instructions,
                  (unsigned long long)budget);
    ck_assert(part.cycles < all.cycles);
}
END_TEST

/* The other warps' stores queued behind the load that set the lease
 * (joint.l2.behind_parts: S less the bank's blocked cycles, those
 * cycles; models/lifetime.c carries the second part with the lease):
 * a part of the other class, both parts >= 0, the private-write-free
 * twin no larger; and at an in-order bank (TCSUO, a stalled store holds
 * the head) most of their S is blocked cycles (0.99 on this machine at
 * L = 2000, 0.61 on tc2013's bh). */
static double behind_blocked_share(const char *proto)
{
    run r;
    run_strong(proto, 2000, 5, &r);
    const cm_point *pts, *pts_sh;
    size_t n, n_sh;
    cm_profile_points(r.prof, "joint.l2.behind_parts", &pts, &n);
    cm_profile_points(r.prof, "joint.l2.behind_parts_shared", &pts_sh, &n_sh);
    const cm_dist *other;
    cm_err err = {0};
    ck_assert(!cm_profile_dist(r.prof, "l2.read_to_write_other", &other,
                               &err));
    double w = 0, w_sh = 0, serve = 0, blocked = 0;
    for (size_t i = 0; i < n; i++) {
        ck_assert(pts[i].x >= 0 && pts[i].y >= 0 && pts[i].w > 0);
        w += pts[i].w;
        serve += pts[i].w * pts[i].x;
        blocked += pts[i].w * pts[i].y;
    }
    for (size_t i = 0; i < n_sh; i++) w_sh += pts_sh[i].w;
    double finite = cm_dist_total(other) - cm_dist_mass_inf(other);
    ck_assert_msg(w > 0 && w <= finite, "%s: %g behind stores of %g", proto,
                  w, finite);
    ck_assert(w_sh <= w);
    run_free(&r);
    return blocked / (serve + blocked);
}

START_TEST(test_behind_stores_split_blocked)
{
    double in_order = behind_blocked_share("tcsuo");
    ck_assert_msg(in_order > 0.5 && in_order <= 1,
                  "blocked share of the behind stores' S: %g", in_order);
    double around = behind_blocked_share("tcsoo");
    ck_assert(around >= 0 && around <= 1);
}
END_TEST

START_TEST(test_store_split_by_warp)
{
    static const char *const proto[] = {"tcsuo", "tcs"};
    for (int i = 0; i < 2; i++) {
        run r;
        run_strong(proto[i], 2000, 5, &r);
        const cm_dist *s, *own, *other, *own_sh, *other_sh, *delay;
        double flight;
        cm_err err = {0};
        ck_assert(!cm_profile_dist(r.prof, "l2.read_to_write", &s, &err));
        ck_assert(!cm_profile_dist(r.prof, "l2.read_to_write_own", &own,
                                   &err));
        ck_assert(!cm_profile_dist(r.prof, "l2.read_to_write_other", &other,
                                   &err));
        ck_assert(!cm_profile_dist(r.prof, "l2.read_to_write_other_shared",
                                   &other_sh, &err));
        ck_assert(!cm_profile_dist(r.prof, "l1.lease_delay", &delay, &err));
        ck_assert(!cm_profile_rate(r.prof, "rate.request_flight", &flight,
                                   &err));
        double n_own = cm_dist_total(own), n_own_sh = 0;
        if (!cm_profile_dist(r.prof, "l2.read_to_write_own_shared", &own_sh,
                             &err))
            n_own_sh = cm_dist_total(own_sh);
        ck_assert_msg(n_own > 0, "%s: no store after its warp's own load",
                      proto[i]);
        ck_assert_double_eq_tol(n_own + cm_dist_total(other), cm_dist_total(s),
                                1e-9);
        ck_assert(cm_dist_mass_inf(own) == 0);
        ck_assert_double_eq_tol(cm_dist_total(other_sh), cm_dist_total(other),
                                1e-9);
        ck_assert_msg(n_own_sh < n_own, "%s: no private own store",
                      proto[i]);
        /* the next-instruction stores are a part of the own class, and
         * with no wait of their warp's inside their S, the shorter part */
        const cm_dist *next;
        ck_assert(!cm_profile_dist(r.prof, "l2.read_to_write_own_next", &next,
                                   &err));
        double n_next = cm_dist_total(next);
        ck_assert_msg(n_next > 0 && n_next < n_own, "%s: %g of %g own stores "
                      "next", proto[i], n_next, n_own);
        for (double t = 64; t < 1e6; t *= 2)
            ck_assert(n_next * cm_dist_cdf(next, t) <=
                      n_own * cm_dist_cdf(own, t) + 1e-9);
        double later_half = 0; /* the later ones' median, by bisection */
        for (double lo = 0, hi = 1e7, it = 0; it < 60; it++) {
            later_half = 0.5 * (lo + hi);
            double below = n_own * cm_dist_cdf(own, later_half) -
                           n_next * cm_dist_cdf(next, later_half);
            if (below < 0.5 * (n_own - n_next)) lo = later_half;
            else hi = later_half;
        }
        ck_assert_msg(cm_dist_cdf(next, later_half) > 0.5,
                      "%s: only %g of the next stores below the later ones' "
                      "median S %g", proto[i], cm_dist_cdf(next, later_half),
                      later_half);
        double floor = cm_dist_mean_finite(delay) + flight;
        ck_assert_msg(flight > 0 && cm_dist_cdf(own, 0.5 * floor) < 0.05,
                      "%s: %g of the own stores within half a round trip "
                      "(%g cycles)", proto[i],
                      cm_dist_cdf(own, 0.5 * floor), floor);
        run_free(&r);
    }
}
END_TEST

/* A store held by a lease is timed from the load that held it, however
 * long it waits: TCSOO serves around a stalled store, so its line can
 * leave the L2 (a parked timestamp) and come back before the store is
 * served.  Bug: S was taken at service from the line then present, a
 * fresh fill with no load (S = inf), so the stall went uncounted: on stn
 * (tc2013, L = 16000) 25% of the stalled stores, and E[(L - S')+] 31%
 * below the simulated stall per store.  The stall of each store is at
 * least L - S', and beyond it only the wait to be served once the lease
 * has passed, so the lease part is most of the stall where the stalls
 * are long (88-92% on seeds 3-5 here).  Only a write's waits on
 * coherence are store stalls: waits on a fetch or for a free entry are
 * not (bug: they were counted, and E[(L - S')+] plus the wait below read
 * 29% under the simulated stall on seed 3).
 * That wait (rate.l2_stall_share and rate.l2_post_wait, models/
 * lifetime.c, "The wait after the lease"): TCSOO's bank serves a held
 * store only when its scan finds nothing servable before it, so
 * E[(L - S')+] plus share x wait must be the simulated stall per store,
 * to the histogram's binning (0.8-1.4% on seeds 3-5 here).  Bug: the
 * wait was not recorded, and E[(L - S')+] alone is 12% low here and was 4.5/1.9/0.6 cycles per store against
 * 10.5/2.6/1.4 simulated on bh/cl/stn (tc2013, L = 400). */
START_TEST(test_stalled_store_keeps_its_load)
{
    const uint64_t lifetime = 4000;
    for (uint64_t seed = 3; seed <= 5; seed++) {
        run r;
        run_strong("tcsoo", lifetime, seed, &r);
        const cm_dist *s;
        double stores;
        cm_err err = {0};
        ck_assert(!cm_profile_dist(r.prof, "l2.read_to_write_shared", &s,
                                   &err));
        ck_assert(!cm_profile_rate(r.prof, "rate.l2_stores", &stores, &err));
        double share, wait;
        ck_assert(!cm_profile_rate(r.prof, "rate.l2_stall_share", &share,
                                   &err));
        ck_assert(!cm_profile_rate(r.prof, "rate.l2_post_wait", &wait, &err));
        double n = stores * (double)r.cycles;
        double sim = stat(r.rows, r.n, "l2.store_stall_cycles") / n;
        double model = cm_dist_mean_excess_below(s, (double)lifetime) *
                       cm_dist_total(s) / n;
        ck_assert_msg(sim > 0.1 * (double)lifetime,
                      "seed %llu: stalls too short to test (%g)",
                      (unsigned long long)seed, sim);
        ck_assert_msg(model <= sim * 1.001 && model > 0.8 * sim,
                      "seed %llu: E[(L - S')+] %g per store, simulated %g",
                      (unsigned long long)seed, model, sim);
        ck_assert_msg(share > 0 && share < 1 && share * wait > 0.04 * sim,
                      "seed %llu: share %g x wait %g, stall %g",
                      (unsigned long long)seed, share, wait, sim);
        ck_assert_msg(fabs(model + share * wait - sim) <= 0.03 * sim,
                      "seed %llu: lease %g + share %g x wait %g, simulated %g",
                      (unsigned long long)seed, model, share, wait, sim);
        run_free(&r);
    }
}
END_TEST

/* rate.l2_hol_per_stall (models/lifetime.c, "Out-of-order service"): an
 * in-order bank is blocked for every cycle a store stalls at its head,
 * an out-of-order one (TCSOO) serves the requests around it. */
START_TEST(test_hol_per_stall)
{
    static const char *const proto[] = {"tcsuo", "tcsoo"};
    double got[2];
    for (int i = 0; i < 2; i++) {
        run r;
        run_strong(proto[i], 4000, 3, &r);
        cm_err err = {0};
        ck_assert(!cm_profile_rate(r.prof, "rate.l2_hol_per_stall", &got[i],
                                   &err));
        run_free(&r);
    }
    ck_assert_msg(got[0] >= 0.999, "in-order: %g", got[0]);
    ck_assert_msg(got[1] > 0 && got[1] < 0.9, "out-of-order: %g", got[1]);
}
END_TEST

Suite *suite_coh_sim(void)
{
    Suite *s = suite_create("coh_sim");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_every_protocol_conserves);
    tcase_add_test(tc, test_profile_speed_rates);
    tcase_add_test(tc, test_fence_waits_for_refused_store);
    tcase_add_test(tc, test_same_seed_same_run);
    tcase_add_test(tc, test_recalls_and_stalls_where_expected);
    tcase_add_test(tc, test_long_gwct_wait_finishes);
    tcase_add_test(tc, test_predictor_events_only_real_expiries);
    tcase_add_test(tc, test_l2_expiries_match_profile);
    tcase_add_test(tc, test_profile_counts_requests_once);
    tcase_add_test(tc, test_fence_lease_slack_follows_gwct);
    tcase_add_test(tc, test_outcomes_from_own_profile);
    tcase_add_test(tc, test_store_split_by_warp);
    tcase_add_test(tc, test_behind_stores_split_blocked);
    tcase_add_test(tc, test_max_instructions_stops_run);
    tcase_add_test(tc, test_stalled_store_keeps_its_load);
    tcase_add_test(tc, test_hol_per_stall);
    suite_add_tcase(s, tc);
    return s;
}
