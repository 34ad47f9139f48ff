/* l1_profile.c - the L1 model's per-workload stream profile (see
 * l1_profile.h): what of the warps' streams the interleaving model of
 * l1_predict.c needs, measured once per (workload, sim.seed, l1.line).
 *
 * Streams.  Warps 0 .. CM_L1_PROFILE_WARPS-1 of SM 0, generated as gpu.c
 * does (cm_wgen seeded with sim.seed, SM 0, the warp, l1.line), memory
 * instructions only, whole instructions up to CM_L1_PREDICT_MAX_ACCESSES
 * line accesses per warp.  Stores and atomics place nothing in a NO-COH
 * L1 (write-no-allocate) and evict their line (write-evict): they are left
 * out, and a warp's first load of a line after it wrote it is renamed to
 * a line never seen before (a cold miss) that keeps the line's set (its
 * low 24 bits).  The statistics below are over the load streams.
 *
 * Statistics, each the mean over the sample warps (one "mean warp"):
 *  - per set count S = 2^j (j <= CM_L1_PROFILE_MAX_LOG2_SETS), set = line
 *    mod S as in the simulator's L1: the loads by (reuse time t, set-local
 *    stack distance k), k < CM_L1_PROFILE_DEPTH exactly.  t is the index
 *    difference to the previous load of the line in the warp's own stream;
 *    k is the number of distinct lines of the same set loaded in between
 *    (Hill & Smith 1989; setlocal.c).  One warp alone in an S-set, A-way
 *    LRU cache hits exactly the loads with k < A (Mattson et al. 1970):
 *    no placement assumption;
 *  - the all-window footprints (Xiang et al., PPoPP'11; interleave.c):
 *    F(t), the mean number of distinct lines in t consecutive loads, and
 *    per S, O_S(t), the mean number of distinct sets they fall into, the
 *    footprint of the stream of set indices.  Both exact over all windows,
 *    from the histogram of gaps between a symbol's uses (interleave.c's
 *    header).  F / O_S is how many lines a warp's window puts into each
 *    set it touches: 1 for lines scattered over many sets, F / S for a
 *    sweep over every set, and large when the lines camp on few sets
 *    (scluster's stride of 32 lines, exactly li2014's 32 sets).
 *  - for the shared pools (the generator's SM-shared, GPU-shared and
 *    false-shared regions, whose lines every warp of an SM draws from):
 *    their loads by (t, k), by t alone, cold, and in all; the pools'
 *    sizes are the profile's region sizes.
 * Reuse times are binned exactly below 32, then 8 bins per octave; a bin
 * is represented by its middle t.
 *
 * Cost: per warp one sort, and per set count one pass with a move-to-
 * front stack of depth CM_L1_PROFILE_DEPTH per set: about 0.3 s CPU per
 * workload for 16 warps of 64k accesses.  Memory: 13 x 121 x 32 counts. */
#include "models/l1_profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/l1_predict.h"

enum {
    RT_EXACT = 32,
    RT_SUB_LOG2 = 3,
    NLEV = CM_L1_PROFILE_MAX_LOG2_SETS + 1,
    DEPTH = CM_L1_PROFILE_DEPTH,
    NPROF = CM_L1_PROFILE_WARPS,
    NPOOL = CM_L1_PROFILE_POOLS,
    CACHE_MAX = 64
};

/* Names for the lines re-read after a write: region 15 is none of the
 * generator's (cm_wregion), so they never meet a real line. */
#define RENAMED_BASE ((uint64_t)0xF << 60)
#define SET_BITS ((uint64_t)0xFFFFFF)

struct cm_l1_profile {
    double key[CM_WLP_COUNT];
    uint64_t seed;
    uint32_t line;
    cm_workload_profile wl;
    double accesses, loads; /* per mean warp */
    double insts, compute;  /* memory instructions, compute cycles */
    double *cnt;            /* [NLEV][nbins][DEPTH] */
    double *occ;            /* [NLEV][nbins] */
    double *fp;             /* [nbins] */
    /* Loads of the shared pools (SM-shared, GPU-shared, false-shared):
     * by set-local distance as cnt, by reuse time (any distance), cold,
     * all, and each pool's lines (the profile's region sizes). */
    double *scnt; /* [NPOOL][NLEV][nbins][DEPTH] */
    double *sall; /* [NPOOL][nbins] */
    double scold[CM_L1_PROFILE_POOLS], sloads[CM_L1_PROFILE_POOLS];
    double pool_lines[CM_L1_PROFILE_POOLS];
    cm_warp_profile *wp[NPROF];
    size_t nwp;
    int wp_built;
};

