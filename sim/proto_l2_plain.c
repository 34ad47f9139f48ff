/* proto_l2_plain.c - the L2 of the protocols without sharers (NO-L1,
 * NO-COH, WT): a write-back, write-allocate cache and nothing more.
 *
 * Seed statement (seed 000 via protocols.md A, common machine): "L2 banks
 * (one per memory partition, write-back, write-allocate)"; "Atomics run at
 * the L2 bank's atomic unit (one cycle on a resident line)".  Their L1s
 * differ; the L2 sees the same GETS, WRITE and ATOMIC from all three.
 * Choices the seed leaves open:
 *  - a miss fetches the line from DRAM (I_S for a load, I_M for a write or
 *    atomic) and every request to the line waits on the fetch, replayed in
 *    order when it fills;
 *  - a store of the whole line (WRITE_FULL) allocates without reading DRAM:
 *    nothing of the old line survives it (fetch-on-write otherwise);
 *  - an eviction writes a dirty line back (CM_A2_EVICT). */
#include "sim/proto_rows.h"

static const cm_proto_row rows[] = {
    L2_FETCH(N),
    R2(I, WRITE, I_M, NONE, CM_A2_FETCH),
    R2(I, WRITE_FULL, N, ACK, CM_A2_ALLOC | CM_A2_WRITE | CM_A2_REPLY),
    R2(I, ATOMIC, I_M, NONE, CM_A2_FETCH),
    R2(I_S, WRITE, I_S, NONE, CM_A2_MERGE),
    R2(I_S, ATOMIC, I_S, NONE, CM_A2_MERGE),
    R2(I_M, GETS, I_M, NONE, CM_A2_MERGE),
    R2(I_M, WRITE, I_M, NONE, CM_A2_MERGE),
    R2(I_M, ATOMIC, I_M, NONE, CM_A2_MERGE),
    R2(N, GETS, N, DATA, CM_A2_REPLY),
    R2(N, WRITE, N, ACK, CM_A2_WRITE | CM_A2_REPLY),
    R2(N, ATOMIC, N, AREPLY, CM_A2_WRITE | CM_A2_REPLY),
    R2(N, REPLACE, I, NONE, CM_A2_EVICT),
};

const cm_proto_table cm_l2_plain = TAB(rows);
