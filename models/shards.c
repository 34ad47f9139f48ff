/* shards.c - SHARDS sampled stack distances (Waldspurger, Park, Garthwaite
 * & Ahmad, "Efficient MRC construction with SHARDS", FAST'15), and the
 * exact histogram as its rate-1 case.
 *
 * Spatial sampling: a line is tracked iff its priority p(line) < T, with
 * P = 2^24 priorities and rate R = T/P.  Every access to a tracked line
 * goes through the exact engine (stackdist.c), so the distance d among
 * tracked lines estimates d/R among all lines; it is counted at d/R with
 * weight 1/R (cold accesses too).
 *
 * Stratified priority (our change to the paper's hash): p is uniform for
 * every line, as the paper's hash(line) mod P is, but the tracked lines
 * are spread evenly over memory instead of independently.  Per scale of
 * 2^6 lines, each block draws a random offset (splitmix64 of the block,
 * scale and seed); the priority's next 6 bits, finest scale first, are
 * the line's offset in its block XOR that offset, bit-reversed.  So below
 * T = P/2^j (j <= 6) exactly one line in 2^j of every aligned block is
 * tracked, at a random phase, and one line (a random one) per 64-line
 * block below P/64; coarser scales likewise.  Expectations are those of
 * independent sampling (a strided pattern is tracked at rate R on average
 * whatever its stride), but a run of contiguous lines, which real data
 * mostly is, is represented in proportion: on the lackey traces at R =
 * 1%, the mean MAE over 40 seeds fell from 0.0179 to 0.0091 on gzip
 * (whose ~2,700 lines give ~27 tracked) and the worst from 0.051 to 0.025.
 * The cost stays one hash for most lines: the next scale's bits are
 * computed only while the priority may still be below T.
 * The price is a bias: below P/64 a tracked line's 63 block neighbours are
 * never tracked, so the neighbours in its reuse window count 0 instead of
 * R each, and d/R runs short (gzip, 64 B lines, 40 seeds: by 8-11 lines
 * on average for d < 2000; mean MRC error -0.007..-0.03 just above
 * multiples of 1/R).  Measured offline, not adopted: adding the exact count of
 * the block's lines touched in the window (a 64-bit map per tracked line)
 * lowers gzip's mean MAE from 0.0059 to 0.0052 (0.0051 when the d/R part
 * is also spread over its interval) but not its bad seeds (MAE >= 0.01 on
 * 6 of 40 seeds against 4): those are which lines are tracked, since the
 * same lines at their exact distances give a mean of 0.0026 and keep the
 * bad seeds.  It would cost a second lookup per access for ~12%.
 * Nor does post-stratifying by an exact LRU stack of the K latest lines
 * (its counts exact below K, the sample's rescaled to the rest): over the
 * same 40 seeds the mean MAE is 0.0084 / 0.0054 / 0.0043 at K = 4 / 16 /
 * 64 (0.0059 / 0.0058 / 0.0054 keeping SHARDS_adj in the sampled part),
 * and only K = 64 helps, at 64 compares per access.
 *
 * Fixed size (SHARDS_max, section 4.2 of the paper): T starts at P and at
 * most S lines are tracked; when an (S+1)-th arrives, T drops to the
 * largest priority among the tracked lines (a max-heap keyed by it) and
 * the lines holding it are evicted from the exact engine.  The paper keeps
 * counts at the current rate by multiplying the histogram by R_new/R_old
 * at each drop and scales by 1/R at the end; a sample taken at rate R_t
 * then ends with weight (R_final/R_t)/R_final = 1/R_t, so counting each
 * sample with 1/R_current when it is taken is the same histogram without
 * the O(bins) rescale per drop.
 *
 * Resolution: d sampled lines stand for d/R +- 1/(2R) real lines, so the
 * curve is blind below about 1/R lines (every reuse closer than that looks
 * like distance 0); cm_sample_resolved_lines puts the bound at 2/R, where
 * the jackknife interval holds the exact curve (reuse.h).  Spreading each sample over its interval was tried and
 * only traded error between traces, so the paper's point estimate stays;
 * StatStack is the better choice for caches of fewer than 1/R lines.
 *
 * Count correction (SHARDS_adj, section 5.1): the weights sum to an
 * estimate of the access count, off when a few hot lines happen to be (or
 * not be) sampled.  At finish the difference between the true count and
 * the weights' sum goes into the distance-0 bin, as the paper adds
 * expected minus actual samples to its first bucket, so cold + bins ==
 * total and the miss ratio at 0 lines is 1.  Were the correction to make
 * that bin negative, the bin is emptied and the other counts are scaled to
 * the total instead.  Rate 1 needs no correction. */
