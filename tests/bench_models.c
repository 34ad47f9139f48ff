/* bench_models.c - each validated model's speed against the simulator's at
 * the same design point (issue 26: at least 10^5 times faster).
 *
 * Per model, on the tc2013 machine: one simulation of the point with the
 * run length its validation uses (MSHR and L1 models: 300k cycles on kmn;
 * the coherence models: bh, 100k cycles, the lifetime model's 300k warp
 * instructions, the predictor's 300k cycles), its observation, the
 * calibration on that one observation, then the model's prediction of
 * the point repeated for half a second.  Both are timed in CPU seconds of
 * this process (wall time moves with the other work on a shared
 * machine).  The prediction is everything the validation calls per point
 * (for the profile models, reading the profile into the model's inputs
 * too).
 *
 * Two ratios, simulation time over one prediction's time.  The target is
 * on the second:
 *  - against the validation's run, a cut a few hundred thousand cycles
 *    long that keeps validations cheap;
 *  - against the whole workload at the registry defaults, without the
 *    profile: what a user simulates to answer the design point (kmn and bh
 *    run 2-6M cycles to completion).  Each (protocol, workload) is run
 *    once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/workload.h"
#include "sim/gpu.h"
#include "sim/protocol.h"
#include "study/validate.h"
#include "tests/benchutil.h"

#define TARGET 1e5

static const struct {
    const cm_validate_model *model;
    const char *label, *protocol, *workload;
    const char *set; /* the validation's run length */
} cases[] = {
    {&cm_validate_mshr, "mshr", "no-coh", "kmn", "sim.max_cycles=300000"},
    {&cm_validate_reuse, "reuse (L1)", "no-coh", "kmn",
     "sim.max_cycles=300000"},
    {&cm_validate_directory, "directory", "gpu-vi", "bh",
     "sim.max_cycles=100000"},
    {&cm_validate_recall, "recall", "gpu-vini", "bh", "sim.max_cycles=100000"},
    {&cm_validate_lifetime, "lifetime (tcs)", "tcs", "bh",
     "sim.max_instructions=300000"},
    {&cm_validate_lifetime, "lifetime (tcw-fixed)", "tcw-fixed", "bh",
     "sim.max_instructions=300000"},
    {&cm_validate_lifetime_predictor, "lifetime predictor (tcw)", "tcw", "bh",
     "sim.max_cycles=300000"}};

/* CPU seconds of the whole workload under the registry defaults; < 0 on
 * error (printed) */
static double bench_whole_run(const cm_workload_profile *w,
                              const cm_protocol *proto)
{
    cm_params p;
    cm_params_init(&p);
    cm_stats *stats = cm_stats_new();
    cm_gpu_run_config cfg = {.params = &p, .workload = w, .protocol = proto};
    cm_gpu_result res;
    cm_err err = {0};
    double t0 = bench_cpu_now();
    cm_status st = stats ? cm_gpu_run(&cfg, stats, &res, &err) : CM_EINTERNAL;
    double t = bench_cpu_now() - t0;
    cm_stats_free(stats);
    if (st) printf("model.speed whole run of %s: %s\n", w->name, err.msg);
    return st ? -1 : t;
}

/* the whole run's time for case k, from an earlier case of the same
 * protocol and workload where there is one */
static double bench_whole_for(size_t k, double *whole)
{
    for (size_t i = 0; i < k; i++)
        if (whole[i] > 0 && !strcmp(cases[i].protocol, cases[k].protocol) &&
            !strcmp(cases[i].workload, cases[k].workload))
            return whole[k] = whole[i];
    return whole[k] = bench_whole_run(cm_workload_builtin(cases[k].workload),
                                      cm_protocol_find(cases[k].protocol));
}

static void bench_case(size_t k, double *whole)
{
    const cm_validate_model *m = cases[k].model;
    cm_params p;
    cm_params_init(&p);
    cm_err err = {0};
    void *obs = calloc(1, m->obs_size), *state = NULL;
    cm_profile *prof = NULL;
    cm_table *calib = NULL;
    double mv[CM_VALIDATE_MAXQ], sv[CM_VALIDATE_MAXQ], lo[CM_VALIDATE_MAXQ],
        hi[CM_VALIDATE_MAXQ];
    cm_status st = obs ? cm_params_assign(&p, cases[k].set, &err) : CM_EINTERNAL;
    double t0 = bench_cpu_now();
    if (!st)
        st = cm_validate_observe_one(
            m, &p, cm_workload_builtin(cases[k].workload),
            cm_protocol_find(cases[k].protocol), obs, &prof, &err);
    double sim = bench_cpu_now() - t0;
    if (!st) st = m->calibrate(obs, 1, m->obs_size, &state, &calib, &err);
    long calls = 0;
    double model = 0;
    t0 = bench_cpu_now();
    while (!st && (model = bench_cpu_now() - t0) < 0.5) {
        st = m->predict(state, obs, mv, sv, lo, hi, &err);
        calls++;
    }
    if (st) {
        printf("model.speed %-26s %s on %s: %s\n", cases[k].label,
               cases[k].protocol, cases[k].workload, err.msg);
    } else {
        double each = model / (double)calls, full = bench_whole_for(k, whole);
        printf("model.speed %-24s %-9s %-3s model %8.2f us  validation run "
               "%5.3f s, ratio %8.3g  whole run %6.2f s, ratio %8.3g  "
               "(target >= 1e5 against the whole run: %s)\n",
               cases[k].label, cases[k].protocol, cases[k].workload,
               1e6 * each, sim, sim / each, full, full / each,
               full > 0 && full / each >= TARGET ? "met" : "NOT met");
    }
    if (state) m->free_state(state);
    cm_table_free(calib);
    free(obs);
    cm_profile_free(prof);
}

/* COHMOD_BENCH_MODELS=name,... picks cases by their label's first word
 * (mshr, reuse, directory, recall, lifetime) or by protocol (tcw-fixed) */
static int bench_picked(size_t k)
{
    const char *list = getenv("COHMOD_BENCH_MODELS");
    if (!list || !*list) return 1;
    size_t lw = strcspn(cases[k].label, " ");
    for (const char *s = list; *s; s += *s == ',') {
        size_t n = strcspn(s, ",");
        if ((n == lw && !strncmp(s, cases[k].label, n)) ||
            (n == strlen(cases[k].protocol) &&
             !strncmp(s, cases[k].protocol, n)))
            return 1;
        s += n;
    }
    return 0;
}

void bench_models(void)
{
    double whole[sizeof cases / sizeof *cases] = {0};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        if (!bench_picked(k)) continue;
        bench_case(k, whole);
        fflush(stdout);
    }
}
