/* check_sm.c - the SM, its L1 and the protocol tables on hand-checked runs.
 *
 * The memory side is a fake: every request is answered (DATA, or ACK for a
 * store) after a fixed latency through the engine, optionally refusing
 * requests beyond a capacity and calling the L1's retry when room returns.
 * Warp sources are fixed programs.  Issue orders and completion times are
 * worked out by hand in the comments (one issue per cycle; in a cycle the
 * LD/ST unit offers its request before the scheduler issues; a reply
 * scheduled earlier runs before a tick of the same cycle). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "data/params.h"
#include "sim/l1.h"
#include "sim/protocol.h"
#include "sim/sm.h"
#include "tests/testutil.h"

/* ---- fake memory side ---------------------------------------------------- */

#define MEM_LOG 8192

typedef struct fake_mem {
    cm_engine *eng;
    cm_sink reply;
    cm_retry retry;
    uint64_t latency, jitter; /* latency + (id * 7) % jitter when jitter */
    uint32_t cap, inflight;   /* cap 0: unlimited */
    int refused;
    uint64_t nreq, nrep;
    uint64_t line[MEM_LOG];
    uint8_t msg[MEM_LOG];
    uint8_t answered[MEM_LOG]; /* by request sequence number */
} fake_mem;

static void mem_deliver(cm_engine *eng, void *obj, uint64_t arg)
{
    (void)eng;
    fake_mem *m = obj;
    cm_mreq *q = (cm_mreq *)(uintptr_t)arg;
    uint64_t seq = q->id & ((1ull << 40) - 1);
    ck_assert_uint_lt(seq, MEM_LOG);
    m->answered[seq]++;
    q->msg = q->op == CM_OP_STORE    ? CM_MSG_ACK
             : q->op == CM_OP_ATOMIC ? CM_MSG_AREPLY
                                     : CM_MSG_DATA;
    m->inflight--;
    m->nrep++;
    ck_assert_int_eq(cm_sink_send(&m->reply, q), CM_SINK_OK);
    if (m->refused) {
        m->refused = 0;
        m->retry.ready(m->retry.obj);
    }
}

static int mem_accept(void *obj, cm_mreq *q)
{
    fake_mem *m = obj;
    if (m->cap && m->inflight >= m->cap) {
        m->refused = 1;
        return CM_SINK_BUSY;
    }
    ck_assert_uint_lt(m->nreq, MEM_LOG);
    m->line[m->nreq] = q->line;
    m->msg[m->nreq] = q->msg;
    m->nreq++;
    m->inflight++;
    uint64_t lat = m->latency + (m->jitter ? (q->id * 7) % m->jitter : 0);
    ck_assert_int_eq(
        cm_engine_schedule(m->eng, lat, mem_deliver, m, (uint64_t)(uintptr_t)q),
        CM_OK);
    return CM_SINK_OK;
}

/* ---- fake warp sources: fixed programs ----------------------------------- */

#define MAXW 16
#define MAXI 1024

typedef struct fake_src {
    cm_inst prog[MAXW][MAXI];
    size_t n[MAXW], pc[MAXW];
    uint64_t lines[MAXW][MAXI]; /* one line per memory instruction */
} fake_src;

static cm_status src_next(void *obj, uint32_t sm, uint32_t w, cm_inst *in,
                          cm_err *err)
{
    (void)sm;
    (void)err;
    fake_src *s = obj;
    if (s->pc[w] >= s->n[w]) {
        *in = (cm_inst){.kind = CM_INST_END};
        return CM_OK;
    }
    *in = s->prog[w][s->pc[w]++];
    return CM_OK;
}

static void put(fake_src *s, uint32_t w, uint8_t kind, uint32_t n)
{
    ck_assert_uint_lt(s->n[w], MAXI);
    s->prog[w][s->n[w]++] = (cm_inst){.kind = kind, .n = n};
}

/* A memory instruction of one line. */
static void put_mem(fake_src *s, uint32_t w, uint8_t kind, uint64_t line)
{
    size_t i = s->n[w];
    s->lines[w][i] = line;
    put(s, w, kind, 1);
    s->prog[w][i].addrs = &s->lines[w][i];
    s->prog[w][i].bytes = 4;
}

/* ---- issue log ----------------------------------------------------------- */

typedef struct issue_log {
    uint32_t warp[MAXI];
    uint8_t kind[MAXI];
    uint64_t cycle[MAXI];
    size_t n;
} issue_log;

static void log_issue(void *obj, uint32_t sm, uint32_t w, uint8_t kind,
                      uint64_t cycle)
{
    (void)sm;
    issue_log *l = obj;
    ck_assert_uint_lt(l->n, MAXI);
    l->warp[l->n] = w;
    l->kind[l->n] = kind;
    l->cycle[l->n++] = cycle;
}

static void assert_issues(const issue_log *l, const uint32_t *warps,
                          const uint64_t *cycles, size_t n)
{
    ck_assert_uint_eq(l->n, n);
    for (size_t i = 0; i < n; i++) {
        ck_assert_msg(l->warp[i] == warps[i] && l->cycle[i] == cycles[i],
                      "issue %zu: warp %u at %llu, expected warp %u at %llu", i,
                      l->warp[i], (unsigned long long)l->cycle[i], warps[i],
                      (unsigned long long)cycles[i]);
    }
}

/* ---- the rig: one SM, its L1, the fake memory ---------------------------- */

typedef struct rig {
    cm_engine eng;
    cm_pool pool;
    cm_stats *reg;
    fake_mem mem;
    fake_src src;
    issue_log log;
    cm_sm_config cfg;
    cm_sm *sm;
} rig;

/* Small defaults: 8 sets x 4 ways x 128 B, 8 MSHRs of 4, hit in 5. */
static rig *rig_new(const char *proto, uint32_t warps, uint64_t latency)
{
    rig *r = calloc(1, sizeof *r);
    ck_assert_ptr_nonnull(r);
    cm_err err = {0};
    ck_assert_int_eq(cm_engine_init(&r->eng, 4096, &err), CM_OK);
    ck_assert_int_eq(cm_pool_init(&r->pool, sizeof(cm_mreq), 64, &err), CM_OK);
    r->reg = cm_stats_new();
    ck_assert_ptr_nonnull(r->reg);
    r->mem.eng = &r->eng;
    r->mem.latency = latency;
    cm_sm_config *c = &r->cfg;
    c->warps = warps;
    c->active_warps = warps;
    c->policy = cm_sched_find("lrr");
    c->two_level_active = 2;
    c->max_lines = 64;
    c->l1 = (cm_l1_config){.size = 4096,
                           .ways = 4,
                           .line = 128,
                           .policy = cm_repl_find("lru"),
                           .mshrs = 8,
                           .mshr_merge = 4,
                           .hit_latency = 5,
                           .proto = cm_protocol_find(proto),
                           .pool = &r->pool,
                           .out = {mem_accept, &r->mem}};
    ck_assert_ptr_nonnull(c->l1.proto);
    c->src = (cm_warp_source){src_next, &r->src};
    c->stats = r->reg;
    c->on_issue = log_issue;
    c->on_issue_obj = &r->log;
    return r;
}

