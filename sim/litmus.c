/* litmus.c - the litmus tests as data (programs, weak outcomes, which
 * consistency models forbid them; the reasoning is in litmus.h) and the
 * runner that executes them on the simulated machine (sim/gpu.h): each
 * thread is warp 0 of its own SM, fed one instruction at a time from the
 * test's program, its registers filled from the observer's value hook. */
#include "sim/litmus.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "sim/gpu.h"
#include "sim/stats.h"

/* ---- the tests ----------------------------------------------------------- */

enum { X = 0, Y = 1 };

#define LD(v, r) {CM_LITMUS_LD, (v), (r)}
#define ST(v) {CM_LITMUS_ST, (v), 0}
#define FENCE {CM_LITMUS_FENCE, 0, 0}

#define M_NONE (1u << CM_CONSISTENCY_NONE)
#define M_RCPC (1u << CM_CONSISTENCY_RCPC)
#define M_RCSC (1u << CM_CONSISTENCY_RCSC)

/* Thread t's k-th store, as the predicates read it. */
#define S(t, k) cm_litmus_store_value((t), (k))

/* Position of a value in the coherence order 0 < t.1 < t.2 < ... of one
 * thread's stores (for corr, where only thread 0 stores). */
static uint64_t rank(uint64_t v)
{
    return v & 0xffffffffu;
}

static int weak_mp(const cm_litmus_outcome *o)
{
    return o->reg[0] == S(0, 2) && o->reg[1] == 0;
}

static int weak_mp_fences(const cm_litmus_outcome *o)
{
    return o->reg[1] == S(0, 2) && o->reg[2] == 0;
}

static int weak_sb(const cm_litmus_outcome *o)
{
    return o->reg[0] == 0 && o->reg[1] == 0;
}

static int weak_sb_fences(const cm_litmus_outcome *o)
{
    return o->reg[1] == 0 && o->reg[3] == 0;
}

static int weak_lb(const cm_litmus_outcome *o)
{
    return o->reg[0] == S(1, 1) && o->reg[1] == S(0, 1);
}

static int weak_iriw(const cm_litmus_outcome *o)
{
    return o->reg[1] == S(0, 1) && o->reg[2] == 0 && o->reg[4] == S(1, 1) &&
           o->reg[5] == 0;
}

static int weak_corr(const cm_litmus_outcome *o)
{
    return rank(o->reg[1]) < rank(o->reg[0]) ||
           rank(o->reg[2]) < rank(o->reg[1]);
}

static int weak_cowr(const cm_litmus_outcome *o)
{
    return o->reg[1] == 0 ||
           (o->reg[1] == S(1, 1) && o->mem[X] == S(0, 1));
}

static int weak_coww(const cm_litmus_outcome *o)
{
    return o->mem[X] == S(0, 1);
}

static int weak_corw(const cm_litmus_outcome *o)
{
    return o->reg[0] == S(0, 1) ||
           (o->reg[0] == S(1, 1) && o->mem[X] == S(1, 1));
}

