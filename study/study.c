/* study.c - the study driver (see study.h). */
#include "study/study.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/atomic.h"
#include "data/trace.h"

static cm_status out_path(const cm_study *s, const char *name,
                          const char *ext, char *buf, size_t len, cm_err *err)
{
    int n = snprintf(buf, len, "%s/%s%s", s->outdir, name, ext);
    if (n < 0 || (size_t)n >= len)
        return cm_err_set(err, CM_EINPUT, "%s: output path too long",
                          s->outdir);
    return CM_OK;
}

cm_status cm_study_write_table(cm_study *s, const char *name,
                               const cm_table *t, cm_err *err)
{
    char path[4096];
    cm_status st = out_path(s, name, ".csv", path, sizeof path, err);
    if (!st) st = cm_table_write_file(t, path, err);
    if (!st) s->files++;
    return st;
}

cm_status cm_study_figure(cm_study *s, const char *name, const cm_table *t,
                          const cm_plot_table_opts *o, cm_err *err)
{
    char path[4096];
    cm_status st = out_path(s, name, ".png", path, sizeof path, err);
    if (!st) st = cm_plot_table(t, o, path, err);
    if (!st) s->files++;
    return st;
}

cm_status cm_study_render(cm_study *s, const char *name,
                          const cm_plot_spec *spec, cm_err *err)
{
    char path[4096];
    cm_status st = out_path(s, name, ".png", path, sizeof path, err);
    if (!st) st = cm_plot_render(spec, path, err);
    if (!st) s->files++;
    return st;
}

cm_status cm_study_say(cm_study *s, cm_err *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return cm_err_set(err, CM_EINTERNAL, "bad summary format");
    size_t need = s->len + (size_t)n + 2;
    if (need > s->cap) {
        size_t cap = need * 2;
        char *g = realloc(s->summary, cap);
        if (!g) return cm_err_set(err, CM_EINTERNAL, "out of memory");
        s->summary = g;
        s->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(s->summary + s->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    s->len += (size_t)n;
    s->summary[s->len++] = '\n';
    s->summary[s->len] = '\0';
    return CM_OK;
}

cm_status cm_study_run(const cm_params *p, const char *outdir,
                       const char *trace, const char *coh_workloads,
                       cm_progress_fn progress, void *progress_arg,
                       cm_err *err)
{
    cm_study s = {p,    outdir, trace, coh_workloads, progress, progress_arg,
                  NULL, 0,      0,     0};
    char path[4096];
    int selected[CM_STUDY_COH_NWL];
    /* Bad input should fail before anything is written. */
    cm_status st = cm_study_coh_workloads(coh_workloads, selected, err);
    if (!st && trace) {
        cm_trace *t;
        cm_trace_opts topts = {CM_TRACE_AUTO, (uint32_t)p->l1_line};
        st = cm_trace_open(trace, &topts, &t, err);
        if (!st) cm_trace_close(t);
    }
    if (!st) st = cm_mkdir_p(outdir, err);
    if (!st) st = out_path(&s, "params", ".csv", path, sizeof path, err);
    if (!st) st = cm_params_write_dump(p, path, err);
    if (!st) s.files++;
    if (!st)
        st = cm_study_say(&s, err,
                          "cohmod study on %.0f SMs x %.0f warps, %.0f L1 "
                          "MSHRs per SM (parameters: params.csv)\n",
                          p->gpu_sms, p->gpu_warps_per_sm, p->l1_mshrs);
    if (!st) st = cm_study_section_mshr(&s, err);
    if (!st) st = cm_study_section_reuse(&s, err);
    if (!st) st = cm_study_section_sim(&s, err);
    if (!st) st = cm_study_section_coh(&s, err);
    if (!st) st = out_path(&s, "summary", ".txt", path, sizeof path, err);
    if (!st) st = cm_atomic_write(path, s.summary, s.len, err);
    free(s.summary);
    return st;
}
