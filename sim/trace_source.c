/* trace_source.c - replaying a trace as warp instruction streams (see
 * trace_source.h for the mapping and its assumptions).
 *
 * Each warp slot holds a growing array of 8-byte words: an instruction is
 * a header word (kind in bits 0..7, line count in bits 8..23, the compute
 * instructions before it in bits 32..63) followed by its line numbers.
 * While the trace is read, each slot keeps its last instruction open so
 * that the next record of the same instruction appends to it; replay walks
 * the array with a cursor, handing out the compute gap first. */
#include "sim/trace_source.h"

#include <stdlib.h>
#include <string.h>

#define HDR(kind, n, gap) \
    ((uint64_t)(kind) | (uint64_t)(n) << 8 | (uint64_t)(gap) << 32)
#define HDR_KIND(h) ((uint8_t)((h) & 0xff))
#define HDR_N(h) ((uint32_t)(((h) >> 8) & 0xffff))
#define HDR_GAP(h) ((uint32_t)((h) >> 32))

typedef struct ts_slot {
    uint64_t *w;
    size_t n, cap;
    /* while loading */
    size_t open;       /* header index of the open instruction, or SIZE_MAX */
    uint64_t open_key; /* accel: instruction index; else the cycle */
    uint8_t open_op;   /* cm_op of the open instruction */
    uint32_t kernel;   /* kernel the slot's last instruction belongs to */
    int have_inst;     /* accel: the slot's current warp has an instruction */
    uint64_t last_inst;
    /* while replaying */
    size_t pos;
    int gap_done;
} ts_slot;

struct cm_trace_source {
    uint32_t nsm, warps, max_lines, line_bytes;
    ts_slot *slots;
    size_t words, max_words;
    const char *path;
    cm_trace_source_counts counts;
    /* accel warp placement */
    int have_last;
    uint32_t last_kernel, last_block, last_warp, first_kernel;
    size_t last_slot;
    uint32_t *next_slot; /* per SM, within the current kernel */
};

static cm_status ts_push(cm_trace_source *ts, ts_slot *s, uint64_t word,
                         cm_err *err)
{
    if (ts->words >= ts->max_words)
        return cm_err_set(err, CM_EINPUT,
                          "%s: more than %zu instructions and requests; "
                          "trace mode holds the trace in memory (8 bytes "
                          "each), so cut the trace to fit",
                          ts->path, ts->max_words);
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        uint64_t *w = realloc(s->w, cap * sizeof *w);
        if (!w) return cm_err_set(err, CM_EINTERNAL, "out of memory");
        s->w = w;
        s->cap = cap;
    }
    s->w[s->n++] = word;
    ts->words++;
    return CM_OK;
}

/* Closes the open instruction and starts a memory instruction of
 * cm_inst kind `kind` after `gap` compute instructions. */
static cm_status ts_open(cm_trace_source *ts, ts_slot *s, uint8_t kind,
                         uint8_t op, uint64_t key, uint64_t gap, cm_err *err)
{
    if (gap > UINT32_MAX) gap = UINT32_MAX;
    s->open = s->n;
    s->open_key = key;
    s->open_op = op;
    ts->counts.mem_insts++;
    ts->counts.compute += gap;
    if (s->n == 0) ts->counts.warps++;
    return ts_push(ts, s, HDR(kind, 0, gap), err);
}

/* Adds a line to the open instruction unless it holds it already; a full
 * instruction continues in a new one. */
static cm_status ts_add_line(cm_trace_source *ts, ts_slot *s, uint64_t line,
                             cm_err *err)
{
    uint64_t *h = &s->w[s->open];
    uint32_t n = HDR_N(*h);
    for (uint32_t i = 0; i < n; i++)
        if (s->w[s->open + 1 + i] == line) return CM_OK;
    if (n == ts->max_lines) {
        cm_status st = ts_open(ts, s, HDR_KIND(*h), s->open_op, s->open_key,
                               0, err);
        if (st) return st;
        h = &s->w[s->open];
        n = 0;
    }
    cm_status st = ts_push(ts, s, line, err);
    if (st) return st;
    h = &s->w[s->open]; /* the push may have moved the array */
    *h = HDR(HDR_KIND(*h), n + 1, HDR_GAP(*h));
    ts->counts.requests++;
    return CM_OK;
}

