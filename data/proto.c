/* proto.c - the names and attributes of the protocol vocabulary (see
 * proto.h). */
#include "data/proto.h"

#include <string.h>

const char *const cm_msg_names[CM_MSG_COUNT] = {
    "none",   "gets",   "getx",   "upgr",     "write",    "atomic", "data",
    "data_e", "data_m", "ack",    "areply",   "inv",      "rcl",    "fwd_gets",
    "fwd_getx", "invack", "wb",   "nodata",   "put"};

const char *const cm_l1_state_names[CM_L1S_COUNT] = {
    "I", "V", "V_M", "I_V", "I_I", "S", "E", "M", "IS", "IM", "SM"};
const char *const cm_l1_event_names[CM_L1E_COUNT] = {
    "LOAD",       "STORE",    "ATOMIC", "DATA",   "DATA_LAST",
    "DATA_STALE", "DATA_EXP", "DATA_E", "DATA_M", "ACK",
    "ACK_LAST",   "AREPLY",   "AREPLY_LAST", "INV", "RCL",
    "FWD_GETS",   "FWD_GETX", "REPLACE", "KERNEL_START", "ACQUIRE"};
const char *const cm_l1_action_names[CM_A1_COUNT] = {
    "stall", "entry", "merge", "hit",  "write", "inval",
    "send",  "fill",  "wake",  "done", "cancel"};

const char *const cm_l2_state_names[CM_L2S_COUNT] = {
    "I", "N", "S", "X", "V", "E", "I_S", "I_M", "S_M", "X_S", "X_M", "M_I"};
const char *const cm_l2_event_names[CM_L2E_COUNT] = {
    "GETS",        "GETX",       "UPGR",        "WRITE",
    "ATOMIC",      "GETX_SOLE",  "UPGR_SOLE",   "UPGR_PRIV",
    "UPGR_STALE",  "WRITE_FULL", "ATOMIC_SOLE", "REQ_OWNER",
    "PUT",         "WB",         "NODATA",      "INVACK",
    "INVACK_LAST", "INVACK_LAST_A", "INVACK_LAST_U", "FILL",
    "REPLACE",     "DIR_REPLACE", "EXPIRE"};
const char *const cm_l2_action_names[CM_A2_COUNT] = {
    "stall", "fetch", "merge", "alloc",  "txn",   "inv",  "rcl",
    "fwd",   "write", "take",  "gt",     "gwct",  "gtinc", "add",
    "keep",  "drop",  "own",   "demote", "reply", "park", "park_side",
    "evict", "done"};

const char *cm_msg_name(unsigned m)
{
    return m < CM_MSG_COUNT ? cm_msg_names[m] : "?";
}

cm_msg_kind cm_msg_kind_of(unsigned m)
{
    if (m >= CM_MSG_GETS && m <= CM_MSG_ATOMIC) return CM_MK_REQUEST;
    if (m >= CM_MSG_DATA && m <= CM_MSG_AREPLY) return CM_MK_REPLY;
    if (m >= CM_MSG_INV && m <= CM_MSG_FWD_GETX) return CM_MK_FORWARD;
    if (m >= CM_MSG_INVACK && m <= CM_MSG_PUT) return CM_MK_RESPONSE;
    return CM_MK_NONE;
}

int cm_msg_carries_line(unsigned m, int dirty)
{
    return m == CM_MSG_DATA || m == CM_MSG_DATA_E || m == CM_MSG_DATA_M ||
           m == CM_MSG_WB || (m == CM_MSG_PUT && dirty);
}

/* Payload rule of a class without a line: the access's bytes or nothing. */
int cm_msg_carries_bytes(unsigned m)
{
    return m == CM_MSG_GETX || m == CM_MSG_UPGR || m == CM_MSG_WRITE ||
           m == CM_MSG_ATOMIC || m == CM_MSG_AREPLY;
}

uint32_t cm_msg_flits(unsigned m, int dirty, uint32_t bytes, uint32_t header,
                      uint32_t flit, uint32_t line_bytes)
{
    uint64_t payload = cm_msg_carries_line(m, dirty) ? line_bytes
                       : cm_msg_carries_bytes(m)     ? bytes
                                                     : 0;
    uint64_t f = flit ? (header + payload + flit - 1) / flit : 1;
    return f ? (uint32_t)f : 1;
}

int cm_l1_state_transient(unsigned s)
{
    return s == CM_L1S_V_M || s == CM_L1S_I_V || s == CM_L1S_I_I ||
           s == CM_L1S_IS || s == CM_L1S_IM || s == CM_L1S_SM;
}

int cm_l1_state_fills(unsigned s)
{
    return s == CM_L1S_I_V || s == CM_L1S_IS || s == CM_L1S_IM;
}

int cm_l2_state_transient(unsigned s)
{
    return s >= CM_L2S_I_S && s < CM_L2S_COUNT;
}

unsigned cm_l2_event_base(unsigned e)
{
    switch (e) {
    case CM_L2E_GETX_SOLE: return CM_L2E_GETX;
    case CM_L2E_UPGR_SOLE:
    case CM_L2E_UPGR_PRIV:
    case CM_L2E_UPGR_STALE: return CM_L2E_UPGR;
    case CM_L2E_WRITE_FULL: return CM_L2E_WRITE;
    case CM_L2E_ATOMIC_SOLE: return CM_L2E_ATOMIC;
    default: return e;
    }
}

const char *const cm_consistency_names[3] = {"none", "rcpc", "rcsc"};
const char *const cm_lifetime_names[4] = {"none", "strong", "weak",
                                          "predicted"};
const char *const cm_sharer_track_names[3] = {"none", "l2", "directory"};

const cm_proto_row *cm_proto_rows_find(const cm_proto_row *rows, size_t n,
                                       unsigned state, unsigned event)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i].state == state && rows[i].event == event) return &rows[i];
    return NULL;
}

const cm_proto_row *cm_proto_rows_find_l2(const cm_proto_row *rows, size_t n,
                                          unsigned state, unsigned event)
{
    const cm_proto_row *r = cm_proto_rows_find(rows, n, state, event);
    return r ? r : cm_proto_rows_find(rows, n, state, cm_l2_event_base(event));
}

int cm_proto_lookup(const char *const *names, unsigned n, const char *name)
{
    for (unsigned i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0) return (int)i;
    return -1;
}

long cm_proto_actions(const char *const *names, unsigned n, const char *list)
{
    long bits = 0;
    while (*list) {
        size_t len = strcspn(list, "|");
        unsigned i = 0;
        while (i < n && !(strlen(names[i]) == len &&
                          strncmp(names[i], list, len) == 0))
            i++;
        if (i == n) return -1;
        bits |= 1L << i;
        list += len;
        if (*list == '|') list++;
    }
    return bits;
}
