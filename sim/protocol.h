/* protocol.h - the protocols' registry and the L1 state and event numbering
 * their tables share (sim/mem.h, "protocols as tables").
 *
 * The three L1 controllers of issue 4 (NO-L1, NO-COH, WT; protocols.md parts
 * A and C) use one numbering of states and events so that the L1 (sim/l1.c)
 * executes any of them with the same code:
 *  - I    no copy, nothing in flight;
 *  - V    valid copy (the tag array holds the line);
 *  - I_V  a load miss waits for the line, which it will install (an MSHR
 *         entry that fills; further loads merge into it);
 *  - I_I  a request whose line will not be installed is in flight: a store
 *         or atomic (write-no-allocate), a bypassing access (NO-L1), or a
 *         fill cancelled by an acquire.
 * A row's next state is the line's state after the event as the table sees
 * it.  The L1 derives the state of an access's line from its structures
 * (I_V if a filling MSHR entry exists, else V on a tag hit, else I): with
 * write-no-allocate the rows I x access and I_I x access coincide, so the
 * L1 never needs to tell them apart, but the tables list both for the
 * message-count models.  Replies (DATA, ACK) are looked up in the state of
 * the MSHR entry they answer (I_V when it fills, I_I otherwise).  The flash
 * events (KERNEL_START, ACQUIRE) are executed once for the valid lines
 * (row V: CM_ACT_INVALIDATE drops them all) and once per filling entry (row
 * I_V: next I_I cancels the fill); row I is a no-op kept for completeness.
 * A table need not reach every state (NO-L1 never reaches V or I_V). */
#ifndef CM_PROTOCOL_H
#define CM_PROTOCOL_H

#include <stddef.h>

#include "sim/mem.h"

enum cm_l1_state {
    CM_L1S_I = 0,
    CM_L1S_V,
    CM_L1S_I_V,
    CM_L1S_I_I,
    CM_L1S_COUNT
};

enum cm_l1_event {
    CM_L1E_LOAD = 0,
    CM_L1E_STORE,
    CM_L1E_ATOMIC,
    CM_L1E_DATA,    /* reply with a line (load or atomic) */
    CM_L1E_ACK,     /* store acknowledgement */
    CM_L1E_REPLACE, /* the line is evicted to make room for a fill */
    CM_L1E_KERNEL_START,
    CM_L1E_ACQUIRE,
    CM_L1E_COUNT
};

/* Names indexed by the enums above (every L1 table points at these). */
extern const char *const cm_l1_state_names[CM_L1S_COUNT];
extern const char *const cm_l1_event_names[CM_L1E_COUNT];

extern const cm_protocol cm_proto_no_l1, cm_proto_no_coh, cm_proto_wt;

/* By --protocol name ("no-l1", "no-coh", "wt"); NULL when unknown. */
const cm_protocol *cm_protocol_find(const char *name);
size_t cm_protocol_count(void);
const cm_protocol *cm_protocol_at(size_t i); /* NULL past the end */

#endif
