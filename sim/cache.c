/* cache.c - the exact set-associative cache of cache.h.
 *
 * Each set is a small array of line numbers kept newest first, with a count
 * of the valid ways, so no tag value has to be reserved for "empty":
 *  - LRU moves a hit to the front (move-to-front: one memmove of at most
 *    ways-1 tags, cheaper than age counters for the 4-32 ways of GPU and
 *    CPU caches, and the array order is the recency stack itself);
 *  - FIFO leaves hits alone, so the front is the newest fill and the back
 *    the oldest, the victim;
 *  - random picks the victim uniformly among the ways once the set is full
 *    (gsl_rng_mt19937 seeded from the config, so runs repeat); empty ways
 *    fill first, as in hardware.
 * A lookup costs O(ways), so a "fully associative" cache of thousands of
 * ways is correct but slow; the reuse models cover that case.
 *
 * Counting is cachegrind's (see cache.h).  Atomics are read-modify-writes
 * like lackey's M, so they are simulated as reads too; a plain store with
 * no-write-allocate writes around the cache on a miss. */
#include "sim/cache.h"

#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

struct cm_cache {
    uint64_t *tags;   /* [sets * ways], each set newest first */
    uint32_t *fill;   /* [sets] valid ways */
    uint64_t sets, set_mask; /* set_mask: sets-1 when a power of two */
    uint32_t ways;
    unsigned line_shift;
    cm_cache_policy policy;
    int write_allocate, sets_pow2;
    gsl_rng *rng;     /* CM_CACHE_RANDOM only */
    cm_cache_counts counts;
};

static const char *const policy_names[] = {"lru", "fifo", "random"};

cm_status cm_cache_policy_parse(const char *name, cm_cache_policy *p,
                                cm_err *err)
{
    for (size_t i = 0; name && i < sizeof policy_names / sizeof *policy_names;
         i++)
        if (strcmp(name, policy_names[i]) == 0) {
            *p = (cm_cache_policy)i;
            return CM_OK;
        }
    return cm_err_set(err, CM_EINPUT,
                      "unknown replacement policy '%s' (lru|fifo|random)",
                      name ? name : "");
}

static cm_status check_geometry(const cm_cache_config *cfg, cm_err *err)
{
    uint64_t line = cfg->line_bytes, ways = cfg->ways;
    if (line == 0 || (line & (line - 1)) != 0)
        return cm_err_set(err, CM_EINPUT,
                          "cache line size %llu is not a power of two",
                          (unsigned long long)line);
    if (ways < 1 || ways > UINT32_MAX)
        return cm_err_set(err, CM_EINPUT, "cache ways %llu out of range "
                          "(1 .. %lu)", (unsigned long long)ways,
                          (unsigned long)UINT32_MAX);
    if (ways > UINT64_MAX / line || cfg->size_bytes == 0 ||
        cfg->size_bytes % (ways * line) != 0)
        return cm_err_set(err, CM_EINPUT,
                          "cache size %llu bytes is not a positive multiple "
                          "of ways x line = %llu x %llu",
                          (unsigned long long)cfg->size_bytes,
                          (unsigned long long)ways, (unsigned long long)line);
    if ((unsigned)cfg->policy > CM_CACHE_RANDOM)
        return cm_err_set(err, CM_EINPUT, "unknown replacement policy %d",
                          (int)cfg->policy);
    return CM_OK;
}