/* Builds the SM from r->cfg (after the test's edits) and runs to the end. */
static void rig_run(rig *r)
{
    cm_err err = {0};
    ck_assert_msg(cm_sm_new(&r->cfg, &r->eng, &r->sm, &err) == CM_OK, "%s",
                  err.msg);
    r->mem.reply = cm_l1_reply_sink(cm_sm_l1(r->sm));
    r->mem.retry = cm_l1_retry(cm_sm_l1(r->sm));
    ck_assert_msg(cm_sm_start(r->sm, &err) == CM_OK, "%s", err.msg);
    cm_run_end why;
    ck_assert_msg(cm_engine_run(&r->eng, UINT64_MAX, 0, &why, &err) == CM_OK,
                  "%s", err.msg);
    const cm_err *e = cm_sm_error(r->sm);
    ck_assert_msg(e == NULL, "%s", e ? e->msg : "");
    ck_assert_int_eq(why, CM_RUN_EMPTY);
    ck_assert(cm_sm_done(r->sm));
}

/* Conservation: every request sent answered exactly once, nothing left. */
static void assert_conserved(rig *r)
{
    const cm_l1_counts *n = cm_l1_get_counts(cm_sm_l1(r->sm));
    ck_assert_uint_eq(n->sent, r->mem.nreq);
    ck_assert_uint_eq(n->replies, r->mem.nrep);
    ck_assert_uint_eq(r->mem.nreq, r->mem.nrep);
    for (uint64_t i = 0; i < r->mem.nreq; i++)
        ck_assert_uint_eq(r->mem.answered[i], 1);
    ck_assert_uint_eq(cm_l1_mshr_in_use(cm_sm_l1(r->sm)), 0);
    ck_assert_uint_eq(cm_pool_in_use(&r->pool), 0);
}

static void rig_free(rig *r)
{
    cm_sm_free(r->sm);
    cm_stats_free(r->reg);
    cm_pool_free(&r->pool);
    cm_engine_free(&r->eng);
    free(r);
}

static double stat_value(rig *r, const char *metric)
{
    cm_err err = {0};
    cm_stat_row *rows;
    size_t n;
    cm_stats_sync(r->reg, cm_engine_now(&r->eng));
    ck_assert_int_eq(cm_stats_rows(r->reg, &rows, &n, &err), CM_OK);
    const cm_stat_row *row = cm_stats_find(rows, n, metric, "sm0");
    ck_assert_msg(row != NULL, "no row %s", metric);
    double v = row->value;
    free(rows);
    return v;
}

/* ---- tests --------------------------------------------------------------- */

/* One warp, N x (COMPUTE(3), LOAD of a fresh line): each period is 3
 * compute issues, the load's issue, one cycle in the LD/ST unit and the
 * latency L, so the warp retires at N x (L + 4); N misses, N requests. */
static int count_msg(void *obj, const cm_mreq *m, uint64_t vtime,
                     cm_warm_reply *out)
{
    ck_assert_int_eq(m->msg, CM_MSG_GETS);
    *out = (cm_warm_reply){.msg = CM_MSG_DATA, .ts = vtime};
    ++*(int *)obj;
    return 0;
}

/* Functional execution without a mem callback only advances the warps (a
 * fast-forward's unwarmed part): the instructions count, no tag is
 * touched and nothing is sent; with one, the same program warms the tags
 * and hands over each miss. */
START_TEST(test_functional_advance_only)
{
    rig *r = rig_new("no-coh", 2, 50);
    for (uint32_t w = 0; w < 2; w++)
        for (uint64_t k = 1; k <= 4; k++)
            put_mem(&r->src, w, CM_INST_LOAD, 100 * k + w);
    cm_err err = {0};
    ck_assert_msg(cm_sm_new(&r->cfg, &r->eng, &r->sm, &err) == CM_OK, "%s",
                  err.msg);
    cm_l1 *l1 = cm_sm_l1(r->sm);
    ck_assert_uint_eq(cm_sm_functional(r->sm, 4, NULL, NULL, 0), 4);
    for (uint64_t line = 100; line <= 201; line += line % 2 ? 99 : 1)
        ck_assert_msg(!cm_l1_probe(l1, line), "line %llu warmed",
                      (unsigned long long)line);
    int msgs = 0;
    ck_assert_uint_eq(cm_sm_functional(r->sm, 4, count_msg, &msgs, 0), 4);
    ck_assert_int_eq(msgs, 4);
    for (uint64_t line = 300; line <= 401; line += line % 2 ? 99 : 1)
        ck_assert_msg(cm_l1_probe(l1, line), "line %llu not warmed",
                      (unsigned long long)line);
    ck_assert_uint_eq(r->mem.nreq, 0);
    ck_assert_uint_eq(cm_sm_instructions(r->sm), 8);
    rig_free(r);
}
END_TEST

START_TEST(test_single_warp_streaming)
{
    const uint64_t L = 100, N = 10;
    rig *r = rig_new("no-coh", 1, L);
    for (uint64_t i = 0; i < N; i++) {
        put(&r->src, 0, CM_INST_COMPUTE, 3);
        put_mem(&r->src, 0, CM_INST_LOAD, 1000 + i);
    }
    rig_run(r);
    ck_assert_uint_eq(cm_sm_finish_cycle(r->sm), N * (L + 4));
    const cm_l1_counts *n = cm_l1_get_counts(cm_sm_l1(r->sm));
    ck_assert_uint_eq(n->accesses, N);
    ck_assert_uint_eq(n->misses, N);
    ck_assert_uint_eq(r->mem.nreq, N);
    ck_assert_uint_eq(cm_sm_instructions(r->sm), 4 * N);
    ck_assert_double_eq_tol(stat_value(r, "roundtrip.latency_mean"), L, 1e-9);
    ck_assert_double_eq_tol(stat_value(r, "l1.miss_ratio"), 1, 1e-12);
    assert_conserved(r);
    rig_free(r);
}
END_TEST

/* Two warps load one line: w0 issues at 0, its request leaves at 1 (a new
 * entry) while w1 issues; w1's request merges at 2.  One request, both
 * warps wake at its reply (1 + L) and retire then. */
