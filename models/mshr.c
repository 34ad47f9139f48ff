/* mshr.c - L1 MSHR occupancy of a GPU SM as a closed queueing network.
 *
 * Follows spec/models.md section 1 and the resource picture of seed 002
 * (Dong Li, ch. 4: a missing request must reserve an L1 MSHR entry, unless
 * it merges into an entry for the same line, and holds it for the whole
 * round trip; a failed reservation stalls the memory pipeline).
 *
 * The network.  An SM runs W active warps; each may have k memory
 * instructions in flight, so it holds N_tok = W k tokens.  A token thinks
 * (computes) for Z = k / lambda cycles, then issues a memory instruction of r
 * line requests.  A request misses with probability m; a miss joins an entry
 * already in flight for its line with probability q, up to M requests per
 * entry.  Misses to one in-flight line form a chain whose length is
 * geometric with continuation q, and a chain of length L occupies
 * ceil(L / M) entries, so the entries allocated per miss are
 *     a = E[ceil(L/M)] / E[L] = (1 - q) / (1 - q^M),
 * and a request allocates with probability p = m a.
 *
 * The MSHR station.  Each of the N = round(W k r) request slots is a source
 * of a finite-source queue: it stays idle for Z_s, then needs an entry and
 * holds it for the memory latency T.  A slot allocates once per 1/p of its
 * token's cycles on average, and between its own allocations it also sits
 * out its sibling slots' memory phases, so
 *     Z_s = Z / p + (1/p - 1) D,   D = P_any T + (1 - P_any) t_hit,
 *     P_any = 1 - (1 - p)^r  (the instruction has at least one allocation).
 * With E entries as servers the station is the machine-repairman queue
 * M/M/E/K/N: K = N when a miss that finds every entry busy waits in order
 * (the memory pipeline stalls), K = E when it is replayed later (Engset).
 *
 * The memory system.  Allocations of all S SMs (symmetric) are spread evenly
 * over B L2 banks and, after an L2 miss ratio m2, over C DRAM channels.  Each
 * of the reply port of a bank, the reply port into an SM, the L2 bank's
 * in-order tag pipeline and a DRAM channel is an M/G/1 station with the
 * Pollaczek-Khinchine wait (deterministic service by default), so
 *     T(X) = (1 - m2) t_L2 + m2 t_DRAM + W_port,bank + W_port,SM + W_L2
 *            + m2 W_DRAM + t_extra,
 * where X is the SM's allocation rate.
 *
 * The coupling.  X falls as T grows (the closed loop throttles the warps)
 * and T grows with X (queueing), so T* is the unique root of
 * g(T) = T - T(X(T)); it is bracketed by doubling from the unloaded latency
 * and found with GSL's Brent solver.
 *
 * Assumptions, to be read before trusting a number:
 *  - exponential think and holding times (product form); the simulator's
 *    holding times are closer to deterministic, which the calibrated inputs
 *    absorb;
 *  - request slots are independent, so the burstiness of the r requests of
 *    one instruction is not modelled (it raises real P(full));
 *  - waits for an MSHR are charged to the waiting slot only;
 *  - L2 MSHRs and the DRAM queue are reported as utilisations but do not
 *    add latency;
 *  - all SMs are alike and the L2 banks and channels are evenly loaded.
 * Calibrated from simulation (params.def marks them): l2.latency,
 * dram.latency, wl.merge_prob, model.svc_scv, model.dram_efficiency,
 * model.extra_latency.
 *
 * Outputs: the occupancy distribution P(busy = j), its mean, P(all busy)
 * (time average) and the reservation-fail probability (arrival average, by
 * the arrival theorem: arrivals see the queue weighted by idle sources),
 * throughput, latencies, utilisations and the bottleneck.  Little's law
 * mean busy = X T holds exactly. */
#include "models/mshr.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/queue.h"

struct cm_mshr_ws {
    double *pmf;
    size_t cap;
    gsl_root_fsolver *brent;
};

static const char *const resource_names[CM_RES_COUNT] = {
    "warps", "l1_mshr", "noc", "l2", "l2_mshr", "dram"};