static cm_l1_profile *cache[CACHE_MAX];
static size_t cache_next, cache_last;

static unsigned floor_log2(uint64_t x)
{
    unsigned k = 0;
    while (x >>= 1) k++;
    return k;
}

/* Reuse-time bins are interleave.c's (cm_reuse_time_bin): RT_EXACT exact,
 * then 2^RT_SUB_LOG2 per octave. */
#define rt_bin cm_reuse_time_bin

size_t cm_l1_profile_nbins(void)
{
    return rt_bin(CM_L1_PREDICT_MAX_ACCESSES) + 1;
}

void cm_l1_profile_bin_bounds(size_t b, double *lo, double *hi)
{
    if (b < RT_EXACT) {
        *lo = (double)b;
        *hi = (double)b + 1;
        return;
    }
    size_t j = b - RT_EXACT, sub = j & ((1u << RT_SUB_LOG2) - 1);
    unsigned sh = (unsigned)(j >> RT_SUB_LOG2) + floor_log2(RT_EXACT) -
                  RT_SUB_LOG2;
    *lo = (double)((8 + sub) << sh);
    *hi = (double)((9 + sub) << sh);
}

double cm_l1_profile_bin_t(size_t b)
{
    if (b < RT_EXACT) return (double)b;
    size_t j = b - RT_EXACT, sub = j & ((1u << RT_SUB_LOG2) - 1);
    unsigned sh = (unsigned)(j >> RT_SUB_LOG2) + floor_log2(RT_EXACT) -
                  RT_SUB_LOG2;
    double lo = (double)((8 + sub) << sh), hi = (double)((9 + sub) << sh);
    return floor((lo + hi - 1) / 2);
}

/* ---- streams ----------------------------------------------------------- */

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

/* The load lines of n accesses, each load after a write of its line
 * renamed (see the header), into loads[]; their count into *nloads. */
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
    uint64_t fresh = 0, cur = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || r[i].line != r[i - 1].line) cur = r[i].line;
        if (!is_load[r[i].pos]) /* the next load is cold, in the same set */
            cur = RENAMED_BASE | (fresh++ << 24) | (r[i].line & SET_BITS);
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

/* Warp `warp` of SM 0: its renamed loads (malloc'd, into *loads) and the
 * counts: loads, line accesses, memory instructions and the compute
 * cycles before them (the last two into mc[0], mc[1]; mc may be NULL). */
static cm_status stream_build(const cm_workload_profile *w, uint64_t seed,
                              uint32_t line, uint32_t warp, uint64_t **loads,
                              size_t *nloads, size_t *naccesses, double *mc,
                              cm_err *err)
{
    double insts = 0, compute = 0, pending = 0;
    const size_t cap = CM_L1_PREDICT_MAX_ACCESSES;
    cm_wgen *g = malloc(sizeof *g);
    cm_winst *in = malloc(sizeof *in);
    uint64_t *lines = malloc(cap * sizeof *lines);
    uint8_t *is_load = malloc(cap);
    *loads = malloc(cap * sizeof **loads);
    cm_status st = g && in && lines && is_load && *loads
                       ? CM_OK
                       : cm_err_set(err, CM_EINTERNAL, "out of memory");
    if (!st) st = cm_wgen_init(g, w, seed, 0, warp, line, err);
    size_t n = 0;
    while (!st) {
        cm_wgen_next(g, in);
        if (in->kind == CM_WI_END) break;
        if (in->kind == CM_WI_COMPUTE) pending += in->compute;
        if (in->kind != CM_WI_MEM) continue;
        if (n + in->n > cap) break; /* whole instructions only */
        insts += 1;
        compute += pending;
        pending = 0;
        for (unsigned j = 0; j < in->n; j++) {
            lines[n] = in->lines[j];
            is_load[n++] = in->op == CM_WOP_LOAD;
        }
    }
    *naccesses = n;
    *nloads = 0;
    if (mc) mc[0] = insts, mc[1] = compute;
    if (!st) st = rename_loads(lines, is_load, n, *loads, nloads, err);
    free(g);
    free(in);
    free(lines);
    free(is_load);
    if (st) {
        free(*loads);
        *loads = NULL;
    }
    return st;
}