START_TEST(test_mshr_merge)
{
    const uint64_t L = 50;
    rig *r = rig_new("no-coh", 2, L);
    put_mem(&r->src, 0, CM_INST_LOAD, 7);
    put_mem(&r->src, 1, CM_INST_LOAD, 7);
    rig_run(r);
    const cm_l1_counts *n = cm_l1_get_counts(cm_sm_l1(r->sm));
    ck_assert_uint_eq(r->mem.nreq, 1);
    ck_assert_uint_eq(n->merges, 1);
    ck_assert_uint_eq(n->misses, 2);
    ck_assert_uint_eq(cm_sm_finish_cycle(r->sm), 1 + L);
    ck_assert_double_eq_tol(stat_value(r, "l1.mshr.merges"), 1, 1e-12);
    assert_conserved(r);
    rig_free(r);
}
END_TEST

/* One load instruction of 6 lines in different sets, E = 4 MSHRs, latency
 * L = 20: lines 0..3 leave at cycles 1..4; line 4 is refused (mshr) at
 * cycles 5..L, L - 4 times, and leaves at 1 + L when line 0's reply has
 * freed its entry (the reply was scheduled first). */
START_TEST(test_reservation_fail_in_sm)
{
    const uint64_t L = 20;
    rig *r = rig_new("no-coh", 1, L);
    r->cfg.l1.mshrs = 4;
    static const uint64_t lines[6] = {0, 1, 2, 3, 4, 5};
    r->src.prog[0][0] =
        (cm_inst){.kind = CM_INST_LOAD, .n = 6, .addrs = lines, .bytes = 4};
    r->src.n[0] = 1;
    rig_run(r);
    const cm_l1_counts *n = cm_l1_get_counts(cm_sm_l1(r->sm));
    ck_assert_uint_eq(n->fail_mshr, L - 4);
    ck_assert_uint_eq(n->fail_merge, 0);
    ck_assert_uint_eq(n->fail_line, 0);
    ck_assert_double_eq_tol(stat_value(r, "l1.reservation_fail.mshr"), L - 4,
                            1e-12);
    /* Stall cycles: L - 4 for line 4, and line 5 likewise waits from 2 + L
     * for line 1's entry (freed at 1 + L + 1): 0 more.  So L - 4 in all. */
    ck_assert_uint_eq(cm_sm_mem_stall_cycles(r->sm), L - 4);
    /* All 4 entries busy from the 4th send (4) to line 2's reply (3 + L):
     * the entries freed at 1 + L and 2 + L were taken again at once.  The
     * run ends with line 5's reply at 2 + 2L. */
    ck_assert_uint_eq(cm_engine_now(&r->eng), 2 + 2 * L);
    ck_assert_double_eq_tol(stat_value(r, "l1.mshr.full_fraction"),
                            (double)(L - 1) / (double)(2 + 2 * L), 1e-9);
    assert_conserved(r);
    rig_free(r);
}
END_TEST

/* While another warp keeps the SM ticking, the LD/ST unit's refused offers
 * are counted without being made (until the L1 frees an entry): the counts
 * and timing must be those of the sleeping SM above, offer for offer. */
START_TEST(test_reservation_fail_while_busy)
{
    const uint64_t L = 20;
    static const uint64_t lines[6] = {0, 1, 2, 3, 4, 5};
    uint64_t fails[2], stalls[2], ends[2];
    for (int busy = 0; busy < 2; busy++) {
        rig *r = rig_new("no-coh", 2, L);
        r->cfg.l1.mshrs = 4;
        r->src.prog[0][0] =
            (cm_inst){.kind = CM_INST_LOAD, .n = 6, .addrs = lines, .bytes = 4};
        r->src.n[0] = 1;
        if (busy) put(&r->src, 1, CM_INST_COMPUTE, 3 * L);
        rig_run(r);
        fails[busy] = cm_l1_get_counts(cm_sm_l1(r->sm))->fail_mshr;
        stalls[busy] = cm_sm_mem_stall_cycles(r->sm);
        ends[busy] = cm_engine_now(&r->eng);
        assert_conserved(r);
        rig_free(r);
    }
    ck_assert_uint_eq(fails[0], L - 4);
    ck_assert_uint_eq(fails[1], fails[0]);
    ck_assert_uint_eq(stalls[1], stalls[0]);
    ck_assert_uint_ge(ends[1], 3 * L);
}
END_TEST

/* Regression: an SM whose warps have retired is not done while its last
 * stores await acknowledgement (a kernel ends when its writes are
 * visible); the run used to stop with them unanswered. */
START_TEST(test_done_waits_for_store_acks)
{
    const uint64_t L = 30;
    rig *r = rig_new("no-coh", 1, L);
    put_mem(&r->src, 0, CM_INST_STORE, 7);
    rig_run(r);
    ck_assert(cm_sm_done(r->sm));
    ck_assert_uint_ge(cm_sm_finish_cycle(r->sm), L);
    assert_conserved(r);
    rig_free(r);
}
END_TEST

/* ---- the L1 alone -------------------------------------------------------- */

typedef struct l1_rig {
    cm_engine eng;
    cm_pool pool;
    cm_stats *reg;
    fake_mem mem;
    cm_l1 *l1;
    uint64_t done[4]; /* completions by op */
} l1_rig;

static void l1_done_count(void *obj, uint32_t w, uint8_t op, uint64_t gwct)
{
    (void)w;
    (void)gwct;
    ((l1_rig *)obj)->done[op]++;
}

static l1_rig *l1_rig_new(const cm_protocol *proto, uint32_t mshrs,
                          uint32_t merge, uint64_t ways)
{
    l1_rig *r = calloc(1, sizeof *r);
    cm_err err = {0};
    ck_assert_int_eq(cm_engine_init(&r->eng, 1024, &err), CM_OK);
    ck_assert_int_eq(cm_pool_init(&r->pool, sizeof(cm_mreq), 64, &err), CM_OK);
    r->reg = cm_stats_new();
    r->mem.eng = &r->eng;
    r->mem.latency = 10;
    cm_l1_config c = {.size = 8 * ways * 128,
                      .ways = ways,
                      .line = 128,
                      .mshrs = mshrs,
                      .mshr_merge = merge,
                      .hit_latency = 1,
                      .proto = proto,
                      .pool = &r->pool,
                      .out = {mem_accept, &r->mem},
                      .done = l1_done_count,
                      .done_obj = r,
                      .stats = r->reg,
                      .component = "sm0"};
    ck_assert_msg(cm_l1_new(&c, &r->eng, &r->l1, &err) == CM_OK, "%s", err.msg);
    r->mem.reply = cm_l1_reply_sink(r->l1);
    r->mem.retry = cm_l1_retry(r->l1);
    return r;
}

