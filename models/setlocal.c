/* setlocal.c - set-local LRU stack distances (see setlocal.h), and from
 * them the miss ratio of every associativity of an S-set LRU cache.
 *
 * Mathematics.  Map line x to set x mod S.  The set-local stack distance
 * k of a reference is the number of distinct lines of its set referenced
 * since the previous reference to its line (cold: infinite).  LRU is a
 * stack algorithm within each set (Mattson, Gecsei, Slutz & Traiger 1970):
 * an A-way LRU set holds exactly its A most recently referenced lines, so
 * a reference hits iff k < A, and with n_k references at distance k,
 *     miss_ratio(S, A) = 1 - (sum_{k<A} n_k) / N.
 * One histogram per S, truncated at depth D, gives every A <= D at once:
 * Hill & Smith's all-associativity simulation ("Evaluating associativity
 * in CPU caches", IEEE TC 1989), done here with one move-to-front stack of
 * depth D per set.  The prediction is exact for the cache cm_cache models
 * with LRU and allocation on every reference (write-allocate; a no-write-
 * allocate cache is not a stack algorithm over all references), counted
 * per line reference as the stack distances are.
 *
 * The plain stack distance d (setassoc.c) is the S = 1 case.  Predicting
 * miss_ratio(S, A) from d needs a placement model: the binomial one
 * takes the d lines to fall into sets independently, P(miss | d) =
 * P(Bin(d, 1/S) >= A); the occupancy model of setassoc.c adds how the
 * window's lines share sets (spatial.c).  Measured on the lackey traces
 * of tests/check_accuracy.c (64 B lines, 4 KB to 128 KB), their worst
 * relative errors at 4/8/16 ways are, binomial: sort 0.8/0.4/0.3%, ls
 * 22/17.5/1.7%, sha256sum 46/29/4.2%, gzip 476/259/113%; occupancy model:
 * 0.0/0.0/0.0%, 2.7/4.7/6.0%, 0.7/1.0/0.2%, 3.8/0.6/0.3%.  Set
 * sampling (Kessler, Hill & Wood 1994: the set-local histogram of a hashed
 * half of the sets, scaled up) was off by up to 27% on ls at rate 0.5.  Where
 * exactness matters, hence, the statistic itself: the set-local distance
 * of each reference, measured exactly for each asked S.
 *
 * Cost: per set count, S x D tags (the memory of the cache itself) and a
 * scan of at most D tags per reference; typically a handful of tags, as
 * most references hit near the top of their set's stack. */
#include "models/setlocal.h"

#include <stdlib.h>
#include <string.h>

typedef struct sl_level {
    uint64_t sets, mask; /* mask = sets - 1 when sets is a power of two */
    int pow2;
    uint64_t *tags;  /* [sets * depth], each set most recent first */
    uint32_t *fill;  /* [sets] lines held */
    uint64_t *hist;  /* [depth]: references at set-local distance k */
} sl_level;

struct cm_setlocal {
    sl_level *lv;
    size_t n;
    uint64_t depth, refs;
};

