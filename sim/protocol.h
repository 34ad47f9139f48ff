/* protocol.h - protocols as tables: the one numbering of messages, states,
 * events and actions that every protocol file (sim/proto_*.c) writes its
 * tables in, that the L1 (sim/l1.c) and the L2 (sim/l2.c) execute, and
 * that cm_protocol_export hands to the models as data.
 *
 * A protocol is two tables of rows
 *     (state, event) -> next state, message class, actions
 * one for the L1 controller and one for the L2 / directory controller, in
 * the spirit of gem5's SLICC tables and the seeds' state tables.  The
 * actions are named functions of the controller (cm_l1_action_names,
 * cm_l2_action_names); a row's bits say which run, always in the order
 * listed here, so a table reads as a list of steps.  A missing row means
 * the event cannot happen in that state: the controller stops the run with
 * an internal error naming protocol, controller, state and event.
 *
 * Refined events.  A controller raises the most specific event a condition
 * names (an L2 write whose requester is the line's only sharer is
 * GETX_SOLE, a full-line write WRITE_FULL, ...).  Where a table has no row
 * for a refined event it falls back to the event it refines
 * (cm_l2_event_base), so a protocol that makes no difference writes one
 * row, and a protocol that does writes both: TCSUO has no UPGR_PRIV rows
 * and so no private-write optimisation, TCS does.
 *
 * L1.  Stable states live in the tags (I: no tag), transient ones in the
 * line's MSHR entry, which holds the line's requests in flight (`pending`)
 * and the accesses waiting on it.  Write-through family (NO-L1, NO-COH,
 * WT, GPU-VI, GPU-VIni, TC): I, V stable; V_M (a valid copy with stores in
 * flight), I_V (a fill in flight), I_I (requests in flight, nothing to
 * install).  MESI: I, S, E, M stable; IS, IM, SM.  Under timestamps a V
 * line whose lease (LT) has passed reads as I (expiry is implicit), and a
 * fill whose LT has passed on arrival is used but not installed.  Reply
 * events are refined by whether they are the entry's last awaited reply
 * (X_LAST), which is how "ACK -> V" from V_M waits for every store.
 *
 * L2.  Stable states are derived from the tags and the sharer set: I (not
 * present), N (present, no L1 copy known), S (L1 sharers), X (one L1 owns
 * it, MESI), and under timestamps V (GT not yet passed) and E (GT passed).
 * Transient states live in the bank's MSHR entry: I_S / I_M (fetching
 * from DRAM for a load / for a write), S_M (a write waits for INVACKs),
 * X_S / X_M (MESI: the owner was asked for the line), M_I (an eviction
 * waits for INVACKs or owner data, or TC-Strong's parked timestamp waits
 * to expire).  Requests come through the bank's queue; INVACK, WB,
 * NODATA, PUT, FILL and EXPIRE are handled on arrival.
 *
 * Messages travel on the crossbar (sim/noc.h): requests from the L1 on
 * the request network, the L1's responses (INVACK, WB, NODATA, PUT) on a
 * network of their own that the L2 always drains, replies and forwards
 * from the L2 in one network ordered per (bank, L1) pair. */
#ifndef CM_PROTOCOL_H
#define CM_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#include "data/err.h"
#include "data/proto.h"
#include "data/table.h"

/* ---- protocols ------------------------------------------------------------ */

typedef struct cm_proto_table {
    const cm_proto_row *rows;
    size_t nrows;
} cm_proto_table;

typedef struct cm_protocol {
    const char *name; /* as given to --protocol */
    const char *summary;
    cm_consistency consistency;
    cm_lifetime_src lifetime;
    cm_sharer_track sharers;
    int l2_out_of_order; /* the bank serves the oldest request that can go
                            (else its queue head only) */
    int l1_write_back;   /* the L1 owns lines (MESI) */
    const cm_proto_table *l1, *l2;
} cm_protocol;

/* The row for (state, event), or NULL.  L2 lookups of a refined event fall
 * back to its base event. */
const cm_proto_row *cm_proto_find(const cm_proto_table *t, unsigned state,
                                  unsigned event);
const cm_proto_row *cm_proto_find_l2(const cm_proto_table *t, unsigned state,
                                     unsigned event);

/* The registry: no-l1 no-coh wt mesi gpu-vi gpu-vini tcsuo tcs tcsoo tcw
 * tcw-fixed.  NULL when unknown or past the end. */
const cm_protocol *cm_protocol_find(const char *name);
size_t cm_protocol_count(void);
const cm_protocol *cm_protocol_at(size_t i);
/* "no-l1, no-coh, ..." for messages. */
const char *cm_protocol_names(void);

/* Whether a protocol reads a parameter group: "tc." (timestamps),
 * "tc.predictor_" and "tc.t_" (the predictor), "dir." (a directory). */
int cm_protocol_uses_param(const cm_protocol *p, const char *param);

/* The protocol as data, for the models (design.md: models and simulator
 * meet in CSV): a table
 *     protocol,controller,state,event,next,message,actions
 * with controller l1 or l2 (actions: their names joined by '|'), then rows
 * of controller "property" whose state column names a property
 * (consistency, lifetime, sharers, l2_order, l1_write_back) and whose
 * event column holds its value, and rows of controller "flits" naming a
 * message class (state) and its payload rule (event: line, bytes or none).
 * Several protocols append to one table. */
cm_status cm_protocol_export(const cm_protocol *p, cm_table *t, cm_err *err);
/* An empty table with the export's columns. */
cm_status cm_protocol_export_new(cm_table **out, cm_err *err);

#endif
