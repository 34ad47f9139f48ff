/* check_memsys.c - the memory side (crossbar, L2 banks, DRAM) driven
 * directly by fake SMs that record every reply and its cycle.
 *
 * Latencies are worked out from the parameters (memsys.h's split) and,
 * for tc2013, by hand in the comments; throughput bounds come from the
 * clock ratios; conservation, Little's law and determinism are checked on
 * floods and random traffic.  tc2013 unless a test says otherwise. */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine.h"
#include "sim/l2.h"
#include "sim/memsys.h"
#include "sim/protocol.h"
#include "tests/testutil.h"

#define MAXREQ 8192
#define MAXSM 64
#define NONE_ID UINT32_MAX

typedef struct harness harness;

typedef struct fake_sm {
    harness *h;
    unsigned id;
    cm_sink in;
    uint32_t head, tail;   /* requests waiting to be sent, by id */
    uint32_t refuse_every; /* refuse every k-th reply (0: never) */
    uint32_t offered, refused_in;
} fake_sm;

struct harness {
    cm_params p;
    cm_engine eng;
    cm_pool pool; /* the memory side's forwards: none under no-coh */
    cm_stats *st;
    cm_memsys *ms;
    cm_mreq req[MAXREQ];
    uint32_t next[MAXREQ];
    uint64_t sent_at[MAXREQ], rtime[MAXREQ];
    uint32_t rcount[MAXREQ];
    uint8_t rmsg[MAXREQ], kind[MAXREQ]; /* kind: the request's msg */
    uint32_t nreq;
    uint64_t order_time[MAXREQ]; /* reply cycles in arrival order */
    uint32_t nreplies;
    fake_sm sm[MAXSM];
    cm_stat_row *rows;
    size_t nrows;
};

static void pump(void *obj)
{
    fake_sm *s = obj;
    harness *h = s->h;
    while (s->head != NONE_ID) {
        cm_mreq *r = &h->req[s->head];
        if (cm_sink_send(&s->in, r) != CM_SINK_OK) {
            s->refused_in++;
            return; /* the memsys calls pump back */
        }
        h->sent_at[s->head] = cm_engine_now(&h->eng);
        s->head = h->next[s->head];
        if (s->head == NONE_ID) s->tail = NONE_ID;
    }
}

static int reply_accept(void *obj, cm_mreq *r)
{
    fake_sm *s = obj;
    harness *h = s->h;
    if (s->refuse_every && ++s->offered % s->refuse_every == 0)
        return CM_SINK_BUSY;
    ck_assert_uint_lt(r->id, h->nreq);
    ck_assert_uint_eq(r->sm, s->id);
    h->rcount[r->id]++;
    h->rtime[r->id] = cm_engine_now(&h->eng);
    h->rmsg[r->id] = r->msg;
    h->order_time[h->nreplies++] = cm_engine_now(&h->eng);
    return CM_SINK_OK;
}

static harness *h_new(const char *const *sets)
{
    harness *h = calloc(1, sizeof *h);
    ck_assert_ptr_nonnull(h);
    cm_params_init(&h->p);
    cm_err err = {0};
    for (size_t i = 0; sets && sets[i]; i++)
        ck_assert_msg(cm_params_assign(&h->p, sets[i], &err) == CM_OK, "%s",
                      err.msg);
    return h;
}