#include <stdlib.h>

#include "models/reuse.h"
#include "models/reuse_impl.h"

#define SHARDS_BITS 24
#define SHARDS_GROUP 6 /* bits per scale; the bit reversal is written for 6 */
#define SHARDS_P (1u << SHARDS_BITS)
#define SHARDS_QUEUE 8 /* lookahead: ~ accesses in flight per miss time */

double cm_sample_resolved_lines(cm_sample_kind kind, double rate)
{
    int shards = kind == CM_SAMPLE_SHARDS || kind == CM_SAMPLE_SHARDS_MAX;
    return shards && rate > 0 && rate < 1 ? 2 / rate : 0;
}

typedef struct shards_tracked {
    uint32_t priority;
    uint64_t line;
} shards_tracked;

struct cm_shards {
    cm_stackdist *sd;
    cm_reuse_hist h;   /* weights so far; total = their sum */
    uint64_t seed;
    uint32_t threshold;   /* T: lines of priority < T are tracked */
    int filter;           /* 0: exact, every line tracked, no hashing */
    double seen;          /* every access offered */
    /* jackknife: the weights of each group of tracked lines (reuse.h) */
    cm_reuse_hist *grp;
    unsigned ngrp;
    /* fixed size only: max-heap of the tracked lines by priority */
    shards_tracked *heap;
    size_t nheap, max_lines;
    shards_tracked queue[SHARDS_QUEUE]; /* sampled, not yet processed */
    unsigned qhead, qlen;
};

static inline uint64_t shards_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

_Static_assert(SHARDS_GROUP == 6 && SHARDS_BITS % SHARDS_GROUP == 0,
               "shards_group_bits reverses 6 bits");

/* The priority's bits at scale g: the offset of l (the line >> 6g) in its
 * block of 2^6, XORed with the block's random offset and bit-reversed, so
 * that the finest split (odd or even line) decides the top bit. */
static inline uint32_t shards_group_bits(uint64_t seed, uint64_t l,
                                         unsigned g)
{
    uint64_t shift = shards_mix((l >> SHARDS_GROUP) +
                                seed * 0x9E3779B97F4A7C15ull +
                                (uint64_t)g * 0xD1B54A32D192ED03ull);
    uint32_t x = (uint32_t)((l ^ shift) & ((1u << SHARDS_GROUP) - 1));
    return ((x & 1u) << 5) | ((x & 2u) << 3) | ((x & 4u) << 1) |
           ((x & 8u) >> 1) | ((x & 16u) >> 3) | ((x & 32u) >> 5);
}

/* The line's priority (see the header), a scale at a time from the finest,
 * and no further than needed to be sure it reaches `below` (the value
 * returned is then a lower bound >= below): most lines cost one hash, as
 * in plain SHARDS. */
static uint32_t shards_priority(uint64_t seed, uint64_t line, uint32_t below)
{
    uint32_t h = shards_group_bits(seed, line, 0)
                 << (SHARDS_BITS - SHARDS_GROUP);
    for (unsigned g = 1; g < SHARDS_BITS / SHARDS_GROUP && h < below; g++)
        h |= shards_group_bits(seed, line >> (g * SHARDS_GROUP), g)
             << (SHARDS_BITS - (g + 1) * SHARDS_GROUP);
    return h;
}

