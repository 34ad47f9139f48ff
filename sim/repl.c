/* repl.c - the registry of replacement and insertion policies (repl.h). */
#include "sim/repl.h"

#include <string.h>

extern const cm_repl_policy cm_repl_lru, cm_repl_fifo, cm_repl_random;

/* l1.policy's choices, in its order (data/params.def) */
static const cm_repl_policy *const policies[] = {&cm_repl_lru, &cm_repl_fifo,
                                                 &cm_repl_random};

const cm_repl_policy *cm_repl_at(size_t i)
{
    return i < sizeof policies / sizeof *policies ? policies[i] : NULL;
}

const cm_repl_policy *cm_repl_find(const char *name)
{
    for (size_t i = 0; name && cm_repl_at(i); i++)
        if (!strcmp(policies[i]->name, name)) return policies[i];
    return NULL;
}

size_t cm_repl_oldest(const cm_repl_meta *const *cand, size_t n)
{
    size_t v = 0;
    for (size_t i = 1; i < n; i++)
        if (cand[i]->stamp < cand[v]->stamp) v = i;
    return v;
}
