/* study.c - the study driver (see study.h): its sections in order, each
 * one point of the study or, for the validations, many, so that a shard
 * runs its slice, merge finishes, and resume skips what is done. */
#include "study/study.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Every figure twice: a PNG to look at, an SVG to print and to inline
 * in report.html. */
static const char *const figure_exts[] = {".png", ".svg"};

cm_status cm_study_figure(cm_study *s, const char *name, const cm_table *t,
                          const cm_plot_table_opts *o, cm_err *err)
{
    char path[4096];
    cm_status st = CM_OK;
    for (size_t i = 0; !st && i < 2; i++) {
        st = out_path(s, name, figure_exts[i], path, sizeof path, err);
        if (!st) st = cm_plot_table(t, o, path, err);
        if (!st) s->files++;
    }
    return st;
}

cm_status cm_study_render(cm_study *s, const char *name,
                          const cm_plot_spec *spec, cm_err *err)
{
    char path[4096];
    cm_status st = CM_OK;
    for (size_t i = 0; !st && i < 2; i++) {
        st = out_path(s, name, figure_exts[i], path, sizeof path, err);
        if (!st) st = cm_plot_render(spec, path, err);
        if (!st) s->files++;
    }
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

/* The study's points: three one-point sections around the validations'
 * simulations. */
enum { UNIT_MSHR = 0, UNIT_REUSE = 1, UNIT_SIM = 2 };

cm_status cm_study_points(const char *coh_workloads, size_t *n,
                          cm_err *err)
{
    cm_status st = cm_study_sim_points(coh_workloads, n, err);
    if (!st) *n += 3;
    return st;
}

static int file_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static int unit_mine(const cm_study *s, size_t point)
{
    return s->mode != CM_RUN_FINISH && point >= s->first && point < s->end;
}

/* A section that is one point of the study.  When the point is this
 * run's (and not finished already, under resume) the section runs and
 * its part of the summary goes to runs/<name>.txt, written last, so the
 * file says the section is complete.  Otherwise a run that makes the
 * summary reads the part back; a shard leaves the point to another. */
static cm_status study_unit(cm_study *s, size_t point, const char *name,
                            cm_status (*section)(cm_study *, cm_err *),
                            cm_err *err)
{
    char path[4096], rel[64];
    snprintf(rel, sizeof rel, "runs/%s", name);
    cm_status st = out_path(s, rel, ".txt", path, sizeof path, err);
    if (st) return st;
    int done = file_exists(path);
    if (unit_mine(s, point) && !(s->resume && done)) {
        size_t before = s->len;
        st = section(s, err);
        return st ? st : cm_atomic_write(path, s->summary + before,
                                         s->len - before, err);
    }
    if (s->mode == CM_RUN_SHARD) return CM_OK;
    if (!done)
        return cm_err_set(err, CM_EINPUT, "%s: the study's %s section did "
                          "not run (merge every shard, or run with "
                          "--resume)", path, name);
    size_t len = 0;
    char *text = NULL;
    FILE *f = fopen(path, "rb");
    if (f && fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
            (text = malloc((size_t)n + 1)) &&
            fread(text, 1, (size_t)n, f) == (size_t)n) {
            len = (size_t)n;
            text[len] = '\0';
        }
    }
    if (f) fclose(f);
    if (!text || (len && text[len - 1] != '\n')) {
        free(text);
        return cm_err_set(err, CM_EINPUT, "%s: cannot read", path);
    }
    /* the part as it was said: lines that each ended in a newline */
    text[len - (len > 0)] = '\0';
    st = len ? cm_study_say(s, err, "%s", text) : CM_OK;
    free(text);
    return st;
}

/* The summary's parts and the shard's stale files (a fresh run starts
 * from an empty runs/; resume keeps the finished parts). */
static cm_status prepare_runs(const cm_study *s, cm_err *err)
{
    char runs[4096];
    cm_status st = out_path(s, "runs", "", runs, sizeof runs, err);
    if (!st && s->mode == CM_RUN_FINISH) return CM_OK;
    if (!st) st = cm_mkdir_p(runs, err);
    DIR *d = st || s->resume ? NULL : opendir(runs);
    for (struct dirent *e; d && !st && (e = readdir(d));) {
        char path[4096];
        if (e->d_name[0] == '.') continue;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", runs, e->d_name) >=
                sizeof path ||
            unlink(path))
            st = cm_err_set(err, CM_EINPUT, "%s: cannot remove", path);
    }
    if (d) closedir(d);
    return st;
}

cm_status cm_study_run(const cm_params *p, const char *outdir,
                       const char *trace, const char *coh_workloads,
                       const cm_run_plan *plan, cm_progress_fn progress,
                       void *progress_arg, cm_err *err)
{
    cm_study s = {p,    outdir, trace, coh_workloads, progress, progress_arg,
                  NULL, 0,      0,     0,
                  plan ? plan->mode : CM_RUN_WHOLE, 0, 0,
                  plan && plan->resume};
    char path[4096], manifest[4096];
    int selected[CM_STUDY_COH_NWL];
    size_t points = 0;
    /* Bad input should fail before anything is written. */
    cm_status st = cm_study_coh_workloads(coh_workloads, selected, err);
    if (!st) st = cm_study_points(coh_workloads, &points, err);
    if (!st)
        cm_shard_range(plan && s.mode == CM_RUN_SHARD ? &plan->shard : NULL,
                       points, &s.first, &s.end);
    if (!st && trace && unit_mine(&s, UNIT_REUSE)) {
        cm_trace *t;
        cm_trace_opts topts = {CM_TRACE_AUTO, (uint32_t)p->l1_line};
        st = cm_trace_open(trace, &topts, &t, err);
        if (!st) cm_trace_close(t);
    }
    if (!st) st = out_path(&s, "run", ".csv", manifest, sizeof manifest, err);
    if (!st && plan) st = cm_run_check_resume(manifest, plan, points, err);
    if (!st) st = cm_mkdir_p(outdir, err);
    if (!st) st = prepare_runs(&s, err);
    if (!st && plan)
        st = cm_run_manifest_write(manifest, plan, points, 0, NULL, 0, err);
    if (!st) st = out_path(&s, "params", ".csv", path, sizeof path, err);
    if (!st) st = cm_params_write_dump(p, path, err);
    if (!st) s.files++;
    if (!st)
        st = cm_study_say(&s, err,
                          "cohmod study on %.0f SMs x %.0f warps, %.0f L1 "
                          "MSHRs per SM (parameters: params.csv)\n",
                          p->gpu_sms, p->gpu_warps_per_sm, p->l1_mshrs);
    if (!st) st = study_unit(&s, UNIT_MSHR, "mshr", cm_study_section_mshr, err);
    if (!st)
        st = study_unit(&s, UNIT_REUSE, "reuse", cm_study_section_reuse, err);
    if (!st) st = cm_study_section_sim(&s, UNIT_SIM, err);
    if (!st) st = study_unit(&s, points - 1, "coh", cm_study_section_coh, err);
    if (!st && s.mode != CM_RUN_SHARD)
        st = out_path(&s, "summary", ".txt", path, sizeof path, err);
    if (!st && s.mode != CM_RUN_SHARD)
        st = cm_atomic_write(path, s.summary, s.len, err);
    if (!st && s.mode != CM_RUN_SHARD)
        st = cm_study_report(outdir, s.summary ? s.summary : "", err);
    if (!st && plan)
        st = cm_run_manifest_write(manifest, plan, points, 1, NULL, 0, err);
    free(s.summary);
    return st;
}