static void l1_rig_drain(l1_rig *r)
{
    cm_err err = {0};
    ck_assert_int_eq(cm_engine_run(&r->eng, UINT64_MAX, 0, NULL, &err), CM_OK);
    ck_assert_uint_eq(cm_l1_mshr_in_use(r->l1), 0);
    ck_assert_uint_eq(cm_pool_in_use(&r->pool), 0);
}

static void l1_rig_free(l1_rig *r)
{
    cm_l1_free(r->l1);
    cm_stats_free(r->reg);
    cm_pool_free(&r->pool);
    cm_engine_free(&r->eng);
    free(r);
}

/* E = 3 entries: three misses take them, the fourth miss fails (mshr); a
 * load to a pending line still merges, up to the merge limit M = 2, then
 * merge_full; a store to a pending line needs its own entry: mshr. */
START_TEST(test_reservation_fail_exact)
{
    l1_rig *r = l1_rig_new(cm_protocol_find("no-coh"), 3, 2, 4);
    for (uint64_t i = 0; i < 3; i++)
        ck_assert_int_eq(cm_l1_access(r->l1, i, CM_OP_LOAD, 0, 0, 0), CM_L1_OK);
    ck_assert_uint_eq(cm_l1_mshr_in_use(r->l1), 3);
    ck_assert_int_eq(cm_l1_access(r->l1, 3, CM_OP_LOAD, 0, 0, 0), CM_L1_FAIL_MSHR);
    ck_assert_int_eq(cm_l1_access(r->l1, 0, CM_OP_LOAD, 1, 0, 0), CM_L1_OK);
    ck_assert_int_eq(cm_l1_access(r->l1, 0, CM_OP_LOAD, 2, 0, 0),
                     CM_L1_FAIL_MERGE);
    ck_assert_int_eq(cm_l1_access(r->l1, 1, CM_OP_STORE, 3, 4, 0),
                     CM_L1_FAIL_MSHR);
    const cm_l1_counts *n = cm_l1_get_counts(r->l1);
    ck_assert_uint_eq(n->fail_mshr, 2);
    ck_assert_uint_eq(n->fail_merge, 1);
    ck_assert_uint_eq(n->accesses, 4); /* refusals are not accesses */
    l1_rig_drain(r);
    ck_assert_uint_eq(r->done[CM_OP_LOAD], 4);
    /* Now filled: line 0 hits. */
    ck_assert_int_eq(cm_l1_access(r->l1, 0, CM_OP_LOAD, 0, 0, 0), CM_L1_OK);
    ck_assert_uint_eq(n->hits, 1);
    l1_rig_drain(r);
    l1_rig_free(r);
}
END_TEST

/* The freed generation stands still while nothing is freed, so a refused
 * request may be counted instead of re-offered; the first free after a
 * refusal moves it and calls `freed` exactly once. */
static void count_call(void *obj)
{
    (*(int *)obj)++;
}

START_TEST(test_l1_freed_generation)
{
    l1_rig *r = l1_rig_new(cm_protocol_find("no-coh"), 1, 1, 4);
    int calls = 0;
    cm_l1_free(r->l1);
    cm_err err = {0};
    cm_l1_config c = {.size = 8 * 4 * 128, .ways = 4, .line = 128,
                      .mshrs = 1, .mshr_merge = 1, .hit_latency = 1,
                      .proto = cm_protocol_find("no-coh"), .pool = &r->pool,
                      .out = {mem_accept, &r->mem}, .done = l1_done_count,
                      .done_obj = r, .freed = {count_call, &calls},
                      .stats = r->reg, .component = "sm1"};
    ck_assert_msg(cm_l1_new(&c, &r->eng, &r->l1, &err) == CM_OK, "%s",
                  err.msg);
    r->mem.reply = cm_l1_reply_sink(r->l1);
    r->mem.retry = cm_l1_retry(r->l1);
    ck_assert_int_eq(cm_l1_access(r->l1, 0, CM_OP_LOAD, 0, 0, 0), CM_L1_OK);
    uint64_t g = cm_l1_freed_gen(r->l1);
    ck_assert_int_eq(cm_l1_access(r->l1, 1, CM_OP_LOAD, 0, 0, 0), CM_L1_FAIL_MSHR);
    cm_l1_count_fails(r->l1, CM_L1_FAIL_MSHR, 5);
    ck_assert_uint_eq(cm_l1_get_counts(r->l1)->fail_mshr, 6);
    ck_assert_uint_eq(cm_l1_freed_gen(r->l1), g);
    ck_assert_int_eq(calls, 0);
    l1_rig_drain(r);
    ck_assert_uint_gt(cm_l1_freed_gen(r->l1), g);
    ck_assert_int_eq(calls, 1);
    ck_assert_int_eq(cm_l1_access(r->l1, 1, CM_OP_LOAD, 0, 0, 0), CM_L1_OK);
    l1_rig_drain(r);
    ck_assert_int_eq(calls, 1); /* no refusal since: no call */
    l1_rig_free(r);
}
END_TEST

/* 2 ways, 8 sets: lines 0, 8 and 16 share set 0.  Two misses reserve both
 * ways; the third has no line to allocate, though MSHRs are free; after
 * the fills it may go, evicting the LRU line (0). */
START_TEST(test_reservation_fail_no_line)
{
    l1_rig *r = l1_rig_new(cm_protocol_find("no-coh"), 8, 4, 2);
    ck_assert_int_eq(cm_l1_access(r->l1, 0, CM_OP_LOAD, 0, 0, 0), CM_L1_OK);
    ck_assert_int_eq(cm_l1_access(r->l1, 8, CM_OP_LOAD, 0, 0, 0), CM_L1_OK);
    ck_assert_int_eq(cm_l1_access(r->l1, 16, CM_OP_LOAD, 0, 0, 0),
                     CM_L1_FAIL_LINE);
    /* A store allocates nothing (write-no-allocate): it may go. */
    ck_assert_int_eq(cm_l1_access(r->l1, 24, CM_OP_STORE, 0, 4, 0), CM_L1_OK);
    ck_assert_uint_eq(cm_l1_get_counts(r->l1)->fail_line, 1);
    l1_rig_drain(r);
    ck_assert_int_eq(cm_l1_access(r->l1, 16, CM_OP_LOAD, 0, 0, 0), CM_L1_OK);
    l1_rig_drain(r);
    ck_assert_uint_eq(cm_l1_get_counts(r->l1)->evictions, 1);
    ck_assert(cm_l1_probe(r->l1, 16));
    ck_assert(cm_l1_probe(r->l1, 8));
    ck_assert(!cm_l1_probe(r->l1, 0));
    l1_rig_free(r);
}
END_TEST

