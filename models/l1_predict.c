/* l1_predict.c - L1 miss ratio of one SM from a workload profile (see
 * l1_predict.h).
 *
 * Streams.  Warp i (i < ceil(W)) gets the generator gpu.c gives warp i of
 * SM 0: cm_wgen seeded with sim.seed, SM 0, warp i, l1.line, so the model
 * sees the very streams SM 0 runs in the simulator.  Only memory
 * instructions are kept (compute, fences and barriers change timing, not
 * which lines meet in the cache), in whole instructions, up to
 * CM_L1_PREDICT_MAX_ACCESSES line accesses per warp: the whole stream of
 * every built-in profile, and for longer user profiles a prefix many
 * times any reuse_window and private footprint the profile ranges allow
 * to show.  Each warp's loads become a cm_warp_profile; W of them go to
 * cm_interleave_hit_rate with the L1's sets (l1.size / (l1.ways x
 * l1.line)) and ways.
 *
 * How accesses count, matching the simulator's l1.miss_ratio = l1.misses /
 * l1.accesses under NO-COH (sim/l1.c, sim/proto_no_coh.c):
 *  - every line of a load, store or atomic is one access;
 *  - a store or atomic never hits (write-through, write-no-allocate) and
 *    evicts the line (write-evict).  So stores and atomics count as misses
 *    and are left out of the reuse streams (they place nothing in the
 *    cache); a warp's first load of a line after it wrote the line is
 *    renamed to a line never seen before: a cold miss, as in the L1;
 *  - a load hits with the interleaving model's probability.  The
 *    simulator also counts a load that joins a fill in flight (an MSHR
 *    merge) as a miss; the model has no timing and calls it a hit.  A warp
 *    waits for its own loads, so merges need two warps on one line: rare
 *    with private data, common with shared data.
 * miss_ratio = (stores + atomics + loads - predicted load hits) / accesses
 * over the W warps.
 *
 * Fractional W: the miss ratios (and FA hit rates) of floor(W) and
 * ceil(W) warps, interpolated linearly.
 *
 * Assumptions beyond the interleaving model's own (interleave.c header:
 * strict round-robin, stationary streams, mean distances, uniform set
 * placement):
 *  - warps share no lines: SM-shared, GPU-shared and false-shared data are
 *    counted as if each warp had its own copy, which over-predicts misses
 *    for profiles with share_sm or share_gpu;
 *  - NO-COH only: WT's invalidations at kernel boundaries and fences, and
 *    NO-L1 (every access misses), are not modelled;
 *  - LRU replacement (l1.policy = lru);
 *  - the simulator picks a line's set as line mod sets; the model assumes
 *    lines fall into sets independently.  The generator places each warp's
 *    private footprint at a pseudo-random offset, which is what makes this
 *    fair. */
#include "models/l1_predict.h"

#include <math.h>
#include <stdlib.h>

#include "models/mrc.h"

/* Names for the lines re-read after a write: region 15 is none of the
 * generator's (cm_wregion), so they never meet a real line. */
#define RENAMED_BASE ((uint64_t)0xF << 60)

typedef struct access_ref {
    uint64_t line;
    uint32_t pos;
} access_ref;