static void h_start(harness *h)
{
    cm_err err = {0};
    unsigned sms = (unsigned)h->p.gpu_sms;
    ck_assert_uint_le(sms, MAXSM);
    size_t events = cm_memsys_events(&h->p);
    ck_assert_uint_gt(events, 0);
    ck_assert_int_eq(cm_engine_init(&h->eng, events + MAXREQ + 16, &err),
                     CM_OK);
    h->st = cm_stats_new();
    ck_assert_ptr_nonnull(h->st);
    cm_sink sinks[MAXSM];
    for (unsigned i = 0; i < sms; i++) {
        h->sm[i].h = h;
        h->sm[i].id = i;
        h->sm[i].head = h->sm[i].tail = NONE_ID;
        sinks[i] = (cm_sink){reply_accept, &h->sm[i]};
    }
    ck_assert_int_eq(cm_pool_init(&h->pool, sizeof(cm_mreq), 16, &err), CM_OK);
    ck_assert_msg(cm_memsys_new(&h->p, cm_protocol_find("no-coh"), &h->pool,
                                NULL, &h->eng, h->st, sinks, &h->ms,
                                &err) == CM_OK,
                  "%s", err.msg);
    for (unsigned i = 0; i < sms; i++) {
        h->sm[i].in = cm_memsys_input(h->ms, i);
        cm_memsys_set_retry(h->ms, i, (cm_retry){pump, &h->sm[i]});
    }
}

static void h_free(harness *h)
{
    cm_memsys_free(h->ms);
    cm_pool_free(&h->pool);
    cm_stats_free(h->st);
    cm_engine_free(&h->eng);
    free(h->rows);
    free(h);
}

/* Queues a request at SM sm (sent when the SM next pumps); its id. */
static uint32_t h_queue(harness *h, unsigned sm, uint64_t line, unsigned msg,
                        uint16_t bytes)
{
    ck_assert_uint_lt(h->nreq, MAXREQ);
    uint32_t id = h->nreq++;
    h->req[id] = (cm_mreq){
        .line = line, .id = id, .sm = sm, .bytes = bytes, .msg = (uint8_t)msg};
    h->kind[id] = (uint8_t)msg;
    h->next[id] = NONE_ID;
    fake_sm *s = &h->sm[sm];
    if (s->tail == NONE_ID)
        s->head = id;
    else
        h->next[s->tail] = id;
    s->tail = id;
    return id;
}

static void pump_ev(cm_engine *eng, void *obj, uint64_t arg)
{
    (void)eng;
    (void)arg;
    pump(obj);
}

/* Queues a request and has its SM pump at cycle t. */
static uint32_t h_send_at(harness *h, uint64_t t, unsigned sm, uint64_t line,
                          unsigned msg, uint16_t bytes)
{
    uint32_t id = h_queue(h, sm, line, msg, bytes);
    ck_assert_int_eq(cm_engine_schedule_at(&h->eng, t, pump_ev, &h->sm[sm], 0),
                     CM_OK);
    return id;
}

static void h_run(harness *h)
{
    cm_err err = {0};
    cm_run_end why;
    ck_assert_msg(cm_engine_run(&h->eng, UINT64_MAX, 0, &why, &err) == CM_OK,
                  "%s", err.msg);
    ck_assert_int_eq(why, CM_RUN_EMPTY);
}

/* Stats rows after syncing to now.  Machine-wide sums come from h_sum,
 * not cm_stats_merge_all: that reads a ratio's name after growing the
 * array holding it (sim/stats.c add_ratio), a use-after-free under ASan
 * once a registry has more than 8 ratios (reported to the lead). */
static void h_rows(harness *h)
{
    cm_err err = {0};
    free(h->rows);
    cm_stats_sync(h->st, cm_engine_now(&h->eng));
    ck_assert_int_eq(cm_stats_rows(h->st, &h->rows, &h->nrows, &err), CM_OK);
}

/* The sum of a counter over its components. */
static double h_sum(const harness *h, const char *metric)
{
    double v = 0;
    int found = 0;
    for (size_t i = 0; i < h->nrows; i++)
        if (strcmp(h->rows[i].metric, metric) == 0) {
            v += h->rows[i].value;
            found = 1;
        }
    ck_assert_msg(found, "no rows %s", metric);
    return v;
}

static double h_stat(harness *h, const char *metric, const char *comp)
{
    const cm_stat_row *r = cm_stats_find(h->rows, h->nrows, metric, comp);
    ck_assert_msg(r != NULL, "no row %s/%s", metric, comp);
    return r->value;
}

