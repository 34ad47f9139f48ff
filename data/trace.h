/* trace.h - streaming readers of real memory-access traces.
 *
 * One reader per format, one file each (trace_lackey.c, trace_din.c,
 * trace_csv.c, trace_accel.c), behind this one interface.  A reader holds a
 * fixed-size buffer whatever the trace length, so memory stays bounded.  A
 * malformed line stops the read with "file:line: what was expected"; binary
 * garbage, truncation and huge numbers are errors, never crashes.
 *
 * Formats:
 *  - lackey: valgrind --tool=lackey --trace-mem=yes.  " L addr,size",
 *    " S ...", " M ..." are data accesses; "I ..." lines and "==pid=="
 *    and "--pid--" banners are skipped; any other line is an error.
 *  - din: Dinero "label hexaddr [size]" (label 0 read, 1 write; 2 ifetch
 *    and Dinero's escapes 3 and 4 are skipped; others are errors).
 *  - csv: op,addr,size[,sm,warp,cycle] with a header row, op one of
 *    load|store|modify|atomic (or L|S|M|A), addr decimal or 0x-hex; read
 *    through the CSV layer's streaming reader.
 *  - accel: Accel-Sim kernelslist.g listing kernel-N.traceg files (or one
 *    .traceg file).  Each global load or store instruction's per-thread
 *    addresses are coalesced into one request per distinct line of
 *    line_bytes, which keeps its kernel, thread block and warp.
 * Auto-detection looks at the file name (kernelslist.g, .traceg, .csv,
 * .din) and then at the first non-blank lines. */
#ifndef CM_TRACE_H
#define CM_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "data/err.h"

typedef enum cm_op {
    CM_OP_LOAD = 0,
    CM_OP_STORE = 1,
    CM_OP_MODIFY = 2, /* read-modify-write of one location (lackey M) */
    CM_OP_ATOMIC = 3,
    CM_OP_COUNT
} cm_op;

const char *cm_op_name(cm_op op); /* "load", "store", "modify", "atomic" */

typedef struct cm_access {
    uint64_t addr;
    uint64_t cycle;  /* 0 when the trace has none */
    uint32_t size;   /* bytes (accel: the line size of the request) */
    uint32_t sm;     /* 0 when the trace has none */
    uint32_t warp;   /* warp id: within its block for accel */
    uint32_t kernel; /* accel: 1-based kernel number; 0 otherwise */
    uint32_t block;  /* accel: linearised thread-block id */
    uint64_t inst;   /* accel: 0-based index of the request's instruction in
                        its warp's list (requests of one instruction share
                        it; the gaps are the warp's non-memory
                        instructions); 0 otherwise */
    uint8_t op;      /* cm_op */
} cm_access;

typedef enum cm_trace_format {
    CM_TRACE_AUTO = 0,
    CM_TRACE_LACKEY,
    CM_TRACE_DIN,
    CM_TRACE_CSV,
    CM_TRACE_ACCEL
} cm_trace_format;

/* "auto", "lackey", "din", "csv", "accel". */
cm_status cm_trace_format_parse(const char *name, cm_trace_format *f,
                                cm_err *err);
const char *cm_trace_format_name(cm_trace_format f);

typedef struct cm_trace_opts {
    cm_trace_format format; /* CM_TRACE_AUTO to detect */
    uint32_t line_bytes;    /* accel coalescing granule, a power of two
                               up to 65536; 0 means 128 */
} cm_trace_opts;

typedef struct cm_trace cm_trace;

/* Opens a trace; "-" reads stdin (format must then be given or be
 * detectable from the first lines). */
cm_status cm_trace_open(const char *path, const cm_trace_opts *opts,
                        cm_trace **out, cm_err *err);

/* Next access: 1 when *a was filled, 0 at the end, -1 on error (err says
 * "file:line: ..."). */
int cm_trace_next(cm_trace *t, cm_access *a, cm_err *err);

cm_trace_format cm_trace_get_format(const cm_trace *t);
uint64_t cm_trace_bytes_read(const cm_trace *t); /* input bytes consumed */
void cm_trace_close(cm_trace *t);

#endif