static const cm_litmus_test tests[] = {
    {"mp", "message passing, no fences", 2, 2, 2,
     {{ST(X), ST(Y)}, {LD(Y, 0), LD(X, 1)}},
     weak_mp, 0},
    {"mp+fences", "message passing, fenced writer and reader, stale copy",
     2, 2, 3,
     {{ST(X), FENCE, ST(Y)}, {LD(X, 0), LD(Y, 1), FENCE, LD(X, 2)}},
     weak_mp_fences, M_RCPC | M_RCSC},
    {"sb", "store buffering, no fences", 2, 2, 2,
     {{ST(X), LD(Y, 0)}, {ST(Y), LD(X, 1)}},
     weak_sb, 0},
    {"sb+fences", "store buffering with fences and warm-up copies", 2, 2, 4,
     {{LD(Y, 0), ST(X), FENCE, LD(Y, 1)}, {LD(X, 2), ST(Y), FENCE, LD(X, 3)}},
     weak_sb_fences, M_RCSC},
    {"lb", "load buffering", 2, 2, 2,
     {{LD(X, 0), ST(Y)}, {LD(Y, 1), ST(X)}},
     weak_lb, M_NONE | M_RCPC | M_RCSC},
    {"iriw", "independent reads of independent writes, fenced readers", 4, 2,
     6,
     {{ST(X)},
      {ST(Y)},
      {LD(Y, 0), LD(X, 1), FENCE, LD(Y, 2)},
      {LD(X, 3), LD(Y, 4), FENCE, LD(X, 5)}},
     weak_iriw, M_RCSC},
    {"corr", "read-read coherence", 2, 1, 3,
     {{ST(X), ST(X)}, {LD(X, 0), LD(X, 1), LD(X, 2)}},
     weak_corr, M_RCPC | M_RCSC},
    {"cowr", "write-read coherence (own store, then load)", 2, 1, 2,
     {{LD(X, 0), ST(X), LD(X, 1)}, {ST(X)}},
     weak_cowr, M_RCPC | M_RCSC},
    {"coww", "write-write coherence", 2, 1, 0,
     {{ST(X), ST(X)}, {ST(X)}},
     weak_coww, M_RCPC | M_RCSC},
    {"corw", "read-write coherence (load, then own store)", 2, 1, 1,
     {{LD(X, 0), ST(X)}, {ST(X)}},
     weak_corw, M_RCPC | M_RCSC},
};

#define NTESTS (sizeof tests / sizeof tests[0])

size_t cm_litmus_test_count(void)
{
    return NTESTS;
}

const cm_litmus_test *cm_litmus_test_at(size_t i)
{
    return i < NTESTS ? &tests[i] : NULL;
}

const cm_litmus_test *cm_litmus_test_find(const char *name)
{
    for (size_t i = 0; i < NTESTS; i++)
        if (strcmp(tests[i].name, name) == 0) return &tests[i];
    return NULL;
}

int cm_litmus_forbids(const cm_litmus_test *t, cm_consistency m)
{
    return (t->forbidden >> m) & 1u;
}

const char *cm_litmus_model_name(cm_consistency m)
{
    return (unsigned)m < 3 ? cm_consistency_names[m] : "?";
}

uint64_t cm_litmus_store_value(uint32_t thread, uint32_t k)
{
    return cm_store_value(thread, 0, 1, k);
}

static int format_value(uint64_t v, char *buf, size_t len)
{
    if (v == 0) return snprintf(buf, len, "0");
    uint64_t who = v >> 32;
    if (who >= 1 && who <= CM_LITMUS_MAX_THREADS)
        return snprintf(buf, len, "%" PRIu64 ".%" PRIu64, who - 1,
                        v & 0xffffffffu);
    return snprintf(buf, len, "0x%" PRIx64, v);
}

void cm_litmus_outcome_format(const cm_litmus_test *t,
                              const cm_litmus_outcome *o, char *buf,
                              size_t len)
{
    static const char *const var_names[CM_LITMUS_MAX_VARS] = {"x", "y"};
    size_t used = 0;
    if (len) buf[0] = '\0';
    for (unsigned i = 0; i < (unsigned)t->nregs + t->nvars; i++) {
        char v[32], item[48];
        int is_reg = i < t->nregs;
        format_value(is_reg ? o->reg[i] : o->mem[i - t->nregs], v, sizeof v);
        int n = is_reg ? snprintf(item, sizeof item, "%sr%u=%s",
                                  i ? " " : "", i, v)
                       : snprintf(item, sizeof item, "%s%s=%s", i ? " " : "",
                                  var_names[i - t->nregs], v);
        if (n < 0 || used + (size_t)n >= len) break;
        memcpy(buf + used, item, (size_t)n + 1);
        used += (size_t)n;
    }
}

/* SplitMix64's finaliser: a bijection of 64-bit words. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

uint64_t cm_litmus_run_seed(uint64_t seed, uint64_t r)
{
    return mix64(mix64(seed) + r * 0x9e3779b97f4a7c15u);
}

/* ---- one run ------------------------------------------------------------- */

