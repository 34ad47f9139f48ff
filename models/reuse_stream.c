/* reuse_stream.c - reuse histograms of a trace, split into streams (see
 * reuse_stream.h). */
#include "models/reuse_stream.h"

#include "models/mrc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cm_status cm_reuse_per_parse(const char *text, cm_reuse_per *per,
                             cm_err *err)
{
    static const char *const names[] = {"all", "sm", "warp"};
    for (int i = 0; i < 3; i++)
        if (strcmp(text, names[i]) == 0) {
            *per = (cm_reuse_per)i;
            return CM_OK;
        }
    return cm_err_set(err, CM_EINPUT, "--per '%s': expected all, sm or warp",
                      text);
}

cm_status cm_op_mask_parse(const char *text, unsigned *mask, cm_err *err)
{
    *mask = 0;
    if (strcmp(text, "all") == 0) {
        *mask = (1u << CM_OP_COUNT) - 1;
        return CM_OK;
    }
    for (const char *c = text; *c;) {
        size_t len = strcspn(c, ",");
        int found = 0;
        for (int op = 0; op < CM_OP_COUNT; op++) {
            const char *name = cm_op_name((cm_op)op);
            if (strlen(name) == len && strncmp(c, name, len) == 0) {
                *mask |= 1u << op;
                found = 1;
            }
        }
        if (!found)
            return cm_err_set(err, CM_EINPUT,
                              "--ops '%s': expected a list of load, store, "
                              "modify, atomic, or all", text);
        c += len;
        if (*c == ',') c++;
    }
    if (!*mask)
        return cm_err_set(err, CM_EINPUT, "--ops '%s': no op selected", text);
    return CM_OK;
}

typedef struct stream_slot {
    uint64_t key;
    cm_reuse_engine *engine;
} stream_slot;

typedef struct stream_set {
    stream_slot *slots;
    size_t n, cap;
    size_t last; /* consecutive accesses mostly hit the same stream */
} stream_set;

static uint64_t stream_key(const cm_access *a, cm_reuse_per per)
{
    switch (per) {
    case CM_PER_SM:
        return a->sm;
    case CM_PER_WARP:
        return ((uint64_t)a->kernel << 48) ^ ((uint64_t)a->block << 16) ^
               a->warp;
    default:
        return 0;
    }
}

static void stream_name(uint64_t key, cm_reuse_per per, char *buf,
                        size_t len)
{
    if (per == CM_PER_ALL)
        snprintf(buf, len, "all");
    else if (per == CM_PER_SM)
        snprintf(buf, len, "sm%llu", (unsigned long long)key);
    else
        snprintf(buf, len, "k%llu.b%llu.w%llu",
                 (unsigned long long)(key >> 48),
                 (unsigned long long)((key >> 16) & 0xffffffffu),
                 (unsigned long long)(key & 0xffff));
}

/* Finds or adds the engine of `key`, keeping slots sorted by key. */
static cm_status stream_find(stream_set *set, uint64_t key,
                             const cm_reuse_request *req,
                             cm_reuse_engine **engine, cm_err *err)
{
    if (set->last < set->n && set->slots[set->last].key == key) {
        *engine = set->slots[set->last].engine;
        return CM_OK;
    }
    size_t lo = 0, hi = set->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (set->slots[mid].key < key) lo = mid + 1;
        else hi = mid;
    }
    if (lo == set->n || set->slots[lo].key != key) {
        if (set->n == set->cap) {
            size_t cap = set->cap ? 2 * set->cap : 8;
            stream_slot *s = realloc(set->slots, cap * sizeof *s);
            if (!s) return cm_err_set(err, CM_EINTERNAL, "out of memory");
            set->slots = s;
            set->cap = cap;
        }
        cm_reuse_engine *e;
        cm_status st = cm_reuse_engine_new(&req->sample, req->exact_bins, &e,
                                           err);
        if (st) return st;
        memmove(set->slots + lo + 1, set->slots + lo,
                (set->n - lo) * sizeof *set->slots);
        set->slots[lo].key = key;
        set->slots[lo].engine = e;
        set->n++;
    }
    set->last = lo;
    *engine = set->slots[lo].engine;
    return CM_OK;
}