/* Every request answered exactly once, with the class its kind needs. */
static void assert_conserved(harness *h)
{
    ck_assert_uint_eq(h->nreplies, h->nreq);
    ck_assert_uint_eq(cm_memsys_outstanding(h->ms), 0);
    for (uint32_t i = 0; i < h->nreq; i++) {
        ck_assert_msg(h->rcount[i] == 1, "request %u answered %u times", i,
                      h->rcount[i]);
        unsigned want = h->kind[i] == CM_MSG_WRITE    ? CM_MSG_ACK
                        : h->kind[i] == CM_MSG_ATOMIC ? CM_MSG_AREPLY
                                                      : CM_MSG_DATA;
        ck_assert_msg(h->rmsg[i] == want, "request %u: reply %u, want %u", i,
                      h->rmsg[i], want);
    }
}

/* A line of bank b (line mod banks = b), k-th of that bank. */
static uint64_t line_of(const harness *h, unsigned b, uint64_t k)
{
    return k * (uint64_t)h->p.l2_banks + b;
}

START_TEST(test_timing_split_by_hand)
{
    /* tc2013: link = 32 B flit / 32 B per NoC cycle x 1400/700 = 2 core
     * cycles per flit; pipeline 4 NoC = 8 core cycles.  GETS = 8 B = 1
     * flit: 2x2 + 8 = 12; DATA = 136 B = 5 flits: 2x10 + 8 = 28.  L2 pipe
     * = 340 - 12 - 28 = 300.  Burst 128 / 16 B = 8 DRAM = 8 core cycles;
     * row closed 460 - 340 - 8 = 112, hit 112 - 12, conflict 112 + 12. */
    cm_params p;
    cm_params_init(&p);
    cm_memsys_timing t;
    cm_err err = {0};
    ck_assert_int_eq(cm_memsys_timing_of(&p, &t, &err), CM_OK);
    ck_assert_uint_eq(t.link.num, 2);
    ck_assert_uint_eq(t.link.den, 1);
    ck_assert_uint_eq(t.noc_gets, 12);
    ck_assert_uint_eq(t.noc_data, 28);
    ck_assert_uint_eq(t.l2_pipe, 300);
    /* half of it before service: 150 cycles, 75 requests at one per L2
     * cycle (2 core cycles) */
    ck_assert_uint_eq(t.l2_pipe_in, 150);
    ck_assert_uint_eq(t.l2_pipe_slots, 75);
    ck_assert_uint_eq(t.dram_burst.num, 8);
    ck_assert_uint_eq(t.dram_closed, 112);
    ck_assert_uint_eq(t.dram_hit, 100);
    ck_assert_uint_eq(t.dram_conflict, 124);
    /* li2014's DRAM clock: 1400 / 933.333 = 3/2 exactly as a ratio. */
    ck_assert_int_eq(cm_params_load(&p, "li2014", &err), CM_OK);
    ck_assert_int_eq(cm_memsys_timing_of(&p, &t, &err), CM_OK);
    ck_assert_uint_eq(t.dram_burst.num, 6); /* 128/32 = 4 DRAM x 1.5 */
    ck_assert_uint_eq(t.dram_burst.den, 1);
    /* A latency too small for the crossbar is an input error. */
    cm_params_init(&p);
    ck_assert_int_eq(cm_params_set(&p, "l2.latency", "30", &err), CM_OK);
    ck_assert_int_eq(cm_memsys_timing_of(&p, &t, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "l2.latency"));
}
END_TEST

