/* trace_source.h - a cm_warp_source that replays a real trace (trace mode
 * of `cohmod sim`, issue 4; formats of spec/workloads.md, read by the
 * streaming readers of data/trace.h, never parsed here).
 *
 * Which warp runs a record:
 *  - Accel-Sim (records name kernel, thread block and warp): the blocks of
 *    each kernel go to SMs round-robin, block b to SM b mod gpu.sms; on an
 *    SM the kernel's warps take warp slots in the order they appear in the
 *    trace (blocks in file order, warps in block order), wrapping modulo
 *    gpu.warps_per_sm, so a block that does not fit runs on the slots of
 *    the blocks before it, after them (as a real SM launches a block when
 *    one retires).  Each kernel starts again at slot 0.
 *  - every other format (csv with optional sm and warp columns; lackey and
 *    din, which have neither): SM sm mod gpu.sms, slot warp mod
 *    gpu.warps_per_sm; traces without the columns run on one warp.
 *
 * What a warp executes:
 *  - Accel-Sim: one memory instruction per traced global load, store or
 *    atomic (its coalesced lines), preceded by COMPUTE of the warp's
 *    instructions since its previous memory instruction (the non-memory
 *    ones and the skipped shared, local, constant and texture accesses).
 *    The instructions after a warp's last global access are not counted
 *    (the reader reports accesses only), nor are warps with no global
 *    access at all.  A warp whose kernel number moves on emits one KERNEL
 *    per kernel boundary it crosses, so the SM's warps meet at every
 *    boundary (retired warps do not hold one up; sim/sm.h).
 *  - other formats: consecutive records of one warp with the same op and
 *    the same non-zero cycle form one memory instruction; a record with
 *    cycle 0 (or no cycle column) is an instruction of its own.  No compute
 *    between memory instructions (the formats do not say; a trace's cycles
 *    include memory stalls, so they are not turned into compute).  A
 *    `modify` (lackey M) is a load, then a store, of its lines.
 *  - a record covers the lines of l1.line bytes it touches; an instruction
 *    of more than 2 x gpu.threads_per_warp distinct lines (the coalescer's
 *    capacity) is split into several.  Stores and atomics carry 4 bytes
 *    per line, as the workload generator's do.
 *
 * Memory: records of many warps interleave in a file, so the trace is
 * read once, up front, into compact per-warp arrays (one 8-byte word per
 * instruction and one per line).  At most max_words words are held (128 MB
 * by default); a longer trace is refused with a message saying so, before
 * anything is simulated. */
#ifndef CM_TRACE_SOURCE_H
#define CM_TRACE_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "data/err.h"
#include "data/params.h"
#include "data/trace.h"
#include "sim/sm.h"

#define CM_TRACE_SOURCE_MAX_WORDS ((size_t)16 << 20)

typedef struct cm_trace_source_config {
    const char *path;    /* "-" is stdin */
    cm_trace_format format; /* CM_TRACE_AUTO: detect */
    unsigned op_mask;    /* 1u << cm_op of the ops kept; 0: all */
    size_t max_words;    /* 0: CM_TRACE_SOURCE_MAX_WORDS */
} cm_trace_source_config;

typedef struct cm_trace_source_counts {
    uint64_t records;  /* trace accesses kept */
    uint64_t mem_insts; /* memory instructions */
    uint64_t requests; /* lines over all memory instructions */
    uint64_t compute;  /* compute instructions */
    uint64_t warps;    /* warp slots with something to run */
    uint32_t kernels;  /* kernels seen (1 for formats without kernels) */
} cm_trace_source_counts;

typedef struct cm_trace_source cm_trace_source;

/* Reads the whole trace for the machine of p (gpu.sms,
 * gpu.warps_per_sm, gpu.threads_per_warp, l1.line).  Errors are the
 * reader's ("file:line: ..."), or about the size limit. */
cm_status cm_trace_source_load(const cm_params *p,
                               const cm_trace_source_config *cfg,
                               cm_trace_source **out, cm_err *err);
void cm_trace_source_free(cm_trace_source *ts);

/* The source for cm_sm_config.src / cm_gpu_run_config.source; valid while
 * ts lives.  It is consumed by a run: rewind before another. */
cm_warp_source cm_trace_source_warps(cm_trace_source *ts);
void cm_trace_source_rewind(cm_trace_source *ts);

void cm_trace_source_get_counts(const cm_trace_source *ts,
                                cm_trace_source_counts *out);

#endif
