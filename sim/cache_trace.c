/* cache_trace.c - a whole trace through the exact cache (see
 * cache_trace.h). */
#include "sim/cache_trace.h"

#include <math.h>
#include <stdio.h>

cm_status cm_cache_run_trace(const cm_cache_config *cfg, const char *path,
                             const cm_trace_opts *topts, unsigned op_mask,
                             cm_progress_fn progress, void *progress_arg,
                             cm_cache_counts *counts, cm_err *err)
{
    cm_cache *c;
    cm_status st = cm_cache_new(cfg, &c, err);
    if (st) return st;
    cm_trace *t;
    if ((st = cm_trace_open(path, topts, &t, err))) {
        cm_cache_free(c);
        return st;
    }
    cm_access a;
    int got;
    uint64_t n = 0;
    while ((got = cm_trace_next(t, &a, err)) == 1) {
        if (!(op_mask & (1u << a.op))) continue;
        cm_cache_access(c, &a);
        if (progress && (++n & 0xfffff) == 0)
            progress((size_t)cm_trace_bytes_read(t), 0, progress_arg);
    }
    if (got < 0) st = err ? err->code : CM_EINPUT;
    else *counts = *cm_cache_get_counts(c);
    cm_trace_close(t);
    cm_cache_free(c);
    return st;
}

cm_status cm_cache_counts_table(const cm_cache_counts *c, cm_table **out,
                                cm_err *err)
{
    static const char *const header[] = {"op", "accesses", "hits", "misses",
                                         "miss_ratio"};
    *out = cm_table_new(5, header);
    if (!*out) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    uint64_t acc_all = 0, miss_all = 0;
    cm_status st = CM_OK;
    for (int op = 0; op <= CM_OP_COUNT && !st; op++) {
        int all = op == CM_OP_COUNT;
        uint64_t acc = all ? acc_all : c->accesses[op];
        uint64_t miss = all ? miss_all : c->misses[op];
        acc_all += all ? 0 : acc;
        miss_all += all ? 0 : miss;
        char cells[4][32];
        snprintf(cells[0], 32, "%llu", (unsigned long long)acc);
        snprintf(cells[1], 32, "%llu", (unsigned long long)(acc - miss));
        snprintf(cells[2], 32, "%llu", (unsigned long long)miss);
        cm_fmt_optional(cells[3], acc ? (double)miss / (double)acc : NAN);
        const char *row[] = {all ? "all" : cm_op_name((cm_op)op), cells[0],
                             cells[1], cells[2], cells[3]};
        st = cm_table_append(*out, row, err);
    }
    if (st) {
        cm_table_free(*out);
        *out = NULL;
    }
    return st;
}