/* ---- statistics of one warp ------------------------------------------- */

/* F(t) at every bin's t from the gap histogram h[1 .. n+1] of a stream of
 * n symbols, m of them distinct (interleave.c's header), added with
 * weight wt into out[]. */
static void add_footprints(const double *h, size_t n, double m, double wt,
                           double *out)
{
    size_t nb = cm_l1_profile_nbins(), r = n + 1;
    double s0 = 0, s1 = 0;
    for (size_t b = nb; b-- > 1;) {
        size_t w = (size_t)cm_l1_profile_bin_t(b);
        if (w > n) {
            out[b] += wt * m;
            continue;
        }
        for (; r > w; r--) {
            s0 += h[r];
            s1 += (double)r * h[r];
        }
        out[b] += wt * (m - (s1 - (double)w * s0) / (double)(n - w + 1));
    }
}

/* The shared pool of a line, or -1 (private, streaming, renamed). */
static int pool_of(uint64_t line)
{
    switch (cm_wline_region(line)) {
    case CM_WR_SM_SHARED: return 0;
    case CM_WR_GPU_SHARED: return 1;
    case CM_WR_FALSE_SHARED: return 2;
    default: return -1;
    }
}

/* Per load its reuse time t (0: cold), and the line footprints. */
static cm_status line_stats(cm_l1_profile *p, const uint64_t *x, size_t n,
                            uint32_t *t, double *h, cm_err *err)
{
    access_ref *r = malloc(n * sizeof *r);
    if (!r) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    for (size_t i = 0; i < n; i++) r[i] = (access_ref){x[i], (uint32_t)i};
    qsort(r, n, sizeof *r, ref_cmp);
    memset(h, 0, (n + 2) * sizeof *h);
    double m = 0;
    for (size_t i = 0; i < n; i++) {
        int first = i == 0 || r[i].line != r[i - 1].line;
        uint32_t pos = r[i].pos;
        t[pos] = first ? 0 : pos - r[i - 1].pos;
        h[first ? pos + 1 : t[pos]] += 1;
        if (i + 1 == n || r[i + 1].line != r[i].line) h[n - pos] += 1;
        m += first;
    }
    free(r);
    add_footprints(h, n, m, 1.0 / NPROF, p->fp);
    size_t nb = cm_l1_profile_nbins();
    for (size_t i = 0; i < n; i++) {
        int q = pool_of(x[i]);
        if (q < 0) continue;
        p->sloads[q] += 1.0 / NPROF;
        if (t[i] == 0) p->scold[q] += 1.0 / NPROF;
        else p->sall[(size_t)q * nb + rt_bin(t[i])] += 1.0 / NPROF;
    }
    return CM_OK;
}

/* At 2^lev sets: the set footprints and the (t, k) counts, by a move-to-
 * front stack of DEPTH lines per set. */
