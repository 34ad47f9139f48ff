/* gpu_sample.c - temporal sampling's windows and fast-forwards (see gpu.h,
 * gpu_impl.h).
 *
 * Sampling (design.md, "Sampling in the simulator"; sim.sample): Temporal
 * (SMARTS-like): each sim.sample_period cycles of simulated time hold an
 * unmeasured detailed warm-up (sim.sample_warmup), a measured window
 * (sim.sample_window) and a fast-forward: every SM executes functionally the
 * instructions it would have issued in the rest of the period at the last
 * window's IPC (the live SMs' mean, times each SM's own lasting deviation
 * where that is significant: see fast_forward).  Only the fast-forward's
 * last part warms the L1 and L2 tags, enough instructions for
 * sim.sample_ff_warm (4) times the L2's lines in L2 references (SMARTS-style
 * warm-up before the window); before that the warps only advance, their
 * generators skimming (workload.h cm_wgen_skim: same draws and cadence, no
 * stack lookups). The fast-forward takes no engine time and leaves the timed
 * state as it was: requests in flight, queues, MSHRs and row buffers carry
 * on from the window's steady state; warps waiting for memory, a fence or a
 * kernel boundary move on (sm.h cm_sm_functional: their replies and
 * acknowledgements still come).  Draining the machine instead biased the
 * windows (every warp restarting at once sends a burst the queues take tens
 * of thousands of cycles to absorb), and the warm-up is 10000 cycles because
 * the warps the fast-forward releases restart together too.  Simulated
 * cycles = detailed cycles + fast-forwarded cycles. Kernel holds
 * (kernel_hold, sm.h cm_sm_kernel_hold): an SM whose kernels are short moves
 * by whole kernels, each warp across m boundaries to the place in its kernel
 * (memory instructions since its kernel began, or waiting at the boundary)
 * it had in a snapshot of the SM (cm_sm_kernel_snap: one per rate slice of
 * detailed time, the last CM_SM_SNAPS kept), picked at random (sim.seed); m
 * = the fast-forward's instructions plus those since the snapshot over the
 * SM's instructions per kernel so far, rounded.  The cycles covered scale
 * from the instructions done (the held SMs' mean).  Held only where a kernel
 * (simulated cycles so far per kernel) takes no longer than the snapshots
 * span, CM_SM_SNAPS x RATE_SLICE cycles, and the fast-forward covers
 * sim.sample_ff_kernels (1) kernels: a random snapshot is then a random
 * place in a kernel.  Why: equal quotas move every warp at one rate and line
 * the warps up at each boundary, and all SMs in lockstep, so windows miss
 * the kernels' tails, where in full detail many warps wait and the SMs drift
 * apart (ndl); a random snapshot per SM restores the mix of places.  Of the
 * 25 built-in workloads only ndl is held.  Detailed SMs only: an injector's
 * warps never wait in time, so they have no places to keep. Assumptions: a
 * window's IPC holds for the period around it; the warps' spread inside an
 * SM is the detailed one by the window (what kernel holds restore where
 * kernels are short); a run's stretches are alike enough that one window per
 * period represents its period. Each window counts for its period's span
 * over sim.sample_period (cm_stats_window_weight): 1 where the fast-forward
 * covered the rest of the period, about 1 where whole kernels dither it,
 * less where the run's end cut it short.  Counted at full weight, a window
 * of the run's final drain (a few warps left: ndl seed 1, IPC 0.37 over the
 * last 10k of 1.18M cycles) stood for a whole period and moved the sampled
 * IPC by -4.9%; the weight is its 10.5k cycles over 80k. Accuracy (tc2013
 * machine, seeds 1-4, `make bench`): IPC, L1 miss ratio and MSHR occupancy
 * all within 3% of full detail on 12-15 of the 25 built-in workloads, 5-9x
 * faster in CPU time; mean absolute errors 1.9, 0.53 and 4.6%.  The misses
 * are window noise on the short runs (few windows) and an occupancy bias
 * after fast-forwards, carried by the round trip at the right L1 miss ratio:
 * high on reuse-heavy single-kernel workloads (comd, scluster, ii), low on
 * streaming ones (sm, lps) and hsp.  It is not the generators' stream state,
 * the tags, the rates or the run's end, and it outlasts 150000-cycle warm-
 * ups.  Full detail itself relaxes from the launch over millions of cycles
 * (comd: MSHR occupancy 8% lower at 2-3M cycles than over the first 200k),
 * and the sampled machine ages only in its detailed cycles, which fits the
 * high side.  docs/sampling.md keeps the measurements behind every choice
 * above and the designs tried and dropped. Windows are batches (stats.h):
 * every reported value is estimated from them with its 95% interval; spatial
 * sampling without temporal runs back-to-back windows after one warm-up.
 *
 * Windows are batches (stats.h): every reported value is estimated from them
 * with its 95% interval; spatial sampling without temporal runs back-to-back
 * windows after one warm-up. */
