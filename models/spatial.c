/* spatial.c - set occupancy of reuse windows (see spatial.h), the input
 * of the set-associative occupancy model of setassoc.c.
 *
 * The window of a reuse of line x is the set of distinct lines touched
 * since x's previous use: the top d lines of the LRU stack just before the
 * reuse, d its stack distance.  For each sampled reuse the collector walks
 * that window once and, for each set count S, counts the d + 1 lines
 * (window and x) per set; a set holding c of them gives c lines whose K
 * (the others in their set) is c - 1, so the reuse adds c / (d + 1) to
 * P(K = c - 1) of its distance bin.
 *
 * Sampling: references are drawn with probability r (GSL geometric gaps
 * from the seed, so a run is reproducible), whatever their distance: the
 * distances that decide conflict misses are the long ones, near the
 * capacity, and a uniform sample gives them as many samples as the
 * histogram has reuses there.  A sample costs a walk of d steps, so r is
 * set after each sample to spend the budget B walk steps per reference at
 * the mean walk seen so far (r = min(1, B / mean)), and each sample is
 * weighted by 1/r in the sums, which keeps them unbiased as r changes.  On
 * the lackey traces of tests/check_accuracy.c the default B = 1 samples
 * gzip at ~1/165, sort and ls at ~1/15 to 1/20 and sha256sum at ~1/3.
 *
 * Cost per sample: the walk, and per set count one hash update per line
 * of the window (sets are hashed, not indexed, so a set count far above
 * the depth costs no memory): ~(1 + set counts) hash operations per walked
 * line, so ~B (1 + set counts) per reference. */
#include "models/spatial.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

#include "models/reuse_impl.h"

#define SP_NIL UINT32_MAX
#define SP_EXACT 16u    /* distances with a bin of their own */
#define SP_PER_OCTAVE 8 /* bins per doubling beyond */

typedef struct sp_sums {
    /* Sums over sampled reuses, each weighted by 1 / its sampling rate: of
     * the weight, of each reuse's P(K = k) (k = KMAX: K >= KMAX), and of
     * its E[K] and E[K^2]. */
    double w, pk[CM_SPATIAL_KMAX + 1], k1, k2;
    uint64_t n;
} sp_sums;

struct cm_spatial {
    uint64_t *sets;
    size_t nsets, nbins;
    sp_sums *sums; /* [nsets * nbins] */
    uint64_t depth, refs, samples, next_sample;
    gsl_rng *rng;
    double budget;      /* mean walk steps per reference allowed */
    double rate;        /* of the pending sample */
    double walked, drawn; /* walk steps and samples so far */
    /* LRU list of the depth most recent lines. */
    cm_linemap map; /* line -> node */
    uint64_t *line;
    uint32_t *prev, *next;
    uint32_t head, tail, used;
    /* Scratch of one sampled window: its lines, and set -> count. */
    uint64_t *window;
    uint64_t *rkey;
    uint32_t *rcount, *touched;
};

uint64_t cm_spatial_bin_lo(size_t b)
{
    if (b < SP_EXACT) return b;
    return (uint64_t)ceil(SP_EXACT *
                          exp2((double)(b - SP_EXACT) / SP_PER_OCTAVE));
}

size_t cm_spatial_bin_of(uint64_t d)
{
    if (d < SP_EXACT) return (size_t)d;
    size_t b = SP_EXACT + (size_t)floor(SP_PER_OCTAVE *
                                        log2((double)d / SP_EXACT));
    while (b > SP_EXACT && cm_spatial_bin_lo(b) > d) b--;
    while (cm_spatial_bin_lo(b + 1) <= d) b++;
    return b;
}

