/* noc.c - the crossbar of noc.h: two input-queued networks with credits.
 *
 * A message's path: cm_noc_send_* takes a source credit and sends it into
 * the source's injection port; at delivery it joins the switch FIFO of
 * that input; forward() moves FIFO heads into the destination's ejection
 * port while the destination has credits (the source credit comes back at
 * that moment, the VC buffer slot being free); the ejection port delivers
 * to the receiver.  Ports never refuse: each is as large as the credits
 * that gate it.  All storage is allocated in cm_noc_new. */
#include "sim/noc.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct noc_net noc_net;

typedef struct noc_end { /* the context of one port's callbacks */
    noc_net *net;
    unsigned idx;
} noc_end;

typedef struct noc_in {
    cm_mreq **ring; /* switch FIFO, in_buffer slots */
    uint32_t head, count, credits;
    int refused, waiting;
    cm_retry retry;
} noc_in;

typedef struct noc_out {
    uint32_t credits;
    uint32_t *waitq; /* inputs whose head waits for a credit, oldest first */
    uint32_t whead, wcount;
} noc_out;

struct noc_net {
    cm_noc *noc;
    int reply; /* 0: SM -> bank, 1: bank -> SM */
    unsigned nin, nout;
    uint32_t in_cap;
    cm_port *inj, *ej;
    noc_end *inj_end, *ej_end;
    noc_in *in;
    noc_out *out;
    cm_stat *st_lat;
};

struct cm_noc {
    cm_noc_config cfg;
    cm_engine *eng;
    noc_net req, rep;
    cm_stat *st_msgs, *st_flits, *st_lat;
    cm_stat *st_cmsgs[CM_MSG_COUNT], *st_cflits[CM_MSG_COUNT];
};

static const char *const class_names[CM_MSG_COUNT] = {"none",   "gets", "write",
                                                      "atomic", "data", "ack"};

uint32_t cm_noc_flits(const cm_noc_config *cfg, unsigned msg, uint32_t bytes)
{
    uint64_t b = cfg->header_bytes;
    if (msg == CM_MSG_DATA) b += cfg->line_bytes;
    if (msg == CM_MSG_WRITE || msg == CM_MSG_ATOMIC) b += bytes;
    uint64_t f = (b + cfg->flit_bytes - 1) / cfg->flit_bytes;
    return f ? (uint32_t)f : 1;
}

uint64_t cm_noc_traversal(const cm_noc_config *cfg, uint32_t flits)
{
    uint64_t ser = cm_ratio_ceil((uint64_t)flits * cfg->link.num, cfg->link);
    return 2 * ser + cfg->latency;
}

size_t cm_noc_events(const cm_noc_config *cfg)
{
    return 2 * ((size_t)cfg->sms + cfg->banks);
}

static unsigned route(const noc_net *net, const cm_mreq *r)
{
    return net->reply ? r->sm : cm_noc_bank_of(r->line, net->noc->cfg.banks);
}

static uint32_t flits_of(const cm_noc *noc, const cm_mreq *r)
{
    return cm_noc_flits(&noc->cfg, r->msg, r->bytes);
}

/* Moves input i's FIFO heads on while their destinations have credits. */
static void forward(noc_net *net, unsigned i)
{
    noc_in *in = &net->in[i];
    while (in->count) {
        cm_mreq *r = in->ring[in->head];
        unsigned o = route(net, r);
        noc_out *out = &net->out[o];
        if (!out->credits) {
            if (!in->waiting) {
                uint32_t t = out->whead + out->wcount;
                out->waitq[t >= net->nin ? t - net->nin : t] = i;
                out->wcount++;
                in->waiting = 1;
            }
            return;
        }
        if (++in->head == net->in_cap) in->head = 0;
        in->count--;
        out->credits--;
        cm_port_send(&net->ej[o], r, flits_of(net->noc, r));
        in->credits++;
        if (in->refused) {
            /* The source re-sends into its injection port, which delivers
             * by event: no re-entry into this loop. */
            in->refused = 0;
            if (in->retry.ready) in->retry.ready(in->retry.obj);
        }
    }
}

