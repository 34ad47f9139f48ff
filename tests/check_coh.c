/* check_coh.c - MESI on a small machine (sim/gpu.h) running a
 * hand-written program with known store values.
 *
 * Every warp hammers four shared lines with stores, loads and atomics (so
 * owners are forwarded to, sharers invalidated, UPGRs raced), streams
 * through lines of its own (so that small caches evict and recall), and
 * finally stores once to a line nobody else touches.  Checked:
 *  - the run finishes (no missing row, no deadlock);
 *  - the final memory value of each warp's own line is that one store's
 *    value (so write-back, PUT and recall data reach memory), and each
 *    shared line's final value is some warp's last store to it;
 *  - every value a load or atomic returns was written to that line (or is
 *    the initial 0), and a warp never reads an older value of its own than
 *    its latest earlier store to the line (read-own-write);
 *  - every GETS, GETX and UPGR was answered (DATA, DATA_E, DATA_M, ACK),
 *    and the small caches produce recalls, counted as dir.recalls. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/gpu.h"
#include "tests/testutil.h"

enum {
    CORES = 4,
    WARPS = 2,
    NW = CORES * WARPS,
    SHARED = 4,    /* shared lines 0..3 */
    ROUNDS = 12,   /* rounds over the shared lines */
    STREAM = 96,   /* lines each warp streams through */
    OWN_BASE = 500 /* warp g's own line: OWN_BASE + g */
};
#define STREAM_BASE 1000u

/* Warp g's program as a function of its position: ROUNDS rounds of
 * (store, load, atomic, load, compute) on the shared lines, then STREAM x
 * (load, store, then a load or store of a shared line) on its stream
 * lines, then store own line, fence, load own
 * line, END. */
#define ROUND_LEN 5
#define STREAM_LEN 3
#define PROG_LEN (ROUNDS * ROUND_LEN + STREAM * STREAM_LEN + 3)

static uint64_t stream_line(uint32_t g, uint32_t i)
{
    return STREAM_BASE + (uint64_t)g * STREAM + i;
}

/* The instruction at pc of warp g: kind and line. */
static uint8_t prog_at(uint32_t g, uint32_t pc, uint64_t *line)
{
    if (pc < ROUNDS * ROUND_LEN) {
        uint32_t r = pc / ROUND_LEN, s = pc % ROUND_LEN;
        static const uint8_t kinds[ROUND_LEN] = {
            CM_INST_STORE, CM_INST_LOAD, CM_INST_ATOMIC, CM_INST_LOAD,
            CM_INST_COMPUTE};
        static const uint32_t offs[ROUND_LEN] = {0, 1, 2, 0, 0};
        *line = (g + r + offs[s]) % SHARED;
        return kinds[s];
    }
    pc -= ROUNDS * ROUND_LEN;
    if (pc < STREAM * STREAM_LEN) {
        uint32_t i = pc / STREAM_LEN, s = pc % STREAM_LEN;
        if (s == 2) { /* the shared lines again, while evictions go on */
            *line = (g + i) % SHARED;
            return i % 2 ? CM_INST_STORE : CM_INST_LOAD;
        }
        *line = stream_line(g, i);
        return s ? CM_INST_STORE : CM_INST_LOAD;
    }
    pc -= STREAM * STREAM_LEN;
    *line = OWN_BASE + g;
    if (pc == 0) return CM_INST_STORE;
    if (pc == 1) return CM_INST_FENCE;
    if (pc == 2) return CM_INST_LOAD;
    return CM_INST_END;
}

/* The line of warp g's k-th store or atomic (k >= 1); 0 with *ok = 0 if
 * it has none. */
static uint64_t kth_write(uint32_t g, uint32_t k, int *ok)
{
    uint32_t n = 0;
    for (uint32_t pc = 0; pc < PROG_LEN; pc++) {
        uint64_t line;
        uint8_t kind = prog_at(g, pc, &line);
        if (kind == CM_INST_STORE || kind == CM_INST_ATOMIC)
            if (++n == k) {
                *ok = 1;
                return line;
            }
    }
    *ok = 0;
    return 0;
}

typedef struct prog {
    uint32_t pc[NW];
    uint32_t k[NW];         /* stores and atomics fetched so far */
    uint32_t last_k[NW];    /* k of the latest one before the current inst */
    uint64_t last_line[NW]; /* its line */
    /* the k of warp g's latest store or atomic to a line before its
     * current instruction, for the lines of interest */
    uint32_t own_shared[NW][SHARED];
    uint32_t own_line_k[NW];
    uint64_t addr[NW];
    /* results */
    uint32_t loads, bad_value, stale_own;
} prog;

