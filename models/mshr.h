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
    double mem_rate;        /* memory instructions per issued instruction:
                               1 / mem_rate issue cycles per memory
                               instruction (the SM issues one a cycle) */
    double reqs_per_inst;   /* r line requests per instruction (mean) */
    int reqs_bimodal;       /* 0: floor/ceil of r lines; 1: 1 or 32 lines */
    double write_frac;      /* w: share of line requests that are stores
                               (a request each; the warp does not wait) */
    double l1_miss;         /* m, over all line requests (stores miss) */
    double merge_prob;      /* q: a load miss finds its line in flight */
    double merge_limit;     /* M accesses per entry, the first included */
    double mshrs;           /* E: requests in flight at most */
    double sets, ways;      /* L1 geometry: fills in flight per set <= ways */
    double line_stride;     /* lines between an instruction's lines */
    double set_clustering;  /* share of instructions whose lines fall at
                               random among their sets (else evenly) */
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
    double mean_occupancy;  /* mean requests in flight (busy entries) */
    double p_full;          /* time fraction with all E in use */
    double p_resfail;       /* P(a memory instruction is refused at least
                               once for want of an MSHR or a way) */
    double p_stall_mshr;    /* time fraction the LD/ST unit waits for an
                               MSHR */
    double p_stall_line;    /* ... for a way of a full set (or a full
                               merge entry) */
    double miss_throughput; /* requests sent per cycle per SM */
    double merge_rate;      /* load misses merged into an entry, /cycle */
    double merge_full_rate; /* load misses refused by the merge limit (their
                               line's entry full), /cycle */
    double inst_rate;       /* memory instructions per cycle per SM */
    double issue_fraction;  /* instructions issued per cycle (IPC of the
                               SM): inst_rate / mem_rate; 1 = never
                               stalled */
    double latency_mem;     /* T: time a request is held, cycles */
    double latency_eff;     /* T + the mean MSHR wait of an instruction */
    double mshr_wait;       /* mean wait of an instruction for an MSHR */
    double bandwidth_gbs;   /* L1 miss traffic of all SMs, GB/s */
    double util[CM_RES_COUNT]; /* utilisation of each resource, in [0,1] */
    cm_mshr_resource bottleneck; /* the most utilised resource */
    int saturated;          /* its utilisation is >= 0.9 */
    size_t sources;         /* tokens of the closed network (W k) */
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
/* on != 0: solve each fixed point directly, as the model's first solver
 * did (the store population by damped steps from none at every latency,
 * here to 1e-12; the latency's bracket by doubling; no value reused), so
 * ~100x slower.  For tests: the fast path must agree with it. */
void cm_mshr_ws_direct(cm_mshr_ws *ws, int on);

/* Solves the model.  occupancy_pmf, when not NULL, receives E+1
 * probabilities P(requests in flight = j), j = 0..E. */
cm_status cm_mshr_solve(const cm_mshr_input *in, cm_mshr_ws *ws,
                        cm_mshr_result *res, double *occupancy_pmf,
                        cm_err *err);

#endif