START_TEST(test_unloaded_miss_then_hit)
{
    harness *h = h_new(NULL);
    h_start(h);
    uint64_t L = line_of(h, 3, 1000);
    uint32_t a = h_send_at(h, 0, 5, L, CM_MSG_GETS, 0);
    h_run(h);
    ck_assert_uint_eq(h->rcount[a], 1);
    ck_assert_uint_eq(h->rmsg[a], CM_MSG_DATA);
    ck_assert_uint_eq(h->rtime[a], (uint64_t)h->p.dram_latency);
    ck_assert_str_eq(cm_memsys_line_state(h->ms, L), "N");
    uint64_t t1 = cm_engine_now(&h->eng) + 100;
    uint32_t b = h_send_at(h, t1, 5, L, CM_MSG_GETS, 0);
    h_run(h);
    ck_assert_uint_eq(h->rtime[b] - t1, (uint64_t)h->p.l2_latency);
    /* Another line of the same DRAM row (16 lines per 2 KB row; lines of
     * bank 3 are 8 apart, so the next one) hits the open row: tRCD
     * (12 DRAM = 12 core cycles) faster. */
    uint64_t t2 = cm_engine_now(&h->eng) + 100;
    uint32_t c = h_send_at(h, t2, 5, L + 8, CM_MSG_GETS, 0);
    h_run(h);
    ck_assert_uint_eq(h->rtime[c] - t2,
                      (uint64_t)h->p.dram_latency - (uint64_t)h->p.dram_trcd);
    h_rows(h);
    ck_assert_double_eq(h_stat(h, "dram.reads", "ch3"), 2);
    ck_assert_double_eq(h_stat(h, "dram.row_hits", "ch3"), 1);
    ck_assert_double_eq(h_stat(h, "l2.accesses", "bank3"), 3);
    ck_assert_double_eq(h_stat(h, "l2.misses", "bank3"), 2);
    ck_assert_double_eq(h_stat(h, "noc.msgs.gets", "all"), 3);
    ck_assert_double_eq(h_stat(h, "noc.flits.data", "all"), 15);
    assert_conserved(h);
    h_free(h);
}
END_TEST

START_TEST(test_mshr_merge)
{
    harness *h = h_new(NULL);
    h_start(h);
    uint64_t L = line_of(h, 0, 77);
    uint32_t a = h_send_at(h, 0, 0, L, CM_MSG_GETS, 0);
    uint32_t b = h_send_at(h, 0, 1, L, CM_MSG_GETS, 0);
    h_run(h);
    /* b reaches the bank one GETS serialisation (2 cycles) after a, merges
     * into a's MSHR entry; both replies leave the bank at a's ready cycle
     * and the bank's reply link serialises them: 5 flits x 2 cycles. */
    ck_assert_uint_eq(h->rtime[a], (uint64_t)h->p.dram_latency);
    ck_assert_uint_eq(h->rtime[b], h->rtime[a] + 10);
    h_rows(h);
    ck_assert_double_eq(h_sum(h, "dram.reads"), 1);
    ck_assert_double_eq(h_stat(h, "l2.mshr.merges", "bank0"), 1);
    ck_assert_double_eq(h_stat(h, "l2.misses", "bank0"), 2);
    assert_conserved(h);
    h_free(h);
}
END_TEST