#include "sim/gpu_impl.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>

void gpu_sync_sms(gpu *g)
{
    for (uint32_t i = 0; i < g->ndetail; i++) cm_sm_sync(g->sms[i]);
}

static cm_status window_begin(gpu *g, cm_stats *stats, uint64_t *inst0,
                              cm_err *err)
{
    gpu_sync_sms(g);
    *inst0 = gpu_detail_instructions(g);
    return cm_stats_window_begin(stats, cm_engine_now(&g->eng), err);
}

/* Closes a window: the machine's instructions (detailed ones scaled to
 * every SM) and cycles of the window join the totals inside it. */
static cm_status window_end(gpu *g, cm_stats *stats, uint64_t inst0,
                            uint64_t t0, cm_err *err)
{
    gpu_sync_sms(g);
    double scale = (double)g->nsm / g->ndetail;
    cm_stat_add(g->st_inst,
                scale * (double)(gpu_detail_instructions(g) - inst0));
    cm_stat_add(g->st_cycles, (double)(cm_engine_now(&g->eng) - t0));
    return cm_stats_window_end(stats, cm_engine_now(&g->eng), err);
}

/* Runs every SM functionally from got[i] towards want[i] instructions,
 * warming the tags (mem = gpu_warm_l2) or only advancing them (NULL).
 * Warming goes in rounds of FF_CHUNK instructions per warp: warming SM
 * after SM would leave the L2's LRU order favouring the last SMs' lines,
 * which the windows after would then miss on; rounds much finer than that
 * re-load every warp's generator state from memory each visit (32 instead
 * of 4 per visit: 11% less time over the 25 workloads, errors unchanged
 * within their spread).  Unwarmed, order does not matter: one visit. */
static void ff_run(gpu *g, const double *want, double *got, cm_sm_mem_fn mem,
                   uint64_t span)
{
    uint64_t now = cm_engine_now(&g->eng);
    double most = 0, *from = g->ff_from;
    for (uint32_t i = 0; i < g->nsm; i++) {
        from[i] = got[i];
        if (want[i] - got[i] > most) most = want[i] - got[i];
    }
    double rounds = mem ? ceil(most / ((double)FF_CHUNK * g->warps)) : 1;
    if (rounds < 1) rounds = 1;
    for (double r = 1; r <= rounds; r++) {
        /* the warmed part happened before now, round by round: leases
         * granted early in it have expired by the window */
        double back = (double)span * (rounds - r) / rounds;
        uint64_t vtime = back < (double)now ? now - (uint64_t)back : 0;
        for (uint32_t i = 0; i < g->nsm; i++) {
            double target = from[i] + floor((want[i] - from[i]) * r / rounds);
            if (target > got[i])
                got[i] += (double)cm_sm_functional(
                    g->sms[i], (uint64_t)(target - got[i]), mem, g, vtime);
        }
    }
}

/* SM i's share want[i] of a fast-forward, in whole kernels (see the
 * header) where it covers at least sim.sample_ff_kernels of them at the
 * SM's instructions per kernel so far and a kernel takes no longer than
 * the snapshots span: the SM is held (cm_sm_kernel_hold) to the places of
 * a random snapshot, m kernels on, m rounded from the share plus the
 * instructions since the snapshot.  want[i] becomes the instructions that
 * takes, an estimate for the warming split and the rounds
 * (ff_finish_held takes the warps the rest of the way); ff_quota[i] keeps
 * the share asked for, which the cycles covered scale from.  1 if held. */
