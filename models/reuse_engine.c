/* reuse_engine.c - one interface over the exact, SHARDS and StatStack
 * engines (see reuse.h for the algorithms and their papers), and the
 * parser of sampling specs.  The exact engine is SHARDS with every line
 * tracked, so the two kinds share one path through the histogram. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "data/number.h"
#include "models/reuse.h"
#include "models/reuse_impl.h"

#define SPEC_FORMS                                                         \
    "expected none, shards:R, shards-max:S or statstack:R with 0 < R <= 1 " \
    "and S an integer >= 1"

/* 0 < R <= 1; -1 when out of range, or a cm_num_status when the text is
 * not a usable number at all. */
static int parse_rate(const char *s, double *rate)
{
    double r;
    cm_num_status ns = cm_number_read(s, &r);
    if (ns) return (int)ns;
    if (!(r > 0 && r <= 1)) return -1;
    *rate = r;
    return 0;
}

static int parse_count(const char *s, uint64_t *count)
{
    if (*s < '0' || *s > '9') return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno || v < 1) return -1;
    *count = v;
    return 0;
}

cm_status cm_sample_spec_parse(const char *text, cm_sample_spec *spec,
                               cm_err *err)
{
    memset(spec, 0, sizeof *spec);
    spec->rate = 1;
    const char *arg = text ? strchr(text, ':') : NULL;
    size_t n = arg ? (size_t)(arg - text) : text ? strlen(text) : 0;
    int bad = 1;
    if (text && !arg && strcmp(text, "none") == 0) {
        spec->kind = CM_SAMPLE_NONE;
        bad = 0;
    } else if (arg && n == 6 && strncmp(text, "shards", n) == 0) {
        spec->kind = CM_SAMPLE_SHARDS;
        bad = parse_rate(arg + 1, &spec->rate);
    } else if (arg && n == 10 && strncmp(text, "shards-max", n) == 0) {
        spec->kind = CM_SAMPLE_SHARDS_MAX;
        bad = parse_count(arg + 1, &spec->max_lines);
    } else if (arg && n == 9 && strncmp(text, "statstack", n) == 0) {
        spec->kind = CM_SAMPLE_STATSTACK;
        bad = parse_rate(arg + 1, &spec->rate);
    }
    if (bad == CM_NUM_OVERFLOW || bad == CM_NUM_UNDERFLOW) /* 1e999 */
        return cm_err_set(err, CM_EINPUT, "bad sampling '%s': '%s' %s",
                          text, arg + 1, cm_number_why((cm_num_status)bad));
    if (bad)
        return cm_err_set(err, CM_EINPUT, "bad sampling '%s': " SPEC_FORMS,
                          text ? text : "(null)");
    return CM_OK;
}

struct cm_reuse_engine {
    cm_shards *shards;       /* none, shards, shards-max */
    cm_statstack *statstack; /* statstack */
};

cm_status cm_reuse_engine_new(const cm_sample_spec *spec,
                              uint64_t exact_bins, cm_reuse_engine **out,
                              cm_err *err)
{
    *out = NULL;
    cm_reuse_engine *e = calloc(1, sizeof *e);
    if (!e)
        return cm_err_set(err, CM_EINTERNAL, "reuse engine: out of memory");
    cm_status st;
    switch (spec->kind) {
    case CM_SAMPLE_NONE:
    case CM_SAMPLE_SHARDS:
    case CM_SAMPLE_SHARDS_MAX:
        st = cm_shards_new(spec, exact_bins, &e->shards, err);
        break;
    case CM_SAMPLE_STATSTACK:
        st = cm_statstack_new(spec, exact_bins, &e->statstack, err);
        break;
    default:
        st = cm_err_set(err, CM_EINPUT, "reuse engine: unknown kind %d",
                        (int)spec->kind);
    }
    if (st != CM_OK) {
        free(e);
        return st;
    }
    *out = e;
    return CM_OK;
}

cm_status cm_reuse_engine_access(cm_reuse_engine *e, uint64_t line,
                                 cm_err *err)
{
    return e->shards ? cm_shards_access(e->shards, line, err)
                     : cm_statstack_access(e->statstack, line, err);
}

cm_status cm_reuse_engine_finish(cm_reuse_engine *e, cm_reuse_hist *h,
                                 cm_err *err)
{
    memset(h, 0, sizeof *h); /* so a failed finish leaves h freeable */
    return e->shards ? cm_shards_finish(e->shards, h, err)
                     : cm_statstack_finish(e->statstack, h, err);
}

cm_status cm_reuse_engine_replicates(const cm_reuse_engine *e,
                                     cm_reuse_hist *reps, size_t *n,
                                     cm_err *err)
{
    return e->shards ? cm_shards_replicates(e->shards, reps, n, err)
                     : cm_statstack_replicates(e->statstack, reps, n, err);
}

void cm_reuse_engine_free(cm_reuse_engine *e)
{
    if (!e) return;
    cm_shards_free(e->shards);
    cm_statstack_free(e->statstack);
    free(e);
}