const char *cm_mshr_resource_name(cm_mshr_resource r)
{
    return r < CM_RES_COUNT ? resource_names[r] : "?";
}

void cm_mshr_input_from_params(const cm_params *p, cm_mshr_input *in)
{
    memset(in, 0, sizeof *in);
    in->warps = fmin(p->sched_active_warps, p->gpu_warps_per_sm);
    in->max_outstanding = p->wl_max_outstanding;
    in->mem_rate = p->wl_mem_rate;
    in->reqs_per_inst = p->wl_reqs_per_inst;
    in->l1_miss = p->wl_l1_miss_ratio;
    in->merge_prob = p->wl_merge_prob;
    in->merge_limit = p->l1_mshr_merge;
    in->mshrs = p->l1_mshrs;
    in->hit_latency = p->l1_hit_latency;
    in->full_policy = p->model_mshr_full != 0 ? CM_MSHR_REPLAY : CM_MSHR_WAIT;
    in->sms = p->gpu_sms;
    in->l2_miss = p->wl_l2_miss_ratio;
    in->lat_l2 = p->l2_latency;
    in->lat_dram = p->dram_latency;
    in->extra_latency = p->model_extra_latency;
    in->banks = p->l2_banks;
    in->channels = p->dram_channels;
    in->l2_mshrs_per_bank = p->l2_mshrs;

    /* A read reply carries the line and a header, in whole flits, over a
     * port of noc.port_bytes per NoC cycle. */
    double reply_flits = ceil((p->l1_line + p->noc_header) / p->noc_flit);
    double noc_cycle = p->gpu_core_clock / p->noc_clock; /* core cycles */
    in->svc_noc_bank = reply_flits * p->noc_flit / p->noc_port_bytes * noc_cycle;
    in->svc_noc_sm = in->svc_noc_bank;
    in->svc_l2 = p->gpu_core_clock / p->l2_clock;
    double dram_bytes_per_cycle = p->dram_bus_bytes * p->dram_data_rate *
                                  p->model_dram_efficiency;
    in->svc_dram = p->l2_line / dram_bytes_per_cycle * p->gpu_core_clock /
                   p->dram_clock;
    in->svc_scv = p->model_svc_scv;
    in->line_bytes = p->l1_line;
    in->core_clock_mhz = p->gpu_core_clock;
}

void cm_mshr_param_range(const cm_params *p, const cm_param_info *pi,
                         double *lo, double *hi)
{
    *lo = pi->min;
    *hi = pi->max;
    if (!strcmp(pi->name, "model.extra_latency"))
        *lo = fmax(*lo, 1 - fmin(p->l2_latency, p->dram_latency));
}

cm_mshr_ws *cm_mshr_ws_new(void)
{
    cm_mshr_ws *ws = calloc(1, sizeof *ws);
    if (!ws) return NULL;
    ws->brent = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (!ws->brent) {
        free(ws);
        return NULL;
    }
    return ws;
}

void cm_mshr_ws_free(cm_mshr_ws *ws)
{
    if (!ws) return;
    free(ws->pmf);
    gsl_root_fsolver_free(ws->brent);
    free(ws);
}

/* ---- the memory system: latency as a function of the SM's miss rate ---- */

typedef struct memsys_state {
    double latency;  /* T(X), +inf when a station is overloaded */
    double rho_noc, rho_l2, rho_dram, util_l2_mshr;
} memsys_state;

/* M/G/1 wait at one station; +inf at or past saturation. */
static double station_wait(double lambda, double svc, double scv, double *rho)
{
    *rho = lambda * svc;
    if (svc <= 0 || lambda <= 0) return 0;
    if (*rho >= 1) return INFINITY;
    double wq;
    if (cm_mg1_wait(lambda, svc, scv, &wq, NULL) != CM_OK) return INFINITY;
    return wq;
}

