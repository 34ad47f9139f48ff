/* gpu_inject.c - the traffic injectors of spatial sampling (see gpu.h,
 * gpu_impl.h), and the memory side's functional answers to any SM.
 *
 * Spatial sampling (sim.sample spatial or both): SMs 0..K-1 (K =
 * sim.sample_sms) run in detail.  Every other SM is a traffic injector: its
 * warps run functionally through its own L1 tags (cm_sm_functional), and the
 * requests that reach the memory side are sent, timed, at the detailed SMs'
 * current rate of L1 requests per SM per cycle (re-measured every rate slice
 * of 1000 cycles, smoothed), an instruction's requests back to back one per
 * cycle as the LD/ST unit sends them (the traffic keeps its bursts), with at
 * most l1.mshrs of them in flight, so the shared crossbar, L2 and DRAM see
 * the whole machine's load and its back-pressure.  Per-SM rows exist for the
 * detailed SMs only; machine totals (ipc of `all`) scale the detailed SMs'
 * instructions by N/K. Assumption: the injected SMs behave like the average
 * detailed one (true of the statistical profiles, whose SMs are alike).
 * Under a write-back protocol an injector's L1 takes a copy only when the
 * timed grant comes (the L2 records an owner only then), sends its PUTs at
 * once and asks for a line once while its request is in flight. */
#include "sim/gpu_impl.h"

#include <math.h>

/* ---- traffic injectors -----------------------------------------------------
 */

static void inj_fire(cm_engine *eng, void *obj, uint64_t arg);

void gpu_inj_schedule(injector *in, uint64_t at)
{
    if (in->scheduled || in->paused || in->retry) return;
    if (cm_engine_schedule_at(&in->g->eng, at, inj_fire, in, 0) == CM_OK)
        in->scheduled = 1;
}

/* An injected SM's L1 sent m functionally: it is sent timed instead.  A
 * write-back L1 (MESI) takes its copy when the timed grant comes
 * (cm_l1_warm_grant: the L2 records an owner only then, and its PUTs must
 * follow); the others assume the base reply of its class, with a lease of
 * a fixed lifetime. */
static int inj_respond(injector *in, const cm_mreq *m);

static int inj_collect(void *obj, const cm_mreq *m, uint64_t vtime,
                       cm_warm_reply *out)
{
    injector *in = obj;
    /* a victim's PUT leaves at once, on the responses' network: queued
     * behind requests the L2's full queue holds back, it would never reach
     * the L2 that holds the owner's next request until it lands */
    if (cm_msg_kind_of(m->msg) != CM_MK_REQUEST && inj_respond(in, m)) return 0;
    in->q[in->qn++] = *m;
    if (in->g->cfg->protocol->l1_write_back) {
        out->msg = CM_MSG_NONE;
        return cm_msg_kind_of(m->msg) == CM_MK_REQUEST;
    }
    out->value = 0;
    out->ts = vtime + in->g->lease;
    out->msg = m->msg == CM_MSG_GETS     ? CM_MSG_DATA
               : m->msg == CM_MSG_ATOMIC ? CM_MSG_AREPLY
               : m->msg == CM_MSG_GETX && in->g->cfg->protocol->l1_write_back
                   ? CM_MSG_DATA_M
                   : CM_MSG_ACK;
    /* stop after this instruction: send before running on */
    return cm_msg_kind_of(m->msg) == CM_MK_REQUEST;
}

/* Sends the answers to forwards while the network takes them. */
static void inj_answers(injector *in)
{
    while (in->an) {
        cm_sink s = cm_memsys_input(in->g->ms, in->id);
        if (cm_sink_send(&s, in->ans[in->ah]) != CM_SINK_OK) return;
        if (++in->ah == in->acap) in->ah = 0;
        in->an--;
    }
}

/* Queues a response (a PUT) of the injected SM for the network; 0 if the
 * queue is full (the answers ahead leave first). */
static int inj_respond(injector *in, const cm_mreq *m)
{
    if (in->an == in->acap) return 0;
    cm_mreq *r = cm_pool_get(&in->g->pool);
    if (!r) return 0;
    *r = *m;
    r->sm = in->id;
    r->issue_cycle = cm_engine_now(&in->g->eng);
    uint32_t t = in->ah + in->an++;
    in->ans[t >= in->acap ? t - in->acap : t] = r;
    inj_answers(in);
    return 1;
}

