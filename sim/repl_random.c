/* repl_random.c - a victim drawn uniformly among the candidates, from the
 * cache's own stream (so a run is the same for the same seed). */
#include "sim/repl.h"

static void random_insert(cm_repl_state *st, cm_repl_meta *m,
                          const cm_repl_ctx *a)
{
    (void)st;
    m->warp = a->warp;
}

static void random_hit(cm_repl_state *st, cm_repl_meta *m,
                       const cm_repl_ctx *a)
{
    (void)st;
    (void)m;
    (void)a;
}

static size_t random_victim(cm_repl_state *st, const cm_repl_meta *const *cand,
                            size_t n)
{
    (void)cand;
    return (size_t)gsl_rng_uniform_int(st->rng, (unsigned long)n);
}

const cm_repl_policy cm_repl_random = {
    .name = "random",
    .summary = "uniformly random among the candidates",
    .insert = random_insert,
    .hit = random_hit,
    .victim = random_victim,
};
