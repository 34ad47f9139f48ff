/* noc.c - the crossbar of noc.h: two input-queued networks with credits
 * per virtual network.
 *
 * A message's path: cm_noc_send_* takes a source credit of its virtual
 * network and sends it into the source's injection port; at delivery it
 * joins that network's switch FIFO of the input; forward() moves FIFO
 * heads into the destination's ejection port while the destination has
 * credits of that network (the source credit comes back at that moment,
 * the VC buffer slot being free); the ejection port delivers to the
 * receiver.  Ports never refuse: each is as large as the credits that gate
 * it.  All storage is allocated in cm_noc_new. */
#include "sim/noc.h"

#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct noc_net noc_net;

typedef struct noc_end { /* the context of one port's callbacks */
    noc_net *net;
    unsigned idx;
} noc_end;

typedef struct noc_in { /* one switch FIFO: an input's virtual network */
    cm_mreq **ring;
    uint32_t head, count, credits;
    int refused, waiting;
} noc_in;

typedef struct noc_out { /* one destination's credits of a network */
    uint32_t credits;
    uint32_t *waitq; /* FIFOs whose head waits for a credit, oldest first */
    uint32_t whead, wcount;
} noc_out;

struct noc_net {
    cm_noc *noc;
    int reply; /* 0: SM -> bank, 1: bank -> SM */
    unsigned nin, nout, nv;
    uint32_t in_cap;
    cm_port *inj, *ej;
    noc_end *inj_end, *ej_end;
    noc_in *in;   /* [input * nv + vnet] */
    noc_out *out; /* [output * nv + vnet] */
    cm_retry *retry; /* [input] */
    cm_stat *st_lat;
};

struct cm_noc {
    cm_noc_config cfg;
    cm_engine *eng;
    gsl_rng *rng; /* jitter */
    noc_net req, rep;
    cm_stat *st_msgs, *st_flits, *st_lat;
    cm_stat *st_cmsgs[CM_MSG_COUNT], *st_cflits[CM_MSG_COUNT];
};

uint32_t cm_noc_flits(const cm_noc_config *cfg, const cm_mreq *r)
{
    return cm_msg_flits(r->msg, (r->flags & CM_MF_DIRTY) != 0, r->bytes,
                        cfg->header_bytes, cfg->flit_bytes, cfg->line_bytes);
}

