/* ptable.h - a protocol as the models read it: its L1 and L2 transition
 * tables and its properties, from the CSV form the simulator writes
 * (`cohmod sim --protocol P --table-out F`, sim/protocol.h
 * cm_protocol_export): one row per table row
 *     protocol,controller,state,event,next,message,actions
 * in the vocabulary of data/proto.h, then the protocol's properties and
 * its classes' payload rules.  The directory-bandwidth model weights these
 * rows' messages by the probabilities of their (state, event) pairs, so
 * model and simulator read the same tables. */
#ifndef CM_PTABLE_H
#define CM_PTABLE_H

#include <stddef.h>
#include <stdint.h>

#include "data/err.h"
#include "data/proto.h"
#include "data/table.h"

typedef struct cm_ptable {
    char name[32];
    cm_proto_row *l1, *l2;
    size_t nl1, nl2;
    cm_consistency consistency;
    cm_lifetime_src lifetime;
    cm_sharer_track sharers;
    int out_of_order, write_back;
} cm_ptable;

/* Every protocol of t, in order of first appearance.  Errors name the
 * cell (file:line:col) of an unknown state, event, message, action or
 * property. */
cm_status cm_ptables_read(const cm_table *t, cm_ptable **out, size_t *n,
                          cm_err *err);
void cm_ptables_free(cm_ptable *p, size_t n);
/* By name, or NULL. */
const cm_ptable *cm_ptables_find(const cm_ptable *p, size_t n,
                                 const char *name);

/* The row for (state, event), or NULL; the L2's refined events fall back
 * to their base (data/proto.h cm_l2_event_base). */
const cm_proto_row *cm_ptable_l1(const cm_ptable *p, unsigned state,
                                  unsigned event);
const cm_proto_row *cm_ptable_l2(const cm_ptable *p, unsigned state,
                                  unsigned event);
/* Whether the L1 table ever installs a line (NO-L1's does not). */
int cm_ptable_l1_caches(const cm_ptable *p);

#endif