static void commit_prev(prog *p, uint32_t g)
{
    if (!p->last_k[g]) return;
    uint64_t l = p->last_line[g];
    if (l < SHARED) p->own_shared[g][l] = p->last_k[g];
    p->last_k[g] = 0;
}

static cm_status prog_next(void *obj, uint32_t sm, uint32_t warp,
                           cm_inst *inst, cm_err *err)
{
    (void)err;
    prog *p = obj;
    uint32_t g = sm * WARPS + warp;
    commit_prev(p, g);
    memset(inst, 0, sizeof *inst);
    uint64_t line = 0;
    uint32_t pc = p->pc[g] < PROG_LEN ? p->pc[g]++ : PROG_LEN;
    inst->kind = prog_at(g, pc, &line);
    if (inst->kind == CM_INST_COMPUTE) inst->n = 3;
    if (inst->kind >= CM_INST_LOAD && inst->kind <= CM_INST_ATOMIC) {
        p->addr[g] = line;
        inst->addrs = &p->addr[g];
        inst->n = 1;
        inst->bytes = 4;
    }
    if (inst->kind == CM_INST_STORE || inst->kind == CM_INST_ATOMIC) {
        p->last_k[g] = ++p->k[g];
        p->last_line[g] = line;
        if (line == OWN_BASE + g) p->own_line_k[g] = p->k[g];
    }
    return CM_OK;
}

static void prog_load(void *obj, uint32_t core, uint32_t warp, uint64_t line,
                      uint64_t value)
{
    prog *p = obj;
    uint32_t g = core * WARPS + warp;
    p->loads++;
    if (value == 0) {
        if (line < SHARED && p->own_shared[g][line]) p->stale_own++;
        return;
    }
    uint64_t writer = (value >> 32) - 1;
    uint32_t k = (uint32_t)value;
    int ok = 0;
    if (writer >= NW || kth_write((uint32_t)writer, k, &ok) != line || !ok) {
        p->bad_value++;
        return;
    }
    /* read-own-write: not older than the warp's own latest earlier write */
    if (line < SHARED && writer == g && k < p->own_shared[g][line])
        p->stale_own++;
}

/* The value of warp g's last store or atomic to shared line l, 0 if none. */
static uint64_t last_shared_write(uint32_t g, uint64_t l)
{
    uint32_t n = 0, last = 0;
    for (uint32_t pc = 0; pc < PROG_LEN; pc++) {
        uint64_t line;
        uint8_t kind = prog_at(g, pc, &line);
        if (kind == CM_INST_STORE || kind == CM_INST_ATOMIC) {
            n++;
            if (line == l) last = n;
        }
    }
    return last ? cm_store_value(g / WARPS, g % WARPS, WARPS, last) : 0;
}

static double stat(const cm_stat_row *rows, size_t n, const char *metric)
{
    const cm_stat_row *r = cm_stats_find(rows, n, metric, "all");
    ck_assert_msg(r != NULL, "no statistic %s", metric);
    return r->value;
}

/* Machines: the default one; small caches (L1 evictions, PUTs); tiny
 * caches, where the L2 (8 lines a bank) evicts lines the L1s still hold
 * (recalls) and the direct-mapped L1 meets grants whose only way waits on
 * an UPGR (the grant is used and evicted at once). */
enum { MACHINE_DEFAULT, MACHINE_SMALL, MACHINE_TINY };

static void set_param(cm_params *prm, const char *name, const char *value)
{
    cm_err err = {0};
    ck_assert_msg(cm_params_set(prm, name, value, &err) == CM_OK, "%s",
                  err.msg);
}

/* The lines whose final values the checks read: each warp's own line and
 * its last stream line, and the shared lines. */
enum { PROBES = 2 * NW + SHARED };
static void probe_lines(uint64_t *lines)
{
    for (uint32_t g = 0; g < NW; g++) {
        lines[g] = OWN_BASE + g;
        lines[NW + g] = stream_line(g, STREAM - 1);
    }
    for (uint64_t l = 0; l < SHARED; l++) lines[2 * NW + l] = l;
}