cm_status cm_spatial_new(const uint64_t *sets, size_t nsets, uint64_t depth,
                         double budget, uint64_t seed, cm_spatial **out,
                         cm_err *err)
{
    *out = NULL;
    if (nsets == 0 || depth < SP_EXACT || depth > (1ull << 26) ||
        !(budget > 0))
        return cm_err_set(err, CM_EINPUT,
                          "occupancy statistics need at least one set count, "
                          "16 <= depth <= 2^26 and a budget > 0 (got %zu "
                          "counts, depth %llu, budget %g)", nsets,
                          (unsigned long long)depth, budget);
    for (size_t i = 0; i < nsets; i++)
        if (sets[i] < 1)
            return cm_err_set(err, CM_EINPUT,
                              "occupancy statistics: a set count is 0");
    cm_spatial *s = calloc(1, sizeof *s);
    if (!s) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    s->depth = depth;
    s->budget = budget;
    s->rate = 1;
    s->nbins = cm_spatial_bin_of(depth - 1) + 1;
    s->sets = malloc(nsets * sizeof *s->sets);
    for (size_t i = 0; s->sets && i < nsets; i++) {
        int seen = 0;
        for (size_t j = 0; j < s->nsets; j++) seen |= s->sets[j] == sets[i];
        if (!seen) s->sets[s->nsets++] = sets[i];
    }
    /* The map never grows: it holds at most depth + 1 lines at load 1/2. */
    unsigned log2cap = 1;
    while ((1ull << log2cap) < 2 * (depth + 2)) log2cap++;
    size_t rcap = (size_t)1 << log2cap;
    s->sums = calloc(s->nsets * s->nbins, sizeof *s->sums);
    s->line = malloc(depth * sizeof *s->line);
    s->prev = malloc(depth * sizeof *s->prev);
    s->next = malloc(depth * sizeof *s->next);
    s->window = malloc(depth * sizeof *s->window);
    s->rkey = malloc(rcap * sizeof *s->rkey);
    s->rcount = calloc(rcap, sizeof *s->rcount);
    s->touched = malloc((depth + 1) * sizeof *s->touched);
    s->rng = gsl_rng_alloc(gsl_rng_mt19937);
    int map_ok = cm_linemap_alloc(&s->map, log2cap) == 0;
    if (!map_ok) s->map.e = NULL;
    if (!s->sets || !s->sums || !s->line || !s->prev || !s->next ||
        !s->window || !s->rkey || !s->rcount || !s->touched || !s->rng ||
        !map_ok) {
        cm_spatial_free(s);
        return cm_err_set(err, CM_EINTERNAL,
                          "out of memory for occupancy statistics of depth "
                          "%llu", (unsigned long long)depth);
    }
    gsl_rng_set(s->rng, (unsigned long)seed);
    s->head = s->tail = SP_NIL;
    s->next_sample = 0;
    *out = s;
    return CM_OK;
}

void cm_spatial_free(cm_spatial *s)
{
    if (!s) return;
    cm_linemap_free(&s->map);
    if (s->rng) gsl_rng_free(s->rng);
    free(s->sets);
    free(s->sums);
    free(s->line);
    free(s->prev);
    free(s->next);
    free(s->window);
    free(s->rkey);
    free(s->rcount);
    free(s->touched);
    free(s);
}

static void list_unlink(cm_spatial *s, uint32_t n)
{
    if (s->prev[n] != SP_NIL) s->next[s->prev[n]] = s->next[n];
    else s->head = s->next[n];
    if (s->next[n] != SP_NIL) s->prev[s->next[n]] = s->prev[n];
    else s->tail = s->prev[n];
}

static void list_push(cm_spatial *s, uint32_t n)
{
    s->prev[n] = SP_NIL;
    s->next[n] = s->head;
    if (s->head != SP_NIL) s->prev[s->head] = n;
    else s->tail = n;
    s->head = n;
}

/* The set of line y among S: a mask when S is a power of two (a division
 * per window line would cost more than the rest of the walk). */
static uint64_t set_of(uint64_t y, uint64_t S)
{
    return (S & (S - 1)) == 0 ? y & (S - 1) : y % S;
}

/* Adds the window of d lines (s->window) of a reuse of x to the sums,
 * with weight w: per set count, the sets' shares of the d + 1 lines. */
