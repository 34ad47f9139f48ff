/* memsys.c - assembles the crossbar, the L2 banks and the DRAM channels of
 * memsys.h from cm_params, and holds replies an SM cannot take yet.
 *
 * Wiring: SM input sink -> cm_noc request network -> cm_l2_accept
 * (requests) or cm_l2_response (responses); L2 misses -> cm_dram ->
 * cm_l2_dram_done; L2 replies and forwards -> cm_noc reply network ->
 * this file's per-SM ejection buffer -> the SM's reply sink.  The
 * ejection buffer has noc.vc_buffer slots (the reply network's credits of
 * that SM); a refused message stays at its head and is offered again
 * every NoC cycle (cm_sink has no retry path from receiver to sender in
 * this direction: the SM may call cm_memsys_reply_ready to skip the
 * wait).  Cache lines (cm_mreq.line) are in units of l2.line. */
#include "sim/memsys.h"

#include <math.h>
#include <stdlib.h>

#include "sim/dram.h"
#include "sim/l2.h"
#include "sim/noc.h"
#include "sim/observe.h"

cm_ratio cm_ratio_of(double x)
{
    /* Convergents h/k of x's continued fraction, while k <= 1000. */
    uint64_t h0 = 0, h1 = 1, k0 = 1, k1 = 0;
    double v = x;
    for (int i = 0; i < 64 && v > 0 && v < 4e9; i++) {
        double a = floor(v);
        uint64_t ai = (uint64_t)a;
        uint64_t h2 = ai * h1 + h0, k2 = ai * k1 + k0;
        if (k2 > 1000 || h2 > UINT32_MAX) break;
        h0 = h1, h1 = h2, k0 = k1, k1 = k2;
        if (fabs(x - (double)h1 / (double)k1) <= 1e-9 * x) break;
        if (v - a <= 0) break;
        v = 1.0 / (v - a);
    }
    if (k1 == 0 || h1 == 0) return (cm_ratio){1, 1000}; /* x ~ 0 */
    return (cm_ratio){(uint32_t)h1, (uint32_t)k1};
}

static cm_noc_config noc_config(const cm_params *p)
{
    cm_noc_config c = {0};
    c.sms = (unsigned)p->gpu_sms;
    c.banks = (unsigned)p->l2_banks;
    c.flit_bytes = (uint32_t)p->noc_flit;
    c.header_bytes = (uint32_t)p->noc_header;
    c.line_bytes = (uint32_t)p->l2_line;
    /* core cycles per flit = (flit / port_bytes) NoC cycles x core/noc. */
    c.link = cm_ratio_of(p->noc_flit * p->gpu_core_clock /
                         (p->noc_port_bytes * p->noc_clock));
    c.latency =
        (uint64_t)llround(p->noc_latency * p->gpu_core_clock / p->noc_clock);
    c.in_buffer = (uint32_t)p->noc_vc_buffer;
    c.bank_queue = (uint32_t)p->l2_queue;
    /* a bank takes responses at once: a VC buffer's worth from the SMs */
    c.bank_resp = (uint32_t)p->noc_vc_buffer;
    c.sm_buffer = (uint32_t)p->noc_vc_buffer;
    c.vnets = (uint32_t)p->noc_vnets;
    c.jitter = (uint32_t)p->noc_jitter;
    c.seed = (uint64_t)p->sim_seed;
    return c;
}

