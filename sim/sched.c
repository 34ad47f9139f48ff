/* sched.c - the registry of warp scheduling policies, and what they share
 * (sched.h). */
#include "sim/sched.h"

#include <string.h>

extern const cm_sched_policy cm_sched_lrr, cm_sched_gto, cm_sched_two_level;

/* sched.policy's choices, in its order (data/params.def) */
static const cm_sched_policy *const policies[] = {&cm_sched_lrr, &cm_sched_gto,
                                                  &cm_sched_two_level};

const cm_sched_policy *cm_sched_at(uint32_t i)
{
    return i < sizeof policies / sizeof *policies ? policies[i] : NULL;
}

const cm_sched_policy *cm_sched_find(const char *name)
{
    for (uint32_t i = 0; name && cm_sched_at(i); i++)
        if (!strcmp(policies[i]->name, name)) return policies[i];
    return NULL;
}

int cm_sched_next(const cm_sched_view *v, uint32_t from, uint32_t *out)
{
    for (uint32_t k = from / 64; k < v->nwords; k++) {
        uint64_t word = cm_sched_word(v, k);
        if (k == from / 64) word &= ~0ull << (from % 64);
        if (word) {
            *out = k * 64 + (uint32_t)__builtin_ctzll(word);
            return 1;
        }
    }
    return 0;
}

uint32_t cm_sched_count(const cm_sched_view *v)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < v->nwords; k++)
        n += (uint32_t)__builtin_popcountll(cm_sched_word(v, k));
    return n;
}