cm_status cm_shards_new(const cm_sample_spec *spec, uint64_t exact_bins,
                        cm_shards **out, cm_err *err)
{
    *out = NULL;
    cm_shards *s = calloc(1, sizeof *s);
    if (!s) return cm_err_set(err, CM_EINTERNAL, "SHARDS: out of memory");
    cm_status st = cm_reuse_hist_init(&s->h, exact_bins, err);
    if (st != CM_OK) {
        free(s);
        return st;
    }
    s->seed = spec->seed;
    s->threshold = SHARDS_P;
    if (spec->kind == CM_SAMPLE_SHARDS) {
        if (!(spec->rate > 0 && spec->rate <= 1)) {
            cm_shards_free(s);
            return cm_err_set(err, CM_EINPUT,
                              "SHARDS: rate must be in (0, 1], not %g",
                              spec->rate);
        }
        double t = spec->rate * SHARDS_P + 0.5;
        s->threshold = t < 1 ? 1 : (uint32_t)t;
        s->filter = 1;
    } else if (spec->kind == CM_SAMPLE_SHARDS_MAX) {
        if (spec->max_lines < 1 || spec->max_lines > SIZE_MAX / 2 /
                                       sizeof *s->heap) {
            cm_shards_free(s);
            return cm_err_set(err, CM_EINPUT,
                              "SHARDS: max lines must be >= 1, not %llu",
                              (unsigned long long)spec->max_lines);
        }
        s->max_lines = (size_t)spec->max_lines;
        s->filter = 1;
    }
    if (!(s->sd = cm_stackdist_new())) {
        cm_shards_free(s);
        return cm_err_set(err, CM_EINTERNAL, "SHARDS: out of memory");
    }
    if (spec->replicates && s->filter) {
        s->grp = calloc(CM_REUSE_GROUPS, sizeof *s->grp);
        if (!s->grp) st = cm_err_set(err, CM_EINTERNAL, "SHARDS: out of memory");
        for (; !st && s->ngrp < CM_REUSE_GROUPS; s->ngrp++)
            st = cm_reuse_hist_init(&s->grp[s->ngrp], exact_bins, err);
        if (st) {
            cm_shards_free(s);
            return st;
        }
    }
    *out = s;
    return CM_OK;
}

void cm_shards_free(cm_shards *s)
{
    if (!s) return;
    cm_stackdist_free(s->sd);
    cm_reuse_hist_free(&s->h);
    for (unsigned g = 0; g < s->ngrp; g++) cm_reuse_hist_free(&s->grp[g]);
    free(s->grp);
    free(s->heap);
    free(s);
}

static int tracked_above(const shards_tracked *a, const shards_tracked *b)
{
    return a->priority > b->priority;
}

static cm_status heap_push(cm_shards *s, uint32_t priority, uint64_t line,
                           cm_err *err)
{
    if (!s->heap) {
        /* The heap never holds more than S + 1 lines. */
        s->heap = malloc((s->max_lines + 1) * sizeof *s->heap);
        if (!s->heap)
            return cm_err_set(err, CM_EINTERNAL, "SHARDS: out of memory");
    }
    size_t i = s->nheap++;
    shards_tracked x = {priority, line};
    while (i > 0 && tracked_above(&x, &s->heap[(i - 1) / 2])) {
        s->heap[i] = s->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->heap[i] = x;
    return CM_OK;
}

static shards_tracked heap_pop(cm_shards *s)
{
    shards_tracked top = s->heap[0], x = s->heap[--s->nheap];
    size_t i = 0, n = s->nheap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && tracked_above(&s->heap[c + 1], &s->heap[c])) c++;
        if (!tracked_above(&s->heap[c], &x)) break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (n > 0) s->heap[i] = x;
    return top;
}

/* Lowers T to the largest tracked priority and forgets the lines holding it. */
static void shards_evict(cm_shards *s)
{
    uint32_t t = s->heap[0].priority;
    while (s->nheap > 0 && s->heap[0].priority == t)
        cm_stackdist_remove(s->sd, heap_pop(s).line);
    s->threshold = t;
}

