/* sched_gto.c - greedy then oldest (Rogers et al., MICRO 2012): the last
 * warp issued while it can issue, else the oldest (first launched)
 * issuable warp. */
#include "sim/sched.h"

static int gto_pick(void *state, const cm_sched_view *v, uint32_t *out)
{
    (void)state;
    if (v->have_last && cm_sched_issuable(v, v->last)) {
        *out = v->last;
        return 1;
    }
    int found = 0;
    for (uint32_t k = 0; k < v->nwords; k++)
        for (uint64_t word = cm_sched_word(v, k); word; word &= word - 1) {
            uint32_t w = k * 64 + (uint32_t)__builtin_ctzll(word);
            if (!found || v->age[w] < v->age[*out]) *out = w;
            found = 1;
        }
    return found;
}

/* Greedy: the last warp issues alone until its run of compute ends. */
static uint32_t gto_rotation(void *state, const cm_sched_view *v)
{
    (void)state;
    return v->have_last && cm_sched_issuable(v, v->last);
}

static uint32_t gto_follow(void *state, const cm_sched_view *v, uint32_t w)
{
    (void)state;
    (void)v;
    return w;
}

const cm_sched_policy cm_sched_gto = {
    .name = "gto",
    .summary = "greedy then oldest: the last issued warp while it can, else "
               "the oldest",
    .pick = gto_pick,
    .rotation = gto_rotation,
    .follow = gto_follow,
};