static cm_status set_stats(cm_l1_profile *p, unsigned lev, const uint64_t *x,
                           const uint32_t *t, size_t n, double *h,
                           cm_err *err)
{
    size_t nb = cm_l1_profile_nbins(), S = (size_t)1 << lev;
    uint64_t *tags = malloc(S * DEPTH * sizeof *tags);
    uint32_t *fill = calloc(S, sizeof *fill);
    int64_t *last = malloc(S * sizeof *last);
    if (!tags || !fill || !last) {
        free(tags);
        free(fill);
        free(last);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    memset(h, 0, (n + 2) * sizeof *h);
    for (size_t s = 0; s < S; s++) last[s] = -1;
    double *cnt = p->cnt + (size_t)lev * nb * DEPTH;
    double *scnt = p->scnt + (size_t)lev * nb * DEPTH;
    for (size_t i = 0; i < n; i++) {
        size_t s = (size_t)(x[i] & (S - 1));
        h[last[s] < 0 ? i + 1 : i - (size_t)last[s]] += 1;
        last[s] = (int64_t)i;
        uint64_t *tg = tags + s * DEPTH;
        uint32_t f = fill[s], k = 0;
        while (k < f && tg[k] != x[i]) k++;
        if (k < f) {
            size_t c = rt_bin(t[i]) * DEPTH + k;
            int q = pool_of(x[i]);
            cnt[c] += 1.0 / NPROF;
            if (q >= 0) scnt[(size_t)q * NLEV * nb * DEPTH + c] += 1.0 / NPROF;
        }
        else if (f < DEPTH) fill[s] = f + 1;
        else k = f - 1; /* the least recent line drops out */
        memmove(tg + 1, tg, k * sizeof *tg);
        tg[0] = x[i];
    }
    double m = 0;
    for (size_t s = 0; s < S; s++)
        if (last[s] >= 0) {
            h[n - (size_t)last[s]] += 1;
            m += 1;
        }
    add_footprints(h, n, m, 1.0 / NPROF, p->occ + (size_t)lev * nb);
    free(tags);
    free(fill);
    free(last);
    return CM_OK;
}

static cm_status warp_stats(cm_l1_profile *p, uint32_t warp, cm_err *err)
{
    uint64_t *x = NULL;
    size_t n = 0, acc = 0;
    double mc[2];
    cm_status st = stream_build(&p->wl, p->seed, p->line, warp, &x, &n, &acc,
                                mc, err);
    if (st) return st;
    p->accesses += (double)acc / NPROF;
    p->insts += mc[0] / NPROF;
    p->compute += mc[1] / NPROF;
    p->loads += (double)n / NPROF;
    uint32_t *t = malloc((n ? n : 1) * sizeof *t);
    double *h = malloc((n + 2) * sizeof *h);
    if (!t || !h) st = cm_err_set(err, CM_EINTERNAL, "out of memory");
    if (!st && n) st = line_stats(p, x, n, t, h, err);
    for (unsigned lev = 0; !st && n && lev < NLEV; lev++)
        st = set_stats(p, lev, x, t, n, h, err);
    free(x);
    free(t);
    free(h);
    return st;
}

/* ---- the cache -------------------------------------------------------- */

static void profile_free(cm_l1_profile *p)
{
    if (!p) return;
    free(p->cnt);
    free(p->occ);
    free(p->fp);
    free(p->scnt);
    free(p->sall);
    for (size_t i = 0; i < p->nwp; i++) cm_warp_profile_free(p->wp[i]);
    free(p);
}

static cm_status profile_build(const cm_workload_profile *w, uint64_t seed,
                               uint32_t line, cm_l1_profile **out,
                               cm_err *err)
{
    size_t nb = cm_l1_profile_nbins();
    cm_l1_profile *p = calloc(1, sizeof *p);
    if (!p) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    p->wl = *w;
    p->seed = seed;
    p->line = line;
    for (size_t i = 0; i < CM_WLP_COUNT; i++)
        p->key[i] = cm_wl_param_get(w, cm_wl_param_at(i));
    p->cnt = calloc((size_t)NLEV * nb * DEPTH, sizeof *p->cnt);
    p->occ = calloc((size_t)NLEV * nb, sizeof *p->occ);
    p->fp = calloc(nb, sizeof *p->fp);
    p->scnt = calloc((size_t)NPOOL * NLEV * nb * DEPTH, sizeof *p->scnt);
    p->sall = calloc((size_t)NPOOL * nb, sizeof *p->sall);
    p->pool_lines[0] = w->sm_shared_lines;
    p->pool_lines[1] = w->gpu_shared_lines;
    p->pool_lines[2] = w->false_share_lines;
    cm_status st = p->cnt && p->occ && p->fp && p->scnt && p->sall
                       ? CM_OK
                       : cm_err_set(err, CM_EINTERNAL, "out of memory");
    for (uint32_t k = 0; !st && k < NPROF; k++) st = warp_stats(p, k, err);
    if (st) {
        profile_free(p);
        return st;
    }
    *out = p;
    return CM_OK;
}

static int profile_is(const cm_l1_profile *p, const cm_workload_profile *w,
                      uint64_t seed, uint32_t line)
{
    if (p->seed != seed || p->line != line) return 0;
    for (size_t i = 0; i < CM_WLP_COUNT; i++)
        if (p->key[i] != cm_wl_param_get(w, cm_wl_param_at(i))) return 0;
    return 1;
}

cm_status cm_l1_profile_get(const cm_workload_profile *w, uint64_t seed,
                            uint32_t line, const cm_l1_profile **out,
                            cm_err *err)
{
    /* Fast path: the last profile asked for, byte for byte. */
    cm_l1_profile *last = cache[cache_last];
    if (last && last->seed == seed && last->line == line &&
        !memcmp(&last->wl, w, sizeof *w)) {
        *out = last;
        return CM_OK;
    }
    for (size_t i = 0; i < CACHE_MAX; i++)
        if (cache[i] && profile_is(cache[i], w, seed, line)) {
            cache_last = i;
            *out = cache[i];
            return CM_OK;
        }
    cm_l1_profile *p = NULL;
    cm_status st = profile_build(w, seed, line, &p, err);
    if (st) return st;
    profile_free(cache[cache_next]);
    cache[cache_next] = p;
    cache_last = cache_next;
    cache_next = (cache_next + 1) % CACHE_MAX;
    *out = p;
    return CM_OK;
}

void cm_l1_profile_cache_clear(void)
{
    for (size_t i = 0; i < CACHE_MAX; i++) {
        profile_free(cache[i]);
        cache[i] = NULL;
    }
    cache_next = cache_last = 0;
}

/* ---- accessors -------------------------------------------------------- */

double cm_l1_profile_accesses(const cm_l1_profile *p) { return p->accesses; }
double cm_l1_profile_loads(const cm_l1_profile *p) { return p->loads; }
double cm_l1_profile_mem_insts(const cm_l1_profile *p) { return p->insts; }
double cm_l1_profile_compute(const cm_l1_profile *p) { return p->compute; }

const double *cm_l1_profile_counts(const cm_l1_profile *p,
                                   unsigned log2_sets, size_t b)
{
    return p->cnt + ((size_t)log2_sets * cm_l1_profile_nbins() + b) * DEPTH;
}

double cm_l1_profile_sets_touched(const cm_l1_profile *p, unsigned log2_sets,
                                  size_t b)
{
    return p->occ[(size_t)log2_sets * cm_l1_profile_nbins() + b];
}

const double *cm_l1_profile_shared_counts(const cm_l1_profile *p, int pool,
                                          unsigned log2_sets, size_t b)
{
    size_t nb = cm_l1_profile_nbins();
    return p->scnt + (((size_t)pool * NLEV + log2_sets) * nb + b) * DEPTH;
}

double cm_l1_profile_shared_reused(const cm_l1_profile *p, int pool,
                                   size_t b)
{
    return p->sall[(size_t)pool * cm_l1_profile_nbins() + b];
}

double cm_l1_profile_shared_cold(const cm_l1_profile *p, int pool)
{
    return p->scold[pool];
}

double cm_l1_profile_shared_loads(const cm_l1_profile *p, int pool)
{
    return p->sloads[pool];
}

double cm_l1_profile_pool_lines(const cm_l1_profile *p, int pool)
{
    return p->pool_lines[pool];
}

void cm_l1_profile_level_view(const cm_l1_profile *p, unsigned log2_sets,
                              cm_l1_profile_level *out)
{
    size_t nb = cm_l1_profile_nbins();
    out->counts = p->cnt + (size_t)log2_sets * nb * DEPTH;
    out->sets_touched = p->occ + (size_t)log2_sets * nb;
    out->lines_touched = p->fp;
    for (int q = 0; q < NPOOL; q++) {
        out->shared_counts[q] =
            p->scnt + ((size_t)q * NLEV + log2_sets) * nb * DEPTH;
        out->shared_reused[q] = p->sall + (size_t)q * nb;
    }
}

double cm_l1_profile_lines_touched(const cm_l1_profile *p, size_t b)
{
    return p->fp[b];
}

cm_status cm_l1_profile_warps(const cm_l1_profile *cp,
                              cm_warp_profile *const **profiles, size_t *n,
                              cm_err *err)
{
    cm_l1_profile *p = (cm_l1_profile *)cp; /* the cache owns it */
    cm_status st = CM_OK;
    for (uint32_t k = 0; !p->wp_built && !st && k < NPROF; k++) {
        uint64_t *x = NULL;
        size_t nl = 0, acc = 0;
        st = stream_build(&p->wl, p->seed, p->line, k, &x, &nl, &acc, NULL,
                          err);
        if (!st && nl) st = cm_warp_profile_new(x, nl, &p->wp[p->nwp], err);
        if (!st && nl) p->nwp++;
        free(x);
    }
    if (st) { /* the next call starts over */
        for (size_t i = 0; i < p->nwp; i++) cm_warp_profile_free(p->wp[i]);
        p->nwp = 0;
        return st;
    }
    p->wp_built = 1;
    if (p->nwp == 0)
        return cm_err_set(err, CM_EINPUT, "%s: no warp issues a load",
                          p->wl.name);
    *profiles = p->wp;
    *n = p->nwp;
    return CM_OK;
}
