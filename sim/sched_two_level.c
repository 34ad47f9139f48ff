/* sched_two_level.c - the two-level scheduler (Narasiman et al., MICRO
 * 2011): an active set of sched.two_level_active warps, served round
 * robin; a warp that starts to wait (memory, fence, barrier, kernel end)
 * leaves it for the tail of a pending queue, and each cycle the set is
 * refilled from the queue's oldest ready warps.  Waits of every kind leave
 * the set, or a full set of warps at a barrier would starve the rest. */
#include "sim/sched.h"

#include <stdlib.h>
#include <string.h>

enum { IN_NONE = 0, IN_ACTIVE, IN_PENDING };

typedef struct two_level {
    uint32_t *act, nact, *pend, npend, rr_pos;
    uint8_t *where; /* per warp: IN_* */
} two_level;

static void tl_destroy(void *state)
{
    two_level *t = state;
    if (!t) return;
    free(t->act);
    free(t->pend);
    free(t->where);
    free(t);
}

static cm_status tl_create(const cm_sched_view *v, void **state, cm_err *err)
{
    if (v->active_limit < 1)
        return cm_err_set(err, CM_EINPUT,
                          "sched.two_level_active must be at least 1");
    two_level *t = calloc(1, sizeof *t);
    if (t) {
        t->act = calloc(v->nwarps, sizeof *t->act);
        t->pend = calloc(v->nwarps, sizeof *t->pend);
        t->where = calloc(v->nwarps, sizeof *t->where);
    }
    if (!t || !t->act || !t->pend || !t->where) {
        tl_destroy(t);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    *state = t;
    return CM_OK;
}

static void remove_at(uint32_t *a, uint32_t *n, uint32_t i)
{
    memmove(a + i, a + i + 1, (*n - i - 1) * sizeof *a);
    (*n)--;
}

static void pend_push(two_level *t, uint32_t w)
{
    t->pend[t->npend++] = w;
    t->where[w] = IN_PENDING;
}

static void tl_launch(void *state, const cm_sched_view *v, uint32_t w)
{
    (void)v;
    pend_push(state, w);
}

static void tl_leave(void *state, const cm_sched_view *v, uint32_t w,
                     int retired)
{
    (void)v;
    two_level *t = state;
    if (t->where[w] != IN_ACTIVE) return;
    for (uint32_t i = 0; i < t->nact; i++)
        if (t->act[i] == w) {
            remove_at(t->act, &t->nact, i);
            if (i < t->rr_pos) t->rr_pos--;
            break;
        }
    t->where[w] = IN_NONE;
    if (!retired) pend_push(t, w);
}

static void refill(two_level *t, const cm_sched_view *v)
{
    for (uint32_t i = 0; i < t->npend && t->nact < v->active_limit;) {
        uint32_t w = t->pend[i];
        if (!cm_sched_ready(v, w)) {
            i++;
            continue;
        }
        remove_at(t->pend, &t->npend, i);
        t->act[t->nact++] = w;
        t->where[w] = IN_ACTIVE;
    }
}

static int tl_pick(void *state, const cm_sched_view *v, uint32_t *out)
{
    two_level *t = state;
    refill(t, v);
    for (uint32_t i = 0; i < t->nact; i++) {
        uint32_t pos = (t->rr_pos + i) % t->nact;
        if (cm_sched_issuable(v, t->act[pos])) {
            *out = t->act[pos];
            t->rr_pos = pos + 1;
            return 1;
        }
    }
    return 0;
}

const cm_sched_policy cm_sched_two_level = {
    .name = "two-level",
    .summary = "an active set served round robin, refilled from a pending "
               "queue",
    .create = tl_create,
    .destroy = tl_destroy,
    .launch = tl_launch,
    .leave = tl_leave,
    .pick = tl_pick,
    .pick_always = 1,
};
