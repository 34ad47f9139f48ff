/* bench_mshr.c - MSHR-model solutions per second on one core.
 * Target (issue 2): at least 100,000 solutions/s on the default machine. */
#include <stdio.h>

#include "data/params.h"
#include "models/mshr.h"
#include "tests/benchutil.h"

typedef struct bench_arg {
    cm_mshr_input in;
    cm_mshr_ws *ws;
    double rates[8];
    unsigned i;
    volatile double sink;
} bench_arg;

static void solve_once(void *p)
{
    bench_arg *a = p;
    cm_mshr_result r;
    /* Vary the load so no two consecutive solves are identical. */
    a->in.mem_rate = a->rates[a->i++ & 7];
    if (cm_mshr_solve(&a->in, a->ws, &r, NULL, NULL) == CM_OK)
        a->sink += r.mean_occupancy;
}

static void bench_case(const char *label, cm_params *p)
{
    static const double rates[8] = {0.002, 0.005, 0.01, 0.02,
                                    0.03,  0.05,  0.08, 0.12};
    bench_arg a = {0};
    cm_mshr_input_from_params(p, &a.in);
    for (int i = 0; i < 8; i++) a.rates[i] = rates[i];
    a.ws = cm_mshr_ws_new();
    double rate = bench_rate(solve_once, &a, 1.0);
    printf("mshr.solve %-34s %12.0f solutions/s  (%.2f us each, %zu "
           "slots)\n", label, rate, 1e6 / rate,
           (size_t)(a.in.warps * a.in.max_outstanding * a.in.reqs_per_inst));
    cm_mshr_ws_free(a.ws);
}

void bench_mshr(void)
{
    cm_params p;
    cm_params_init(&p);
    bench_case("tc2013 default (48 warps, r=2)", &p);
    p.l1_mshrs = 32;
    bench_case("tc2013, 32 MSHRs", &p);
    cm_params_init(&p);
    p.wl_reqs_per_inst = 8;
    bench_case("tc2013, divergent (r=8)", &p);
}