static uint8_t inst_kind(uint8_t op)
{
    return op == CM_OP_STORE    ? CM_INST_STORE
           : op == CM_OP_ATOMIC ? CM_INST_ATOMIC
                                : CM_INST_LOAD;
}

/* The slot of an accel record: a new warp (kernel, block, warp) takes the
 * next slot of its block's SM. */
static size_t accel_slot(cm_trace_source *ts, const cm_access *a)
{
    if (ts->have_last && a->kernel == ts->last_kernel &&
        a->block == ts->last_block && a->warp == ts->last_warp)
        return ts->last_slot;
    if (!ts->have_last || a->kernel != ts->last_kernel)
        memset(ts->next_slot, 0, ts->nsm * sizeof *ts->next_slot);
    uint32_t sm = a->block % ts->nsm;
    uint32_t w = ts->next_slot[sm]++ % ts->warps;
    ts->have_last = 1;
    ts->last_kernel = a->kernel;
    ts->last_block = a->block;
    ts->last_warp = a->warp;
    ts->last_slot = (size_t)sm * ts->warps + w;
    ts->slots[ts->last_slot].have_inst = 0; /* a new warp's gaps start */
    return ts->last_slot;
}

static cm_status ts_record(cm_trace_source *ts, const cm_access *a,
                           cm_err *err)
{
    int accel = a->kernel != 0;
    size_t si = accel ? accel_slot(ts, a)
                      : (size_t)(a->sm % ts->nsm) * ts->warps +
                            a->warp % ts->warps;
    ts_slot *s = &ts->slots[si];
    cm_status st = CM_OK;
    if (ts->counts.records == 0) ts->first_kernel = a->kernel;
    ts->counts.records++;
    if (s->n == 0) s->kernel = ts->first_kernel;
    while (!st && s->kernel < a->kernel) { /* kernel boundaries crossed */
        st = ts_push(ts, s, HDR(CM_INST_KERNEL, 0, 0), err);
        s->kernel++;
        s->open = SIZE_MAX;
    }
    if (a->kernel > ts->counts.kernels) ts->counts.kernels = a->kernel;
    uint64_t first = a->addr / ts->line_bytes;
    uint64_t size = a->size ? a->size : 1;
    uint64_t last = first + (a->addr % ts->line_bytes + size - 1) /
                                ts->line_bytes;
    /* lackey M: a load, then a store, each an instruction of its own */
    uint8_t ops[2] = {a->op == CM_OP_MODIFY ? CM_OP_LOAD : a->op,
                      CM_OP_STORE};
    for (int k = 0; !st && k < 1 + (a->op == CM_OP_MODIFY); k++) {
        uint8_t op = ops[k];
        if (accel) {
            if (s->open == SIZE_MAX || !s->have_inst ||
                s->open_key != a->inst) {
                uint64_t gap = s->have_inst && a->inst > s->last_inst
                                   ? a->inst - s->last_inst - 1
                                   : a->inst;
                st = ts_open(ts, s, inst_kind(op), op, a->inst, gap, err);
                s->have_inst = 1;
                s->last_inst = a->inst;
            }
        } else if (s->open == SIZE_MAX || a->cycle == 0 ||
                   s->open_key != a->cycle || s->open_op != op ||
                   a->op == CM_OP_MODIFY) {
            st = ts_open(ts, s, inst_kind(op), op, a->cycle, 0, err);
        }
        for (uint64_t l = first; !st && l <= last; l++)
            st = ts_add_line(ts, s, l, err);
    }
    return st;
}