START_TEST(test_store_dirty_writeback)
{
    harness *h = h_new(NULL);
    h_start(h);
    uint64_t L = line_of(h, 2, 5);
    /* A full-line store: 8 + 128 B = 5 flits out (28 cycles), ACK 1 flit
     * back (12): 28 + 300 + 12 = 340 = l2.latency; no DRAM read. */
    uint32_t s = h_send_at(h, 0, 4, L, CM_MSG_WRITE, 128);
    h_run(h);
    ck_assert_uint_eq(h->rmsg[s], CM_MSG_ACK);
    ck_assert_uint_eq(h->rtime[s], (uint64_t)h->p.l2_latency);
    ck_assert_str_eq(cm_memsys_line_state(h->ms, L), "N");
    /* A partial store misses and fetches first (fetch-on-write). */
    uint64_t P = line_of(h, 2, 6);
    uint32_t ps = h_send_at(h, cm_engine_now(&h->eng), 4, P, CM_MSG_WRITE, 4);
    h_run(h);
    ck_assert_uint_eq(h->rmsg[ps], CM_MSG_ACK);
    ck_assert_str_eq(cm_memsys_line_state(h->ms, P), "N");
    h_rows(h);
    ck_assert_double_eq(h_stat(h, "dram.reads", "ch2"), 1);
    ck_assert_double_eq(h_stat(h, "dram.writes", "ch2"), 0);
    /* ways more lines of L's set (bank-local lines sets apart) evict L,
     * the least recently used, which is written back. */
    uint64_t sets =
        (uint64_t)(h->p.l2_bank_size / (h->p.l2_ways * h->p.l2_line));
    uint64_t t = cm_engine_now(&h->eng);
    for (uint64_t k = 1; k <= (uint64_t)h->p.l2_ways; k++)
        h_send_at(h, t + k, 4, line_of(h, 2, 5 + k * sets), CM_MSG_GETS, 0);
    h_run(h);
    ck_assert_str_eq(cm_memsys_line_state(h->ms, L), "I");
    ck_assert_str_eq(cm_memsys_line_state(h->ms, P), "N"); /* other set */
    h_rows(h);
    ck_assert_double_eq(h_stat(h, "dram.writes", "ch2"), 1);
    ck_assert_double_eq(h_stat(h, "l2.writebacks", "bank2"), 1);
    ck_assert_double_eq(h_stat(h, "dram.reads", "ch2"), 1 + h->p.l2_ways);
    assert_conserved(h);
    h_free(h);
}
END_TEST

START_TEST(test_atomic)
{
    harness *h = h_new(NULL);
    h_start(h);
    uint64_t A = line_of(h, 1, 9);
    /* 8 + 4 B = 1 flit, like a GETS; the atomic unit adds one L2 cycle
     * (1400/700 = 2 core cycles) after the pipeline, and the reply is one
     * word (AREPLY, 8 + 8 B = 1 flit): a DATA's 5 flits less 1 on the way
     * back, 4 x 2 x 2 = 16 cycles shorter than a line's round trip. */
    uint64_t unit = (uint64_t)(h->p.gpu_core_clock / h->p.l2_clock);
    uint64_t shorter = 16;
    uint32_t a = h_send_at(h, 0, 2, A, CM_MSG_ATOMIC, 4);
    h_run(h);
    ck_assert_uint_eq(h->rmsg[a], CM_MSG_AREPLY);
    ck_assert_uint_eq(h->rtime[a],
                      (uint64_t)h->p.dram_latency + unit - shorter);
    ck_assert_str_eq(cm_memsys_line_state(h->ms, A), "N");
    uint64_t t = cm_engine_now(&h->eng) + 50;
    uint32_t b = h_send_at(h, t, 2, A, CM_MSG_ATOMIC, 4);
    h_run(h);
    ck_assert_uint_eq(h->rmsg[b], CM_MSG_AREPLY);
    ck_assert_uint_eq(h->rtime[b] - t,
                      (uint64_t)h->p.l2_latency + unit - shorter);
    h_rows(h);
    ck_assert_double_eq(h_stat(h, "l2.atomics", "bank1"), 2);
    ck_assert_double_eq(h_stat(h, "noc.msgs.atomic", "all"), 2);
    assert_conserved(h);
    h_free(h);
}
END_TEST