static memsys_state memsys_eval(const cm_mshr_input *in, double x)
{
    memsys_state s;
    double per_bank = in->sms * x / in->banks;
    double per_channel = in->sms * x * in->l2_miss / in->channels;
    double rho_bank_port, rho_sm_port;
    double w_bank_port = station_wait(per_bank, in->svc_noc_bank, in->svc_scv,
                                      &rho_bank_port);
    double w_sm_port = station_wait(x, in->svc_noc_sm, in->svc_scv,
                                    &rho_sm_port);
    double w_l2 = station_wait(per_bank, in->svc_l2, in->svc_scv, &s.rho_l2);
    double w_dram = station_wait(per_channel, in->svc_dram, in->svc_scv,
                                 &s.rho_dram);
    s.rho_noc = fmax(rho_bank_port, rho_sm_port);
    double unloaded = (1 - in->l2_miss) * in->lat_l2 +
                      in->l2_miss * in->lat_dram + in->extra_latency;
    s.latency = unloaded + w_bank_port + w_sm_port + w_l2 +
                in->l2_miss * w_dram;
    /* An L2 miss holds an L2 MSHR from its miss until DRAM returns. */
    double l2_hold = fmax(in->lat_dram - in->lat_l2, 0) + w_dram;
    s.util_l2_mshr = per_bank * in->l2_miss * l2_hold / in->l2_mshrs_per_bank;
    return s;
}

/* ---- the MSHR station: throughput as a function of the latency ---- */

typedef struct mshr_net {
    const cm_mshr_input *in;
    unsigned long sources, servers, places;
    double p_alloc, p_any;
    double think; /* Z, per token */
} mshr_net;

static double slot_idle_time(const mshr_net *net, double T)
{
    const cm_mshr_input *in = net->in;
    double d_other = net->p_any * T + (1 - net->p_any) * in->hit_latency;
    return net->think / net->p_alloc + (1 / net->p_alloc - 1) * d_other;
}

static cm_status station_solve(const mshr_net *net, double T, double *pmf,
                               cm_queue_metrics *m, cm_err *err)
{
    double zs = slot_idle_time(net, T);
    return cm_mmckn_solve(net->servers, net->places, net->sources, 1 / zs,
                          1 / T, pmf, m, err);
}

typedef struct root_ctx {
    const mshr_net *net;
    cm_status status;
    cm_err *err;
} root_ctx;

/* g(T) = T - T(X(T)), increasing in T.  An overloaded memory system gives a
 * huge finite negative value so that Brent keeps a finite bracket. */
static double coupling_gap(double T, void *arg)
{
    root_ctx *rc = arg;
    cm_queue_metrics m;
    cm_status st = station_solve(rc->net, T, NULL, &m, rc->err);
    if (st != CM_OK) {
        rc->status = st;
        return GSL_NAN;
    }
    double lat = memsys_eval(rc->net->in, m.throughput).latency;
    return T - fmin(lat, 1e300);
}

static cm_status check_input(const cm_mshr_input *in, cm_err *err)
{
    struct { const char *name; double v, lo, hi; } checks[] = {
        {"warps", in->warps, 1, 1e6},
        {"max_outstanding", in->max_outstanding, 1, 1e6},
        {"mem_rate", in->mem_rate, 1e-12, 1e6},
        {"reqs_per_inst", in->reqs_per_inst, 1, 1e6},
        {"l1_miss", in->l1_miss, 0, 1},
        {"merge_prob", in->merge_prob, 0, 0.999999},
        {"merge_limit", in->merge_limit, 1, 1e9},
        {"mshrs", in->mshrs, 1, 1e7},
        {"hit_latency", in->hit_latency, 0, 1e9},
        {"sms", in->sms, 1, 1e7},
        {"l2_miss", in->l2_miss, 0, 1},
        {"lat_l2", in->lat_l2, 0, 1e9},
        {"lat_dram", in->lat_dram, 0, 1e9},
        {"banks", in->banks, 1, 1e7},
        {"channels", in->channels, 1, 1e7},
        {"l2_mshrs_per_bank", in->l2_mshrs_per_bank, 1, 1e9},
        {"svc_noc_bank", in->svc_noc_bank, 0, 1e9},
        {"svc_noc_sm", in->svc_noc_sm, 0, 1e9},
        {"svc_l2", in->svc_l2, 0, 1e9},
        {"svc_dram", in->svc_dram, 0, 1e9},
        {"svc_scv", in->svc_scv, 0, 1e6},
    };
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++)
        if (!(checks[i].v >= checks[i].lo && checks[i].v <= checks[i].hi))
            return cm_err_set(err, CM_EINPUT,
                              "mshr model: %s = %g is outside [%g, %g]",
                              checks[i].name, checks[i].v, checks[i].lo,
                              checks[i].hi);
    double unloaded = (1 - in->l2_miss) * in->lat_l2 +
                      in->l2_miss * in->lat_dram + in->extra_latency;
    if (!(unloaded > 0))
        return cm_err_set(err, CM_EINPUT,
                          "mshr model: the unloaded miss latency %g must be "
                          "positive", unloaded);
    if (in->warps * in->max_outstanding * in->reqs_per_inst > 1e7)
        return cm_err_set(err, CM_EINPUT,
                          "mshr model: more than 1e7 request slots");
    return CM_OK;
}

