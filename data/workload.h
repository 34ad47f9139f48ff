/* workload.h - statistical generators of warp access streams.
 *
 * No GPU binaries run here, so the simulator's SMs are driven by profiles:
 * a few dozen numbers per benchmark (spec/workloads.md) from which each warp
 * draws its own instruction stream.  Every warp (sm, warp) owns a
 * generator seeded from a hash of (seed, sm, warp), so a stream depends on
 * nothing but those three numbers and the profile: not on the scheduling
 * order, not on the other warps, and it is byte-identical from run to run.
 * The generator is L'Ecuyer's maximally equidistributed Tausworthe
 * (gsl_rng_taus2, period 2^88): a machine has thousands of warps, and
 * its 24-byte state keeps their generators in cache, where a Mersenne
 * Twister's 5 KB each did not (measured: the generator was a sixth of a
 * compute-bound simulation and most of a functional fast-forward).
 *
 * ---- The stream ---------------------------------------------------------
 *
 * A warp runs `kernels` kernels of `kernel_len` memory instructions each.
 * Before every memory instruction comes a COMPUTE of `gap_mean` cycles on
 * average (fixed or geometric, `gap_dist`; a gap of 0 emits nothing).  After
 * it: a FENCE with probability `fence_rate`, and a BARRIER after every
 * `barrier_interval`-th memory instruction of the kernel (the same index in
 * every warp, so all warps of a CTA, or of the grid when `barrier_grid` is
 * 1, reach the same number of barriers and never deadlock).  Between kernels
 * comes a KERNEL boundary (all warps of the grid finish; write-through L1s
 * are invalidated), and after the last kernel an END, repeated on every
 * later call.
 *
 * ---- One memory instruction ---------------------------------------------
 *
 * Op: ATOMIC with probability `atomic_frac`, else STORE with probability
 * `write_frac`, else LOAD.  Requests: n distinct lines (the coalescer's
 * output), n fixed at `reqs_mean` (the fractional part by a coin: between
 * floor and ceil) or bimodal (1 line, or 32 for a fully divergent access,
 * with the probability of 32 set to give the mean), `reqs_dist`.
 *
 * Line j of the instruction (j = 0..n-1) is a *reuse* with probability
 * `reuse_prob`: it re-touches the line at position j + D of the warp's own
 * LRU stack of distinct lines, D in 0..K-1 (K = `reuse_window`) drawn from
 * a truncated Zipf law P(D = d) ~ (d+1)^-s (s = `reuse_skew`; 0 is
 * uniform).  Positions 0..j-1 hold the instruction's own earlier lines, so
 * a reuse never duplicates one, and the line's stack distance measured over
 * the warp's line stream is exactly j + D.  (While the stack holds fewer
 * than j + D + 1 lines, early in a run, the line is fresh instead.)
 *
 * Otherwise the line is *fresh*, from the instruction's region, drawn once
 * per instruction (consecutive lines, `line_stride` apart, from a start
 * point):
 *   - GPU-shared (`share_gpu`): a start uniform over `gpu_shared_lines`
 *     lines read and written by warps of every SM (inter-SM sharing);
 *   - SM-shared (`share_sm`): uniform over the SM's `sm_shared_lines`
 *     (inter-warp sharing inside an SM: a CTA's tile);
 *   - false-shared (`false_share`): uniform over `false_share_lines` lines
 *     whose words are split among SMs: each SM touches its own word
 *     (cm_winst.off), so line-granular coherence sees sharing where there is
 *     none;
 *   - private, streaming (`stream_frac` of the private instructions): lines
 *     never touched before (cold, never re-used);
 *   - private, sweep (the rest): a cursor walking the warp's
 *     `private_lines`-line footprint cyclically, so a sweep line is re-used
 *     at a distance of about the footprint (the long reuses that thrash a
 *     small cache but fit a 16x larger one).  At a kernel boundary the
 *     cursor restarts, shifted by (1 - `persist`) x footprint: persist = 1
 *     re-touches last kernel's working set, 0 a new one.
 * Atomics take their lines from `atomic_lines` lock lines shared by the
 * whole GPU (fewer lines: more contention), never from the reuse stack.
 * `region_density` keeps only round(density x lines-per-1KB) lines of each
 * 1 KB region of the private footprint and stream (sparse structures).  A
 * fresh line that would repeat one of the instruction's lines (a region
 * smaller than n) becomes a streaming line, so n is exact.
 *
 * ---- Address map (line numbers, for tests and statistics) ---------------
 * Bits 60..63 name the region (cm_wregion); private and stream lines carry
 * (sm << 12 | warp) in bits 32..59 and an offset below; SM-shared lines
 * carry sm in bits 32..59.  Private footprints and streams start at a
 * per-warp pseudo-random offset so warps do not all camp on the same cache
 * sets (or, streaming in lockstep, on the same directory sets and L2
 * banks).
 *
 * ---- Allocation ---------------------------------------------------------
 * A cm_wgen is a plain struct: the RNG state lives inside it (a gsl_rng
 * view is rebuilt on each call), so neither init nor next allocates, and
 * copying a generator forks its stream.
 *
 * The hint fields (`warp_max`, `warp_opt`, `cache_speedup16x`) do not shape
 * the stream; they carry what seed 002 measured, for sweeps and reports
 * (0: not given). */