cm_status cm_memsys_timing_of(const cm_params *p, cm_memsys_timing *t,
                              cm_err *err)
{
    cm_noc_config nc = noc_config(p);
    double core = p->gpu_core_clock;
    t->link = nc.link;
    t->noc_pipe = nc.latency;
    t->l2_service = cm_ratio_of(core / p->l2_clock);
    t->atomic = t->l2_service; /* one L2 cycle */
    t->dram_burst =
        cm_ratio_of(p->l2_line / (p->dram_bus_bytes * p->dram_data_rate) *
                    core / p->dram_clock);
    cm_mreq gets = {.msg = CM_MSG_GETS}, data = {.msg = CM_MSG_DATA};
    t->noc_gets = cm_noc_traversal(&nc, cm_noc_flits(&nc, &gets));
    t->noc_data = cm_noc_traversal(&nc, cm_noc_flits(&nc, &data));
    uint64_t l2lat = (uint64_t)llround(p->l2_latency);
    uint64_t dlat = (uint64_t)llround(p->dram_latency);
    if (l2lat < t->noc_gets + t->noc_data)
        return cm_err_set(err, CM_EINPUT,
                          "l2.latency %llu is below the two crossbar "
                          "traversals of an L2 hit (%llu + %llu cycles): "
                          "raise it or lower noc.latency",
                          (unsigned long long)l2lat,
                          (unsigned long long)t->noc_gets,
                          (unsigned long long)t->noc_data);
    t->l2_pipe = l2lat - t->noc_gets - t->noc_data;
    t->l2_pipe_in = t->l2_pipe / 2;
    t->l2_pipe_slots =
        (uint32_t)((t->l2_pipe_in * t->l2_service.den + t->l2_service.num - 1) /
                   t->l2_service.num);
    uint64_t burst = cm_ratio_ceil(t->dram_burst.num, t->dram_burst);
    if (dlat < l2lat + burst)
        return cm_err_set(err, CM_EINPUT,
                          "dram.latency %llu is below l2.latency %llu plus "
                          "the DRAM burst (%llu cycles)",
                          (unsigned long long)dlat, (unsigned long long)l2lat,
                          (unsigned long long)burst);
    t->dram_closed = dlat - l2lat - burst;
    uint64_t trcd = (uint64_t)llround(p->dram_trcd * core / p->dram_clock);
    uint64_t trp = (uint64_t)llround(p->dram_trp * core / p->dram_clock);
    /* A row hit skips the activate; clamped if dram.latency leaves less. */
    t->dram_hit = t->dram_closed > trcd ? t->dram_closed - trcd : 0;
    t->dram_conflict = t->dram_closed + trp;
    return CM_OK;
}

typedef struct ms_port { /* the context of SM sm's sinks and events */
    cm_memsys *ms;
    unsigned sm;
} ms_port;

typedef struct ms_hold { /* replies ejected to an SM, not yet taken */
    cm_mreq **ring;
    uint32_t head, count;
    int poll_pending, draining;
} ms_hold;

struct cm_memsys {
    cm_engine *eng;
    cm_noc *noc;
    cm_l2 *l2;
    cm_dram *dram;
    unsigned sms;
    cm_sink *reply;
    ms_port *port;
    ms_hold *hold;
    uint32_t hold_cap;
    uint64_t poll, accepted, replied;
};

void cm_memsys_warm(cm_memsys *ms, const cm_mreq *m, uint64_t vtime,
                    cm_warm_reply *out, cm_l2_forward_fn forward, void *obj)
{
    cm_l2_warm(ms->l2, m, vtime, out, forward, obj);
}

static int input_accept(void *obj, cm_mreq *r)
{
    ms_port *pt = obj;
    r->sm = pt->sm; /* the input fixes where the reply goes */
    int st = cm_noc_send_req(pt->ms->noc, pt->sm, r);
    if (st == CM_SINK_OK && cm_msg_kind_of(r->msg) == CM_MK_REQUEST)
        pt->ms->accepted++;
    return st;
}

static void poll_ev(cm_engine *eng, void *obj, uint64_t arg);

static void hold_drain(cm_memsys *ms, unsigned sm)
{
    ms_hold *h = &ms->hold[sm];
    if (h->draining) return;
    h->draining = 1;
    while (h->count) {
        if (cm_sink_send(&ms->reply[sm], h->ring[h->head]) != CM_SINK_OK) {
            if (!h->poll_pending) {
                h->poll_pending = 1;
                cm_engine_schedule(ms->eng, ms->poll, poll_ev, &ms->port[sm],
                                   0);
            }
            break;
        }
        /* The SM owns the message now: only the pointer is dropped. */
        int reply = cm_msg_kind_of(h->ring[h->head]->msg) == CM_MK_REPLY;
        if (++h->head == ms->hold_cap) h->head = 0;
        h->count--;
        ms->replied += reply;
        cm_noc_release_reply(ms->noc, sm);
    }
    h->draining = 0;
}