static cm_status ws_reserve(cm_mshr_ws *ws, size_t n, cm_err *err)
{
    if (n <= ws->cap) return CM_OK;
    double *p = realloc(ws->pmf, n * sizeof *p);
    if (!p) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    ws->pmf = p;
    ws->cap = n;
    return CM_OK;
}

/* Finds T* in [lo, ...) by doubling the upper end, then Brent. */
static cm_status find_latency(cm_mshr_ws *ws, root_ctx *rc, double lo,
                              double *root, int *iterations)
{
    gsl_function f = {coupling_gap, rc};
    double glo = coupling_gap(lo, rc);
    if (rc->status) return rc->status;
    if (glo >= -1e-12 * lo) { /* no queueing at all */
        *root = lo;
        *iterations = 0;
        return CM_OK;
    }
    double hi = 2 * lo;
    while (coupling_gap(hi, rc) <= 0) {
        if (rc->status) return rc->status;
        lo = hi;
        hi *= 2;
        if (hi > 1e15)
            return cm_err_set(rc->err, CM_EINTERNAL,
                              "mshr model: no latency fixed point below 1e15 "
                              "cycles");
    }
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int gst = gsl_root_fsolver_set(ws->brent, &f, lo, hi);
    int it = 0;
    while (gst == GSL_SUCCESS && it < 200) {
        it++;
        gst = gsl_root_fsolver_iterate(ws->brent);
        if (gst != GSL_SUCCESS || rc->status) break;
        double a = gsl_root_fsolver_x_lower(ws->brent);
        double b = gsl_root_fsolver_x_upper(ws->brent);
        if (gsl_root_test_interval(a, b, 0, 1e-12) == GSL_SUCCESS) break;
    }
    gsl_set_error_handler(old);
    if (rc->status) return rc->status;
    if (gst != GSL_SUCCESS)
        return cm_err_set(rc->err, CM_EINTERNAL,
                          "mshr model: root finder failed: %s",
                          gsl_strerror(gst));
    *root = gsl_root_fsolver_root(ws->brent);
    *iterations = it;
    return CM_OK;
}

static void fill_no_misses(const cm_mshr_input *in, double unloaded,
                           cm_mshr_result *res, double *occupancy_pmf)
{
    res->latency_mem = res->latency_eff = unloaded;
    res->inst_rate = in->warps * in->mem_rate;
    res->issue_fraction = 1;
    if (occupancy_pmf) {
        memset(occupancy_pmf, 0, ((size_t)in->mshrs + 1) * sizeof(double));
        occupancy_pmf[0] = 1;
    }
}