static void inj_recv(cm_engine *eng, void *obj, void *msg)
{
    (void)eng;
    noc_end *e = obj;
    noc_in *in = &e->net->in[e->idx];
    uint32_t t = in->head + in->count;
    in->ring[t >= e->net->in_cap ? t - e->net->in_cap : t] = msg;
    in->count++;
    /* A non-empty FIFO means its head waits for a credit already. */
    if (!in->waiting) forward(e->net, e->idx);
}

static void ej_recv(cm_engine *eng, void *obj, void *msg)
{
    noc_end *e = obj;
    noc_net *net = e->net;
    cm_mreq *r = msg;
    double lat = (double)(eng->now - r->noc_cycle);
    cm_stat_sample(net->st_lat, lat);
    cm_stat_sample(net->noc->st_lat, lat);
    const cm_noc_config *c = &net->noc->cfg;
    if (net->reply)
        c->deliver_reply(c->obj, e->idx, r);
    else
        c->deliver_req(c->obj, e->idx, r);
}

static void release(noc_net *net, unsigned o)
{
    noc_out *out = &net->out[o];
    out->credits++;
    while (out->credits && out->wcount) {
        unsigned i = out->waitq[out->whead];
        if (++out->whead == net->nin) out->whead = 0;
        out->wcount--;
        net->in[i].waiting = 0;
        forward(net, i);
    }
}

static int send(noc_net *net, unsigned i, cm_mreq *r)
{
    cm_noc *noc = net->noc;
    noc_in *in = &net->in[i];
    if (!in->credits) {
        in->refused = 1;
        return CM_SINK_BUSY;
    }
    in->credits--;
    r->noc_cycle = noc->eng->now;
    uint32_t f = flits_of(noc, r);
    unsigned m = r->msg < CM_MSG_COUNT ? r->msg : CM_MSG_NONE;
    cm_stat_add(noc->st_msgs, 1);
    cm_stat_add(noc->st_flits, f);
    if (m != CM_MSG_NONE) { /* NONE never travels: a sender's bug */
        cm_stat_add(noc->st_cmsgs[m], 1);
        cm_stat_add(noc->st_cflits[m], f);
    }
    cm_port_send(&net->inj[i], r, f); /* cannot fail: capacity = credits */
    return CM_SINK_OK;
}

int cm_noc_send_req(cm_noc *noc, unsigned sm, cm_mreq *r)
{
    return send(&noc->req, sm, r);
}
int cm_noc_send_reply(cm_noc *noc, unsigned bank, cm_mreq *r)
{
    return send(&noc->rep, bank, r);
}
void cm_noc_set_req_retry(cm_noc *noc, unsigned sm, cm_retry retry)
{
    noc->req.in[sm].retry = retry;
}
void cm_noc_set_reply_retry(cm_noc *noc, unsigned bank, cm_retry retry)
{
    noc->rep.in[bank].retry = retry;
}
void cm_noc_release_req(cm_noc *noc, unsigned bank)
{
    release(&noc->req, bank);
}
void cm_noc_release_reply(cm_noc *noc, unsigned sm)
{
    release(&noc->rep, sm);
}

static void net_free(noc_net *net)
{
    for (unsigned i = 0; net->inj && i < net->nin; i++)
        cm_port_free(&net->inj[i]);
    for (unsigned o = 0; net->ej && o < net->nout; o++)
        cm_port_free(&net->ej[o]);
    for (unsigned i = 0; net->in && i < net->nin; i++) free(net->in[i].ring);
    for (unsigned o = 0; net->out && o < net->nout; o++)
        free(net->out[o].waitq);
    free(net->inj);
    free(net->ej);
    free(net->inj_end);
    free(net->ej_end);
    free(net->in);
    free(net->out);
}