/* A table without a row for (V, LOAD): the second load of a line is an
 * internal error naming the protocol, state and event. */
START_TEST(test_missing_row)
{
    static const cm_proto_row rows[] = {
        {CM_L1S_I, CM_L1E_LOAD, CM_L1S_I_V, CM_MSG_GETS,
         CM_A1_ENTRY | CM_A1_MERGE | CM_A1_SEND},
        {CM_L1S_I_V, CM_L1E_DATA_LAST, CM_L1S_V, CM_MSG_NONE,
         CM_A1_FILL | CM_A1_WAKE},
    };
    static const cm_proto_table table = {rows, 2};
    static const cm_protocol broken = {.name = "broken", .l1 = &table};
    l1_rig *r = l1_rig_new(&broken, 4, 4, 4);
    ck_assert_int_eq(cm_l1_access(r->l1, 5, CM_OP_LOAD, 0, 0, 0), CM_L1_OK);
    l1_rig_drain(r);
    ck_assert_ptr_null(cm_l1_error(r->l1));
    ck_assert_int_eq(cm_l1_access(r->l1, 5, CM_OP_LOAD, 0, 0, 0), CM_L1_ERROR);
    const cm_err *e = cm_l1_error(r->l1);
    ck_assert_ptr_nonnull(e);
    ck_assert_ptr_nonnull(strstr(e->msg, "broken"));
    ck_assert_ptr_nonnull(strstr(e->msg, "state V"));
    ck_assert_ptr_nonnull(strstr(e->msg, "event LOAD"));
    l1_rig_free(r);
}
END_TEST

/* ---- schedulers ---------------------------------------------------------- */

/* w0: COMPUTE(1), LOAD, COMPUTE(1); w1, w2: COMPUTE(3); L = 5. */
static rig *sched_rig(const char *p)
{
    rig *r = rig_new("no-coh", 3, 5);
    r->cfg.policy = cm_sched_find(p);
    put(&r->src, 0, CM_INST_COMPUTE, 1);
    put_mem(&r->src, 0, CM_INST_LOAD, 40);
    put(&r->src, 0, CM_INST_COMPUTE, 1);
    put(&r->src, 1, CM_INST_COMPUTE, 3);
    put(&r->src, 2, CM_INST_COMPUTE, 3);
    return r;
}

/* LRR: 0 1 2, w0's load at 3 (leaves at 4, back at 9), then 1 2 1 2; idle
 * at 8; w0 at 9. */
START_TEST(test_sched_lrr)
{
    rig *r = sched_rig("lrr");
    rig_run(r);
    static const uint32_t w[] = {0, 1, 2, 0, 1, 2, 1, 2, 0};
    static const uint64_t t[] = {0, 1, 2, 3, 4, 5, 6, 7, 9};
    assert_issues(&r->log, w, t, 9);
    ck_assert_uint_eq(cm_sm_stall_cycles(r->sm, CM_STALL_MEM_WAIT), 1);
    rig_free(r);
}
END_TEST

/* GTO: w0 greedily (0, load at 1: leaves at 2, back at 7); then the
 * oldest, w1, to the end (2-4); w2 (5-7: greedy beats w0, ready at 7);
 * w0 at 8. */
START_TEST(test_sched_gto)
{
    rig *r = sched_rig("gto");
    rig_run(r);
    static const uint32_t w[] = {0, 0, 1, 1, 1, 2, 2, 2, 0};
    static const uint64_t t[] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    assert_issues(&r->log, w, t, 9);
    rig_free(r);
}
END_TEST

/* GTO's "oldest" is launch order: with one active warp at a time (throttle
 * 1), w1 launches when w0 retires; then w2. */
START_TEST(test_sched_throttle)
{
    rig *r = sched_rig("gto");
    r->cfg.active_warps = 1;
    rig_run(r);
    /* w0: 0, load at 1 (leaves at 2, back at 7), compute at 7, retires;
     * w1 at 8-10; w2 at 11-13. */
    static const uint32_t w[] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
    static const uint64_t t[] = {0, 1, 7, 8, 9, 10, 11, 12, 13};
    assert_issues(&r->log, w, t, 9);
    rig_free(r);
}
END_TEST

/* 4 warps of LOAD (own line), COMPUTE(2); L = 10; two-level active set 2.
 * Loads issue at 0-3 (each warp leaves the set as it waits) and return at
 * 11-14.  Two-level: w0 at 11, w1 at 12 (set {0,1}, full: w2 waits though
 * ready at 13), w0 at 13 (retires), w1 at 14 (retires), then w2 w3 w2 w3.
 * LRR on the same program: 0 1 2 3 0 1 2 3 from 11. */
static rig *two_level_rig(const char *p)
{
    rig *r = rig_new("no-coh", 4, 10);
    r->cfg.policy = cm_sched_find(p);
    r->cfg.two_level_active = 2;
    for (uint32_t w = 0; w < 4; w++) {
        put_mem(&r->src, w, CM_INST_LOAD, 100 + w);
        put(&r->src, w, CM_INST_COMPUTE, 2);
    }
    return r;
}

START_TEST(test_sched_two_level)
{
    rig *r = two_level_rig("two-level");
    rig_run(r);
    static const uint32_t w[] = {0, 1, 2, 3, 0, 1, 0, 1, 2, 3, 2, 3};
    static const uint64_t t[] = {0, 1, 2, 3, 11, 12, 13, 14, 15, 16, 17, 18};
    assert_issues(&r->log, w, t, 12);
    rig_free(r);
    r = two_level_rig("lrr");
    rig_run(r);
    static const uint32_t w2[] = {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3};
    assert_issues(&r->log, w2, t, 12);
    rig_free(r);
}
END_TEST

/* ---- protocols ----------------------------------------------------------- */

/* LOAD x, LOAD x, STORE x, LOAD x on one warp. */
static rig *lsl_rig(const char *proto)
{
    rig *r = rig_new(proto, 1, 10);
    put_mem(&r->src, 0, CM_INST_LOAD, 5);
    put_mem(&r->src, 0, CM_INST_LOAD, 5);
    put_mem(&r->src, 0, CM_INST_STORE, 5);
    put_mem(&r->src, 0, CM_INST_LOAD, 5);
    rig_run(r);
    assert_conserved(r);
    return r;
}