/* Runs the program on MESI on one of the machines. */
static void run_mesi(int machine, uint32_t jitter, uint64_t seed)
{
    cm_params prm;
    cm_params_init(&prm);
    cm_err err = {0};
    if (machine != MACHINE_DEFAULT) {
        set_param(&prm, "l1.size", "1024");
        set_param(&prm, "l2.bank_size", "8192");
        set_param(&prm, "l2.mshrs", "8");
    }
    if (machine == MACHINE_TINY) {
        set_param(&prm, "l1.size", "4096");
        set_param(&prm, "l1.ways", "1");
        set_param(&prm, "l2.bank_size", "1024");
    }
    prm.gpu_sms = CORES;
    prm.gpu_warps_per_sm = WARPS;
    prm.sched_active_warps = WARPS;
    prm.noc_jitter = jitter;
    prm.sim_seed = (double)seed;
    prm.sim_max_cycles = 5000000;
    const cm_protocol *proto = cm_protocol_find("mesi");
    ck_assert_ptr_nonnull(proto);
    ck_assert_int_eq(proto->consistency, CM_CONSISTENCY_RCSC);
    prog *p = calloc(1, sizeof *p);
    cm_stats *stats = cm_stats_new();
    ck_assert(p && stats);
    uint64_t lines[PROBES], values[PROBES];
    probe_lines(lines);
    cm_observer obs = {.obj = p, .value = prog_load};
    cm_gpu_run_config cfg = {.params = &prm, .protocol = proto,
                             .source = {prog_next, p}, .observer = &obs,
                             .probe_lines = lines, .probe_values = values,
                             .nprobe = PROBES};
    cm_gpu_result res;
    cm_status st = cm_gpu_run(&cfg, stats, &res, &err);
    ck_assert_msg(st == CM_OK, "mesi run: %s", err.msg);
    ck_assert_msg(res.finished, "mesi did not finish in %llu cycles",
                  (unsigned long long)res.cycles);

    /* values */
    for (uint32_t g = 0; g < NW; g++) {
        ck_assert_uint_ne(p->own_line_k[g], 0);
        uint64_t want = cm_store_value(g / WARPS, g % WARPS, WARPS,
                                       p->own_line_k[g]);
        ck_assert_msg(values[g] == want,
                      "own line of warp %u: %llx, want %llx", (unsigned)g,
                      (unsigned long long)values[g], (unsigned long long)want);
    }
    for (uint64_t l = 0; l < SHARED; l++) {
        uint64_t v = values[2 * NW + l];
        int found = 0;
        for (uint32_t g = 0; g < NW; g++)
            found |= v != 0 && v == last_shared_write(g, l);
        ck_assert_msg(found, "shared line %llu ends as %llx, no warp's last "
                      "write", (unsigned long long)l, (unsigned long long)v);
    }
    /* every warp's stream stores reached memory */
    for (uint32_t g = 0; g < NW; g++)
        ck_assert_uint_eq(values[NW + g] >> 32, g + 1);
    uint32_t loads_expected = NW * (ROUNDS * 3 + STREAM + STREAM / 2 + 1);
    ck_assert_uint_eq(p->loads, loads_expected);
    ck_assert_uint_eq(p->bad_value, 0);
    ck_assert_uint_eq(p->stale_own, 0);

    /* message invariants */
    cm_stat_row *rows = NULL;
    size_t n = 0;
    ck_assert_int_eq(cm_stats_rows(stats, &rows, &n, &err), CM_OK);
    double asks = stat(rows, n, "noc.msgs.gets") +
                  stat(rows, n, "noc.msgs.getx") +
                  stat(rows, n, "noc.msgs.upgr");
    double grants = stat(rows, n, "noc.msgs.data") +
                    stat(rows, n, "noc.msgs.data_e") +
                    stat(rows, n, "noc.msgs.data_m") +
                    stat(rows, n, "noc.msgs.ack");
    ck_assert(asks > 0);
    ck_assert_msg(asks == grants, "%g requests, %g grants", asks, grants);
    /* MESI sends no write-through traffic */
    ck_assert(stat(rows, n, "noc.msgs.write") == 0);
    ck_assert(stat(rows, n, "noc.msgs.atomic") == 0);
    ck_assert(stat(rows, n, "noc.msgs.areply") == 0);
    ck_assert(stat(rows, n, "noc.msgs.fwd_gets") > 0);
    ck_assert(stat(rows, n, "noc.msgs.inv") > 0);
    double recalls = stat(rows, n, "dir.recalls");
    ck_assert(recalls == stat(rows, n, "noc.msgs.rcl"));
    /* every INV and RCL is answered by exactly one INVACK or WB, every
     * FWD by one WB or NODATA */
    ck_assert(stat(rows, n, "noc.msgs.inv") + recalls +
                  stat(rows, n, "noc.msgs.fwd_gets") +
                  stat(rows, n, "noc.msgs.fwd_getx") ==
              stat(rows, n, "noc.msgs.invack") + stat(rows, n, "noc.msgs.wb") +
                  stat(rows, n, "noc.msgs.nodata"));
    if (machine != MACHINE_DEFAULT)
        ck_assert(stat(rows, n, "noc.msgs.put") > 0);
    if (machine == MACHINE_TINY) ck_assert(recalls > 0);
    free(rows);
    cm_stats_free(stats);
    free(p);
}