static int kernel_hold(gpu *g, uint32_t i, double *want)
{
    cm_sm *sm = g->sms[i];
    uint64_t at = 0, k = cm_sm_kernels(sm, &at);
    double least = g->p->sim_sample_ff_kernels;
    if (i >= g->ndetail || least <= 0 || k == 0 || at == 0 || want[i] <= 0 ||
        cm_sm_done(sm))
        return 0;
    double per = (double)at / (double)k;
    double kcycles =
        (double)(cm_engine_now(&g->eng) + g->ff_cycles) / (double)k;
    if (want[i] / per < least || kcycles > (double)CM_SM_SNAPS * RATE_SLICE)
        return 0;
    uint32_t n = cm_sm_kernel_snaps(sm), pick = n;
    uint64_t ks = k, is = cm_sm_instructions(sm);
    if (n > 0) {
        pick = (uint32_t)gsl_rng_uniform_int(g->rng, n);
        cm_sm_kernel_snap_at(sm, pick, &ks, &is);
    }
    double back = (double)(cm_sm_instructions(sm) - is);
    double m = floor((want[i] + back) / per + 0.5);
    if ((double)ks + m < (double)k + 1) m = (double)(k + 1 - ks);
    cm_sm_kernel_hold(sm, pick, ks + (uint64_t)m);
    g->ff_quota[i] = want[i];
    want[i] = m * per - back;
    if (want[i] < 0) want[i] = 0;
    return 1;
}

/* The held SMs' warps run on to their places (warming), in rounds as
 * ff_run's, then the holds end. */
static void ff_finish_held(gpu *g, double *got)
{
    for (int progress = 1; progress;) {
        progress = 0;
        for (uint32_t i = 0; i < g->nsm; i++) {
            if (g->ff_quota[i] <= 0) continue;
            uint64_t d =
                cm_sm_functional(g->sms[i], (uint64_t)FF_CHUNK * g->warps,
                                 gpu_warm_l2, g, cm_engine_now(&g->eng));
            got[i] += (double)d;
            progress |= d > 0;
        }
    }
    for (uint32_t i = 0; i < g->nsm; i++)
        if (g->ff_quota[i] > 0) cm_sm_kernel_hold(g->sms[i], 0, 0);
}

/* Fast-forwards every SM the instructions it would issue in `cycles` at
 * the window's IPC per live SM times its own relative rate.  Not each
 * SM's own window IPC: over a short window that is noisy, and
 * extrapolated over a period the noise drove the SMs apart in a random
 * walk the machine does not take (tc2013 machine: bh +11%, stn +20%, hsp
 * +45% simulated cycles).  But not the mean alone either: where SMs differ
 * for good (scluster: some ~25% faster all run long, tests/check_sampling
 * .c) the fast ones finish first in full detail and the run ends in a
 * tail of slow SMs, which SMs kept together never show (sampled IPC +19%).
 * So each SM's deviation from the live SMs' mean is averaged over the
 * windows, and kept, shrunk by the share of its spread across SMs that
 * window-to-window noise explains (James-Stein), only when that spread is
 * significant (F test at FF_SM_SIGNIFICANCE): alike SMs still move alike.
 * Only the last part warms the tags (SMARTS-style warm-up before the
 * window, sim.sample_ff_warm): instructions enough for that many times
 * the L2's lines in L2 references, at the rate the last fast-forward's
 * warmed part measured (for the first, the first window's L1 requests
 * per instruction: each is an L2 reference).  A line not
 * used while its LRU set saw several times its ways in references has
 * been evicted, so older references hardly change the tags the window
 * starts from; each L1, a small fraction of the L2 seeing more references
 * than its share of it, is warm before the L2.  Before that the warps only
 * advance, their generators skimming (cm_wgen_skim): 4 instead of
 * warming throughout cut a sampled run's CPU time by a third (bh 1.1 ->
 * 0.70 s, kmn 1.5 -> 1.15 s, dlb 0.64 -> 0.41 s), errors unchanged within
 * their spread (10 instead of 4: no better over two seeds).
 * Returns the cycles actually covered: fewer if the warps retire first. */