static void poll_ev(cm_engine *eng, void *obj, uint64_t arg)
{
    (void)eng;
    (void)arg;
    ms_port *pt = obj;
    pt->ms->hold[pt->sm].poll_pending = 0;
    hold_drain(pt->ms, pt->sm);
}

static void deliver_reply(void *obj, unsigned sm, cm_mreq *r)
{
    cm_memsys *ms = obj;
    ms_hold *h = &ms->hold[sm];
    uint32_t t = h->head + h->count++;
    h->ring[t >= ms->hold_cap ? t - ms->hold_cap : t] = r;
    /* Behind a refused head, or a poll pending: keep order, wait. */
    if (h->count == 1 && !h->poll_pending) hold_drain(ms, sm);
}

static void deliver_resp(void *obj, unsigned bank, cm_mreq *r)
{
    cm_memsys *ms = obj;
    cm_l2_response(ms->l2, bank, r);
    cm_noc_release_resp(ms->noc, bank); /* taken at once */
}

/* Requests, and responses too with one virtual network. */
static void deliver_req(void *obj, unsigned bank, cm_mreq *r)
{
    cm_memsys *ms = obj;
    if (cm_msg_kind_of(r->msg) == CM_MK_RESPONSE)
        deliver_resp(obj, bank, r);
    else
        cm_l2_accept(ms->l2, bank, r);
}

static void dram_done(void *obj, const cm_dram_req *q)
{
    cm_memsys *ms = obj;
    cm_l2_dram_done(ms->l2, q);
}

static void configs(const cm_params *p, const cm_memsys_timing *t,
                    cm_noc_config *nc, cm_dram_config *dc, cm_l2_config *lc)
{
    *nc = noc_config(p);
    nc->bank_queue += t->l2_pipe_slots;
    *dc = (cm_dram_config){0};
    dc->channels = (unsigned)p->dram_channels;
    dc->sources = (unsigned)p->l2_banks;
    dc->queue = (uint32_t)p->dram_queue;
    dc->banks = (uint32_t)p->dram_banks;
    uint64_t lpr = (uint64_t)(p->dram_row_bytes / p->l2_line);
    dc->lines_per_row = lpr ? lpr : 1;
    dc->burst = t->dram_burst;
    dc->hit = t->dram_hit;
    dc->closed = t->dram_closed;
    dc->conflict = t->dram_conflict;
    *lc = (cm_l2_config){0};
    lc->banks = (unsigned)p->l2_banks;
    lc->channels = (unsigned)p->dram_channels;
    lc->sms = (unsigned)p->gpu_sms;
    lc->params = p;
    lc->bank_bytes = (uint64_t)p->l2_bank_size;
    lc->ways = (uint64_t)p->l2_ways;
    lc->line_bytes = (uint64_t)p->l2_line;
    lc->queue = (uint32_t)p->l2_queue;
    lc->mshrs = (uint32_t)p->l2_mshrs;
    lc->merge = (uint32_t)p->l2_mshr_merge;
    lc->service = t->l2_service;
    lc->atomic = t->atomic;
    lc->pipe = t->l2_pipe;
    lc->pipe_in = t->l2_pipe_in;
}

size_t cm_memsys_events(const cm_params *p)
{
    cm_memsys_timing t;
    cm_noc_config nc;
    cm_dram_config dc;
    cm_l2_config lc;
    if (cm_memsys_timing_of(p, &t, NULL)) return 0;
    configs(p, &t, &nc, &dc, &lc);
    return cm_noc_events(&nc) + cm_dram_events(&dc) + cm_l2_events(&lc) +
           (size_t)p->gpu_sms;
}