static void stream_set_free(stream_set *set)
{
    for (size_t i = 0; i < set->n; i++)
        cm_reuse_engine_free(set->slots[i].engine);
    free(set->slots);
}

static cm_status feed_trace(const cm_reuse_request *req, stream_set *set,
                            cm_reuse_result *res, cm_err *err)
{
    cm_trace *t;
    cm_status st = cm_trace_open(req->trace, &req->trace_opts, &t, err);
    if (st) return st;
    cm_access a;
    int got;
    uint64_t shift = 0;
    while ((1ull << shift) < req->line_bytes) shift++;
    while ((got = cm_trace_next(t, &a, err)) == 1) {
        if (!(req->op_mask & (1u << a.op))) continue;
        cm_reuse_engine *e = NULL;
        if ((st = stream_find(set, stream_key(&a, req->per), req, &e, err)))
            break;
        uint64_t first = a.addr >> shift;
        uint64_t last = (a.addr + (a.size ? a.size - 1 : 0)) >> shift;
        if (last < first) last = first; /* address space wrap */
        for (uint64_t line = first; line <= last && !st; line++) {
            st = cm_reuse_engine_access(e, line, err);
            if (req->setlocal) cm_setlocal_access(req->setlocal, line);
            if (req->spatial) cm_spatial_access(req->spatial, line);
            res->references++;
        }
        if (st) break;
        res->accesses++;
        if (req->progress && (res->accesses & 0xffff) == 0)
            req->progress((size_t)cm_trace_bytes_read(t), 0,
                          req->progress_arg);
    }
    if (!st && got < 0) st = err ? err->code : CM_EINPUT;
    if (!st && req->progress) /* the whole trace read: all of its bytes */
        req->progress((size_t)cm_trace_bytes_read(t), 0, req->progress_arg);
    cm_trace_close(t);
    return st;
}

