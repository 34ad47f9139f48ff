/* spatial.c - region statistics of reuse windows (see spatial.h), the
 * input of the set-associative model of setassoc.c.
 *
 * The window of a reuse of line x is the set of distinct lines touched
 * since x's previous use: the top d lines of the LRU stack just before the
 * reuse, d its stack distance.  For each sampled reuse the collector walks
 * that window once and, for each set count S, counts its lines per aligned
 * S-line region: k0 in x's own region, j_r in every other one, adding
 * d, k0 and sum_{r != own} j_r^2 to the reuse's distance bin.
 *
 * Sampling: references are drawn with probability r (GSL geometric gaps
 * from the seed, so a run is reproducible), whatever their distance: the
 * distances that decide conflict misses are the long ones, near the
 * capacity, and a uniform sample gives them as many samples as the
 * histogram has reuses there.  A sample costs a walk of d steps, so r is
 * set after each sample to spend the budget B walk steps per reference at
 * the mean walk seen so far (r = min(1, B / mean)), and each sample is
 * weighted by 1/r in the sums, which keeps them unbiased as r changes.  On
 * the lackey traces of tests/check_accuracy.c, B = 4 samples gzip at ~1/40
 * and the others at 1/4 to 1; a fixed 1/64 against every reuse moved the
 * model's worst errors by at most ~6 points.
 *
 * Cost per sample: the walk, then per set count one hash update per
 * window line, or, where the previous (smaller) set count divides it, one
 * per region of the previous count (regions nest), which for contiguous
 * windows is S times fewer. */
#include "models/spatial.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/reuse_impl.h"

#define SP_NIL UINT32_MAX
#define SP_EXACT 16u    /* distances with a bin of their own */
#define SP_PER_OCTAVE 8 /* bins per doubling beyond */

typedef struct sp_sums {
    /* Sums over sampled reuses, each weighted by 1 / its sampling rate, of
     * d, k0 and sum_{r != own} j_r^2. */
    double d, k0, q;
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
    /* Scratch of one sampled window: its lines, and region -> count. */
    uint64_t *window;
    uint64_t *rkey;
    uint32_t *rcount, *touched;
    size_t rmask;
    uint64_t *lkey[2]; /* (region, count) lists of two set counts */
    uint32_t *lcount[2];
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
                          "region statistics need at least one set count, "
                          "16 <= depth <= 2^26 and a budget > 0 (got %zu "
                          "counts, depth %llu, budget %g)", nsets,
                          (unsigned long long)depth, budget);
    for (size_t i = 0; i < nsets; i++)
        if (sets[i] < 1)
            return cm_err_set(err, CM_EINPUT,
                              "region statistics: a set count is 0");
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
        if (seen) continue;
        size_t j = s->nsets++; /* ascending */
        for (; j > 0 && s->sets[j - 1] > sets[i]; j--)
            s->sets[j] = s->sets[j - 1];
        s->sets[j] = sets[i];
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
    s->touched = malloc(depth * sizeof *s->touched);
    for (int k = 0; k < 2; k++) {
        s->lkey[k] = malloc(depth * sizeof *s->lkey[k]);
        s->lcount[k] = malloc(depth * sizeof *s->lcount[k]);
    }
    s->rmask = rcap - 1;
    s->rng = gsl_rng_alloc(gsl_rng_mt19937);
    int map_ok = cm_linemap_alloc(&s->map, log2cap) == 0;
    if (!map_ok) s->map.e = NULL;
    if (!s->sets || !s->sums || !s->line || !s->prev || !s->next ||
        !s->window || !s->rkey || !s->rcount || !s->touched || !s->rng ||
        !s->lkey[0] || !s->lkey[1] || !s->lcount[0] || !s->lcount[1] ||
        !map_ok) {
        cm_spatial_free(s);
        return cm_err_set(err, CM_EINTERNAL,
                          "out of memory for region statistics of depth %llu",
                          (unsigned long long)depth);
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
    for (int k = 0; k < 2; k++) {
        free(s->lkey[k]);
        free(s->lcount[k]);
    }
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

/* x / f, by a shift when f is a power of two (a division per window line
 * would cost more than the rest of the walk). */
static uint64_t div_by(uint64_t x, uint64_t f)
{
    return (f & (f - 1)) ? x / f : x >> __builtin_ctzll(f);
}

/* Adds the window of d lines (s->window) of a reuse of x to the sums,
 * with weight w.  The set counts are ascending; where one divides the
 * next, the next one's regions are unions of its regions, so their counts
 * add up from its (region, count) list, usually far shorter than the
 * window, instead of from the lines again. */
static void add_window(cm_spatial *s, uint64_t x, uint64_t d, double w)
{
    size_t b = cm_spatial_bin_of(d), nin = 0;
    uint64_t *in_key = NULL;
    uint32_t *in_count = NULL;
    for (size_t i = 0; i < s->nsets; i++) {
        uint64_t S = s->sets[i], f = S;
        const uint64_t *key = s->window;
        const uint32_t *count = NULL;
        size_t n = d;
        if (i > 0 && S % s->sets[i - 1] == 0) {
            f = S / s->sets[i - 1];
            key = in_key;
            count = in_count;
            n = nin;
        }
        size_t nt = 0;
        for (size_t k = 0; k < n; k++) {
            uint64_t r = div_by(key[k], f);
            size_t h = cm_linemap_home(&s->map, r) & s->rmask;
            while (s->rcount[h] && s->rkey[h] != r) h = (h + 1) & s->rmask;
            if (!s->rcount[h]) {
                s->rkey[h] = r;
                s->touched[nt++] = (uint32_t)h;
            }
            s->rcount[h] += count ? count[k] : 1;
        }
        uint64_t own = div_by(x, S), *out_key = s->lkey[i & 1];
        uint32_t *out_count = s->lcount[i & 1];
        double q = 0, k0 = 0;
        for (size_t t = 0; t < nt; t++) {
            size_t h = s->touched[t];
            double j = s->rcount[h];
            if (s->rkey[h] == own) k0 = j;
            else q += j * j;
            out_key[t] = s->rkey[h];
            out_count[t] = s->rcount[h];
            s->rcount[h] = 0;
        }
        in_key = out_key;
        in_count = out_count;
        nin = nt;
        sp_sums *u = &s->sums[i * s->nbins + b];
        u->d += w * (double)d;
        u->k0 += w * k0;
        u->q += w * q;
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
                              double *own_share, double *occupancy)
{
    *own_share = 0;
    *occupancy = 1;
    if (b >= s->nbins) return 0;
    for (size_t i = 0; i < s->nsets; i++) {
        if (s->sets[i] != sets) continue;
        const sp_sums *u = &s->sums[i * s->nbins + b];
        if (u->n == 0 || !(u->d > 0)) return 0;
        *own_share = u->k0 / u->d;
        if (u->d > u->k0) *occupancy = u->q / (u->d - u->k0);
        return u->n;
    }
    return 0;
}