START_TEST(test_no_coh_store_invalidates)
{
    rig *r = lsl_rig("no-coh");
    /* miss, hit, write (evicts the copy), miss */
    ck_assert_uint_eq(cm_l1_get_counts(cm_sm_l1(r->sm))->hits, 1);
    ck_assert_uint_eq(r->mem.nreq, 3);
    ck_assert_int_eq(r->mem.msg[0], CM_MSG_GETS);
    ck_assert_int_eq(r->mem.msg[1], CM_MSG_WRITE);
    ck_assert_int_eq(r->mem.msg[2], CM_MSG_GETS);
    rig_free(r);
    /* WT keeps the updated copy: the last load hits. */
    r = lsl_rig("wt");
    ck_assert_uint_eq(cm_l1_get_counts(cm_sm_l1(r->sm))->hits, 2);
    ck_assert_uint_eq(r->mem.nreq, 2);
    ck_assert_int_eq(r->mem.msg[1], CM_MSG_WRITE);
    rig_free(r);
}
END_TEST

/* LOAD x, <sync>, LOAD x: WT invalidates at kernel start and at acquire
 * (a fence), so the second load misses; NO-COH keeps the line. */
static uint64_t sync_requests(const char *proto, uint8_t sync)
{
    rig *r = rig_new(proto, 1, 10);
    put_mem(&r->src, 0, CM_INST_LOAD, 9);
    put(&r->src, 0, sync, 0);
    put_mem(&r->src, 0, CM_INST_LOAD, 9);
    rig_run(r);
    assert_conserved(r);
    uint64_t n = r->mem.nreq;
    rig_free(r);
    return n;
}

START_TEST(test_wt_flash_invalidate)
{
    ck_assert_uint_eq(sync_requests("wt", CM_INST_KERNEL), 2);
    ck_assert_uint_eq(sync_requests("no-coh", CM_INST_KERNEL), 1);
    ck_assert_uint_eq(sync_requests("wt", CM_INST_FENCE), 2);
    ck_assert_uint_eq(sync_requests("no-coh", CM_INST_FENCE), 1);
    ck_assert_uint_eq(sync_requests("wt", CM_INST_COMPUTE), 1); /* n = 0 */
}
END_TEST

/* A fill in flight at an acquire is not installed under WT (its data may
 * predate the acquire): the L1 alone, load, acquire, reply, load again. */
START_TEST(test_wt_acquire_cancels_fill)
{
    l1_rig *r = l1_rig_new(cm_protocol_find("wt"), 4, 4, 4);
    ck_assert_int_eq(cm_l1_access(r->l1, 3, CM_OP_LOAD, 0, 0, 0), CM_L1_OK);
    cm_l1_flash(r->l1, CM_L1E_ACQUIRE);
    ck_assert_int_eq(cm_l1_access(r->l1, 3, CM_OP_LOAD, 1, 0, 0), CM_L1_OK);
    ck_assert_uint_eq(cm_l1_get_counts(r->l1)->merges, 0);
    l1_rig_drain(r);
    ck_assert_uint_eq(r->done[CM_OP_LOAD], 2);
    ck_assert_uint_eq(r->mem.nreq, 2);
    ck_assert(cm_l1_probe(r->l1, 3)); /* the second fill stayed */
    l1_rig_free(r);
}
END_TEST

START_TEST(test_no_l1_never_hits)
{
    rig *r = rig_new("no-l1", 2, 10);
    for (int i = 0; i < 3; i++) {
        put_mem(&r->src, 0, CM_INST_LOAD, 5);
        put_mem(&r->src, 1, CM_INST_LOAD, 5);
    }
    rig_run(r);
    const cm_l1_counts *n = cm_l1_get_counts(cm_sm_l1(r->sm));
    ck_assert_uint_eq(n->hits, 0);
    ck_assert_uint_eq(n->merges, 0);
    ck_assert_uint_eq(r->mem.nreq, 6);
    ck_assert(!cm_l1_probe(cm_sm_l1(r->sm), 5));
    assert_conserved(r);
    rig_free(r);
}
END_TEST

/* The replies a request of class msg raises at a write-through L1 when it
 * is the entry's last (the rows every table needs for what it sends). */
static unsigned last_reply(unsigned msg)
{
    return msg == CM_MSG_GETS     ? CM_L1E_DATA_LAST
           : msg == CM_MSG_ATOMIC ? CM_L1E_AREPLY_LAST
                                  : CM_L1E_ACK_LAST;
}

/* Every table: rows in range, one row per (state, event) (a second would
 * never run), a message exactly where a row sends one, accesses in I, and
 * every state a request leaves the line in takes that request's reply. */
START_TEST(test_protocol_tables)
{
    ck_assert_uint_eq(cm_protocol_count(), 11);
    ck_assert_ptr_null(cm_protocol_find("nosuch"));
    for (size_t i = 0; i < cm_protocol_count(); i++) {
        const cm_protocol *p = cm_protocol_at(i);
        ck_assert_ptr_eq(cm_protocol_find(p->name), p);
        ck_assert_ptr_nonnull(strstr(cm_protocol_names(), p->name));
        const cm_proto_table *t = p->l1;
        for (size_t k = 0; k < t->nrows; k++) {
            const cm_proto_row *row = &t->rows[k];
            ck_assert_uint_lt(row->state, CM_L1S_COUNT);
            ck_assert_uint_lt(row->event, CM_L1E_COUNT);
            ck_assert_uint_lt(row->next, CM_L1S_COUNT);
            ck_assert_msg(cm_proto_find(t, row->state, row->event) == row,
                          "%s: L1 row %zu repeats (%s, %s)", p->name, k,
                          cm_l1_state_names[row->state],
                          cm_l1_event_names[row->event]);
            ck_assert_int_eq(row->msg != CM_MSG_NONE,
                             (row->actions & CM_A1_SEND) != 0);
            if (p->l1_write_back || !(row->actions & CM_A1_SEND) ||
                cm_msg_kind_of(row->msg) != CM_MK_REQUEST)
                continue;
            ck_assert_msg(cm_proto_find(t, row->next, last_reply(row->msg)),
                          "%s: no reply row for %s after (%s, %s)", p->name,
                          cm_msg_name(row->msg),
                          cm_l1_state_names[row->state],
                          cm_l1_event_names[row->event]);
        }
        for (unsigned e = CM_L1E_LOAD; e <= CM_L1E_ATOMIC; e++)
            ck_assert_ptr_nonnull(cm_proto_find(t, CM_L1S_I, e));
        const cm_proto_table *l2 = p->l2;
        for (size_t k = 0; k < l2->nrows; k++) {
            const cm_proto_row *row = &l2->rows[k];
            ck_assert_uint_lt(row->state, CM_L2S_COUNT);
            ck_assert_uint_lt(row->event, CM_L2E_COUNT);
            ck_assert_uint_lt(row->next, CM_L2S_COUNT);
            ck_assert_msg(cm_proto_find(l2, row->state, row->event) == row,
                          "%s: L2 row %zu repeats", p->name, k);
            uint32_t sends = CM_A2_REPLY | CM_A2_INV | CM_A2_RCL | CM_A2_FWD;
            ck_assert_msg((row->msg != CM_MSG_NONE) ==
                              ((row->actions & sends) != 0),
                          "%s: L2 row (%s, %s): message without a send",
                          p->name, cm_l2_state_names[row->state],
                          cm_l2_event_names[row->event]);
        }
        /* every L2 table serves a load of an absent line */
        ck_assert_ptr_nonnull(cm_proto_find(l2, CM_L2S_I, CM_L2E_GETS));
    }
    ck_assert_str_eq(cm_msg_name(CM_MSG_GETS), "gets");
    ck_assert_uint_eq(cm_l2_event_base(CM_L2E_UPGR_PRIV), CM_L2E_UPGR);
    ck_assert_uint_eq(cm_l2_event_base(CM_L2E_GETS), CM_L2E_GETS);
}
END_TEST