cm_status cm_reuse_from_trace(const cm_reuse_request *req,
                              cm_reuse_result *res, cm_err *err)
{
    memset(res, 0, sizeof *res);
    if (req->line_bytes == 0 || (req->line_bytes & (req->line_bytes - 1)))
        return cm_err_set(err, CM_EINPUT,
                          "line size %u is not a power of two",
                          req->line_bytes);
    stream_set set = {0};
    cm_status st = feed_trace(req, &set, res, err);
    if (!st && set.n) {
        res->streams = calloc(set.n, sizeof *res->streams);
        if (!res->streams) st = cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    for (size_t i = 0; !st && i < set.n; i++) {
        cm_reuse_stream *s = &res->streams[i];
        s->key = set.slots[i].key;
        stream_name(s->key, req->per, s->name, sizeof s->name);
        st = cm_reuse_engine_finish(set.slots[i].engine, &s->hist, err);
        if (!st) res->nstreams++;
        if (!st && req->sample.replicates) {
            s->reps = calloc(CM_REUSE_GROUPS, sizeof *s->reps);
            st = s->reps ? cm_reuse_engine_replicates(set.slots[i].engine,
                                                      s->reps, &s->nreps, err)
                         : cm_err_set(err, CM_EINTERNAL, "out of memory");
        }
    }
    stream_set_free(&set);
    if (st) cm_reuse_result_free(res);
    return st;
}

void cm_reuse_result_free(cm_reuse_result *res)
{
    for (size_t i = 0; i < res->nstreams; i++) {
        cm_reuse_stream *s = &res->streams[i];
        cm_reuse_hist_free(&s->hist);
        for (size_t k = 0; k < s->nreps; k++) cm_reuse_hist_free(&s->reps[k]);
        free(s->reps);
    }
    free(res->streams);
    memset(res, 0, sizeof *res);
}

cm_status cm_reuse_result_table(const cm_reuse_result *res, cm_table **out,
                                cm_err *err)
{
    static const char *const header[] = {"stream",      "kind",
                                         "distance_lo", "distance_hi",
                                         "count",       "fraction",
                                         "sampling_rate"};
    *out = cm_table_new(7, header);
    if (!*out) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    cm_status st = CM_OK;
    for (size_t i = 0; i < res->nstreams && !st; i++) {
        const cm_reuse_hist *h = &res->streams[i].hist;
        char lo[32], hi[32], count[32], frac[32], rate[32];
        cm_fmt_double(rate, h->rate);
        size_t nb = cm_reuse_hist_nbins(h);
        for (size_t b = 0; b < nb && !st; b++) {
            double c = cm_reuse_hist_bin_count(h, b), l, u;
            if (c == 0) continue; /* sparse: empty bins say nothing */
            cm_reuse_hist_bin_bounds(h, b, &l, &u);
            cm_fmt_double(lo, l);
            cm_fmt_double(hi, u);
            cm_fmt_double(count, c);
            cm_fmt_double(frac, h->total > 0 ? c / h->total : 0);
            const char *row[] = {res->streams[i].name,
                                 b < h->exact_bins ? "exact" : "log2",
                                 lo, hi, count, frac, rate};
            st = cm_table_append(*out, row, err);
        }
        if (st) break;
        cm_fmt_double(count, h->cold);
        cm_fmt_double(frac, h->total > 0 ? h->cold / h->total : 0);
        const char *row[] = {res->streams[i].name, "cold", "inf", "inf",
                             count, frac, rate};
        st = cm_table_append(*out, row, err);
    }
    if (st) {
        cm_table_free(*out);
        *out = NULL;
    }
    return st;
}

cm_status cm_reuse_fit_table(const cm_reuse_result *res, cm_table **out,
                             cm_err *err)
{
    static const char *const header[] = {
        "stream", "m_inf", "m_inf_se", "c0", "c0_se", "alpha",
        "alpha_se", "rmse", "r2", "points", "note"};
    *out = cm_table_new(11, header);
    if (!*out) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    cm_status st = CM_OK;
    double caps[512];
    for (size_t i = 0; i < res->nstreams && !st; i++) {
        const cm_reuse_hist *h = &res->streams[i].hist;
        size_t n = cm_mrc_default_capacities(h, 4, caps, 512);
        cm_mrc_fit fit;
        cm_err ferr = {0};
        char note[CM_ERR_MSG_MAX + 16];
        if (cm_mrc_fit_profile(h, caps, n, &fit, &ferr) != CM_OK) {
            /* A stream too short to fit gets a row of empty cells that says
             * why, not a failure of the whole run: the other streams are
             * still worth having. */
            for (int k = 0; k < 3; k++) fit.param[k] = fit.stderr_[k] = NAN;
            fit.rmse = fit.r2 = NAN;
            fit.points = n;
            snprintf(note, sizeof note, "no fit: %s", ferr.msg);
        } else {
            cm_mrc_fit_note(&fit, note, sizeof note);
        }
        char cells[9][32];
        const double v[] = {fit.param[0], fit.stderr_[0], fit.param[1],
                            fit.stderr_[1], fit.param[2], fit.stderr_[2],
                            fit.rmse, fit.r2, (double)fit.points};
        for (int k = 0; k < 9; k++) cm_fmt_optional(cells[k], v[k]);
        const char *row[] = {res->streams[i].name, cells[0], cells[1],
                             cells[2], cells[3], cells[4], cells[5],
                             cells[6], cells[7], cells[8], note};
        st = cm_table_append(*out, row, err);
    }
    if (st) {
        cm_table_free(*out);
        *out = NULL;
    }
    return st;
}
