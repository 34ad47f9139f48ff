/* sched.h - warp scheduling policies: the hook a scheduling policy plugs
 * into the SM (sm.c), one file per policy.
 *
 * Each cycle the SM asks its policy which warp issues (pick) among the
 * issuable ones, and tells it when a warp launches and when one starts to
 * wait or retires (leave).  What the policy sees of the SM is a
 * cm_sched_view: its ready warps as bit sets, split into those holding a
 * memory instruction (issuable only while the LD/ST unit is empty) and the
 * rest, each warp's launch order, and the last warp issued.  A policy
 * keeps any state of its own (create/destroy).
 *
 * Skipped cycles.  While every ready warp runs compute only, the SM skips
 * the cycles whose issue order is already fixed (sm.h).  A policy that can
 * say that order gives rotation (how many warps take turns) and follow
 * (the warp issued after w, starting from the last issued); a policy
 * without them is asked every cycle.
 *
 * Registered policies (sim/sched.c, the sched.policy choices): lrr
 * (sched_lrr.c), gto (sched_gto.c), two-level (sched_two_level.c).  To add
 * one: write sched_NAME.c defining a cm_sched_policy, list it in
 * sim/sched.c and add NAME to sched.policy's choices in data/params.def
 * (docs/simulator.md walks through an example). */
#ifndef CM_SCHED_H
#define CM_SCHED_H

#include <stdint.h>

#include "data/err.h"

/* The SM as its scheduler sees it; the SM keeps it current. */
typedef struct cm_sched_view {
    uint32_t nwarps, nwords; /* warps, and 64-bit words of the sets */
    uint64_t *rdy, *rdym;    /* READY warps by slot: not memory, memory */
    uint64_t *age;           /* launch order per warp (0 first) */
    uint32_t ln;             /* lines in the LD/ST unit (0: free) */
    uint32_t last;           /* the last warp issued, if have_last */
    int have_last;
    uint32_t active_limit; /* sched.two_level_active */
} cm_sched_view;

typedef struct cm_sched_policy {
    const char *name; /* as sched.policy names it */
    const char *summary;
    /* optional: its state for one SM; an error only for out of memory */
    cm_status (*create)(const cm_sched_view *v, void **state, cm_err *err);
    void (*destroy)(void *state);
    /* optional: w launches; w starts to wait (retired 0) or retires (1) */
    void (*launch)(void *state, const cm_sched_view *v, uint32_t w);
    void (*leave)(void *state, const cm_sched_view *v, uint32_t w, int retired);
    /* the warp to issue this cycle; 0 if none.  Called only while some
     * warp is issuable unless pick_always (a policy that reorganises
     * itself every cycle, as two-level refills its active set). */
    int (*pick)(void *state, const cm_sched_view *v, uint32_t *out);
    int pick_always;
    /* optional (both or neither): the warps of a fixed rotation, 0 if the
     * order is not fixed now, and the one issued after w in it */
    uint32_t (*rotation)(void *state, const cm_sched_view *v);
    uint32_t (*follow)(void *state, const cm_sched_view *v, uint32_t w);
} cm_sched_policy;

/* The registry, in sched.policy's order; NULL past the end or if unknown. */
const cm_sched_policy *cm_sched_at(uint32_t i);
const cm_sched_policy *cm_sched_find(const char *name);

/* ---- what policies share ------------------------------------------------- */

/* The issuable warps of word k of the ready sets. */
static inline uint64_t cm_sched_word(const cm_sched_view *v, uint32_t k)
{
    return v->rdy[k] | (v->ln == 0 ? v->rdym[k] : 0);
}

static inline int cm_sched_issuable(const cm_sched_view *v, uint32_t w)
{
    return (int)(cm_sched_word(v, w / 64) >> (w % 64) & 1);
}

/* READY, whether or not the LD/ST unit would take it now. */
static inline int cm_sched_ready(const cm_sched_view *v, uint32_t w)
{
    return (int)((v->rdy[w / 64] | v->rdym[w / 64]) >> (w % 64) & 1);
}

/* The first issuable slot at or after from (no wrap-around); 0 if none. */
int cm_sched_next(const cm_sched_view *v, uint32_t from, uint32_t *out);

/* The issuable warps. */
uint32_t cm_sched_count(const cm_sched_view *v);

#endif
