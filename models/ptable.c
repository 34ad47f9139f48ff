/* ptable.c - reading protocols from their CSV form (see ptable.h). */
#include "models/ptable.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cm_status bad_cell(const cm_table *t, size_t r, size_t c,
                          const char *what, cm_err *err)
{
    size_t line, col;
    cm_table_cell_pos(t, r, c, &line, &col);
    return cm_err_set(err, CM_EINPUT, "%s:%zu:%zu: unknown %s '%s'",
                      cm_table_name(t), line, col, what,
                      cm_table_cell(t, r, c));
}

static cm_status name_of(const cm_table *t, size_t r, size_t c,
                         const char *const *names, unsigned n,
                         const char *what, uint8_t *out, cm_err *err)
{
    int i = cm_proto_lookup(names, n, cm_table_cell(t, r, c));
    if (i < 0) return bad_cell(t, r, c, what, err);
    *out = (uint8_t)i;
    return CM_OK;
}

static cm_status push_row(cm_proto_row **rows, size_t *n,
                          const cm_proto_row *row, cm_err *err)
{
    cm_proto_row *nr = realloc(*rows, (*n + 1) * sizeof *nr);
    if (!nr) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    nr[(*n)++] = *row;
    *rows = nr;
    return CM_OK;
}

/* A row of controller l1 or l2 (cols: state, event, next, message,
 * actions). */
static cm_status read_row(const cm_table *t, size_t r, const size_t *c,
                          int l2, cm_ptable *p, cm_err *err)
{
    const char *const *st = l2 ? cm_l2_state_names : cm_l1_state_names;
    const char *const *ev = l2 ? cm_l2_event_names : cm_l1_event_names;
    unsigned nst = l2 ? CM_L2S_COUNT : CM_L1S_COUNT;
    unsigned nev = l2 ? CM_L2E_COUNT : CM_L1E_COUNT;
    cm_proto_row row;
    cm_status s;
    if ((s = name_of(t, r, c[0], st, nst, "state", &row.state, err)) ||
        (s = name_of(t, r, c[1], ev, nev, "event", &row.event, err)) ||
        (s = name_of(t, r, c[2], st, nst, "state", &row.next, err)) ||
        (s = name_of(t, r, c[3], cm_msg_names, CM_MSG_COUNT, "message",
                     &row.msg, err)))
        return s;
    long a = cm_proto_actions(l2 ? cm_l2_action_names : cm_l1_action_names,
                              l2 ? CM_A2_COUNT : CM_A1_COUNT,
                              cm_table_cell(t, r, c[4]));
    if (a < 0) return bad_cell(t, r, c[4], "action", err);
    row.actions = (uint32_t)a;
    return l2 ? push_row(&p->l2, &p->nl2, &row, err)
              : push_row(&p->l1, &p->nl1, &row, err);
}

static cm_status read_property(const cm_table *t, size_t r, const size_t *c,
                               cm_ptable *p, cm_err *err)
{
    const char *k = cm_table_cell(t, r, c[0]), *v = cm_table_cell(t, r, c[1]);
    int i = -1;
    if (!strcmp(k, "consistency")) {
        if ((i = cm_proto_lookup(cm_consistency_names, 3, v)) >= 0)
            p->consistency = (cm_consistency)i;
    } else if (!strcmp(k, "lifetime")) {
        if ((i = cm_proto_lookup(cm_lifetime_names, 4, v)) >= 0)
            p->lifetime = (cm_lifetime_src)i;
    } else if (!strcmp(k, "sharers")) {
        if ((i = cm_proto_lookup(cm_sharer_track_names, 3, v)) >= 0)
            p->sharers = (cm_sharer_track)i;
    } else if (!strcmp(k, "l2_order")) {
        static const char *const order[2] = {"in_order", "oldest_servable"};
        if ((i = cm_proto_lookup(order, 2, v)) >= 0) p->out_of_order = i;
    } else if (!strcmp(k, "l1_write_back")) {
        static const char *const yes[2] = {"0", "1"};
        if ((i = cm_proto_lookup(yes, 2, v)) >= 0) p->write_back = i;
    } else {
        return bad_cell(t, r, c[0], "property", err);
    }
    return i < 0 ? bad_cell(t, r, c[1], "property value", err) : CM_OK;
}

cm_status cm_ptables_read(const cm_table *t, cm_ptable **out, size_t *n,
                          cm_err *err)
{
    static const char *const cols[7] = {"protocol", "controller", "state",
                                        "event",    "next",       "message",
                                        "actions"};
    *out = NULL;
    *n = 0;
    size_t c[7];
    cm_status st = CM_OK;
    for (int k = 0; !st && k < 7; k++)
        st = cm_table_col_require(t, cols[k], &c[k], err);
    cm_ptable *ps = NULL;
    size_t np = 0;
    for (size_t r = 0; !st && r < cm_table_nrows(t); r++) {
        const char *name = cm_table_cell(t, r, c[0]);
        const char *ctl = cm_table_cell(t, r, c[1]);
        cm_ptable *p = (cm_ptable *)cm_ptables_find(ps, np, name);
        if (!p) {
            cm_ptable *nps = realloc(ps, (np + 1) * sizeof *nps);
            if (!nps) {
                st = cm_err_set(err, CM_EINTERNAL, "out of memory");
                break;
            }
            ps = nps;
            p = &ps[np++];
            memset(p, 0, sizeof *p);
            snprintf(p->name, sizeof p->name, "%s", name);
        }
        if (!strcmp(ctl, "l1") || !strcmp(ctl, "l2"))
            st = read_row(t, r, c + 2, ctl[1] == '2', p, err);
        else if (!strcmp(ctl, "property"))
            st = read_property(t, r, c + 2, p, err);
        else if (strcmp(ctl, "flits") != 0) /* the rule is data/proto.h's */
            st = bad_cell(t, r, c[1], "controller", err);
    }
    if (st) {
        cm_ptables_free(ps, np);
        return st;
    }
    *out = ps;
    *n = np;
    return CM_OK;
}

void cm_ptables_free(cm_ptable *p, size_t n)
{
    for (size_t i = 0; p && i < n; i++) {
        free(p[i].l1);
        free(p[i].l2);
    }
    free(p);
}

const cm_ptable *cm_ptables_find(const cm_ptable *p, size_t n,
                                 const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(p[i].name, name)) return &p[i];
    return NULL;
}

const cm_proto_row *cm_ptable_l1(const cm_ptable *p, unsigned state,
                                  unsigned event)
{
    return cm_proto_rows_find(p->l1, p->nl1, state, event);
}

const cm_proto_row *cm_ptable_l2(const cm_ptable *p, unsigned state,
                                  unsigned event)
{
    return cm_proto_rows_find_l2(p->l2, p->nl2, state, event);
}

int cm_ptable_l1_caches(const cm_ptable *p)
{
    for (size_t i = 0; i < p->nl1; i++)
        if (p->l1[i].actions & CM_A1_FILL) return 1;
    return 0;
}