static int ref_cmp(const void *a, const void *b)
{
    const access_ref *x = a, *y = b;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

typedef struct warp_stream {
    cm_warp_profile *prof; /* of the loads; NULL when there are none */
    uint64_t loads, accesses;
} warp_stream;

/* The load lines of a stream of n accesses, each load after a write of
 * its line renamed (see the header), into loads[]; returns their count. */
static cm_status rename_loads(const uint64_t *lines, const uint8_t *is_load,
                              size_t n, uint64_t *loads, size_t *nloads,
                              cm_err *err)
{
    access_ref *r = malloc((n ? n : 1) * sizeof *r);
    uint64_t *name = malloc((n ? n : 1) * sizeof *name);
    if (!r || !name) {
        free(r);
        free(name);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    for (size_t i = 0; i < n; i++) r[i] = (access_ref){lines[i], (uint32_t)i};
    qsort(r, n, sizeof *r, ref_cmp);
    uint64_t fresh = RENAMED_BASE, cur = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || r[i].line != r[i - 1].line) cur = r[i].line;
        if (!is_load[r[i].pos]) cur = fresh++; /* the next load is cold */
        name[r[i].pos] = cur;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (is_load[i]) loads[k++] = name[i];
    *nloads = k;
    free(r);
    free(name);
    return CM_OK;
}

/* Generates warp `warp` of SM 0 and builds its load profile. */
static cm_status stream_build(const cm_params *p, const cm_workload_profile *w,
                              uint32_t warp, warp_stream *out, cm_err *err)
{
    const size_t cap = CM_L1_PREDICT_MAX_ACCESSES;
    cm_wgen *g = malloc(sizeof *g);
    cm_winst *in = malloc(sizeof *in);
    uint64_t *lines = malloc(cap * sizeof *lines);
    uint64_t *loads = malloc(cap * sizeof *loads);
    uint8_t *is_load = malloc(cap);
    cm_status st = g && in && lines && loads && is_load
                       ? CM_OK
                       : cm_err_set(err, CM_EINTERNAL, "out of memory");
    if (!st)
        st = cm_wgen_init(g, w, (uint64_t)p->sim_seed, 0, warp,
                          (uint32_t)p->l1_line, err);
    size_t n = 0, nloads = 0;
    while (!st) {
        cm_wgen_next(g, in);
        if (in->kind == CM_WI_END) break;
        if (in->kind != CM_WI_MEM) continue;
        if (n + in->n > cap) break; /* whole instructions only */
        for (unsigned j = 0; j < in->n; j++) {
            lines[n] = in->lines[j];
            is_load[n++] = in->op == CM_WOP_LOAD;
        }
    }
    if (!st) st = rename_loads(lines, is_load, n, loads, &nloads, err);
    out->accesses = n;
    out->loads = nloads;
    out->prof = NULL;
    if (!st && nloads) st = cm_warp_profile_new(loads, nloads, &out->prof, err);
    free(g);
    free(in);
    free(lines);
    free(loads);
    free(is_load);
    return st;
}

/* Miss ratio and FA hit rate of the first n warps interleaved. */
static cm_status eval_warps(const warp_stream *s, size_t n, uint64_t sets,
                            uint64_t ways, double *miss_ratio, double *fa_hit,
                            cm_err *err)
{
    cm_warp_profile **profs = malloc(n * sizeof *profs);
    if (!profs) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    size_t k = 0;
    double loads = 0, accesses = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i].prof) profs[k++] = s[i].prof;
        loads += (double)s[i].loads;
        accesses += (double)s[i].accesses;
    }
    double h = 0, hfa = 0;
    cm_status st = CM_OK;
    if (k) {
        st = cm_interleave_hit_rate(profs, k, (unsigned)k, sets, ways, &h,
                                    err);
        if (!st)
            st = cm_interleave_hit_rate(profs, k, (unsigned)k, 1,
                                        sets * ways, &hfa, err);
    }
    free(profs);
    if (st) return st;
    /* the model's rate is per load; stores and atomics always miss */
    *miss_ratio = accesses > 0 ? 1 - h * loads / accesses : 0;
    *fa_hit = accesses > 0 ? hfa * loads / accesses : 0;
    return CM_OK;
}

cm_status cm_l1_predict_miss_ratio(const cm_params *p,
                                   const cm_workload_profile *w,
                                   double warps_interleaved,
                                   cm_l1_prediction *out, cm_err *err)
{
    if (!p || !w || !out)
        return cm_err_set(err, CM_EINTERNAL, "l1 prediction: missing input");
    double wmax = p->gpu_warps_per_sm;
    if (!(warps_interleaved >= 1 && warps_interleaved <= wmax))
        return cm_err_set(err, CM_EINPUT,
                          "warps interleaved %g: expected 1 to "
                          "gpu.warps_per_sm (%g)",
                          warps_interleaved, wmax);
    uint64_t ways = (uint64_t)p->l1_ways, line = (uint64_t)p->l1_line;
    uint64_t sets = (uint64_t)p->l1_size / (ways * line);
    if (sets < 1)
        return cm_err_set(err, CM_EINPUT,
                          "l1.size %g is smaller than one set of l1.ways x "
                          "l1.line bytes",
                          p->l1_size);
    cm_status st = cm_workload_profile_validate(w, err);
    if (st) return st;
    size_t lo = (size_t)floor(warps_interleaved);
    size_t hi = (size_t)ceil(warps_interleaved);
    double frac = warps_interleaved - (double)lo;
    warp_stream *s = calloc(hi, sizeof *s);
    if (!s) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    for (size_t i = 0; !st && i < hi; i++)
        st = stream_build(p, w, (uint32_t)i, &s[i], err);
    double mr_lo = 0, fa_lo = 0, mr_hi = 0, fa_hi = 0;
    if (!st) st = eval_warps(s, lo, sets, ways, &mr_lo, &fa_lo, err);
    if (!st && hi != lo)
        st = eval_warps(s, hi, sets, ways, &mr_hi, &fa_hi, err);
    else
        mr_hi = mr_lo, fa_hi = fa_lo;
    if (!st) {
        out->miss_ratio = (1 - frac) * mr_lo + frac * mr_hi;
        out->hit_rate_fa = (1 - frac) * fa_lo + frac * fa_hi;
        out->warps = hi;
        out->accesses = 0;
        for (size_t i = 0; i < hi; i++) out->accesses += s[i].accesses;
    }
    for (size_t i = 0; i < hi; i++) cm_warp_profile_free(s[i].prof);
    free(s);
    return st;
}
