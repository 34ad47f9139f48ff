/* mshr_impl.h - what the four files of the MSHR model share (mshr.c: the
 * model's statement, inputs, memory system and outputs; mshr_fixed.c: the
 * latency and store-population fixed points; mshr_net.c: the
 * distributions that do not depend on the latency T; mshr_chain.c: the
 * LD/ST unit's chain at a given T).  Not installed: the
 * model's interface is mshr.h. */
#ifndef CM_MSHR_IMPL_H
#define CM_MSHR_IMPL_H

#include <stddef.h>

#include <gsl/gsl_roots.h>

#include "models/mshr.h"

enum { NPH = 5 };            /* LD/ST phases of a level */
enum { RMAX_VALUES = 2 };    /* line counts an instruction can have */


/* The SM's network: what does not depend on T, then per-T scratch. */
typedef struct sm_net {
    const cm_mshr_input *in;
    unsigned long N;        /* tokens */
    unsigned long E, A;     /* MSHRs, ways */
    double w, mB, p, q;     /* store share, load miss, allocate, merge */
    double c, r;            /* issue cycles and lines per instruction */
    /* line counts R: nr values with probabilities */
    int nr;
    unsigned rv[RMAX_VALUES];
    double rp[RMAX_VALUES];
    unsigned rmax;
    double pia;             /* P(K >= 1) */
    double ekp;             /* E[K+] */
    double p_allhit, p_mergeonly, p_mergefull;
    double *kp;             /* K+ pmf, rmax + 1 */
    /* S_j, j = 0..J: pmf over 0..B-1, bin B-1 = ">= B-1"; B = E + 2 */
    unsigned long J, B;
    double *st;             /* tails: st[j*B' + x] = P(S_j >= x), x=0..B */
    double *fl;             /* f_L(j), j = 0..N */
    double set_owners;      /* instructions whose fills fill a set: A / E[Y|Y>=1] */
    /* per-T scratch */
    double *lam;            /* Lambda(m), m = 0..N */
    double *ns;             /* N_s pmf over 0..B-1 (last: >= B-1) */
    double *nscum;          /* nscum[y] = P(N_s < y), y = 0..nsup */
    double *ot;             /* P(O_j >= x), x = 0..E+1, one j at a time */
    double *fm, *fs;        /* f_M(j), f_S(j) */
    double *ovm, *ovs;      /* mean overflow of a refused load, store */
    /* e_M, e_L, e_S at j >= 1: the chance that a refused instruction had
     * room one instruction earlier, (f(j-1) - f(j)) / (1 - f(j)) */
    double *em, *el, *es;
    double *R;              /* R_j, 16 per level */
    double *pi;             /* stationary law, NPH per level */
    unsigned long nsup;     /* support of ns */
    double mus;             /* store instructions in flight */
    double probs_mus;       /* the mus ns, f_M, f_S and the overflows are
                               for (NaN: none yet): without stores every
                               solve has mus = 0, and they are made once */
    /* the store population's fixed points at the last two latencies, the
     * slope of F(mus) - mus and the latency root finder's guess (-1:
     * none): the next latency's solve starts from them (mshr.c) */
    double warm_t[2], warm_mus[2], slope, mus_hint;
    int nwarm;
} sm_net;


/* max(x, 0) inline (libm's fmax is a call at -O2: the chain's hot loops
 * spent 2% of their time in it); NaN reads 0, as fmax(0, NaN). */
static inline double cm_mshr_pos(double x)
{
    return x > 0 ? x : 0;
}

static inline double cm_mshr_clamp01(double x)
{
    return x < 0 ? 0 : x > 1 ? 1 : x;
}

/* mshr_net.c */
/* P(S_j + N_s >= x): requests of j load instructions and the stores. */
double cm_mshr_o_ge(const sm_net *n, unsigned long j, long x);
/* P(O_j >= x), x = 0..E+1, level by level: O_0 = N_s, then O_j from
 * O_{j-1}'s (prev). */
void cm_mshr_o_tails_first(const sm_net *n, double *t);
void cm_mshr_o_tails_next(const sm_net *n, const double *prev, double *t);
/* (f(j-1) - f(j)) / (1 - f(j)) in [0, 1], j = 1..N, into e[j]. */
void cm_mshr_room_before(const double *f, unsigned long N, double *e);
/* Line counts, K+, the S_j tails and the ways' f_L(j), from n->in. */
cm_status cm_mshr_net_setup(sm_net *n, double *scratch, cm_err *err);
/* Lambda(m): the core's throughput with m tokens (z: short waits). */
void cm_mshr_core_throughput(sm_net *n, double z);
/* N_s, the store requests in flight, for n->mus store instructions. */
void cm_mshr_store_pmf(sm_net *n);
/* f_M, f_S and the mean overflow of a refused load or store. */
void cm_mshr_fit_probs(sm_net *n);

/* mshr_chain.c: the stationary law n->pi of the chain at T. */
cm_status cm_mshr_chain_solve(sm_net *n, double T, cm_err *err);

/* mshr.c: the memory system's latency and utilisations at request rate x
 * per SM. */
typedef struct memsys_state {
    double latency;  /* T(X), +inf when a station is overloaded */
    double rho_noc, rho_l2, rho_dram, util_l2_mshr;
} memsys_state;
memsys_state cm_mshr_memsys(const cm_mshr_input *in, double x);

/* The SM's flows at a solved chain: memory instructions, load returns,
 * requests and stores per cycle. */
typedef struct sm_flow {
    double x_inst, x_mem, x_req, x_st;
} sm_flow;

/* mshr_fixed.c: T* and the store population at their joint fixed point
 * from the unloaded latency lo, n's chain left solved there; direct: the
 * model's first solver (cm_mshr_ws_direct). */
cm_status cm_mshr_fixed_point(sm_net *n, gsl_root_fsolver *brent, int direct,
                              double lo, double *T, sm_flow *f, int *iterations,
                              cm_err *err);

#endif
