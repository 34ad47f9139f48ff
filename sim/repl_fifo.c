/* repl_fifo.c - first in, first out: a fill stamps the line, hits do not,
 * and the victim is the line filled longest ago. */
#include "sim/repl.h"

static void fifo_insert(cm_repl_state *st, cm_repl_meta *m,
                        const cm_repl_ctx *a)
{
    m->stamp = ++st->clock;
    m->warp = a->warp;
}

static void fifo_hit(cm_repl_state *st, cm_repl_meta *m, const cm_repl_ctx *a)
{
    (void)st;
    (void)m;
    (void)a;
}

static size_t fifo_victim(cm_repl_state *st, const cm_repl_meta *const *cand,
                          size_t n)
{
    (void)st;
    return cm_repl_oldest(cand, n);
}

const cm_repl_policy cm_repl_fifo = {
    .name = "fifo",
    .summary = "first in, first out",
    .insert = fifo_insert,
    .hit = fifo_hit,
    .victim = fifo_victim,
};