typedef struct lit_run {
    const cm_litmus_test *t;
    gsl_rng *rng; /* the threads' issue timing */
    uint32_t jitter;
    uint32_t pc[CM_LITMUS_MAX_THREADS];
    uint8_t delayed[CM_LITMUS_MAX_THREADS]; /* the next op's delay given */
    uint32_t loads[CM_LITMUS_MAX_THREADS]; /* answered so far */
    uint64_t line[CM_LITMUS_MAX_THREADS];  /* the addrs of the instruction */
    cm_litmus_outcome out;
    int bad; /* a load answered that the program did not make */
    uint32_t bad_core;
    uint64_t bad_line;
} lit_run;

/* Thread `core`'s next instruction: a random delay before every op of
 * its program, then the op. */
static cm_status lit_next(void *obj, uint32_t core, uint32_t warp,
                          cm_inst *inst, cm_err *err)
{
    (void)err;
    lit_run *r = obj;
    memset(inst, 0, sizeof *inst);
    inst->kind = CM_INST_END;
    if (warp != 0 || core >= r->t->nthreads || r->pc[core] >= CM_LITMUS_MAX_OPS)
        return CM_OK;
    const cm_litmus_op *op = &r->t->prog[core][r->pc[core]];
    if (!op->kind) return CM_OK; /* the end of the program */
    if (r->jitter && !r->delayed[core]) {
        r->delayed[core] = 1;
        inst->kind = CM_INST_COMPUTE;
        inst->n = (uint32_t)gsl_rng_uniform_int(r->rng, r->jitter + 1ul);
        return CM_OK;
    }
    r->delayed[core] = 0;
    switch (op->kind) {
    case CM_LITMUS_LD:
    case CM_LITMUS_ST:
        inst->kind = op->kind == CM_LITMUS_LD ? CM_INST_LOAD : CM_INST_STORE;
        inst->bytes = 8; /* one 64-bit value */
        inst->n = 1;
        r->line[core] = CM_LITMUS_LINE(op->var);
        inst->addrs = &r->line[core];
        break;
    default:
        inst->kind = CM_INST_FENCE;
        break;
    }
    r->pc[core]++;
    return CM_OK;
}

/* Loads block their warp, so they answer in program order: the n-th
 * answer of a thread is its n-th load. */
static void lit_on_load(void *obj, uint32_t core, uint32_t warp,
                        uint64_t line, uint64_t value)
{
    lit_run *r = obj;
    const cm_litmus_op *op = NULL;
    if (warp == 0 && core < r->t->nthreads) {
        uint32_t seen = 0;
        for (uint32_t i = 0; i < CM_LITMUS_MAX_OPS && !op; i++) {
            const cm_litmus_op *o = &r->t->prog[core][i];
            if (o->kind == CM_LITMUS_LD && seen++ == r->loads[core]) op = o;
        }
    }
    if (!op || CM_LITMUS_LINE(op->var) != line) {
        if (!r->bad) {
            r->bad = 1;
            r->bad_core = core;
            r->bad_line = line;
        }
        return;
    }
    r->loads[core]++;
    r->out.reg[op->reg] = value;
}

/* The machine of params with one SM per thread, one warp each. */
static void lit_params(const cm_litmus_test *t, const cm_params *params,
                       uint64_t run_seed, uint32_t jitter, cm_params *p)
{
    *p = *params;
    p->gpu_sms = t->nthreads;
    p->gpu_warps_per_sm = 1;
    p->sched_active_warps = 1;
    p->noc_jitter = jitter;
    p->sim_seed = (double)(run_seed & 0xffffffffu);
    p->sim_sample = 0;
    p->sim_max_instructions = 0;
    if (p->sim_max_cycles > CM_LITMUS_MAX_CYCLES)
        p->sim_max_cycles = CM_LITMUS_MAX_CYCLES;
}

