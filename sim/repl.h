/* repl.h - replacement and insertion policies of the simulator's caches:
 * the hook a cache-management policy plugs in, one file per policy.
 *
 * A cache keeps a cm_repl_meta beside every line and a cm_repl_state of
 * its own, and calls the policy when a line is filled (insert), when an
 * access hits it (hit) and when a fill needs a victim among the lines of
 * a set that may leave (victim; invalid ways are filled first, before any
 * policy is asked, and lines with a transaction pending are never
 * offered).  What the policy sees of an access is cm_repl_ctx: the warp
 * that made it and the cycle.  A policy keys its order on the meta's
 * stamp and prio as it likes; the cache never reads them.
 *
 * Registered policies (sim/repl.c, the l1.policy choices): lru
 * (repl_lru.c), fifo (repl_fifo.c), random (repl_random.c).  To add one:
 * write repl_NAME.c defining a cm_repl_policy, list it in sim/repl.c and
 * add NAME to l1.policy's choices in data/params.def (docs/simulator.md
 * walks through an example). */
#ifndef CM_REPL_H
#define CM_REPL_H

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

/* What a policy keeps per line. */
typedef struct cm_repl_meta {
    uint64_t stamp; /* an ordering key: recency, fill order, ... */
    uint32_t warp;  /* the warp whose access filled the line */
    uint32_t prio;  /* a policy's own class (insertion position, ...) */
} cm_repl_meta;

/* What a policy keeps per cache. */
typedef struct cm_repl_state {
    uint64_t clock; /* advanced by the policy as it needs */
    gsl_rng *rng;   /* the cache's own stream (sim.seed, the cache's id) */
} cm_repl_state;

/* The access the cache is serving. */
typedef struct cm_repl_ctx {
    uint32_t warp;
    uint64_t now;
} cm_repl_ctx;

typedef struct cm_repl_policy {
    const char *name; /* as l1.policy names it */
    const char *summary;
    void (*insert)(cm_repl_state *st, cm_repl_meta *m, const cm_repl_ctx *a);
    void (*hit)(cm_repl_state *st, cm_repl_meta *m, const cm_repl_ctx *a);
    /* the victim's index among n >= 1 candidates */
    size_t (*victim)(cm_repl_state *st, const cm_repl_meta *const *cand,
                     size_t n);
} cm_repl_policy;

/* The registry, in l1.policy's order; NULL past the end or if unknown. */
const cm_repl_policy *cm_repl_at(size_t i);
const cm_repl_policy *cm_repl_find(const char *name);

/* The least stamp among the candidates (LRU and FIFO both order so). */
size_t cm_repl_oldest(const cm_repl_meta *const *cand, size_t n);

#endif
