/* proto_no_coh.c - NO-COH: the non-coherent L1, write-evict and
 * write-no-allocate.
 *
 * Seed statement (seed 000 via protocols.md A, "NO-COH"): "L1 write-evict
 * (a store invalidates the local copy), write-no-allocate, not coherent.
 * States: L1 4 (2 stable, 2 transient)."  The four are I, V (stable), I_V
 * (a load miss awaiting its fill) and I_I (stores or atomics in flight,
 * nothing kept).  Atomics run at the L2 (protocols.md A, common machine)
 * and drop the local copy like a store.  Choices the seed leaves open:
 *  - a store to a line whose fill is pending (I_V) cancels that fill's
 *    install: write-evict means the store leaves no copy, and the fill
 *    predates the store at the L2 (installing it would let the storing
 *    warp read a value older than its own store); the loads merged on it
 *    still complete with it.  (The detailed machine this one replaced let
 *    the fill install; write-evict decides.);
 *  - a fill arriving while stores of its line are still in flight is
 *    used by the loads that waited and not installed: write-evict keeps
 *    no copy of a line with stores out (the four states have none for
 *    it);
 *  - kernel start and acquire change nothing: the protocol is not coherent
 *    and relies on no invalidation;
 *  - a clean eviction (REPLACE) is silent.
 * The L2 is the plain one (proto_l2_plain.c). */
#include "sim/proto_rows.h"

static const cm_proto_row l1[] = {
    L1_WT_COMMON,
    R1(I_V, DATA, I_I, NONE, CM_A1_WAKE),
    R1(V, LOAD, V, NONE, CM_A1_HIT),
    L1_WT_STORES(WRITE),
    R1(V, STORE, I_I, WRITE, CM_A1_INVAL | THRU),
    L1_WT_FLASH_KEEP(KERNEL_START),
    L1_WT_FLASH_KEEP(ACQUIRE),
};

static const cm_proto_table l1_tab = TAB(l1);

const cm_protocol cm_proto_no_coh = {
    .name = "no-coh",
    .summary = "non-coherent L1: write-evict, write-no-allocate (seed 000)",
    .consistency = CM_CONSISTENCY_NONE,
    .l1 = &l1_tab,
    .l2 = &cm_l2_plain,
};