cm_status cm_litmus_run_once(const cm_litmus_test *t,
                             const cm_protocol *proto,
                             const cm_params *params, uint64_t run_seed,
                             uint32_t jitter, cm_litmus_outcome *out,
                             int *finished, cm_err *err)
{
    lit_run run;
    memset(&run, 0, sizeof run);
    run.t = t;
    run.jitter = jitter;
    *finished = 0;
    cm_params p;
    lit_params(t, params, run_seed, jitter, &p);
    cm_stats *stats = cm_stats_new();
    run.rng = gsl_rng_alloc(gsl_rng_taus2);
    if (!stats || !run.rng) {
        cm_stats_free(stats);
        if (run.rng) gsl_rng_free(run.rng);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    gsl_rng_set(run.rng, (unsigned long)(run_seed >> 32));
    uint64_t lines[CM_LITMUS_MAX_VARS];
    for (unsigned v = 0; v < CM_LITMUS_MAX_VARS; v++)
        lines[v] = CM_LITMUS_LINE(v);
    cm_observer obs = {.obj = &run, .value = lit_on_load};
    cm_gpu_run_config cfg = {.params = &p,
                             .protocol = proto,
                             .source = {lit_next, &run},
                             .observer = &obs,
                             .probe_lines = lines,
                             .probe_values = run.out.mem,
                             .nprobe = t->nvars};
    cm_gpu_result res;
    cm_status st = cm_gpu_run(&cfg, stats, &res, err);
    if (!st && run.bad)
        st = cm_err_set(err, CM_EINTERNAL,
                        "core %" PRIu32 " was answered a load of line %" PRIu64
                        " it did not ask for", run.bad_core, run.bad_line);
    if (!st) *finished = res.finished;
    cm_stats_free(stats);
    gsl_rng_free(run.rng);
    *out = run.out;
    if (st) {
        char where[128];
        snprintf(where, sizeof where, "litmus %s on %s, run seed %" PRIu64,
                 t->name, proto->name, run_seed);
        cm_err_prefix(err, where);
    }
    return st;
}

/* ---- batches ------------------------------------------------------------- */

void cm_litmus_result_init(cm_litmus_result *res, const cm_litmus_test *t,
                           const cm_protocol *proto)
{
    memset(res, 0, sizeof *res);
    res->test = t;
    res->proto = proto;
    res->model = proto->consistency;
    res->model_forbids = cm_litmus_forbids(t, res->model);
}

void cm_litmus_result_free(cm_litmus_result *res)
{
    free(res->hist);
    res->hist = NULL;
    res->nhist = res->cap = 0;
}

static cm_status count_outcome(cm_litmus_result *res,
                               const cm_litmus_outcome *o, cm_err *err)
{
    for (size_t i = 0; i < res->nhist; i++)
        if (memcmp(&res->hist[i].outcome, o, sizeof *o) == 0) {
            res->hist[i].count++;
            return CM_OK;
        }
    if (res->nhist == res->cap) {
        size_t cap = res->cap ? 2 * res->cap : 16;
        cm_litmus_count *h = realloc(res->hist, cap * sizeof *h);
        if (!h) return cm_err_set(err, CM_EINTERNAL, "out of memory");
        res->hist = h;
        res->cap = cap;
    }
    res->hist[res->nhist].outcome = *o;
    res->hist[res->nhist++].count = 1;
    return CM_OK;
}

cm_status cm_litmus_run_range(cm_litmus_result *res, const cm_params *params,
                              uint64_t first, uint64_t n, uint64_t seed,
                              uint32_t jitter, cm_err *err)
{
    for (uint64_t r = first; r < first + n; r++) {
        uint64_t rs = cm_litmus_run_seed(seed, r);
        cm_litmus_outcome o;
        int finished;
        cm_status st = cm_litmus_run_once(res->test, res->proto, params, rs,
                                          jitter, &o, &finished, err);
        if (st) return st;
        res->runs++;
        if (!finished) {
            res->unfinished++;
            continue;
        }
        if ((st = count_outcome(res, &o, err))) return st;
        if (!res->test->weak(&o)) continue;
        if (res->weak++ == 0) {
            res->first_weak_run = r;
            res->first_weak_seed = rs;
        }
        if (res->model_forbids && res->forbidden++ == 0) {
            res->first_forbidden_run = r;
            res->first_forbidden_seed = rs;
        }
    }
    return CM_OK;
}

cm_status cm_litmus_run(const cm_litmus_test *t, const cm_protocol *proto,
                        const cm_params *params, uint64_t runs, uint64_t seed,
                        uint32_t jitter, cm_litmus_result *res, cm_err *err)
{
    cm_litmus_result_init(res, t, proto);
    return cm_litmus_run_range(res, params, 0, runs, seed, jitter, err);
}