/* ---- synchronisation ----------------------------------------------------- */

/* w0: BARRIER, COMPUTE(1); w1: COMPUTE(3), BARRIER, COMPUTE(1).  w0 waits
 * at 0; w1 computes 1-3 and arrives at 4; both go on: w0 at 5, w1 at 6. */
START_TEST(test_barrier)
{
    rig *r = rig_new("no-coh", 2, 10);
    put(&r->src, 0, CM_INST_BARRIER, 0);
    put(&r->src, 0, CM_INST_COMPUTE, 1);
    put(&r->src, 1, CM_INST_COMPUTE, 3);
    put(&r->src, 1, CM_INST_BARRIER, 0);
    put(&r->src, 1, CM_INST_COMPUTE, 1);
    rig_run(r);
    static const uint32_t w[] = {0, 1, 1, 1, 1, 0, 1};
    static const uint64_t t[] = {0, 1, 2, 3, 4, 5, 6};
    assert_issues(&r->log, w, t, 7);
    rig_free(r);
}
END_TEST

/* STORE at 0 (leaves at 1, acked at 11), FENCE at 1 waits for the ack,
 * COMPUTE at 11.  An atomic blocks its warp the same way. */
START_TEST(test_fence_and_atomic)
{
    rig *r = rig_new("wt", 2, 10);
    put_mem(&r->src, 0, CM_INST_STORE, 1);
    put(&r->src, 0, CM_INST_FENCE, 0);
    put(&r->src, 0, CM_INST_COMPUTE, 1);
    rig_run(r);
    static const uint32_t w[] = {0, 0, 0};
    static const uint64_t t[] = {0, 1, 11};
    assert_issues(&r->log, w, t, 3);
    ck_assert_uint_eq(cm_sm_stall_cycles(r->sm, CM_STALL_FENCE), 9);
    assert_conserved(r);
    rig_free(r);

    r = rig_new("wt", 1, 10);
    put_mem(&r->src, 0, CM_INST_ATOMIC, 2);
    put(&r->src, 0, CM_INST_COMPUTE, 1);
    rig_run(r);
    static const uint64_t t2[] = {0, 11};
    assert_issues(&r->log, w, t2, 2);
    ck_assert_int_eq(r->mem.msg[0], CM_MSG_ATOMIC);
    rig_free(r);
}
END_TEST

/* A memory side that takes one request at a time: a 4-line store waits
 * for each retry, yet every line goes out once and is acknowledged. */
START_TEST(test_back_pressure)
{
    rig *r = rig_new("no-coh", 1, 10);
    r->mem.cap = 1;
    static const uint64_t lines[4] = {0, 1, 2, 3};
    r->src.prog[0][0] =
        (cm_inst){.kind = CM_INST_STORE, .n = 4, .addrs = lines, .bytes = 4};
    r->src.n[0] = 1;
    rig_run(r);
    /* Lines leave at 1, 11, 21, 31 (each retry follows an ack). */
    ck_assert_uint_eq(r->mem.nreq, 4);
    ck_assert_uint_ge(cm_l1_get_counts(cm_sm_l1(r->sm))->busy, 3);
    ck_assert_uint_eq(cm_sm_mem_stall_cycles(r->sm), 30 - 3);
    assert_conserved(r);
    rig_free(r);
}
END_TEST

/* Per-thread addresses: 32 threads x 4 B at a stride of 8 B cover two
 * 128 B lines; one thread straddling a line boundary adds its next line. */
START_TEST(test_coalescer)
{
    rig *r = rig_new("no-coh", 1, 10);
    static uint64_t addrs[33];
    for (int i = 0; i < 32; i++) addrs[i] = 4096 + 8 * (uint64_t)i;
    addrs[32] = 4096 + 3 * 128 - 2; /* straddles lines 34 and 35 */
    r->src.prog[0][0] = (cm_inst){.kind = CM_INST_LOAD,
                                  .per_thread = 1,
                                  .n = 33,
                                  .addrs = addrs,
                                  .bytes = 4};
    r->src.n[0] = 1;
    rig_run(r);
    ck_assert_uint_eq(r->mem.nreq, 4);
    ck_assert_uint_eq(r->mem.line[0], 32);
    ck_assert_uint_eq(r->mem.line[1], 33);
    ck_assert_uint_eq(r->mem.line[2], 34);
    ck_assert_uint_eq(r->mem.line[3], 35);
    rig_free(r);
}
END_TEST

/* 8 warps of n x (COMPUTE(< max_gap), a load, store or atomic (7:2:1) of
 * one of `lines` lines), from an LCG seeded with x; with sync, a barrier
 * every 20 and a fence after about one in 13. */
static void put_random_mix(fake_src *src, uint64_t x, int n, uint32_t max_gap,
                           uint32_t lines, int sync)
{
    for (uint32_t w = 0; w < 8; w++)
        for (int i = 0; i < n; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t k = (uint32_t)(x >> 33);
            put(src, w, CM_INST_COMPUTE, k % max_gap);
            uint8_t kind = k % 10 < 7   ? CM_INST_LOAD
                           : k % 10 < 9 ? CM_INST_STORE
                                        : CM_INST_ATOMIC;
            put_mem(src, w, kind, (k >> 8) % lines);
            if (sync && i % 20 == 19) put(src, w, CM_INST_BARRIER, 0);
            if (sync && k % 13 == 0) put(src, w, CM_INST_FENCE, 0);
        }
}

/* A busy mix (8 warps, loads, stores and atomics over a small pool of
 * lines, 4 MSHRs, latencies 20..49): conservation, and Little's law on the
 * MSHRs, occupancy = throughput x round trip, computed from the occupancy
 * histogram and the latency histogram separately. */
