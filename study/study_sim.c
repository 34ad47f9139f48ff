/* study_sim.c - the model-against-simulation section of `cohmod study`.
 *
 * Runs the validate driver (study/validate.h) for each validated model (the
 * MSHR occupancy model; the L1 miss ratio from reuse distances) on
 * the study's machine shrunk to 2 SMs with runs cut at 300k cycles (the
 * validated quantities are steady-state ones, and the whole grid then
 * takes seconds), over a grid of L1 MSHRs (L1 size for the reuse model)
 * x active warps and three
 * built-in workloads of different character (kmn: memory-bound with
 * reuse; bfs: irregular; cfd: compute-heavy).  Each model's points,
 * summary, calibration and figures go to a subdirectory
 * (validate_<model>/), and the summary reports the held-out errors against
 * the targets.  Their simulations are points of the study
 * (study.h): a shard runs those of its slice. */
#include <stdio.h>
#include <string.h>

#include "data/sweep.h"
#include "study/study.h"
#include "study/validate.h"

static const char *const mshr_axes[] = {"l1.mshrs=8,16,32",
                                        "sched.active_warps=8,24,48"};
/* Fewer points: each prediction profiles every warp's stream.  Three
 * warp counts, so each figure's lines have a shape, not just a slope. */
static const char *const reuse_axes[] = {"l1.size=16K,64K",
                                         "sched.active_warps=8,24,48"};
static const char *const study_workloads[] = {"kmn", "bfs", "cfd"};
#define NAXES 2

/* The points of one validation: the workloads x the axes' values. */
static cm_status count_points(const char *const *study_axes, size_t *n,
                              cm_err *err)
{
    *n = sizeof study_workloads / sizeof *study_workloads;
    for (size_t i = 0; i < NAXES; i++) {
        cm_sweep sw;
        cm_status st = cm_sweep_parse(study_axes[i], &sw, err);
        if (st) return st;
        *n *= sw.n;
        cm_sweep_free(&sw);
    }
    return CM_OK;
}

cm_status cm_study_sim_points(size_t *n, cm_err *err)
{
    size_t a, b;
    cm_status st = count_points(mshr_axes, &a, err);
    if (!st) st = count_points(reuse_axes, &b, err);
    if (!st) *n = a + b;
    return st;
}

/* The study's points [s->first, s->end) that fall among this
 * validation's, numbered from first: its own [*lo, *hi). */
static void sub_range(const cm_study *s, size_t first, size_t n, size_t *lo,
                      size_t *hi)
{
    size_t a = s->first > first ? s->first - first : 0;
    size_t b = s->end > first ? s->end - first : 0;
    *lo = a < n ? a : n;
    *hi = b < n ? b : n;
}

static cm_status validate_one(cm_study *s, const cm_validate_model *m,
                              const char *const *study_axes, size_t first,
                              cm_err *err)
{
    cm_params p = *s->params;
    p.gpu_sms = 2;
    p.sim_max_cycles = 300000;
    if (p.sched_active_warps > p.gpu_warps_per_sm)
        p.sched_active_warps = p.gpu_warps_per_sm;
    cm_sweep axes[NAXES];
    memset(axes, 0, sizeof axes);
    cm_status st = CM_OK;
    for (size_t i = 0; !st && i < NAXES; i++)
        st = cm_sweep_parse(study_axes[i], &axes[i], err);
    char dir[4096];
    if (!st && (size_t)snprintf(dir, sizeof dir, "%s/validate_%s", s->outdir,
                                m->name) >= sizeof dir)
        st = cm_err_set(err, CM_EINPUT, "output directory name too long");
    cm_validate_config c = {.base = &p,
                            .model = m,
                            .axes = axes,
                            .naxes = NAXES,
                            .workloads = study_workloads,
                            .nworkloads = sizeof study_workloads /
                                          sizeof *study_workloads,
                            .protocol = cm_protocol_find("no-coh"),
                            .outdir = dir,
                            .mode = s->mode,
                            .ranged = 1,
                            .resume = s->resume,
                            .progress = s->progress,
                            .progress_arg = s->progress_arg};
    sub_range(s, first, cm_validate_points(&c), &c.first, &c.end);
    cm_validate_summary sum;
    if (!st) st = cm_validate_run(&c, &sum, err);
    if (st || s->mode == CM_RUN_SHARD) {
        for (size_t i = 0; i < NAXES; i++) cm_sweep_free(&axes[i]);
        return st;
    }
    st = cm_study_say(s, err,
                      "\n%s model against the simulator (validate_%s/): "
                      "%zu points (2 SMs, kmn bfs cfd, %s x %s), calibrated "
                      "on %zu:",
                      m->name, m->name, sum.points, axes[0].param->name,
                      axes[1].param->name, sum.calibration_points);
    for (size_t q = 0; !st && q < m->nqty; q++) {
        char line[1024];
        cm_validate_summary_line(&m->qty[q], &sum, q, line, sizeof line);
        st = cm_study_say(s, err, "  %s", line);
    }
    if (!st && sum.calib_note[0])
        st = cm_study_say(s, err, "  calibration: %s", sum.calib_note);
    for (size_t i = 0; i < NAXES; i++) cm_sweep_free(&axes[i]);
    return st;
}

cm_status cm_study_section_sim(cm_study *s, size_t first, cm_err *err)
{
    size_t n;
    cm_status st = count_points(mshr_axes, &n, err);
    if (!st) st = validate_one(s, &cm_validate_mshr, mshr_axes, first, err);
    return st ? st : validate_one(s, &cm_validate_reuse, reuse_axes,
                                  first + n, err);
}