START_TEST(test_mesi_values_and_invariants)
{
    run_mesi(MACHINE_DEFAULT, 0, 1);
}
END_TEST

START_TEST(test_mesi_small_caches_recall)
{
    run_mesi(MACHINE_SMALL, 0, 1);
    run_mesi(MACHINE_TINY, 0, 1);
}
END_TEST

/* Random message delays and issue times change every race's outcome. */
START_TEST(test_mesi_jitter)
{
    for (uint64_t seed = 1; seed <= 4; seed++)
        for (int m = MACHINE_DEFAULT; m <= MACHINE_TINY; m++)
            run_mesi(m, 40, seed);
}
END_TEST

/* A bank evicting a dirty line queues its write-back, which can wake the
 * bank at once; the way must have left first.  Bug: the way stayed valid
 * through the write-back, the woken bank granted a GETX from it, the line
 * left anyway, and the new owner's PUT met I ("no row for state I, event
 * PUT"): MESI on bh, the tc2013 machine, within 60k cycles. */
START_TEST(test_mesi_eviction_leaves_before_writeback)
{
    cm_params p;
    cm_params_init(&p);
    p.sim_max_cycles = 60000;
    for (int sample = 0; sample <= 2; sample += 2) { /* full, spatial */
        p.sim_sample = sample;
        tu_sim r;
        tu_sim_run_workload(&p, "mesi", "bh", 0, &r);
        ck_assert(r.cycles > 0);
        ck_assert(tu_sim_stat(&r, "l2.writebacks") > 0);
        tu_sim_free(&r);
    }
}
END_TEST

/* Why the L1s' responses travel on a virtual network of their own
 * (noc.vnets = 2): on one shared with requests, a bank whose queue is full
 * of requests stalled on transactions frees no buffer, and the INVACKs and
 * WBs the transactions wait for cannot reach it.  GPU-VI and MESI on bh
 * (8 SMs, 2 banks) deadlock within 20k cycles on one network and run 200k
 * on two; NO-COH and TC-Weak, which send no invalidations, run on one. */
START_TEST(test_one_network_deadlocks_under_invalidations)
{
    static const struct {
        const char *proto;
        int deadlocks;
    } cases[] = {{"gpu-vi", 1}, {"mesi", 1}, {"no-coh", 0}, {"tcw", 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int vnets = 1; vnets <= 2; vnets++) {
            cm_params p;
            cm_params_init(&p);
            p.gpu_sms = 8;
            p.l2_banks = 2;
            p.sim_max_cycles = 200000;
            p.noc_vnets = vnets;
            cm_stats *stats = cm_stats_new();
            cm_gpu_run_config cfg = {.params = &p,
                                     .workload = cm_workload_builtin("bh"),
                                     .protocol =
                                         cm_protocol_find(cases[i].proto)};
            cm_gpu_result res;
            cm_err err = {0};
            cm_status st = cm_gpu_run(&cfg, stats, &res, &err);
            int dead = st != CM_OK && strstr(err.msg, "deadlock") != NULL;
            ck_assert_msg(st == CM_OK || dead, "%s: %s", cases[i].proto,
                          err.msg);
            ck_assert_msg(dead == (vnets == 1 && cases[i].deadlocks),
                          "%s on %d network(s): %s", cases[i].proto, vnets,
                          dead ? err.msg : "ran");
            cm_stats_free(stats);
        }
}
END_TEST

Suite *suite_coh(void)
{
    Suite *s = suite_create("coh");
    TCase *tc = tcase_create("mesi");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_mesi_values_and_invariants);
    tcase_add_test(tc, test_mesi_small_caches_recall);
    tcase_add_test(tc, test_mesi_jitter);
    tcase_add_test(tc, test_mesi_eviction_leaves_before_writeback);
    tcase_add_test(tc, test_one_network_deadlocks_under_invalidations);
    suite_add_tcase(s, tc);
    return s;
}