cm_status cm_memsys_new(const cm_params *p, const cm_protocol *proto,
                        cm_pool *pool, const cm_observer *obs, cm_engine *eng,
                        cm_stats *stats, const cm_sink *reply_sinks,
                        cm_memsys **out, cm_err *err)
{
    *out = NULL;
    cm_memsys_timing t;
    cm_status st = cm_memsys_timing_of(p, &t, err);
    if (st) return st;
    cm_memsys *ms = calloc(1, sizeof *ms);
    if (!ms) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    ms->eng = eng;
    ms->sms = (unsigned)p->gpu_sms;
    ms->hold_cap = (uint32_t)p->noc_vc_buffer;
    double poll = round(p->gpu_core_clock / p->noc_clock);
    ms->poll = poll >= 1 ? (uint64_t)poll : 1;
    cm_noc_config nc;
    cm_dram_config dc;
    cm_l2_config lc;
    configs(p, &t, &nc, &dc, &lc);
    nc.deliver_req = deliver_req;
    nc.deliver_resp = deliver_resp;
    nc.deliver_reply = deliver_reply;
    lc.proto = proto;
    lc.pool = pool;
    lc.obs = obs;
    nc.obj = ms;
    dc.done = dram_done;
    dc.obj = ms;
    ms->reply = malloc(ms->sms * sizeof *ms->reply);
    ms->port = malloc(ms->sms * sizeof *ms->port);
    ms->hold = calloc(ms->sms, sizeof *ms->hold);
    if (!ms->reply || !ms->port || !ms->hold)
        st = cm_err_set(err, CM_EINTERNAL, "out of memory");
    for (unsigned i = 0; !st && i < ms->sms; i++) {
        ms->reply[i] = reply_sinks[i];
        ms->port[i] = (ms_port){ms, i};
        ms->hold[i].ring = malloc(ms->hold_cap * sizeof *ms->hold[i].ring);
        if (!ms->hold[i].ring)
            st = cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    if (!st) st = cm_noc_new(&nc, eng, stats, &ms->noc, err);
    if (!st) st = cm_dram_new(&dc, eng, stats, &ms->dram, err);
    if (!st) st = cm_l2_new(&lc, eng, stats, ms->noc, ms->dram, &ms->l2, err);
    if (st) {
        cm_memsys_free(ms);
        return st;
    }
    *out = ms;
    return CM_OK;
}

void cm_memsys_free(cm_memsys *ms)
{
    if (!ms) return;
    cm_l2_free(ms->l2);
    cm_dram_free(ms->dram);
    cm_noc_free(ms->noc);
    for (unsigned i = 0; ms->hold && i < ms->sms; i++) free(ms->hold[i].ring);
    free(ms->hold);
    free(ms->port);
    free(ms->reply);
    free(ms);
}

cm_sink cm_memsys_input(cm_memsys *ms, unsigned sm)
{
    return (cm_sink){input_accept, &ms->port[sm]};
}

void cm_memsys_set_retry(cm_memsys *ms, unsigned sm, cm_retry retry)
{
    cm_noc_set_req_retry(ms->noc, sm, retry);
}

void cm_memsys_reply_ready(cm_memsys *ms, unsigned sm)
{
    hold_drain(ms, sm);
}

uint64_t cm_memsys_outstanding(const cm_memsys *ms)
{
    return ms->accepted - ms->replied;
}

void cm_memsys_fence_seen(cm_memsys *ms)
{
    cm_l2_fence_seen(ms->l2);
}

void cm_memsys_finish(cm_memsys *ms)
{
    cm_l2_finish(ms->l2);
}

const char *cm_memsys_line_state(const cm_memsys *ms, uint64_t line)
{
    return cm_l2_state_names[cm_l2_line_state(ms->l2, line)];
}

uint64_t cm_memsys_value(const cm_memsys *ms, uint64_t line)
{
    return cm_l2_value(ms->l2, line);
}

int cm_memsys_owner(const cm_memsys *ms, uint64_t line)
{
    return cm_l2_owner(ms->l2, line);
}