cm_status cm_mshr_solve(const cm_mshr_input *in, cm_mshr_ws *ws,
                        cm_mshr_result *res, double *occupancy_pmf,
                        cm_err *err)
{
    cm_status st = check_input(in, err);
    if (st) return st;
    memset(res, 0, sizeof *res);

    double q = in->merge_prob, M = in->merge_limit;
    double per_miss = (1 - q) / (1 - pow(q, M)); /* a = 1 when q = 0 */
    mshr_net net = {.in = in};
    net.p_alloc = in->l1_miss * per_miss;
    net.p_any = 1 - pow(1 - net.p_alloc, in->reqs_per_inst);
    net.think = in->max_outstanding / in->mem_rate;
    double slots = round(in->warps * in->max_outstanding * in->reqs_per_inst);
    net.sources = (unsigned long)fmax(slots, 1);
    unsigned long E = (unsigned long)in->mshrs;
    net.servers = E < net.sources ? E : net.sources;
    net.places = in->full_policy == CM_MSHR_WAIT ? net.sources : net.servers;
    res->sources = net.sources;

    memsys_state idle = memsys_eval(in, 0);
    if (net.p_alloc <= 0) {
        fill_no_misses(in, idle.latency, res, occupancy_pmf);
        return CM_OK;
    }

    root_ctx rc = {&net, CM_OK, err};
    double T = idle.latency;
    st = find_latency(ws, &rc, idle.latency, &T, &res->iterations);
    if (st) return st;

    st = ws_reserve(ws, net.places + 1, err);
    cm_queue_metrics m;
    if (!st) st = station_solve(&net, T, ws->pmf, &m, err);
    if (st) return st;

    /* Entries busy = min(n, E); arrivals see the queue weighted by the
     * number of idle sources (arrival theorem).  Near saturation the mass
     * sits at n >= E, and summing it keeps every term's rounding: P(full)
     * read 1.0000000000000004 and 8 busy entries 8.000000000000004.  The
     * states below E then hold little mass, summed accurately, so the full
     * side follows from its complement: results stay within [0, 1] and
     * [0, E], and a file that is always full reads exactly full. */
    double busy = 0, p_full = 0, arrivals = 0, arrivals_full = 0;
    double below = 0, deficit = 0, arrivals_below = 0;
    if (occupancy_pmf) memset(occupancy_pmf, 0, (E + 1) * sizeof(double));
    for (unsigned long n = 0; n <= net.places; n++) {
        double pn = ws->pmf[n];
        unsigned long b = n < E ? n : E;
        busy += (double)b * pn;
        double w = (double)(net.sources - n) * pn;
        arrivals += w;
        if (n >= E) {
            p_full += pn;
            arrivals_full += w;
        } else {
            below += pn;
            deficit += (double)(E - n) * pn;
            arrivals_below += w;
        }
        if (occupancy_pmf) occupancy_pmf[b] += pn;
    }
    if (p_full > below) {
        p_full = 1 - below;
        busy = (double)E - deficit;
        if (arrivals > 0) arrivals_full = arrivals - arrivals_below;
    }
    double x = m.throughput;
    memsys_state ms = memsys_eval(in, x);

    res->mean_occupancy = busy;
    res->p_full = p_full;
    res->p_resfail = arrivals > 0 ? arrivals_full / arrivals : 0;
    res->miss_throughput = x;
    res->merge_rate = x * (1 / per_miss - 1);
    res->merge_full_rate = x * pow(q, M);
    res->inst_rate = x / (in->reqs_per_inst * net.p_alloc);
    res->issue_fraction = res->inst_rate / (in->warps * in->mem_rate);
    res->latency_mem = T;
    res->mshr_wait = in->full_policy == CM_MSHR_WAIT && x > 0
                         ? m.mean_q / x : 0;
    res->latency_eff = T + res->mshr_wait;
    res->bandwidth_gbs = in->sms * x * in->line_bytes * in->core_clock_mhz *
                         1e-3;
    res->util[CM_RES_WARPS] = res->issue_fraction;
    res->util[CM_RES_MSHR] = busy / in->mshrs;
    res->util[CM_RES_NOC] = ms.rho_noc;
    res->util[CM_RES_L2] = ms.rho_l2;
    res->util[CM_RES_L2_MSHR] = ms.util_l2_mshr;
    res->util[CM_RES_DRAM] = ms.rho_dram;

    /* The bottleneck is the busiest shared resource; when none is busier
     * than half, the warps' own issue rate and latency bound the SM. */
    res->bottleneck = CM_RES_WARPS;
    double worst = 0.5;
    for (int r = CM_RES_MSHR; r < CM_RES_COUNT; r++)
        if (res->util[r] > worst) {
            worst = res->util[r];
            res->bottleneck = (cm_mshr_resource)r;
        }
    res->saturated = res->bottleneck != CM_RES_WARPS && worst >= 0.9;
    return CM_OK;
}