START_TEST(test_conservation_little)
{
    rig *r = rig_new("no-coh", 8, 20);
    r->mem.jitter = 30;
    r->cfg.l1.mshrs = 4;
    r->cfg.on_issue = NULL;
    put_random_mix(&r->src, 12345, 100, 4, 64, 0);
    rig_run(r);
    assert_conserved(r);
    const cm_l1_counts *n = cm_l1_get_counts(cm_sm_l1(r->sm));
    ck_assert_uint_gt(n->fail_mshr, 0);
    ck_assert_uint_gt(n->hits, 0);
    ck_assert_uint_gt(n->merges, 0);
    double occ = stat_value(r, "l1.mshr.occupancy_mean");
    double cnt = stat_value(r, "roundtrip.latency_count");
    double lat = stat_value(r, "roundtrip.latency_mean");
    double T = (double)cm_engine_now(&r->eng);
    ck_assert_uint_eq((uint64_t)cnt, n->sent);
    ck_assert_close(occ, cnt / T * lat, 0.02);
    ck_assert_close(stat_value(r, "mem_pipeline.stall_ratio"),
                    (double)cm_sm_mem_stall_cycles(r->sm) /
                        stat_value(r, "sm.cycles"),
                    1e-12);
    ck_assert_close(
        stat_value(r, "ipc"),
        (double)cm_sm_instructions(r->sm) / stat_value(r, "sm.cycles"), 1e-12);
    rig_free(r);
}
END_TEST

/* A random mix of compute runs, memory instructions, barriers and fences
 * on 8 warps, the same program twice: cycle by cycle (an issue hook
 * disables compute stretches) and with stretches.  Everything observable
 * must agree: the request stream, when the SM finished, its instructions
 * and its cycles per stall reason; and the stretches must have saved
 * events, or this test would not exercise them. */
static void count_issue(void *obj, uint32_t sm, uint32_t w, uint8_t kind,
                        uint64_t cycle)
{
    (void)sm, (void)w, (void)kind, (void)cycle;
    ++*(uint64_t *)obj;
}

static void run_mix(rig *r, const cm_sched_policy *policy, int hooked)
{
    static uint64_t issues;
    r->mem.jitter = 30;
    r->cfg.policy = policy;
    r->cfg.on_issue = hooked ? count_issue : NULL;
    r->cfg.on_issue_obj = &issues;
    put_random_mix(&r->src, 777, 60, 40, 96, 1);
    rig_run(r);
    assert_conserved(r);
}

START_TEST(test_compute_stretches_exact)
{
    /* every registered policy that declares a rotation */
    const cm_sched_policy *pol;
    for (uint32_t p = 0; (pol = cm_sched_at(p)); p++) {
        if (!pol->rotation) continue;
        rig *a = rig_new("no-coh", 8, 20), *b = rig_new("no-coh", 8, 20);
        run_mix(a, pol, 1);
        run_mix(b, pol, 0);
        ck_assert_uint_eq(a->mem.nreq, b->mem.nreq);
        for (uint64_t i = 0; i < a->mem.nreq; i++) {
            ck_assert_uint_eq(a->mem.line[i], b->mem.line[i]);
            ck_assert_uint_eq(a->mem.msg[i], b->mem.msg[i]);
        }
        ck_assert_uint_eq(cm_sm_finish_cycle(a->sm), cm_sm_finish_cycle(b->sm));
        ck_assert_uint_eq(cm_sm_instructions(a->sm), cm_sm_instructions(b->sm));
        ck_assert_uint_eq(cm_sm_mem_stall_cycles(a->sm),
                          cm_sm_mem_stall_cycles(b->sm));
        for (int k = 0; k < CM_STALL_COUNT; k++)
            ck_assert_uint_eq(cm_sm_stall_cycles(a->sm, (cm_stall_reason)k),
                              cm_sm_stall_cycles(b->sm, (cm_stall_reason)k));
        ck_assert_double_eq(stat_value(a, "sm.cycles"),
                            stat_value(b, "sm.cycles"));
        ck_assert_double_eq(stat_value(a, "sm.instructions"),
                            stat_value(b, "sm.instructions"));
        ck_assert_uint_lt(cm_engine_executed(&b->eng),
                          cm_engine_executed(&a->eng) * 3 / 4);
        rig_free(a);
        rig_free(b);
    }
}
END_TEST

/* The scheduler registry is sched.policy's choices, in order; each policy
 * picks, and one with a rotation says how to follow it. */
START_TEST(test_sched_registry_is_the_parameter)
{
    const cm_param_info *pi = cm_param_find("sched.policy");
    ck_assert_ptr_nonnull(pi);
    char want[256] = "";
    const cm_sched_policy *pol;
    for (uint32_t i = 0; (pol = cm_sched_at(i)); i++) {
        ck_assert(pol->pick && *pol->summary);
        ck_assert(!pol->rotation == !pol->follow);
        ck_assert(!pol->create == !pol->destroy);
        ck_assert_ptr_eq(cm_sched_find(pol->name), pol);
        strcat(want, i ? "|" : "");
        strcat(want, pol->name);
    }
    ck_assert_str_eq(pi->choices, want);
    ck_assert_ptr_null(cm_sched_find("ccws"));
}
END_TEST

Suite *suite_sm(void)
{
    Suite *s = suite_create("sm");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_single_warp_streaming);
    tcase_add_test(tc, test_mshr_merge);
    tcase_add_test(tc, test_reservation_fail_in_sm);
    tcase_add_test(tc, test_reservation_fail_while_busy);
    tcase_add_test(tc, test_done_waits_for_store_acks);
    tcase_add_test(tc, test_reservation_fail_exact);
    tcase_add_test(tc, test_l1_freed_generation);
    tcase_add_test(tc, test_reservation_fail_no_line);
    tcase_add_test(tc, test_missing_row);
    tcase_add_test(tc, test_sched_lrr);
    tcase_add_test(tc, test_sched_gto);
    tcase_add_test(tc, test_sched_throttle);
    tcase_add_test(tc, test_sched_two_level);
    tcase_add_test(tc, test_sched_registry_is_the_parameter);
    tcase_add_test(tc, test_no_coh_store_invalidates);
    tcase_add_test(tc, test_wt_flash_invalidate);
    tcase_add_test(tc, test_wt_acquire_cancels_fill);
    tcase_add_test(tc, test_no_l1_never_hits);
    tcase_add_test(tc, test_protocol_tables);
    tcase_add_test(tc, test_barrier);
    tcase_add_test(tc, test_functional_advance_only);
    tcase_add_test(tc, test_fence_and_atomic);
    tcase_add_test(tc, test_back_pressure);
    tcase_add_test(tc, test_coalescer);
    tcase_add_test(tc, test_conservation_little);
    tcase_add_test(tc, test_compute_stretches_exact);
    suite_add_tcase(s, tc);
    return s;
}