#ifndef CM_WORKLOAD_H
#define CM_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "data/err.h"
#include "data/table.h"

/* X(id, min, max, integer, help): every numeric profile parameter, in the
 * order of the built-in table's columns and of the --list-workloads CSV. */
#define CM_WL_PARAMS(X)                                                        \
    X(private_lines, 1, 1073741824, 1, "per-warp private footprint, lines")    \
    X(sm_shared_lines, 1, 1073741824, 1, "per-SM shared footprint, lines")     \
    X(gpu_shared_lines, 1, 1073741824, 1, "GPU-wide shared footprint, lines")  \
    X(reuse_prob, 0, 1, 0, "P(a line re-touches one of the last K)")           \
    X(reuse_window, 1, 256, 1, "K: reuse window, distinct lines")              \
    X(reuse_skew, 0, 4, 0, "Zipf exponent over stack positions 0..K-1")        \
    X(stream_frac, 0, 1, 0, "streaming share of private fresh instructions")   \
    X(share_sm, 0, 1, 0, "fresh instructions to SM-shared lines")              \
    X(share_gpu, 0, 1, 0, "fresh instructions to GPU-shared lines")            \
    X(false_share, 0, 1, 0, "fresh instructions to false-shared lines")        \
    X(false_share_lines, 1, 1048576, 1, "false-shared lines")                  \
    X(write_frac, 0, 1, 0, "stores among memory instructions")                 \
    X(atomic_frac, 0, 1, 0, "atomics among memory instructions")               \
    X(atomic_lines, 1, 16777216, 1, "lock lines (fewer: more contention)")     \
    X(fence_rate, 0, 1, 0, "fences per memory instruction")                    \
    X(barrier_interval, 0, 1000000, 1, "memory insts per barrier (0: none)")   \
    X(barrier_grid, 0, 1, 1, "1: barriers span the grid (inter-CTA)")          \
    X(reqs_mean, 1, 32, 0, "lines per memory instruction (coalescing)")        \
    X(reqs_dist, 0, 1, 1, "0 fixed, 1 bimodal 1-or-32")                        \
    X(line_stride, 1, 4096, 1, "lines between an instruction's lines")         \
    X(gap_mean, 0, 1000000, 0, "compute cycles between memory insts")          \
    X(gap_dist, 0, 1, 1, "0 fixed, 1 geometric")                               \
    X(kernels, 1, 1000000, 1, "kernels per run")                               \
    X(kernel_len, 1, 1000000000, 1, "memory insts per warp per kernel")        \
    X(persist, 0, 1, 0, "private working set kept across kernels")             \
    X(region_density, 0.001, 1, 0, "used share of each 1 KB region")           \
    X(warp_max, 0, 64, 1, "hint: warps per scheduler, as-is (0: unknown)")     \
    X(warp_opt, 0, 64, 1, "hint: best warps per scheduler (0: unknown)")       \
    X(cache_speedup16x, 0, 100, 0, "hint: speedup with 16x L1+L2 (0: unk.)")

