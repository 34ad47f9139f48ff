/* study_sim.c - the model-against-simulation section of `cohmod study`.
 *
 * Runs the validate driver (study/validate.h) for every validated model
 * on a Latin hypercube design (`cohmod validate --design`) over both
 * shipped presets, each preset's own machine, so no fixed grid can be
 * what the models were tuned to:
 *  - mshr: every built-in workload, 3 points per workload x preset cell
 *    (150 in all; each workload calibrates on one of its 6);
 *  - reuse: four workloads of different character (kmn reuse-heavy, bfs
 *    irregular, cfd compute-bound, scluster bound by L1 reservations), 3
 *    points per cell: each prediction profiles every warp's stream (0.05-
 *    0.3 s; atax's 32 lines per instruction take 2 s), so 25 workloads
 *    would take minutes;
 *  - directory (gpu-vi), recall (gpu-vini), lifetime (tcs, one run per
 *    point): the coherence section's workloads (--coh-workloads), 5
 *    points per cell, the fewest that calibrate on a fifth of each cell.
 * Runs stop at 100k cycles (the coherence models' at 50k, as the
 * coherence section's; lifetime's after 100k warp instructions, so that
 * every lifetime covers the same program), or sim.max_cycles when lower;
 * the study's sim.seed seeds them.  The full-size validations are the
 * commands of scripts/make_validity.sh (`cohmod validate mshr --design
 * lhs:200`, ...: 300k-cycle runs, every workload).  Recall needs its
 * directory to have evicted, which runs shorter than 20k cycles do not
 * do: below that the summary says so instead.  Each model's files go to
 * validate_<model>/, and the summary reports the held-out errors
 * against the targets, per preset, and names the workloads
 * beyond twice their target.  Their simulations are points of the study
 * (study.h): a shard runs those of its slice. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "data/sweep.h"
#include "data/workload.h"
#include "study/study.h"
#include "study/validate.h"

#define RUN_CYCLES 100000
#define COH_RUN_CYCLES 50000
#define LIFETIME_INSTRUCTIONS 100000
#define RECALL_MIN_CYCLES 20000
#define MAX_WL 32
#define MAX_PRESETS 8

static const char *const reuse_workloads[] = {"kmn", "bfs", "cfd",
                                              "scluster"};

typedef enum wl_set { WL_ALL, WL_REUSE, WL_COH } wl_set;

static const struct study_val {
    const cm_validate_model *model;
    const char *protocol;
    wl_set workloads;
    size_t per_cell;
} vals[] = {{&cm_validate_mshr, "no-coh", WL_ALL, 3},
            {&cm_validate_reuse, "no-coh", WL_REUSE, 3},
            {&cm_validate_directory, "gpu-vi", WL_COH, 5},
            {&cm_validate_recall, "gpu-vini", WL_COH, 5},
            {&cm_validate_lifetime, "tcs", WL_COH, 5}};
#define NVALS (sizeof vals / sizeof *vals)

/* The workloads of one validation. */
static cm_status workloads_of(const struct study_val *v,
                              const char *coh_workloads, const char **names,
                              size_t *n, cm_err *err)
{
    *n = 0;
    if (v->workloads == WL_REUSE) {
        *n = sizeof reuse_workloads / sizeof *reuse_workloads;
        memcpy(names, reuse_workloads, sizeof reuse_workloads);
        return CM_OK;
    }
    if (v->workloads == WL_ALL) {
        for (size_t i = 0; i < cm_workload_builtin_count() && *n < MAX_WL;
             i++)
            names[(*n)++] = cm_workload_builtin_name(i);
        return CM_OK;
    }
    int selected[CM_STUDY_COH_NWL];
    cm_status st = cm_study_coh_workloads(coh_workloads, selected, err);
    for (size_t w = 0; !st && w < CM_STUDY_COH_NWL; w++)
        if (selected[w]) names[(*n)++] = cm_study_coh_workload_name(w);
    return st;
}

/* The points of validation v: its cells times its points per cell. */
static cm_status count_points(const struct study_val *v,
                              const char *coh_workloads, size_t *n,
                              cm_err *err)
{
    const char *names[MAX_WL];
    size_t nwl;
    cm_status st = workloads_of(v, coh_workloads, names, &nwl, err);
    if (!st) *n = nwl * cm_preset_count() * v->per_cell;
    return st;
}