/* A PUT the grant's victim makes (cm_l1_warm_grant). */
static void inj_victim(void *obj, const cm_mreq *m, uint64_t vtime,
                       cm_warm_reply *out)
{
    (void)vtime;
    (void)out;
    inj_respond(obj, m); /* room was made before the grant */
}

/* Write-back L1s: the lines with a request in flight (their grant not in
 * yet), so a line is asked for once, as an MSHR would merge: a second
 * request from the line's owner-to-be would wait at the L2 for a PUT that
 * never comes. */
static int inj_pending(const injector *in, uint64_t line, uint32_t *at)
{
    for (uint32_t i = 0; i < in->npend; i++)
        if (in->pend[i] == line) {
            if (at) *at = i;
            return 1;
        }
    return 0;
}

static void inj_fire(cm_engine *eng, void *obj, uint64_t arg)
{
    (void)arg;
    injector *in = obj;
    gpu *g = in->g;
    uint64_t now = cm_engine_now(eng);
    in->scheduled = 0;
    while (!in->paused && in->out < (uint32_t)g->p->l1_mshrs) {
        if (in->qpos == in->qn) {
            in->qn = in->qpos = 0;
            cm_sm_functional(in->sm, UINT64_MAX, inj_collect, in, now);
            if (in->qn == 0) return; /* its warps have all retired */
        }
        if (cm_msg_kind_of(in->q[in->qpos].msg) != CM_MK_REQUEST) {
            /* a victim's PUT: the owner's (write-back L1s own only what
             * the L2 granted); none is made without ownership */
            if (!inj_respond(in, &in->q[in->qpos])) return;
            in->qpos++;
            continue;
        }
        if ((double)now < in->next) {
            gpu_inj_schedule(in, (uint64_t)ceil(in->next));
            return;
        }
        const cm_mreq *m = &in->q[in->qpos];
        int wb = g->cfg->protocol->l1_write_back;
        /* merged with the request in flight, or served by the copy a
         * grant brought since the request was made */
        if (wb && (inj_pending(in, m->line, NULL) ||
                   !cm_l1_needs_request(cm_sm_l1(in->sm), m->line, m->op))) {
            in->qpos++;
            continue;
        }
        cm_mreq *q = cm_pool_get(&g->pool);
        if (!q) return; /* cannot happen: the pool holds every slot */
        *q = (cm_mreq){.line = m->line,
                       .id = (uint64_t)in->id << 40 | in->next_id,
                       .issue_cycle = now,
                       .value = m->value,
                       .ts = m->ts,
                       .sm = in->id,
                       .bytes = 4,
                       .op = m->op,
                       .msg = m->msg};
        cm_sink s = cm_memsys_input(g->ms, in->id);
        if (cm_sink_send(&s, q) != CM_SINK_OK) {
            cm_pool_put(&g->pool, q);
            in->retry = 1;
            return;
        }
        in->next_id++;
        in->qpos++;
        in->out++;
        if (wb) in->pend[in->npend++] = m->line;
        /* An instruction's requests leave one per cycle, as from the
         * LD/ST unit; the rate spaces whole instructions, so the traffic
         * keeps the detailed SMs' burstiness. */
        double gap = in->qpos < in->qn ? 1
                     : g->rate > 0     ? (double)in->qn / g->rate - in->qn + 1
                                       : 1e9;
        in->next = (double)now + (gap > 1 ? gap : 1);
    }
}

void gpu_inj_retry(void *obj)
{
    injector *in = obj;
    inj_answers(in);
    in->retry = 0;
    gpu_inj_schedule(in, cm_engine_now(&in->g->eng));
}

/* An L2's functional forward to L1 sm (detailed or injected). */
static unsigned warm_forward(void *obj, uint32_t sm, uint64_t line,
                             unsigned msg, uint64_t vtime, uint64_t *value,
                             int *dirty, int *held)
{
    gpu *g = obj;
    /* an injected SM's line with a grant in flight: not answerable now,
     * as a detailed L1's entry is not */
    const injector *in = g->slots[sm].inj;
    if (in && g->cfg->protocol->l1_write_back && inj_pending(in, line, NULL))
        return CM_MSG_NONE;
    return cm_l1_warm_forward(cm_sm_l1(g->sms[sm]), line, msg, vtime, value,
                              dirty, held);
}

