/* mshr.h - L1 MSHR occupancy of a GPU SM as a closed queueing network.
 *
 * The mathematics and assumptions are in the header comment of mshr.c.
 * Usage: fill a cm_mshr_input (cm_mshr_input_from_params does it from the
 * registry), keep one cm_mshr_ws per thread, call cm_mshr_solve.  A solve
 * allocates nothing once the workspace has grown to the largest population
 * it has seen, so sweeps and benchmarks run at full speed. */
#ifndef CM_MSHR_H
#define CM_MSHR_H

#include <stddef.h>

#include "data/err.h"
#include "data/params.h"

typedef enum cm_mshr_full {
    CM_MSHR_WAIT = 0,  /* a miss that finds every entry busy waits in order */
    CM_MSHR_REPLAY = 1 /* ... is dropped and replayed by its warp later */
} cm_mshr_full;

typedef struct cm_mshr_input {
    /* the SM and its warps */
    double warps;           /* W active warps */
    double max_outstanding; /* k memory instructions in flight per warp */
    double mem_rate;        /* memory instructions per cycle per unstalled warp */
    double reqs_per_inst;   /* r line requests per instruction */
    double l1_miss;         /* m */
    double merge_prob;      /* q: a miss finds its line already in flight */
    double merge_limit;     /* M requests per entry, the first included */
    double mshrs;           /* E entries */
    double hit_latency;     /* L1 hit latency, cycles */
    cm_mshr_full full_policy;
    /* the memory system behind the L1, shared by every SM */
    double sms;             /* S SMs sending misses */
    double l2_miss;         /* m2 */
    double lat_l2, lat_dram; /* unloaded round trips, core cycles */
    double extra_latency;   /* calibration offset, core cycles */
    double banks, channels, l2_mshrs_per_bank;
    /* service times per request at each station, core cycles (0: infinite
     * bandwidth, the station never queues) */
    double svc_noc_bank;    /* reply port of an L2 bank: one line reply */
    double svc_noc_sm;      /* reply port into one SM */
    double svc_l2;          /* L2 bank tag pipeline */
    double svc_dram;        /* DRAM channel data transfer of one line */
    double svc_scv;         /* squared coefficient of variation of service */
    /* for reporting bandwidth */
    double line_bytes, core_clock_mhz;
} cm_mshr_input;

typedef enum cm_mshr_resource {
    CM_RES_WARPS = 0, /* nothing saturates: the warps' own issue rate limits */
    CM_RES_MSHR,
    CM_RES_NOC,
    CM_RES_L2,
    CM_RES_L2_MSHR,
    CM_RES_DRAM,
    CM_RES_COUNT
} cm_mshr_resource;

const char *cm_mshr_resource_name(cm_mshr_resource r);

typedef struct cm_mshr_result {
    double mean_occupancy;  /* mean busy entries */
    double p_full;          /* time fraction with all E entries busy */
    double p_resfail;       /* P(a new miss finds all E busy), arrival view */
    double miss_throughput; /* MSHR allocations per cycle per SM */
    double merge_rate;      /* misses merged into an entry, per cycle per SM */
    double merge_full_rate; /* allocations forced by the merge limit, /cycle */
    double inst_rate;       /* memory instructions per cycle per SM */
    double issue_fraction;  /* inst_rate / (W x mem_rate): 1 = never stalled */
    double latency_mem;     /* T: time an entry is held, cycles */
    double latency_eff;     /* T + wait for an entry */
    double mshr_wait;       /* mean wait for an entry, cycles */
    double bandwidth_gbs;   /* L1 miss traffic of all SMs, GB/s */
    double util[CM_RES_COUNT]; /* utilisation of each resource, in [0,1] */
    cm_mshr_resource bottleneck; /* the most utilised resource */
    int saturated;          /* its utilisation is >= 0.9 */
    size_t sources;         /* request slots in the closed network */
    int iterations;         /* root-finder iterations used */
} cm_mshr_result;

/* Derives the model input from registry parameters (tc2013 by default). */
void cm_mshr_input_from_params(const cm_params *p, cm_mshr_input *in);

/* The range in which the model accepts parameter pi on machine p: the
 * registry's, narrowed where the model has a domain of its own.  So far
 * model.extra_latency >= 1 - min(l2.latency, dram.latency): whatever the
 * workload's L2 miss ratio, no unloaded round trip is shorter than a
 * cycle (a fit that left it lower wrote a calib.csv the model rejects). */
void cm_mshr_param_range(const cm_params *p, const cm_param_info *pi,
                         double *lo, double *hi);

typedef struct cm_mshr_ws cm_mshr_ws;
cm_mshr_ws *cm_mshr_ws_new(void);
void cm_mshr_ws_free(cm_mshr_ws *ws);

/* Solves the model.  occupancy_pmf, when not NULL, receives E+1
 * probabilities P(busy entries = j), j = 0..E. */
cm_status cm_mshr_solve(const cm_mshr_input *in, cm_mshr_ws *ws,
                        cm_mshr_result *res, double *occupancy_pmf,
                        cm_err *err);

#endif
