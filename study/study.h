/* study.h - `cohmod study`: the main job.
 *
 * Runs every study section on one machine (the embedded tc2013 by default)
 * and writes, into one output directory, each section's CSVs, its figures
 * (PNG and SVG), the parameter dump (params.csv), summary.txt (a short
 * plain-text account of what the study found) and report.html (all of it
 * on one self-contained page).  Each file is written
 * atomically.  Sections: MSHR models, reuse of a real trace, models
 * against the simulator, coherence protocols (coh/). */
#ifndef CM_STUDY_H
#define CM_STUDY_H

#include <stddef.h>

#include "data/err.h"
#include "data/params.h"
#include "data/shard.h"
#include "data/table.h"
#include "models/mshr_grid.h"
#include "plots/plot.h"

typedef struct cm_study {
    const cm_params *params;
    const char *outdir;
    const char *trace; /* real trace for the reuse section, or NULL */
    const char *coh_workloads; /* the coherence section's workloads: a
                                * comma-separated list, "all", or NULL for
                                * its default four */
    cm_progress_fn progress;
    void *progress_arg;
    char *summary; /* built by the sections */
    size_t len, cap;
    size_t files; /* files written so far */
    /* The run (data/shard.h): its mode, the study's points it runs,
     * [first, end), and whether finished points are kept (resume). */
    cm_run_mode mode;
    size_t first, end;
    int resume;
} cm_study;

/* The study's points, in the order of a whole run: the MSHR section, the
 * reuse section, each simulation of the two validations (study_sim.c),
 * the coherence section.  A section that is one point keeps its part of
 * the summary in outdir/runs/<section>.txt, written when it is complete;
 * the validations keep theirs in validate_<model>/runs/ (validate.h).  So
 * a shard (plan mode SHARD) runs its slice of the points and writes no
 * summary nor validation results, merge (FINISH) makes them from the
 * shards' files, and resume skips what a killed run finished.  plan NULL:
 * a whole run with no manifest; else outdir/run.csv records it. */
cm_status cm_study_run(const cm_params *p, const char *outdir,
                       const char *trace, const char *coh_workloads,
                       const cm_run_plan *plan, cm_progress_fn progress,
                       void *progress_arg, cm_err *err);

/* report.html in outdir: the summary, every figure the study drew there
 * (its SVG inline, with its caption) and the key tables.  CM_EINPUT when
 * a figure is missing; CM_EINTERNAL for a figure with no caption. */
cm_status cm_study_report(const char *outdir, const char *summary,
                          cm_err *err);

/* The study's points (the validations' simulations and the three
 * one-point sections), for the coherence workloads given as to
 * cm_study_run. */
cm_status cm_study_points(const char *coh_workloads, size_t *n,
                          cm_err *err);

/* The coherence section's workloads: selected[w] for each of its twelve
 * (bh cc cl dlb stn vpr hsp kmn lps ndl rg sr), from spec as for
 * cm_study_run; CM_EINPUT naming an unknown one. */
#define CM_STUDY_COH_NWL 12
cm_status cm_study_coh_workloads(const char *spec,
                                 int selected[CM_STUDY_COH_NWL], cm_err *err);
/* The name of the coherence section's workload w < CM_STUDY_COH_NWL. */
const char *cm_study_coh_workload_name(size_t w);

/* For sections: write outdir/<name>.csv, draw outdir/<name>.png and .svg,
 * and add a line to the summary. */
cm_status cm_study_write_table(cm_study *s, const char *name,
                               const cm_table *t, cm_err *err);
cm_status cm_study_figure(cm_study *s, const char *name, const cm_table *t,
                          const cm_plot_table_opts *o, cm_err *err);
cm_status cm_study_say(cm_study *s, cm_err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Draws a figure built series by series (when a table's columns are not
 * the right shape) to outdir/<name>.png and .svg. */
cm_status cm_study_render(cm_study *s, const char *name,
                          const cm_plot_spec *spec, cm_err *err);

/* The sections. */
cm_status cm_study_section_mshr(cm_study *s, cm_err *err);
cm_status cm_study_section_reuse(cm_study *s, cm_err *err);
/* The validations, their points numbered from first (study_sim.c);
 * *n: their number. */
cm_status cm_study_section_sim(cm_study *s, size_t first, cm_err *err);
cm_status cm_study_sim_points(const char *coh_workloads, size_t *n,
                              cm_err *err);
cm_status cm_study_section_coh(cm_study *s, cm_err *err);

#endif
