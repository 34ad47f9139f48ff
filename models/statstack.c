/* statstack.c - StatStack expected stack distances from sampled reuse times
 * (Eklov & Hagersten, "StatStack: efficient modeling of LRU caches",
 * ISPASS'10).
 *
 * Accesses are sampled at rate R with geometric gaps (gsl_rng_mt19937
 * seeded from the spec, so runs repeat); a sampled access watches its line
 * (a map line -> access index) until the line's next access, which gives
 * its forward reuse time r (accesses strictly between the two).  Of the r
 * accesses between, the one i + 1 places before the end adds a distinct
 * line iff its own forward reuse time exceeds i, so the expected stack
 * distance is SD(r) = sum_{i<r} P(RT > i), with P(RT > i) from the sampled
 * reuse times.  Sorting them makes every SD a running sum: O(n log n).
 *
 * Assumptions: the stream is stationary, so forward reuse times of sampled
 * accesses describe the backward ones of all accesses; a sample whose line
 * is not seen again before finish counts as no reuse (RT = infinity), and
 * these stand for the first (cold) accesses, whose number equals that of
 * last accesses - so the tail of a short stream reads as extra cold.
 * Each sample is weighted by total/samples (the inverse of the effective
 * rate, not of the nominal R), so the histogram sums to the true count.
 *
 * Memory: the map holds the outstanding samples; the finished reuse times
 * are kept (8 bytes each, R x accesses of them) for the sort at finish,
 * each with its jackknife group (reuse.h) in its low bits: the sample's
 * access index mod CM_REUSE_GROUPS, which for geometric gaps is as good
 * as random. */
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "models/reuse.h"
#include "models/reuse_impl.h"

#define GROUP_BITS 5
_Static_assert(CM_REUSE_GROUPS <= 1 << GROUP_BITS, "groups fit GROUP_BITS");

static unsigned sample_group(uint64_t index)
{
    return (unsigned)(index % CM_REUSE_GROUPS);
}

struct cm_statstack {
    gsl_rng *rng;
    double rate;
    int replicates; /* the caller wants the jackknife's replicates */
    uint64_t exact_bins;
    uint64_t seen;        /* accesses so far */
    uint64_t next_sample; /* index of the next sampled access */
    cm_linemap watch;     /* line -> index of its outstanding sample */
    uint64_t *rt;         /* finished reuse times */
    size_t nrt, caprt;
};

cm_status cm_statstack_new(const cm_sample_spec *spec, uint64_t exact_bins,
                           cm_statstack **out, cm_err *err)
{
    *out = NULL;
    if (!(spec->rate > 0 && spec->rate <= 1))
        return cm_err_set(err, CM_EINPUT,
                          "StatStack: rate must be in (0, 1], not %g",
                          spec->rate);
    if (exact_bins < 1)
        return cm_err_set(err, CM_EINPUT,
                          "StatStack: exact_bins must be >= 1");
    cm_statstack *s = calloc(1, sizeof *s);
    if (!s) return cm_err_set(err, CM_EINTERNAL, "StatStack: out of memory");
    s->rate = spec->rate;
    s->replicates = spec->replicates;
    s->exact_bins = exact_bins;
    s->rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!s->rng || cm_linemap_alloc(&s->watch, 10)) {
        cm_statstack_free(s);
        return cm_err_set(err, CM_EINTERNAL, "StatStack: out of memory");
    }
    gsl_rng_set(s->rng, (unsigned long)spec->seed);
    s->next_sample = gsl_ran_geometric(s->rng, s->rate) - 1;
    *out = s;
    return CM_OK;
}

void cm_statstack_free(cm_statstack *s)
{
    if (!s) return;
    gsl_rng_free(s->rng);
    cm_linemap_free(&s->watch);
    free(s->rt);
    free(s);
}