double cm_noc_link_cycles(const cm_noc *noc, const cm_mreq *r)
{
    return (double)cm_noc_flits(&noc->cfg, r) * noc->cfg.link.num /
           noc->cfg.link.den;
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

static unsigned vnet_of(const noc_net *net, const cm_mreq *r)
{
    return net->nv > 1 && cm_msg_kind_of(r->msg) == CM_MK_RESPONSE;
}

/* Moves FIFO (input i, network v) heads on while their destination has
 * credits of v. */
static void forward(noc_net *net, unsigned i, unsigned v)
{
    noc_in *in = &net->in[i * net->nv + v];
    while (in->count) {
        cm_mreq *r = in->ring[in->head];
        unsigned o = route(net, r);
        noc_out *out = &net->out[o * net->nv + v];
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
        cm_port_send(&net->ej[o], r, cm_noc_flits(&net->noc->cfg, r));
        in->credits++;
        if (in->refused) {
            /* the source re-sends into its injection port, which delivers
             * by event: no re-entry into this loop */
            in->refused = 0;
            cm_retry *rt = &net->retry[i];
            if (rt->ready) rt->ready(rt->obj);
        }
    }
}

static void inj_recv(cm_engine *eng, void *obj, void *msg)
{
    (void)eng;
    noc_end *e = obj;
    noc_net *net = e->net;
    unsigned v = vnet_of(net, msg);
    noc_in *in = &net->in[e->idx * net->nv + v];
    uint32_t t = in->head + in->count;
    in->ring[t >= net->in_cap ? t - net->in_cap : t] = msg;
    in->count++;
    /* a FIFO that waits for a credit already waits as a whole */
    if (!in->waiting) forward(net, e->idx, v);
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
    else if (vnet_of(net, r))
        c->deliver_resp(c->obj, e->idx, r);
    else
        c->deliver_req(c->obj, e->idx, r);
}

static void release(noc_net *net, unsigned o, unsigned v)
{
    noc_out *out = &net->out[o * net->nv + v];
    out->credits++;
    while (out->credits && out->wcount) {
        unsigned i = out->waitq[out->whead];
        if (++out->whead == net->nin) out->whead = 0;
        out->wcount--;
        net->in[i * net->nv + v].waiting = 0;
        forward(net, i, v);
    }
}

static int send(noc_net *net, unsigned i, cm_mreq *r)
{
    cm_noc *noc = net->noc;
    noc_in *in = &net->in[i * net->nv + vnet_of(net, r)];
    if (!in->credits) {
        in->refused = 1;
        return CM_SINK_BUSY;
    }
    in->credits--;
    r->noc_cycle = noc->eng->now;
    uint32_t f = cm_noc_flits(&noc->cfg, r);
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
    noc->req.retry[sm] = retry;
}
void cm_noc_set_reply_retry(cm_noc *noc, unsigned bank, cm_retry retry)
{
    noc->rep.retry[bank] = retry;
}
void cm_noc_release_req(cm_noc *noc, unsigned bank)
{
    release(&noc->req, bank, 0);
}
void cm_noc_release_resp(cm_noc *noc, unsigned bank)
{
    release(&noc->req, bank, noc->req.nv > 1);
}
void cm_noc_release_reply(cm_noc *noc, unsigned sm)
{
    release(&noc->rep, sm, 0);
}

/* ---- setup ------------------------------------------------------------------- */

static uint64_t jitter(void *obj)
{
    cm_noc *noc = obj;
    return gsl_rng_uniform_int(noc->rng, (unsigned long)noc->cfg.jitter + 1);
}

static void net_free(noc_net *net)
{
    for (unsigned i = 0; net->inj && i < net->nin; i++)
        cm_port_free(&net->inj[i]);
    for (unsigned o = 0; net->ej && o < net->nout; o++)
        cm_port_free(&net->ej[o]);
    for (unsigned i = 0; net->in && i < net->nin * net->nv; i++)
        free(net->in[i].ring);
    for (unsigned o = 0; net->out && o < net->nout * net->nv; o++)
        free(net->out[o].waitq);
    free(net->inj);
    free(net->ej);
    free(net->inj_end);
    free(net->ej_end);
    free(net->in);
    free(net->out);
    free(net->retry);
}

/* out_credits[v]: a destination's credits of network v. */
static cm_status net_init(cm_noc *noc, noc_net *net, int reply, unsigned nin,
                          unsigned nout, unsigned nv,
                          const uint32_t *out_credits, cm_stats *stats,
                          cm_err *err)
{
    const cm_noc_config *c = &noc->cfg;
    *net = (noc_net){.noc = noc, .reply = reply, .nin = nin, .nout = nout,
                     .nv = nv, .in_cap = c->in_buffer};
    net->inj = calloc(nin, sizeof *net->inj);
    net->ej = calloc(nout, sizeof *net->ej);
    net->inj_end = calloc(nin, sizeof *net->inj_end);
    net->ej_end = calloc(nout, sizeof *net->ej_end);
    net->in = calloc((size_t)nin * nv, sizeof *net->in);
    net->out = calloc((size_t)nout * nv, sizeof *net->out);
    net->retry = calloc(nin, sizeof *net->retry);
    if (!net->inj || !net->ej || !net->inj_end || !net->ej_end || !net->in ||
        !net->out || !net->retry)
        return cm_err_set(err, CM_EINTERNAL, "out of memory for the crossbar");
    uint32_t ej_cap = 0;
    for (unsigned v = 0; v < nv; v++) ej_cap += out_credits[v];
    cm_port_config inj = {c->in_buffer * nv, c->latency, c->link.den,
                          c->link.num, c->jitter ? jitter : NULL, noc};
    cm_port_config ej = {ej_cap, 0, c->link.den, c->link.num,
                         c->jitter ? jitter : NULL, noc};
    for (unsigned i = 0; i < nin; i++) {
        net->inj_end[i] = (noc_end){net, i};
        for (unsigned v = 0; v < nv; v++) {
            noc_in *in = &net->in[i * nv + v];
            in->credits = c->in_buffer;
            in->ring = malloc(c->in_buffer * sizeof *in->ring);
            if (!in->ring)
                return cm_err_set(err, CM_EINTERNAL,
                                  "out of memory for the crossbar");
        }
        cm_status st = cm_port_init(&net->inj[i], noc->eng, &inj, inj_recv,
                                    &net->inj_end[i], err);
        if (st) return st;
    }
    for (unsigned o = 0; o < nout; o++) {
        net->ej_end[o] = (noc_end){net, o};
        for (unsigned v = 0; v < nv; v++) {
            noc_out *out = &net->out[o * nv + v];
            out->credits = out_credits[v];
            out->waitq = malloc(nin * sizeof *out->waitq);
            if (!out->waitq)
                return cm_err_set(err, CM_EINTERNAL,
                                  "out of memory for the crossbar");
        }
        cm_status st = cm_port_init(&net->ej[o], noc->eng, &ej, ej_recv,
                                    &net->ej_end[o], err);
        if (st) return st;
    }
    return cm_stats_latency(stats,
                            reply ? "noc.reply.latency" : "noc.req.latency",
                            "all", 32, 0, &net->st_lat, err);
}

static cm_status register_stats(cm_noc *noc, cm_stats *stats, cm_err *err)
{
    cm_status st = cm_stats_counter(stats, "noc.msgs", "all", &noc->st_msgs,
                                    err);
    if (!st)
        st = cm_stats_counter(stats, "noc.flits", "all", &noc->st_flits, err);
    if (!st)
        st = cm_stats_latency(stats, "noc.latency", "all", 32, 0, &noc->st_lat,
                              err);
    for (unsigned m = 1; !st && m < CM_MSG_COUNT; m++) {
        char name[64];
        snprintf(name, sizeof name, "noc.msgs.%s", cm_msg_name(m));
        st = cm_stats_counter(stats, name, "all", &noc->st_cmsgs[m], err);
        snprintf(name, sizeof name, "noc.flits.%s", cm_msg_name(m));
        if (!st)
            st = cm_stats_counter(stats, name, "all", &noc->st_cflits[m], err);
    }
    return st;
}

cm_status cm_noc_new(const cm_noc_config *cfg, cm_engine *eng, cm_stats *stats,
                     cm_noc **out, cm_err *err)
{
    *out = NULL;
    if (!cfg->sms || !cfg->banks || !cfg->flit_bytes || !cfg->in_buffer ||
        !cfg->bank_queue || !cfg->bank_resp || !cfg->sm_buffer ||
        !cfg->link.num || !cfg->link.den || !cfg->deliver_req ||
        !cfg->deliver_resp || !cfg->deliver_reply || cfg->vnets < 1 ||
        cfg->vnets > 2)
        return cm_err_set(err, CM_EINPUT, "crossbar: incomplete configuration");
    cm_noc *noc = calloc(1, sizeof *noc);
    if (!noc) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    noc->cfg = *cfg;
    noc->eng = eng;
    noc->rng = gsl_rng_alloc(gsl_rng_taus2);
    cm_status st = noc->rng ? CM_OK
                            : cm_err_set(err, CM_EINTERNAL, "out of memory");
    if (!st) gsl_rng_set(noc->rng, (unsigned long)cfg->seed);
    uint32_t req_credits[2] = {cfg->bank_queue, cfg->bank_resp};
    uint32_t rep_credits[1] = {cfg->sm_buffer};
    if (!st)
        st = net_init(noc, &noc->req, 0, cfg->sms, cfg->banks, cfg->vnets,
                      req_credits, stats, err);
    if (!st)
        st = net_init(noc, &noc->rep, 1, cfg->banks, cfg->sms, 1, rep_credits,
                      stats, err);
    if (!st) st = register_stats(noc, stats, err);
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
    if (noc->rng) gsl_rng_free(noc->rng);
    free(noc);
}