cm_status cm_setlocal_new(const uint64_t *sets, size_t nsets, uint64_t depth,
                          cm_setlocal **out, cm_err *err)
{
    *out = NULL;
    if (nsets == 0 || depth < 1 || depth > UINT32_MAX)
        return cm_err_set(err, CM_EINPUT,
                          "set-local distances need at least one set count "
                          "and 1 <= depth <= %u (got %zu counts, depth %llu)",
                          UINT32_MAX, nsets, (unsigned long long)depth);
    for (size_t i = 0; i < nsets; i++)
        if (sets[i] < 1 || sets[i] > SIZE_MAX / sizeof(uint64_t) / depth)
            return cm_err_set(err, CM_EINPUT,
                              "set-local distances: %llu sets of depth %llu "
                              "cannot be held", (unsigned long long)sets[i],
                              (unsigned long long)depth);
    cm_setlocal *s = calloc(1, sizeof *s);
    if (!s || !(s->lv = calloc(nsets, sizeof *s->lv))) {
        free(s);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    s->depth = depth;
    for (size_t i = 0; i < nsets; i++) {
        int seen = 0;
        for (size_t j = 0; j < s->n; j++) seen |= s->lv[j].sets == sets[i];
        if (seen) continue;
        sl_level *l = &s->lv[s->n++];
        l->sets = sets[i];
        l->pow2 = (sets[i] & (sets[i] - 1)) == 0;
        l->mask = sets[i] - 1;
        l->tags = malloc(sets[i] * depth * sizeof *l->tags);
        l->fill = calloc(sets[i], sizeof *l->fill);
        l->hist = calloc(depth, sizeof *l->hist);
        if (!l->tags || !l->fill || !l->hist) {
            cm_setlocal_free(s);
            return cm_err_set(err, CM_EINTERNAL,
                              "out of memory for %llu sets of depth %llu",
                              (unsigned long long)sets[i],
                              (unsigned long long)depth);
        }
    }
    *out = s;
    return CM_OK;
}

void cm_setlocal_free(cm_setlocal *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->n; i++) {
        free(s->lv[i].tags);
        free(s->lv[i].fill);
        free(s->lv[i].hist);
    }
    free(s->lv);
    free(s);
}

void cm_setlocal_access(cm_setlocal *s, uint64_t line)
{
    s->refs++;
    for (size_t i = 0; i < s->n; i++) {
        sl_level *l = &s->lv[i];
        uint64_t set = l->pow2 ? line & l->mask : line % l->sets;
        uint64_t *t = l->tags + set * s->depth;
        uint32_t n = l->fill[set], k = 0;
        while (k < n && t[k] != line) k++;
        if (k < n) l->hist[k]++;
        else if (n < s->depth) l->fill[set] = n + 1; /* k = n: a free way */
        else k = n - 1; /* the least recent line drops out */
        memmove(t + 1, t, k * sizeof *t);
        t[0] = line;
    }
}

uint64_t cm_setlocal_depth(const cm_setlocal *s) { return s->depth; }
uint64_t cm_setlocal_references(const cm_setlocal *s) { return s->refs; }

static const sl_level *find_level(const cm_setlocal *s, uint64_t sets,
                                  cm_err *err)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->lv[i].sets == sets) return &s->lv[i];
    cm_err_set(err, CM_EINPUT,
               "set-local distances were not collected for %llu sets",
               (unsigned long long)sets);
    return NULL;
}

cm_status cm_setlocal_count(const cm_setlocal *s, uint64_t sets, uint64_t d,
                            double *count, cm_err *err)
{
    const sl_level *l = find_level(s, sets, err);
    if (!l) return CM_EINPUT;
    if (d >= s->depth)
        return cm_err_set(err, CM_EINPUT,
                          "set-local distance %llu is beyond the collected "
                          "depth %llu", (unsigned long long)d,
                          (unsigned long long)s->depth);
    *count = (double)l->hist[d];
    return CM_OK;
}

cm_status cm_setlocal_miss_ratio(const cm_setlocal *s, uint64_t sets,
                                 uint64_t ways, double *miss_ratio,
                                 cm_err *err)
{
    const sl_level *l = find_level(s, sets, err);
    if (!l) return CM_EINPUT;
    if (ways < 1 || ways > s->depth)
        return cm_err_set(err, CM_EINPUT,
                          "%llu ways: set-local distances were collected up "
                          "to %llu", (unsigned long long)ways,
                          (unsigned long long)s->depth);
    if (s->refs == 0)
        return cm_err_set(err, CM_EINPUT,
                          "set-local distances: no reference was seen");
    uint64_t hits = 0;
    for (uint64_t k = 0; k < ways; k++) hits += l->hist[k];
    *miss_ratio = (double)(s->refs - hits) / (double)s->refs;
    return CM_OK;
}