cm_status cm_trace_source_load(const cm_params *p,
                               const cm_trace_source_config *cfg,
                               cm_trace_source **out, cm_err *err)
{
    *out = NULL;
    cm_trace_source *ts = calloc(1, sizeof *ts);
    if (!ts) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    ts->nsm = (uint32_t)p->gpu_sms;
    ts->warps = (uint32_t)p->gpu_warps_per_sm;
    ts->max_lines = 2 * (uint32_t)p->gpu_threads_per_warp;
    ts->line_bytes = (uint32_t)p->l1_line;
    ts->max_words = cfg->max_words ? cfg->max_words
                                   : CM_TRACE_SOURCE_MAX_WORDS;
    ts->path = cfg->path ? cfg->path : "-";
    ts->slots = calloc((size_t)ts->nsm * ts->warps, sizeof *ts->slots);
    ts->next_slot = calloc(ts->nsm, sizeof *ts->next_slot);
    if (!ts->slots || !ts->next_slot) {
        cm_trace_source_free(ts);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    for (size_t i = 0; i < (size_t)ts->nsm * ts->warps; i++)
        ts->slots[i].open = SIZE_MAX;
    cm_trace_opts o = {cfg->format, ts->line_bytes};
    cm_trace *t = NULL;
    cm_status st = cm_trace_open(ts->path, &o, &t, err);
    unsigned mask = cfg->op_mask ? cfg->op_mask : ~0u;
    cm_access a;
    int got = 0;
    while (!st && (got = cm_trace_next(t, &a, err)) > 0)
        if (mask >> a.op & 1u) st = ts_record(ts, &a, err);
    if (!st && got < 0) st = err->code ? err->code : CM_EINPUT;
    cm_trace_close(t);
    if (!st && ts->counts.kernels == 0 && ts->counts.records)
        ts->counts.kernels = 1;
    if (st) {
        cm_trace_source_free(ts);
        return st;
    }
    *out = ts;
    return CM_OK;
}

void cm_trace_source_free(cm_trace_source *ts)
{
    if (!ts) return;
    for (size_t i = 0; ts->slots && i < (size_t)ts->nsm * ts->warps; i++)
        free(ts->slots[i].w);
    free(ts->slots);
    free(ts->next_slot);
    free(ts);
}

static cm_status ts_next(void *obj, uint32_t sm, uint32_t warp, cm_inst *inst,
                         cm_err *err)
{
    cm_trace_source *ts = obj;
    memset(inst, 0, sizeof *inst);
    if (sm >= ts->nsm || warp >= ts->warps)
        return cm_err_set(err, CM_EINTERNAL,
                          "trace source asked for SM %u warp %u of a %ux%u "
                          "machine", sm, warp, ts->nsm, ts->warps);
    ts_slot *s = &ts->slots[(size_t)sm * ts->warps + warp];
    if (s->pos >= s->n) {
        inst->kind = CM_INST_END;
        return CM_OK;
    }
    uint64_t h = s->w[s->pos];
    if (HDR_GAP(h) && !s->gap_done) {
        s->gap_done = 1;
        inst->kind = CM_INST_COMPUTE;
        inst->n = HDR_GAP(h);
        return CM_OK;
    }
    s->gap_done = 0;
    inst->kind = HDR_KIND(h);
    inst->n = HDR_N(h);
    inst->addrs = &s->w[s->pos + 1];
    inst->bytes = 4;
    s->pos += 1 + (size_t)inst->n;
    return CM_OK;
}

cm_warp_source cm_trace_source_warps(cm_trace_source *ts)
{
    return (cm_warp_source){ts_next, ts};
}

void cm_trace_source_rewind(cm_trace_source *ts)
{
    for (size_t i = 0; i < (size_t)ts->nsm * ts->warps; i++) {
        ts->slots[i].pos = 0;
        ts->slots[i].gap_done = 0;
    }
}

void cm_trace_source_get_counts(const cm_trace_source *ts,
                                cm_trace_source_counts *out)
{
    *out = ts->counts;
}