typedef enum cm_wl_param_id {
#define CM_WL_ENUM(id, lo, hi, integer, help) CM_WLP_##id,
    CM_WL_PARAMS(CM_WL_ENUM)
#undef CM_WL_ENUM
        CM_WLP_COUNT
} cm_wl_param_id;

#define CM_WL_NAME_MAX 32

typedef struct cm_workload_profile {
    char name[CM_WL_NAME_MAX];  /* lower case, e.g. "kmn" */
    int seed;                   /* source document: 0, 2; -1 user file */
    char suite[CM_WL_NAME_MAX]; /* e.g. "tc-inter", "li-cache" */
#define CM_WL_FIELD(id, lo, hi, integer, help) double id;
    CM_WL_PARAMS(CM_WL_FIELD)
#undef CM_WL_FIELD
} cm_workload_profile;

typedef struct cm_wl_param_info {
    const char *name; /* as in the profile CSV: "reuse_prob" */
    double min, max;
    int integer;
    const char *help;
    size_t offset; /* of the double inside cm_workload_profile */
} cm_wl_param_info;

const cm_wl_param_info *cm_wl_param_at(size_t i); /* i < CM_WLP_COUNT */
const cm_wl_param_info *cm_wl_param_find(const char *name);
double cm_wl_param_get(const cm_workload_profile *p,
                       const cm_wl_param_info *pi);

/* ---- profiles ------------------------------------------------------------ */

size_t cm_workload_builtin_count(void);
const char *cm_workload_builtin_name(size_t i); /* NULL past the end */
/* By exact name; NULL when unknown. */
const cm_workload_profile *cm_workload_builtin(const char *name);

/* Neutral starting point of a user profile (seed -1, name "user"). */
void cm_workload_profile_default(cm_workload_profile *p);

/* Every parameter in range and integral where it must be, and the shares
 * that must sum to at most 1 do so.  Errors name the profile and the
 * parameter with its allowed range. */
cm_status cm_workload_profile_validate(const cm_workload_profile *p,
                                       cm_err *err);

/* A CSV with header `parameter,value`.  Rows `base,<builtin>` (start from
 * a built-in; must come first), `name,<text>`, `suite,<text>` and one row
 * per numeric parameter; the rest keep cm_workload_profile_default's values.
 * Errors are "file:line:col: ..." with the allowed range. */
cm_status cm_workload_profile_load(const char *csv_path,
                                   cm_workload_profile *out, cm_err *err);

/* What a built-in profile stands for (the benchmark its source document
 * names), or NULL for a name that is not a built-in. */
const char *cm_workload_description(const char *name);

/* name,description,seed,suite, then every numeric parameter: one row per
 * built-in. */
cm_status cm_workload_list_table(cm_table **out, cm_err *err);

/* ---- generator ----------------------------------------------------------- */

typedef enum cm_winst_kind {
    CM_WI_COMPUTE = 0, /* `compute` cycles of ALU work */
    CM_WI_MEM,         /* op on lines[0..n) */
    CM_WI_BARRIER,     /* CTA barrier, or grid barrier when `grid` is 1 */
    CM_WI_FENCE,       /* memory fence (release/acquire point) */
    CM_WI_KERNEL,      /* kernel boundary: the next kernel starts */
    CM_WI_END          /* the warp is done (repeated on every later call) */
} cm_winst_kind;

typedef enum cm_wop { CM_WOP_LOAD = 0, CM_WOP_STORE, CM_WOP_ATOMIC } cm_wop;

#define CM_WINST_MAX_LINES 32

