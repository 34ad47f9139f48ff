/* protocol.c - the protocol registry, table lookup and message names.
 *
 * Tables are small (tens of rows), so cm_proto_find scans them: cheaper
 * than indexing for the handful of rows, and it keeps the tables plain
 * const data the directory-bandwidth model can read as they are. */
#include "sim/protocol.h"

#include <string.h>

const char *const cm_l1_state_names[CM_L1S_COUNT] = {"I", "V", "I_V", "I_I"};
const char *const cm_l1_event_names[CM_L1E_COUNT] = {
    "LOAD", "STORE",   "ATOMIC",       "DATA",
    "ACK",  "REPLACE", "KERNEL_START", "ACQUIRE"};

static const char *const msg_names[CM_MSG_COUNT] = {"none",   "gets", "write",
                                                    "atomic", "data", "ack"};

const char *cm_msg_name(cm_msg m)
{
    return (unsigned)m < CM_MSG_COUNT ? msg_names[m] : "?";
}

const cm_proto_row *cm_proto_find(const cm_proto_table *t, unsigned state,
                                  unsigned event)
{
    for (size_t i = 0; i < t->nrows; i++)
        if (t->rows[i].state == state && t->rows[i].event == event)
            return &t->rows[i];
    return NULL;
}

static const cm_protocol *const protocols[] = {&cm_proto_no_l1,
                                               &cm_proto_no_coh, &cm_proto_wt};

size_t cm_protocol_count(void)
{
    return sizeof protocols / sizeof *protocols;
}

const cm_protocol *cm_protocol_at(size_t i)
{
    return i < cm_protocol_count() ? protocols[i] : NULL;
}

const cm_protocol *cm_protocol_find(const char *name)
{
    for (size_t i = 0; name && i < cm_protocol_count(); i++)
        if (strcmp(protocols[i]->name, name) == 0) return protocols[i];
    return NULL;
}