static uint64_t fast_forward(gpu *g, const uint64_t *win_inst,
                             uint64_t win_cycles, uint64_t cycles)
{
    const cm_params *p = g->p;
    double now = 0, live = 0, total = 0;
    for (uint32_t i = 0; i < g->ndetail; i++)
        if (!cm_sm_done(g->sms[i])) {
            now += (double)win_inst[i];
            live++;
        }
    double mean = live > 0 ? now / live : 0;
    double spread = 0, noise = 0, dev_mean = 0, n = 0, df = 0;
    for (uint32_t i = 0; i < g->ndetail && mean > 0; i++) {
        if (cm_sm_done(g->sms[i])) continue;
        double d = (double)win_inst[i] / mean - 1;
        g->dev_sum[i] += d;
        g->dev_sq[i] += d * d;
        g->dev_n[i]++;
    }
    for (uint32_t i = 0; i < g->ndetail; i++) {
        double k = g->dev_n[i];
        if (k < 2) continue;
        double m = g->dev_sum[i] / k;
        dev_mean += m;
        spread += m * m;
        noise += (g->dev_sq[i] / k - m * m) / (k - 1);
        df += k - 1;
        n++;
    }
    double keep = 0;
    if (n >= 2) {
        dev_mean /= n;
        spread = (spread / n - dev_mean * dev_mean) * n / (n - 1);
        noise /= n;
        /* The p-value, not the critical value: gsl_cdf_fdist_Qinv fails
         * to converge (and GSL's default handler aborted the process) at
         * degrees of freedom that many windows reach (8 SMs: 552 and from
         * 880 on, ~70 windows); the upper tail itself converges there,
         * and a failure (NaN) counts as not significant.  Same decisions
         * wherever the inverse converged. */
        if (noise > 0) {
            gsl_error_handler_t *old = gsl_set_error_handler_off();
            double pv = gsl_cdf_fdist_Q(spread / noise, n - 1, df);
            gsl_set_error_handler(old);
            if (pv < FF_SM_SIGNIFICANCE) keep = 1 - noise / spread;
        }
    }
    double *want = g->ff_want, *got = g->ff_got, *quota = g->ff_quota;
    double ipc = mean / (double)(win_cycles ? win_cycles : 1);
    int held = 0;
    for (uint32_t i = 0; i < g->nsm; i++) {
        double rel = 1;
        if (i < g->ndetail && g->dev_n[i] >= 2)
            rel = 1 + keep * (g->dev_sum[i] / g->dev_n[i] - dev_mean);
        want[i] = floor(ipc * (rel > 0 ? rel : 0) * (double)cycles + 0.5);
        got[i] = 0;
        quota[i] = 0;
        held |= kernel_hold(g, i, want);
        total += want[i];
    }
    double lines = p->l2_banks * p->l2_bank_size / p->l2_line;
    double warm = g->refs_per_inst > 0 && p->sim_sample_ff_warm > 0
                      ? p->sim_sample_ff_warm * lines / g->refs_per_inst
                      : total;
    if (warm < total) {
        double *cold = g->ff_cold;
        for (uint32_t i = 0; i < g->nsm; i++)
            cold[i] = floor(want[i] * (1 - warm / total));
        for (uint32_t i = 0; g->src && i < g->nsm; i++)
            cm_workload_source_skim(g->src, i, 1);
        ff_run(g, cold, got, NULL, 0);
        for (uint32_t i = 0; g->src && i < g->nsm; i++)
            cm_workload_source_skim(g->src, i, 0);
    }
    double before = 0, after = 0;
    uint64_t refs = g->l2_refs;
    for (uint32_t i = 0; i < g->nsm; i++) before += got[i];
    ff_run(g, want, got, gpu_warm_l2,
           (uint64_t)((double)cycles * (warm < total ? warm / total : 1)));
    if (held) ff_finish_held(g, got);
    for (uint32_t i = 0; i < g->nsm; i++) after += got[i];
    if (after > before)
        g->refs_per_inst = (double)(g->l2_refs - refs) / (after - before);
    double covered = 0, sum = 0;
    for (uint32_t i = 0; i < g->ndetail; i++) {
        double c = quota[i] > 0  ? (double)cycles * got[i] / quota[i]
                   : want[i] > 0 ? (double)cycles * got[i] / want[i]
                                 : (double)cycles;
        if (c > covered) covered = c;
        sum += c;
    }
    /* Dithered whole kernels cover more or less than asked, by SM: their
     * mean; otherwise got <= want and the last SM's is the time. */
    if (held) covered = sum / g->ndetail;
    if (!held && covered > cycles) covered = (double)cycles;
    return (uint64_t)llround(covered);
}

/* Window k stands for its period, from its warm-up's start to the next
 * one's (or the run's end): weighed by that span over sim.sample_period,
 * 1 where the fast-forward covered the rest of the period, less where the
 * run's end cut the period short (its last instructions retired inside
 * the fast-forward, then a detailed drain). */