/* The memory side's functional answer (warming). */
int gpu_warm_l2(void *obj, const cm_mreq *m, uint64_t vtime, cm_warm_reply *out)
{
    gpu *g = obj;
    if (cm_msg_kind_of(m->msg) == CM_MK_REQUEST) g->l2_refs++;
    /* an injected SM's line with a timed request in flight is left to
     * it, as a detailed L1's entry is (its grant would undo this one) */
    const injector *in = m->sm < g->nsm ? g->slots[m->sm].inj : NULL;
    if (in && cm_msg_kind_of(m->msg) == CM_MK_REQUEST &&
        inj_pending(in, m->line, NULL)) {
        out->msg = CM_MSG_NONE;
        return 0;
    }
    cm_memsys_warm(g->ms, m, vtime, out, warm_forward, g);
    return 0;
}

/* A victim's PUT while paused: to the L2 functionally, as the rest. */
static void inj_victim_warm(void *obj, const cm_mreq *m, uint64_t vtime,
                            cm_warm_reply *out)
{
    injector *in = obj;
    gpu_warm_l2(in->g, m, vtime, out);
}

/* Stops sending; requests produced but not sent warm the L2 instead. */
void gpu_inj_pause(injector *in, int on)
{
    in->paused = on;
    if (!on) {
        gpu_inj_schedule(in, cm_engine_now(&in->g->eng));
        return;
    }
    uint64_t now = cm_engine_now(&in->g->eng);
    for (; in->qpos < in->qn; in->qpos++) {
        const cm_mreq *m = &in->q[in->qpos];
        cm_warm_reply rep = {.msg = CM_MSG_NONE};
        gpu_warm_l2(in->g, m, now, &rep);
        /* a write-back L1 takes what the L2 granted it (inj_collect) */
        if (in->g->cfg->protocol->l1_write_back && rep.msg != CM_MSG_NONE &&
            cm_msg_kind_of(m->msg) == CM_MK_REQUEST)
            cm_l1_warm_grant(cm_sm_l1(in->sm), m->line, rep.msg, rep.value,
                             rep.ts, now, inj_victim_warm, in);
    }
}

int gpu_reply_accept(void *obj, cm_mreq *r)
{
    reply_slot *slot = obj;
    if (slot->l1) {
        cm_sink s = cm_l1_reply_sink(slot->l1);
        return cm_sink_send(&s, r);
    }
    injector *in = slot->inj;
    if (cm_msg_kind_of(r->msg) == CM_MK_FORWARD) {
        /* answered from the injected SM's functional L1 */
        if (in->an == in->acap) return CM_SINK_BUSY;
        uint64_t value;
        int dirty;
        r->msg = (uint8_t)cm_l1_warm_forward(cm_sm_l1(in->sm), r->line, r->msg,
                                             cm_engine_now(&in->g->eng), &value,
                                             &dirty, NULL);
        r->sm = in->id;
        r->value = value;
        r->flags = dirty ? CM_MF_DIRTY : 0;
        uint32_t t = in->ah + in->an++;
        in->ans[t >= in->acap ? t - in->acap : t] = r;
        inj_answers(in);
        return CM_SINK_OK;
    }
    if (in->g->cfg->protocol->l1_write_back) {
        /* a grant: the copy the L2 now records; its victim's PUT needs
         * room in the queue first */
        if (in->an == in->acap) return CM_SINK_BUSY;
        cm_l1_warm_grant(cm_sm_l1(in->sm), r->line, r->msg, r->value, r->ts,
                         cm_engine_now(&in->g->eng), inj_victim, in);
        uint32_t at;
        if (inj_pending(in, r->line, &at)) in->pend[at] = in->pend[--in->npend];
    }
    cm_pool_put(&in->g->pool, r);
    in->out--;
    gpu_inj_schedule(in, cm_engine_now(&in->g->eng));
    return CM_SINK_OK;
}