static cm_status shards_process(cm_shards *s, shards_tracked x, cm_err *err)
{
    if (x.priority >= s->threshold) return CM_OK;
    int64_t d;
    cm_status st = cm_stackdist_access(s->sd, x.line, &d, NULL, err);
    if (st != CM_OK) return st;
    double scale = (double)SHARDS_P / s->threshold;
    st = cm_reuse_hist_add(&s->h, d < 0 ? -1 : (double)d * scale, scale,
                           err);
    if (!st && s->ngrp) /* a hash independent of the priority's */
        st = cm_reuse_hist_add(
            &s->grp[shards_mix(x.line ^ ~s->seed) % s->ngrp],
            d < 0 ? -1 : (double)d * scale, scale, err);
    if (st != CM_OK || d >= 0 || !s->max_lines) return st;
    if ((st = heap_push(s, x.priority, x.line, err)) != CM_OK) return st;
    if (s->nheap > s->max_lines) shards_evict(s);
    return CM_OK;
}

cm_status cm_shards_access(cm_shards *s, uint64_t line, cm_err *err)
{
    s->seen += 1;
    shards_tracked x = {0, line};
    if (s->filter) {
        x.priority = shards_priority(s->seed, line, s->threshold);
        if (x.priority >= s->threshold) return CM_OK;
    }
    cm_status st = CM_OK;
    unsigned tail = (s->qhead + s->qlen) % SHARDS_QUEUE;
    if (s->qlen == SHARDS_QUEUE) {
        st = shards_process(s, s->queue[s->qhead], err);
        s->qhead = (s->qhead + 1) % SHARDS_QUEUE;
    } else {
        s->qlen++;
    }
    s->queue[tail] = x;
    cm_stackdist_prefetch(s->sd, line);
    return st;
}

/* SHARDS_adj (header): the weights made to sum to the accesses seen. */
static void shards_adjust(cm_reuse_hist *h, double seen)
{
    double adj = seen - h->total;
    if (h->exact[0] + adj >= 0) {
        h->exact[0] += adj;
    } else {
        double rest = h->total - h->exact[0];
        h->exact[0] = 0;
        h->total = rest;
        cm_reuse_hist_scale(h, seen / rest);
    }
    h->total = seen;
}

cm_status cm_shards_finish(cm_shards *s, cm_reuse_hist *h, cm_err *err)
{
    cm_status st = CM_OK;
    for (; s->qlen > 0 && st == CM_OK; s->qlen--) {
        st = shards_process(s, s->queue[s->qhead], err);
        s->qhead = (s->qhead + 1) % SHARDS_QUEUE;
    }
    if (st == CM_OK) st = cm_reuse_hist_copy(h, &s->h, err);
    if (st != CM_OK) return st;
    if (s->seen > 0 && h->sampled == 0) {
        cm_reuse_hist_free(h);
        return cm_err_set(err, CM_EINPUT,
                          "SHARDS: none of the %.0f accesses was sampled; "
                          "raise the rate or the line budget", s->seen);
    }
    shards_adjust(h, s->seen);
    h->rate = (double)s->threshold / SHARDS_P;
    return CM_OK;
}

/* Replicate g: the other groups' weights at the rate they stand for,
 * (G - 1) / G of R, so scaled by G / (G - 1), and adjusted as the estimate
 * is.  Their distances stay those measured among all tracked lines, so
 * the spread is that of which lines are tracked (the dominant error of a
 * small sample, header of shards.c), not of the distances' own
 * resolution.  Groups are random, so the stratification's gain is not
 * credited: the interval is conservative for contiguous data. */
cm_status cm_shards_replicates(const cm_shards *s, cm_reuse_hist *reps,
                               size_t *n, cm_err *err)
{
    *n = 0;
    if (!s->ngrp) return CM_OK;
    cm_status st = CM_OK;
    for (unsigned g = 0; !st && g < s->ngrp; g++) {
        cm_reuse_hist *r = &reps[g];
        st = cm_reuse_hist_init(r, s->h.exact_bins, err);
        if (st) break;
        (*n)++;
        for (unsigned j = 0; !st && j < s->ngrp; j++)
            if (j != g) st = cm_reuse_hist_merge(r, &s->grp[j], err);
        cm_reuse_hist_scale(r, (double)s->ngrp / (s->ngrp - 1));
        if (r->total > 0) shards_adjust(r, s->seen);
        r->rate = (double)s->threshold / SHARDS_P * (s->ngrp - 1) / s->ngrp;
    }
    if (st) {
        for (size_t i = 0; i < *n; i++) cm_reuse_hist_free(&reps[i]);
        *n = 0;
    }
    return st;
}
