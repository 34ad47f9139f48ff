/* sched_lrr.c - loose round robin: the first issuable warp after the last
 * one issued, by slot, wrapping around (tc2013's scheduler). */
#include "sim/sched.h"

/* The first issuable slot after w (any, if there is no w), wrapping. */
static int lrr_after(const cm_sched_view *v, int have, uint32_t w,
                     uint32_t *out)
{
    uint32_t start = have && w + 1 < v->nwarps ? w + 1 : 0;
    return cm_sched_next(v, start, out) || cm_sched_next(v, 0, out);
}

static int lrr_pick(void *state, const cm_sched_view *v, uint32_t *out)
{
    (void)state;
    return lrr_after(v, v->have_last, v->last, out);
}

/* Every issuable warp takes its turn, in slot order. */
static uint32_t lrr_rotation(void *state, const cm_sched_view *v)
{
    (void)state;
    return cm_sched_count(v);
}

static uint32_t lrr_follow(void *state, const cm_sched_view *v, uint32_t w)
{
    (void)state;
    uint32_t next = w;
    lrr_after(v, 1, w, &next);
    return next;
}

const cm_sched_policy cm_sched_lrr = {
    .name = "lrr",
    .summary = "loose round robin: the next issuable warp after the last "
               "issued",
    .pick = lrr_pick,
    .rotation = lrr_rotation,
    .follow = lrr_follow,
};
