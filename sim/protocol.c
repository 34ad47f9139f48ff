/* protocol.c - the names, attributes and registry of protocol.h, table
 * lookup, and the export of a protocol as data.
 *
 * Tables are small (tens of rows) and the controllers index them once at
 * setup (state x event), so cm_proto_find scans: it keeps the tables plain
 * const data that the export can walk as they are. */
#include "sim/protocol.h"

#include <stdio.h>
#include <string.h>

const cm_proto_row *cm_proto_find(const cm_proto_table *t, unsigned state,
                                  unsigned event)
{
    return cm_proto_rows_find(t->rows, t->nrows, state, event);
}

const cm_proto_row *cm_proto_find_l2(const cm_proto_table *t, unsigned state,
                                     unsigned event)
{
    return cm_proto_rows_find_l2(t->rows, t->nrows, state, event);
}

/* ---- registry --------------------------------------------------------------- */

extern const cm_protocol cm_proto_no_l1, cm_proto_no_coh, cm_proto_wt,
    cm_proto_mesi, cm_proto_gpu_vi, cm_proto_gpu_vini, cm_proto_tcsuo,
    cm_proto_tcs, cm_proto_tcsoo, cm_proto_tcw, cm_proto_tcw_fixed;

static const cm_protocol *const protocols[] = {
    &cm_proto_no_l1,  &cm_proto_no_coh, &cm_proto_wt,
    &cm_proto_mesi,   &cm_proto_gpu_vi, &cm_proto_gpu_vini,
    &cm_proto_tcsuo,  &cm_proto_tcs,    &cm_proto_tcsoo,
    &cm_proto_tcw,    &cm_proto_tcw_fixed};

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

const char *cm_protocol_names(void)
{
    return "no-l1, no-coh, wt, mesi, gpu-vi, gpu-vini, tcsuo, tcs, tcsoo, "
           "tcw, tcw-fixed";
}

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

int cm_protocol_uses_param(const cm_protocol *p, const char *param)
{
    if (starts(param, "tc.predictor_") || starts(param, "tc.t_") ||
        starts(param, "tc.write_update"))
        return p->lifetime == CM_LIFE_PREDICTED;
    if (starts(param, "tc.lifetime_strong"))
        return p->lifetime == CM_LIFE_STRONG;
    if (starts(param, "tc.lifetime_weak")) return p->lifetime == CM_LIFE_WEAK;
    if (starts(param, "tc.")) return p->lifetime != CM_LIFE_NONE;
    if (starts(param, "dir.")) return p->sharers == CM_SHARERS_DIR;
    return 1;
}

/* ---- export ----------------------------------------------------------------- */

static const char *const export_cols[7] = {
    "protocol", "controller", "state", "event", "next", "message", "actions"};

cm_status cm_protocol_export_new(cm_table **out, cm_err *err)
{
    *out = cm_table_new(7, export_cols);
    return *out ? CM_OK : cm_err_set(err, CM_EINTERNAL, "out of memory");
}

static void action_list(char *buf, size_t cap, uint32_t a,
                        const char *const *names, unsigned n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < n && len < cap; i++)
        if (a >> i & 1)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s",
                                    len ? "|" : "", names[i]);
}

static cm_status export_rows(const cm_protocol *p, cm_table *t,
                             const char *ctl, const cm_proto_table *tab,
                             const char *const *states,
                             const char *const *events,
                             const char *const *actions, unsigned nact,
                             cm_err *err)
{
    cm_status st = CM_OK;
    for (size_t i = 0; !st && i < tab->nrows; i++) {
        const cm_proto_row *r = &tab->rows[i];
        char acts[256];
        action_list(acts, sizeof acts, r->actions, actions, nact);
        const char *cells[7] = {p->name,           ctl,
                                states[r->state],  events[r->event],
                                states[r->next],   cm_msg_name(r->msg),
                                acts};
        st = cm_table_append(t, cells, err);
    }
    return st;
}

cm_status cm_protocol_export(const cm_protocol *p, cm_table *t, cm_err *err)
{
    cm_status st = export_rows(p, t, "l1", p->l1, cm_l1_state_names,
                               cm_l1_event_names, cm_l1_action_names,
                               CM_A1_COUNT, err);
    if (!st)
        st = export_rows(p, t, "l2", p->l2, cm_l2_state_names,
                         cm_l2_event_names, cm_l2_action_names, CM_A2_COUNT,
                         err);
    const char *props[5][2] = {
        {"consistency", cm_consistency_names[p->consistency]},
        {"lifetime", cm_lifetime_names[p->lifetime]},
        {"sharers", cm_sharer_track_names[p->sharers]},
        {"l2_order", p->l2_out_of_order ? "oldest_servable" : "in_order"},
        {"l1_write_back", p->l1_write_back ? "1" : "0"}};
    for (int i = 0; !st && i < 5; i++) {
        const char *cells[7] = {p->name, "property", props[i][0], props[i][1],
                                "",      "",         ""};
        st = cm_table_append(t, cells, err);
    }
    for (unsigned m = 1; !st && m < CM_MSG_COUNT; m++) {
        const char *rule = cm_msg_carries_line(m, 1)
                               ? (m == CM_MSG_PUT ? "line_if_dirty" : "line")
                           : cm_msg_carries_bytes(m) ? "bytes"
                                                  : "none";
        const char *cells[7] = {p->name, "flits", cm_msg_name(m), rule,
                                "",      "",      ""};
        st = cm_table_append(t, cells, err);
    }
    return st;
}