static void add_window(cm_spatial *s, uint64_t x, uint64_t d, double w)
{
    size_t bin = cm_spatial_bin_of(d);
    double share = w / (double)(d + 1);
    for (size_t i = 0; i < s->nsets; i++) {
        uint64_t S = s->sets[i];
        size_t nt = 0;
        for (uint64_t k = 0; k <= d; k++) {
            uint64_t r = set_of(k < d ? s->window[k] : x, S);
            size_t h = cm_linemap_home(&s->map, r);
            while (s->rcount[h] && s->rkey[h] != r) h = (h + 1) & s->map.mask;
            if (!s->rcount[h]) {
                s->rkey[h] = r;
                s->touched[nt++] = (uint32_t)h;
            }
            s->rcount[h]++;
        }
        sp_sums *u = &s->sums[i * s->nbins + bin];
        for (size_t t = 0; t < nt; t++) {
            size_t h = s->touched[t];
            double c = s->rcount[h], p = c * share, k = c - 1;
            s->rcount[h] = 0;
            u->pk[k < CM_SPATIAL_KMAX ? (size_t)k : CM_SPATIAL_KMAX] += p;
            u->k1 += p * k;
            u->k2 += p * k * k;
        }
        u->w += w;
        u->n++;
    }
    s->samples++;
}

void cm_spatial_access(cm_spatial *s, uint64_t line)
{
    int sample = s->refs++ == s->next_sample;
    double weight = 1 / s->rate;
    cm_linemap_entry *e = cm_linemap_find(&s->map, line);
    uint32_t n;
    if (e) {
        n = (uint32_t)e->val;
        if (sample) {
            uint64_t d = 0;
            for (uint32_t c = s->head; c != n; c = s->next[c])
                s->window[d++] = s->line[c];
            add_window(s, line, d, weight);
            s->walked += (double)d;
        }
        list_unlink(s, n);
    } else {
        if (s->used < s->depth) {
            n = s->used++;
        } else { /* the least recent line leaves the followed depth */
            n = s->tail;
            list_unlink(s, n);
            cm_linemap_erase(&s->map, cm_linemap_find(&s->map, s->line[n]));
        }
        int found;
        /* Never fails: the map was sized for every line the list holds. */
        cm_linemap_upsert(&s->map, line, &e, &found, NULL);
        s->line[n] = line;
        e->val = n;
    }
    list_push(s, n);
    if (sample) {
        /* The rate that spends the budget at the mean walk seen so far. */
        s->drawn++;
        double mean = s->walked / s->drawn;
        s->rate = mean > s->budget ? s->budget / mean : 1;
        s->next_sample += gsl_ran_geometric(s->rng, s->rate);
    }
}

uint64_t cm_spatial_depth(const cm_spatial *s) { return s->depth; }
uint64_t cm_spatial_references(const cm_spatial *s) { return s->refs; }
uint64_t cm_spatial_samples(const cm_spatial *s) { return s->samples; }

int cm_spatial_has_sets(const cm_spatial *s, uint64_t sets)
{
    for (size_t i = 0; i < s->nsets; i++)
        if (s->sets[i] == sets) return 1;
    return 0;
}

uint64_t cm_spatial_bin_stats(const cm_spatial *s, uint64_t sets, size_t b,
                              uint64_t ways, double *tail, double *mean,
                              double *var)
{
    *tail = *mean = *var = 0;
    if (b >= s->nbins) return 0;
    for (size_t i = 0; i < s->nsets; i++) {
        if (s->sets[i] != sets) continue;
        const sp_sums *u = &s->sums[i * s->nbins + b];
        if (u->n == 0 || !(u->w > 0)) return 0;
        if (ways > CM_SPATIAL_KMAX) ways = CM_SPATIAL_KMAX;
        double t = 0;
        for (size_t k = (size_t)ways; k <= CM_SPATIAL_KMAX; k++) t += u->pk[k];
        *tail = fmin(1, t / u->w);
        *mean = u->k1 / u->w;
        *var = fmax(0, u->k2 / u->w - *mean * *mean);
        return u->n;
    }
    return 0;
}