static cm_status weigh_period(gpu *g, cm_stats *stats, size_t k, uint64_t from,
                              uint64_t to, cm_err *err)
{
    double w = (double)(to - from) / (double)g->p->sim_sample_period;
    return cm_stats_window_weight(stats, k, w, err);
}

cm_status gpu_run_temporal(gpu *g, cm_stats *stats, cm_err *err)
{
    const cm_params *p = g->p;
    uint64_t warm = (uint64_t)p->sim_sample_warmup;
    uint64_t win = (uint64_t)p->sim_sample_window;
    uint64_t period = (uint64_t)p->sim_sample_period;
    uint64_t *base = calloc(g->ndetail, sizeof *base);
    if (!base) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    const uint64_t max = (uint64_t)p->sim_max_cycles;
    cm_status st = CM_OK;
    size_t last = 0;        /* the latest window, + 1 (0: none yet) */
    uint64_t last_from = 0; /* its period's start, machine time */
    /* a window starts only where the budget holds it whole */
    while (!st && !gpu_detail_done(g) &&
           gpu_machine_now(g) + warm + win <= max) {
        uint64_t start = cm_engine_now(&g->eng), from = gpu_machine_now(g);
        uint64_t inst0 = 0;
        st = gpu_run_until(g, start + warm, gpu_detail_done, 0, err);
        if (st || gpu_detail_done(g)) break; /* a drain: the last period's */
        if (last &&
            (st = weigh_period(g, stats, last - 1, last_from, from, err)))
            break;
        last = 0;
        uint64_t t0 = cm_engine_now(&g->eng);
        for (uint32_t i = 0; i < g->ndetail; i++)
            base[i] = cm_sm_instructions(g->sms[i]);
        if ((st = window_begin(g, stats, &inst0, err))) break;
        uint64_t sent0 = gpu_detail_sent(g);
        st = gpu_run_until(g, t0 + win, gpu_detail_done, 0, err);
        uint64_t t1 = cm_engine_now(&g->eng);
        /* Until a fast-forward has measured it, the window's own requests
         * per instruction (every request an L1 sends is an L2 reference,
         * as warming counts them): without it the first fast-forward
         * warmed throughout (stn, hsp: 3-4% of a sampled run's CPU time). */
        uint64_t dinst = gpu_detail_instructions(g) - inst0;
        if (g->refs_per_inst <= 0 && dinst > 0)
            g->refs_per_inst =
                (double)(gpu_detail_sent(g) - sent0) / (double)dinst;
        if (!st) st = window_end(g, stats, inst0, t0, err);
        if (st) break;
        last = cm_stats_windows(stats);
        last_from = from;
        if (gpu_detail_done(g)) break;
        for (uint32_t i = 0; i < g->ndetail; i++)
            base[i] = cm_sm_instructions(g->sms[i]) - base[i];
        uint64_t used = cm_engine_now(&g->eng) - start;
        uint64_t left = max > gpu_machine_now(g) ? max - gpu_machine_now(g) : 0;
        uint64_t ff = period > used ? period - used : 0;
        if (ff > left) ff = left; /* not past sim.max_cycles */
        if (ff) g->ff_cycles += fast_forward(g, base, t1 - t0, ff);
        /* Sleeping SMs may have ready warps again. */
        for (uint32_t i = 0; i < g->ndetail; i++) cm_sm_set_drain(g->sms[i], 0);
    }
    /* the last period: to the run's end, its drain included */
    if (!st && last)
        st = weigh_period(g, stats, last - 1, last_from, gpu_machine_now(g),
                          err);
    free(base);
    return st;
}

cm_status gpu_run_spatial(gpu *g, cm_stats *stats, cm_err *err)
{
    const cm_params *p = g->p;
    uint64_t win = (uint64_t)p->sim_sample_window;
    cm_status st = gpu_run_until(g, (uint64_t)p->sim_sample_warmup,
                                 gpu_detail_done, 0, err);
    while (!st && !gpu_detail_done(g) &&
           cm_engine_now(&g->eng) < (uint64_t)p->sim_max_cycles) {
        uint64_t t0 = cm_engine_now(&g->eng), inst0 = 0;
        if ((st = window_begin(g, stats, &inst0, err))) break;
        st = gpu_run_until(g, t0 + win, gpu_detail_done, 0, err);
        if (!st) st = window_end(g, stats, inst0, t0, err);
    }
    return st;
}