START_TEST(test_flood_conservation)
{
    /* Every SM floods bank 0 with loads, stores and atomics to a few lines
     * (merges, merge-list overflow), and every third reply is refused. */
    harness *h = h_new((const char *const[]){"l2.mshrs=4", NULL});
    h_start(h);
    unsigned sms = (unsigned)h->p.gpu_sms;
    for (unsigned s = 0; s < sms; s++) {
        h->sm[s].refuse_every = 3;
        for (unsigned k = 0; k < 200; k++) {
            unsigned m = (s + k) % 3 == 0   ? CM_MSG_WRITE
                         : (s + k) % 7 == 0 ? CM_MSG_ATOMIC
                                            : CM_MSG_GETS;
            uint64_t line = line_of(h, 0, (k * 7 + s) % 40);
            h_queue(h, s, line, m, m == CM_MSG_GETS ? 0 : 4);
        }
    }
    for (unsigned s = 0; s < sms; s++)
        cm_engine_schedule_at(&h->eng, 0, pump_ev, &h->sm[s], 0);
    h_run(h);
    assert_conserved(h);
    unsigned refused = 0;
    for (unsigned s = 0; s < sms; s++) refused += h->sm[s].refused_in;
    ck_assert_uint_gt(refused, 0); /* back-pressure reached the SMs */
    h_rows(h);
    ck_assert_double_gt(h_stat(h, "l2.hol_stall_cycles", "bank0"), 0);
    ck_assert_double_eq(h_stat(h, "l2.accesses", "bank0"), h->nreq);
    h_free(h);
}
END_TEST

/* Lines per cycle of the replies nreplies/4 .. 3 nreplies/4 (steady state). */
static double mid_rate(const harness *h)
{
    uint32_t lo = h->nreplies / 4, hi = 3 * h->nreplies / 4;
    return (double)(hi - lo) / (double)(h->order_time[hi] - h->order_time[lo]);
}

START_TEST(test_bank_serves_one_per_l2_cycle)
{
    /* l2.clock 350: a bank serves one request per 4 core cycles, slower
     * than the links (a 1-flit store or ACK per 2 cycles), so the bank is
     * the bottleneck and stores hitting one line come back at 1/4. */
    harness *h = h_new((const char *const[]){"l2.clock=350", NULL});
    h_start(h);
    unsigned sms = (unsigned)h->p.gpu_sms;
    for (unsigned k = 0; k < 150; k++)
        for (unsigned s = 0; s < sms; s++)
            h_queue(h, s, line_of(h, 0, 12), CM_MSG_WRITE, 4);
    for (unsigned s = 0; s < sms; s++)
        cm_engine_schedule_at(&h->eng, 0, pump_ev, &h->sm[s], 0);
    h_run(h);
    assert_conserved(h);
    double want = h->p.l2_clock / h->p.gpu_core_clock;
    ck_assert_close(mid_rate(h), want, 0.01);
    h_free(h);
}
END_TEST

START_TEST(test_dram_bandwidth_bound)
{
    /* Misses to distinct lines of bank 0 all go to channel 0.  The links
     * are widened (128 B per NoC cycle) so DRAM is the bottleneck:
     * dram.bus_bytes x data_rate = 16 B per DRAM clock = 16 B per core
     * cycle, one 128 B line per 8 cycles. */
    harness *h = h_new((const char *const[]){"noc.port_bytes=128", NULL});
    h_start(h);
    unsigned sms = (unsigned)h->p.gpu_sms;
    uint64_t k = 0;
    for (unsigned i = 0; i < 120; i++)
        for (unsigned s = 0; s < sms; s++)
            h_queue(h, s, line_of(h, 0, k++), CM_MSG_GETS, 0);
    for (unsigned s = 0; s < sms; s++)
        cm_engine_schedule_at(&h->eng, 0, pump_ev, &h->sm[s], 0);
    h_run(h);
    assert_conserved(h);
    double peak = h->p.dram_bus_bytes * h->p.dram_data_rate * h->p.dram_clock /
                  h->p.gpu_core_clock;
    double bytes_per_cycle = mid_rate(h) * h->p.l2_line;
    ck_assert_msg(bytes_per_cycle <= peak * 1.01, "%g B/cycle > peak %g",
                  bytes_per_cycle, peak);
    ck_assert_msg(bytes_per_cycle >= peak * 0.99, "%g B/cycle << peak %g",
                  bytes_per_cycle, peak);
    h_rows(h);
    ck_assert_double_eq(h_stat(h, "dram.reads", "ch0"), h->nreq);
    ck_assert_double_eq(h_stat(h, "dram.busy_cycles", "ch0"), 8.0 * h->nreq);
    ck_assert_double_gt(h_stat(h, "dram.utilisation", "ch0"), 0.9);
    h_free(h);
}
END_TEST