static cm_status net_init(cm_noc *noc, noc_net *net, int reply, unsigned nin,
                          unsigned nout, uint32_t out_credits, cm_stats *stats,
                          cm_err *err)
{
    const cm_noc_config *c = &noc->cfg;
    net->noc = noc;
    net->reply = reply;
    net->nin = nin;
    net->nout = nout;
    net->in_cap = c->in_buffer;
    net->inj = calloc(nin, sizeof *net->inj);
    net->ej = calloc(nout, sizeof *net->ej);
    net->inj_end = calloc(nin, sizeof *net->inj_end);
    net->ej_end = calloc(nout, sizeof *net->ej_end);
    net->in = calloc(nin, sizeof *net->in);
    net->out = calloc(nout, sizeof *net->out);
    if (!net->inj || !net->ej || !net->inj_end || !net->ej_end || !net->in ||
        !net->out)
        return cm_err_set(err, CM_EINTERNAL, "out of memory for the crossbar");
    cm_port_config inj = {c->in_buffer, c->latency, c->link.den, c->link.num};
    cm_port_config ej = {out_credits, 0, c->link.den, c->link.num};
    for (unsigned i = 0; i < nin; i++) {
        net->inj_end[i] = (noc_end){net, i};
        net->in[i].credits = c->in_buffer;
        net->in[i].ring = malloc(c->in_buffer * sizeof *net->in[i].ring);
        if (!net->in[i].ring)
            return cm_err_set(err, CM_EINTERNAL,
                              "out of memory for the crossbar");
        cm_status st = cm_port_init(&net->inj[i], noc->eng, &inj, inj_recv,
                                    &net->inj_end[i], err);
        if (st) return st;
    }
    for (unsigned o = 0; o < nout; o++) {
        net->ej_end[o] = (noc_end){net, o};
        net->out[o].credits = out_credits;
        net->out[o].waitq = malloc(nin * sizeof *net->out[o].waitq);
        if (!net->out[o].waitq)
            return cm_err_set(err, CM_EINTERNAL,
                              "out of memory for the crossbar");
        cm_status st = cm_port_init(&net->ej[o], noc->eng, &ej, ej_recv,
                                    &net->ej_end[o], err);
        if (st) return st;
    }
    return cm_stats_latency(stats,
                            reply ? "noc.reply.latency" : "noc.req.latency",
                            "all", 32, 0, &net->st_lat, err);
}

cm_status cm_noc_new(const cm_noc_config *cfg, cm_engine *eng, cm_stats *stats,
                     cm_noc **out, cm_err *err)
{
    *out = NULL;
    if (!cfg->sms || !cfg->banks || !cfg->flit_bytes || !cfg->in_buffer ||
        !cfg->bank_queue || !cfg->sm_buffer || !cfg->link.num ||
        !cfg->link.den || !cfg->deliver_req || !cfg->deliver_reply)
        return cm_err_set(err, CM_EINPUT, "crossbar: incomplete configuration");
    cm_noc *noc = calloc(1, sizeof *noc);
    if (!noc) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    noc->cfg = *cfg;
    noc->eng = eng;
    cm_status st = net_init(noc, &noc->req, 0, cfg->sms, cfg->banks,
                            cfg->bank_queue, stats, err);
    if (!st)
        st = net_init(noc, &noc->rep, 1, cfg->banks, cfg->sms, cfg->sm_buffer,
                      stats, err);
    if (!st)
        st = cm_stats_counter(stats, "noc.msgs", "all", &noc->st_msgs, err);
    if (!st)
        st = cm_stats_counter(stats, "noc.flits", "all", &noc->st_flits, err);
    if (!st)
        st = cm_stats_latency(stats, "noc.latency", "all", 32, 0, &noc->st_lat,
                              err);
    for (unsigned m = 0; !st && m < CM_MSG_COUNT; m++) {
        char name[64];
        if (m == CM_MSG_NONE) continue;
        snprintf(name, sizeof name, "noc.msgs.%s", class_names[m]);
        st = cm_stats_counter(stats, name, "all", &noc->st_cmsgs[m], err);
        snprintf(name, sizeof name, "noc.flits.%s", class_names[m]);
        if (!st)
            st = cm_stats_counter(stats, name, "all", &noc->st_cflits[m], err);
    }
    if (st) {
        cm_noc_free(noc);
        return st;
    }
    *out = noc;
    return CM_OK;
}

void cm_noc_free(cm_noc *noc)
{
    if (!noc) return;
    net_free(&noc->req);
    net_free(&noc->rep);
    free(noc);
}