cm_status cm_cache_new(const cm_cache_config *cfg, cm_cache **out,
                       cm_err *err)
{
    *out = NULL;
    cm_status st = check_geometry(cfg, err);
    if (st) return st;
    cm_cache *c = calloc(1, sizeof *c);
    if (!c) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    c->ways = (uint32_t)cfg->ways;
    c->sets = cfg->size_bytes / (cfg->ways * cfg->line_bytes);
    c->sets_pow2 = (c->sets & (c->sets - 1)) == 0;
    c->set_mask = c->sets - 1;
    while ((1ULL << c->line_shift) < cfg->line_bytes) c->line_shift++;
    c->policy = cfg->policy;
    c->write_allocate = cfg->write_allocate != 0;
    /* sets * ways * line == size, so the tag array cannot overflow. */
    c->tags = malloc(c->sets * c->ways * sizeof *c->tags);
    c->fill = calloc(c->sets, sizeof *c->fill);
    if (c->policy == CM_CACHE_RANDOM) {
        c->rng = gsl_rng_alloc(gsl_rng_mt19937);
        if (c->rng) gsl_rng_set(c->rng, (unsigned long)cfg->seed);
    }
    if (!c->tags || !c->fill || (c->policy == CM_CACHE_RANDOM && !c->rng)) {
        cm_cache_free(c);
        return cm_err_set(err, CM_EINTERNAL,
                          "out of memory for a cache of %llu sets x %u ways",
                          (unsigned long long)(cfg->size_bytes /
                                               (cfg->ways * cfg->line_bytes)),
                          (unsigned)cfg->ways);
    }
    *out = c;
    return CM_OK;
}

void cm_cache_free(cm_cache *c)
{
    if (!c) return;
    if (c->rng) gsl_rng_free(c->rng);
    free(c->tags);
    free(c->fill);
    free(c);
}

int cm_cache_touch(cm_cache *c, uint64_t line, int allocate)
{
    uint64_t set = c->sets_pow2 ? (line & c->set_mask) : line % c->sets;
    uint64_t *t = c->tags + set * c->ways;
    uint32_t n = c->fill[set];
    for (uint32_t i = 0; i < n; i++) {
        if (t[i] != line) continue;
        if (c->policy == CM_CACHE_LRU && i > 0) {
            memmove(t + 1, t, i * sizeof *t);
            t[0] = line;
        }
        return 1;
    }
    if (!allocate) return 0;
    if (n < c->ways) {
        /* An empty way: every policy fills it before evicting anything. */
        memmove(t + 1, t, n * sizeof *t);
        c->fill[set] = n + 1;
    } else if (c->policy == CM_CACHE_RANDOM) {
        t[gsl_rng_uniform_int(c->rng, c->ways)] = line;
        return 0;
    } else {
        memmove(t + 1, t, (n - 1) * sizeof *t); /* drops the back */
    }
    t[0] = line;
    return 0;
}

int cm_cache_invalidate(cm_cache *c, uint64_t line)
{
    uint64_t set = c->sets_pow2 ? (line & c->set_mask) : line % c->sets;
    uint64_t *t = c->tags + set * c->ways;
    uint32_t n = c->fill[set];
    for (uint32_t i = 0; i < n; i++) {
        if (t[i] != line) continue;
        /* Close the gap so the set stays newest first. */
        memmove(t + i, t + i + 1, (n - 1 - i) * sizeof *t);
        c->fill[set] = n - 1;
        return 1;
    }
    return 0;
}

void cm_cache_invalidate_all(cm_cache *c)
{
    memset(c->fill, 0, c->sets * sizeof *c->fill);
}

void cm_cache_access(cm_cache *c, const cm_access *a)
{
    if (a->op >= CM_OP_COUNT) return; /* not an access: nothing to count */
    uint64_t first = a->addr >> c->line_shift;
    uint64_t span = a->size ? (uint64_t)a->size - 1 : 0;
    uint64_t end = a->addr > UINT64_MAX - span ? UINT64_MAX : a->addr + span;
    uint64_t last = end >> c->line_shift;
    int allocate = a->op != CM_OP_STORE || c->write_allocate;
    int missed = 0;
    for (uint64_t line = first;; line++) {
        int miss = !cm_cache_touch(c, line, allocate);
        missed |= miss;
        c->counts.line_refs++;
        c->counts.line_misses += (uint64_t)miss;
        if (line == last) break;
    }
    c->counts.accesses[a->op]++;
    c->counts.misses[a->op] += (uint64_t)missed;
}

const cm_cache_counts *cm_cache_get_counts(const cm_cache *c)
{
    return &c->counts;
}

uint64_t cm_cache_sets(const cm_cache *c) { return c->sets; }