/* Random traffic over every bank, sent at random cycles. */
static harness *random_run(unsigned long seed)
{
    harness *h = h_new((const char *const[]){"l2.mshrs=8", NULL});
    h_start(h);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
    unsigned sms = (unsigned)h->p.gpu_sms;
    for (unsigned i = 0; i < 4000; i++) {
        unsigned s = (unsigned)gsl_rng_uniform_int(rng, sms);
        uint64_t line = gsl_rng_uniform_int(rng, 3000);
        unsigned u = (unsigned)gsl_rng_uniform_int(rng, 10);
        unsigned m = u < 6 ? CM_MSG_GETS : u < 9 ? CM_MSG_WRITE : CM_MSG_ATOMIC;
        uint16_t bytes = m == CM_MSG_GETS ? 0 : u == 8 ? 128 : 4;
        h_send_at(h, gsl_rng_uniform_int(rng, 30000), s, line, m, bytes);
    }
    gsl_rng_free(rng);
    h_run(h);
    h_rows(h);
    return h;
}

START_TEST(test_littles_law)
{
    harness *h = random_run(7);
    assert_conserved(h);
    double T = (double)cm_engine_now(&h->eng);
    for (unsigned b = 0; b < (unsigned)h->p.l2_banks; b++) {
        char comp[16];
        snprintf(comp, sizeof comp, "bank%u", b);
        double Lq = h_stat(h, "l2.queue.occupancy_mean", comp);
        double lwq = h_stat(h, "l2.queue.wait_count", comp) *
                     h_stat(h, "l2.queue.wait_mean", comp) / T;
        ck_assert_close(Lq, lwq, 0.02);
        double Lm = h_stat(h, "l2.mshr.occupancy_mean", comp);
        double lwm = h_stat(h, "l2.mshr.lifetime_count", comp) *
                     h_stat(h, "l2.mshr.lifetime_mean", comp) / T;
        ck_assert_close(Lm, lwm, 0.02);
        ck_assert_double_gt(Lm, 0);
    }
    h_free(h);
}
END_TEST

START_TEST(test_deterministic)
{
    harness *a = random_run(11), *b = random_run(11);
    ck_assert_uint_eq(a->nreplies, b->nreplies);
    ck_assert_int_eq(memcmp(a->rtime, b->rtime, sizeof a->rtime), 0);
    ck_assert_uint_eq(a->nrows, b->nrows);
    for (size_t i = 0; i < a->nrows; i++) {
        ck_assert_str_eq(a->rows[i].metric, b->rows[i].metric);
        ck_assert_msg(
            memcmp(&a->rows[i].value, &b->rows[i].value, sizeof(double)) == 0,
            "%s differs", a->rows[i].metric);
    }
    h_free(a);
    h_free(b);
}
END_TEST

Suite *suite_memsys(void)
{
    Suite *s = suite_create("memsys");
    TCase *tc = tcase_create("memsys");
    tcase_add_test(tc, test_timing_split_by_hand);
    tcase_add_test(tc, test_unloaded_miss_then_hit);
    tcase_add_test(tc, test_mshr_merge);
    tcase_add_test(tc, test_store_dirty_writeback);
    tcase_add_test(tc, test_atomic);
    tcase_add_test(tc, test_flood_conservation);
    tcase_add_test(tc, test_bank_serves_one_per_l2_cycle);
    tcase_add_test(tc, test_dram_bandwidth_bound);
    tcase_add_test(tc, test_littles_law);
    tcase_add_test(tc, test_deterministic);
    suite_add_tcase(s, tc);
    return s;
}