typedef struct cm_winst {
    uint8_t kind;     /* cm_winst_kind */
    uint8_t op;       /* cm_wop, CM_WI_MEM only */
    uint8_t grid;     /* CM_WI_BARRIER: 1 = grid-wide */
    uint8_t n;        /* lines, 1..32, CM_WI_MEM only */
    uint32_t compute; /* cycles, CM_WI_COMPUTE only */
    uint32_t kernel;  /* 0-based kernel the instruction belongs to */
    uint64_t lines[CM_WINST_MAX_LINES]; /* distinct line numbers */
    uint16_t off[CM_WINST_MAX_LINES];   /* byte offset of the warp's word */
} cm_winst;

typedef enum cm_wregion {
    CM_WR_PRIVATE = 0,
    CM_WR_STREAM,
    CM_WR_SM_SHARED,
    CM_WR_GPU_SHARED,
    CM_WR_FALSE_SHARED,
    CM_WR_LOCK
} cm_wregion;

static inline cm_wregion cm_wline_region(uint64_t line)
{
    return (cm_wregion)(line >> 60);
}

#define CM_WGEN_STACK_MAX (256 + CM_WINST_MAX_LINES)
#define CM_WGEN_FILTER 1024 /* power of two, > 3 x CM_WGEN_STACK_MAX */
#define CM_WGEN_RNG_BYTES 32 /* >= gsl_rng_taus2->size, checked */
#define CM_WGEN_GUIDE 64 /* zipf guide buckets: a power of two */

typedef struct cm_wgen {
    /* Fields every call touches first, together: a machine's thousands of
     * generators do not stay in cache, and each cache line costs a miss. */
    int stage; /* where in the compute-mem-fence-barrier cycle */
    int skim;  /* cm_wgen_skim */
    uint32_t sm, warp, line_bytes;
    uint64_t kernel, mem_in_kernel;
    uint64_t cursor, sweep_base, stream_next;
    uint64_t warp_off; /* per-warp start of the private footprint and stream */
    unsigned lines_per_region, used_per_region;
    size_t depth, top; /* of stack below */
    union {
        unsigned long ul[CM_WGEN_RNG_BYTES / sizeof(unsigned long)];
        double d;
    } rng_state;
    /* zipf_guide[b]: the first d with zipf_cdf[d] > b / CM_WGEN_GUIDE */
    uint8_t zipf_guide[CM_WGEN_GUIDE];
    cm_workload_profile prof;
    double zipf_cdf[256]; /* cumulative P(D <= d), d < K */
    /* Distinct lines, MRU first: position i is stack[(top + i) mod
     * CM_WGEN_STACK_MAX], a ring so that a fresh line, the common case,
     * enters without shifting the whole stack. */
    uint64_t stack[CM_WGEN_STACK_MAX];
    /* Lines of the stack per hash bucket: a fresh line whose bucket is
     * empty is not in the stack, without a scan of it. */
    uint16_t in_stack[CM_WGEN_FILTER];
} cm_wgen;

/* Prepares the stream of warp `warp` on SM `sm` (sm < 65536, warp < 4096)
 * for a validated profile; line_bytes is a power of two in 4..4096. */
cm_status cm_wgen_init(cm_wgen *g, const cm_workload_profile *prof,
                       uint64_t seed, uint32_t sm, uint32_t warp,
                       uint32_t line_bytes, cm_err *err);

/* The next instruction.  Never allocates, never fails, never emits more
 * than CM_WINST_MAX_LINES lines; END forever once the warp is done. */
void cm_wgen_next(cm_wgen *g, cm_winst *inst);

/* Skimming on (1) or off (0): for a fast-forward's stretch whose lines
 * nobody reads (no cache is warmed by them).  The random draws, the kernel,
 * barrier and fence cadence and the sweep and stream positions advance
 * exactly as without it, and the LRU stack is kept, but a fresh line
 * enters it without asking whether it is there already (the filter
 * lookup, the scan of the stack it often leads to, and their cache misses,
 * most of the generator's cost) and an instruction's lines are not made
 * distinct.  Turning it off drops the stack's repeats (each line keeps its
 * most recent place) and recounts the filter.  The stream after a skim is
 * therefore not the one without it, but one of the same statistics whose
 * stack holds recent lines. */
void cm_wgen_skim(cm_wgen *g, int on);

#endif
