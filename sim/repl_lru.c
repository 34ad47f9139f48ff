/* repl_lru.c - least recently used: every fill and hit stamps the line,
 * and the victim is the line stamped longest ago. */
#include "sim/repl.h"

static void lru_use(cm_repl_state *st, cm_repl_meta *m, const cm_repl_ctx *a)
{
    m->stamp = ++st->clock;
    m->warp = a->warp;
}

static void lru_hit(cm_repl_state *st, cm_repl_meta *m, const cm_repl_ctx *a)
{
    (void)a;
    m->stamp = ++st->clock;
}

static size_t lru_victim(cm_repl_state *st, const cm_repl_meta *const *cand,
                         size_t n)
{
    (void)st;
    return cm_repl_oldest(cand, n);
}

const cm_repl_policy cm_repl_lru = {
    .name = "lru",
    .summary = "least recently used",
    .insert = lru_use,
    .hit = lru_hit,
    .victim = lru_victim,
};