cm_status cm_statstack_access(cm_statstack *s, uint64_t line, cm_err *err)
{
    uint64_t i = s->seen++;
    if (s->watch.count) {
        cm_linemap_entry *e = cm_linemap_find(&s->watch, line);
        if (e) {
            if (s->nrt == s->caprt) {
                size_t cap = s->caprt ? 2 * s->caprt : 1024;
                uint64_t *rt = realloc(s->rt, cap * sizeof *rt);
                if (!rt)
                    return cm_err_set(err, CM_EINTERNAL,
                                      "StatStack: out of memory");
                s->rt = rt;
                s->caprt = cap;
            }
            s->rt[s->nrt++] = (i - e->val - 1) << GROUP_BITS |
                              sample_group(e->val);
            cm_linemap_erase(&s->watch, e);
        }
    }
    if (i != s->next_sample) return CM_OK;
    s->next_sample += gsl_ran_geometric(s->rng, s->rate);
    cm_linemap_entry *e;
    int found;
    cm_status st = cm_linemap_upsert(&s->watch, line, &e, &found, err);
    if (st != CM_OK) return st;
    e->val = i;
    return CM_OK;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The histogram of the samples outside group `skip` (-1: all of them),
 * from the sorted reuse times rt. */
static cm_status statstack_hist(const cm_statstack *s, const uint64_t *rt,
                                int skip, cm_reuse_hist *h, cm_err *err)
{
    size_t cold = 0, n = 0;
    for (size_t i = 0; i <= s->watch.mask; i++) {
        uint64_t v = s->watch.e[i].val;
        cold += v != CM_LINEMAP_EMPTY && (int)sample_group(v) != skip;
    }
    for (size_t j = 0; j < s->nrt; j++)
        n += (int)(rt[j] & ((1u << GROUP_BITS) - 1)) != skip;
    n += cold;
    cm_status st = cm_reuse_hist_init(h, s->exact_bins, err);
    if (st != CM_OK || n == 0) return st;
    double w = (double)s->seen / (double)n;
    /* Between consecutive distinct reuse times v' < v, P(RT > i) is
     * constant: (n - #{RT <= v'}) / n for i in [v', v). */
    double sd = 0;
    uint64_t prev = 0;
    size_t le = 0; /* samples with RT <= prev */
    for (size_t j = 0; j < s->nrt && st == CM_OK;) {
        uint64_t v = rt[j] >> GROUP_BITS;
        size_t k = j, kept = 0;
        for (; k < s->nrt && rt[k] >> GROUP_BITS == v; k++)
            kept += (int)(rt[k] & ((1u << GROUP_BITS) - 1)) != skip;
        j = k;
        if (!kept) continue;
        sd += (double)(v - prev) * (double)(n - le) / (double)n;
        st = cm_reuse_hist_add(h, sd, w * (double)kept, err);
        le += kept;
        prev = v;
    }
    if (st == CM_OK) st = cm_reuse_hist_add(h, -1, w * (double)cold, err);
    if (st != CM_OK) {
        cm_reuse_hist_free(h);
        return st;
    }
    h->total = (double)s->seen;
    h->sampled = (double)n;
    h->rate = (double)n / (double)s->seen;
    return CM_OK;
}

/* The finished reuse times in increasing order (NULL: out of memory). */
static uint64_t *sorted_times(const cm_statstack *s)
{
    uint64_t *rt = malloc((s->nrt ? s->nrt : 1) * sizeof *rt);
    if (!rt) return NULL;
    if (s->nrt) memcpy(rt, s->rt, s->nrt * sizeof *rt);
    qsort(rt, s->nrt, sizeof *rt, cmp_u64);
    return rt;
}

cm_status cm_statstack_finish(const cm_statstack *s, cm_reuse_hist *h,
                              cm_err *err)
{
    if (s->seen > 0 && s->nrt + s->watch.count == 0)
        return cm_err_set(err, CM_EINPUT,
                          "StatStack: none of the %llu accesses was "
                          "sampled; raise the rate",
                          (unsigned long long)s->seen);
    uint64_t *rt = sorted_times(s);
    if (!rt) return cm_err_set(err, CM_EINTERNAL, "StatStack: out of memory");
    cm_status st = statstack_hist(s, rt, -1, h, err);
    free(rt);
    return st;
}

cm_status cm_statstack_replicates(const cm_statstack *s,
                                  cm_reuse_hist *reps, size_t *n,
                                  cm_err *err)
{
    *n = 0;
    if (!s->replicates) return CM_OK;
    uint64_t *rt = sorted_times(s);
    if (!rt) return cm_err_set(err, CM_EINTERNAL, "StatStack: out of memory");
    cm_status st = CM_OK;
    for (int g = 0; !st && g < CM_REUSE_GROUPS; g++)
        if (!(st = statstack_hist(s, rt, g, &reps[g], err))) (*n)++;
    free(rt);
    if (st) {
        for (size_t i = 0; i < *n; i++) cm_reuse_hist_free(&reps[i]);
        *n = 0;
    }
    return st;
}