cm_status cm_study_sim_points(const char *coh_workloads, size_t *n,
                              cm_err *err)
{
    *n = 0;
    for (size_t i = 0; i < NVALS; i++) {
        size_t k;
        cm_status st = count_points(&vals[i], coh_workloads, &k, err);
        if (st) return st;
        *n += k;
    }
    return CM_OK;
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

/* Each shipped preset's machine, with the study's run length and seed. */
static cm_status machines(const cm_study *s, const struct study_val *v,
                          cm_params *bases, const char **names, size_t *n,
                          cm_err *err)
{
    double cap = strcmp(v->protocol, "no-coh") ? COH_RUN_CYCLES : RUN_CYCLES;
    *n = 0;
    for (size_t b = 0; b < cm_preset_count() && b < MAX_PRESETS; b++) {
        cm_params *p = &bases[b];
        cm_params_init(p);
        names[b] = cm_preset_name(b);
        cm_status st = cm_params_load(p, names[b], err);
        if (st) return st;
        p->sim_seed = s->params->sim_seed;
        p->sim_max_cycles = fmin(cap, s->params->sim_max_cycles);
        if (v->model == &cm_validate_lifetime) { /* the same program */
            p->sim_max_instructions = LIFETIME_INSTRUCTIONS;
            p->sim_max_cycles = s->params->sim_max_cycles;
        }
        (*n)++;
    }
    return CM_OK;
}

/* The workloads beyond twice their target, in one line. */
static cm_status say_missed(cm_study *s, const cm_validate_model *m,
                            const cm_validate_summary *sum, cm_err *err)
{
    char line[2048];
    size_t k = 0;
    for (size_t g = 0; g < sum->ngroups; g++) {
        const struct cm_validate_group *x = &sum->group[g];
        int missed = 0;
        for (size_t q = 0; q < m->nqty; q++) missed |= x->met[q] == 0;
        if (x->preset || !missed || k >= sizeof line) continue;
        int w = snprintf(line + k, sizeof line - k, "%s%s", k ? ", " : "",
                         x->name);
        k += w > 0 ? (size_t)w : 0;
    }
    return cm_study_say(s, err, "  workloads beyond twice a target "
                        "(summary_workloads.csv): %s", k ? line : "none");
}

static cm_status validate_one(cm_study *s, const struct study_val *v,
                              size_t first, cm_err *err)
{
    const cm_validate_model *m = v->model;
    const char *names[MAX_WL], *base_names[MAX_PRESETS];
    cm_params bases[MAX_PRESETS];
    size_t nwl = 0, nbases = 0;
    char dir[4096];
    cm_status st = workloads_of(v, s->coh_workloads, names, &nwl, err);
    if (!st) st = machines(s, v, bases, base_names, &nbases, err);
    if (!st && (size_t)snprintf(dir, sizeof dir, "%s/validate_%s", s->outdir,
                                m->name) >= sizeof dir)
        st = cm_err_set(err, CM_EINPUT, "output directory name too long");
    if (st) return st;
    if (m == &cm_validate_recall &&
        s->params->sim_max_cycles < RECALL_MIN_CYCLES)
        return s->mode == CM_RUN_SHARD
                   ? CM_OK
                   : cm_study_say(s, err, "\nrecall model against the "
                                  "simulator: not validated: runs of %.0f "
                                  "cycles (sim.max_cycles) are too short for "
                                  "the directory to evict (%d at least)",
                                  s->params->sim_max_cycles,
                                  RECALL_MIN_CYCLES);
    cm_validate_config c = {.base = &bases[0],
                            .bases = bases,
                            .base_names = base_names,
                            .nbases = nbases,
                            .model = m,
                            .design_n = nwl * nbases * v->per_cell,
                            .design_seed = 1,
                            .workloads = names,
                            .nworkloads = nwl,
                            .protocol = cm_protocol_find(v->protocol),
                            .outdir = dir,
                            .replicates = 1,
                            .mode = s->mode,
                            .ranged = 1,
                            .resume = s->resume,
                            .progress = s->progress,
                            .progress_arg = s->progress_arg};
    sub_range(s, first, cm_validate_points(&c), &c.first, &c.end);
    cm_validate_summary sum;
    st = cm_validate_run(&c, &sum, err);
    if (st || s->mode == CM_RUN_SHARD) return st;
    st = cm_study_say(s, err,
                      "\n%s model against the simulator (validate_%s/, "
                      "%s): %zu points, a Latin hypercube over %zu "
                      "workloads x %zu presets, calibrated on %zu:",
                      m->name, m->name, v->protocol, sum.points, nwl, nbases,
                      sum.calibration_points);
    for (size_t q = 0; !st && q < m->nqty; q++) {
        char line[1024];
        cm_validate_summary_line(&m->qty[q], &sum, q, line, sizeof line);
        st = cm_study_say(s, err, "  %s", line);
    }
    if (!st && sum.calib_note[0])
        st = cm_study_say(s, err, "  calibration: %s", sum.calib_note);
    for (size_t g = 0; !st && g < sum.ngroups; g++) {
        if (!sum.group[g].preset) continue;
        char line[1024];
        cm_validate_group_line(m, &sum.group[g], line, sizeof line);
        st = cm_study_say(s, err, "  on %s", line);
    }
    return st ? st : say_missed(s, m, &sum, err);
}

cm_status cm_study_section_sim(cm_study *s, size_t first, cm_err *err)
{
    cm_status st = CM_OK;
    for (size_t i = 0; !st && i < NVALS; i++) {
        size_t n;
        st = count_points(&vals[i], s->coh_workloads, &n, err);
        if (!st) st = validate_one(s, &vals[i], first, err);
        first += n;
    }
    return st;
}
