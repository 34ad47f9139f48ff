/* check_coh_dir.c - the GPU-VIni directory on a hand-checked scenario: one warp, a 4-line L1, one L2 bank and a directory
 * of one set of two entries (dir.ratio 0.5 of 4 L1 lines).
 *
 * The warp loads A and B (two entries), stores to A (a directory access
 * that uses A's entry), loads C (the directory is full: it evicts its
 * least recently used entry, B, and recalls B's copy), and loads A again.
 * A's copy survived, so that last load hits: 1 recall, and 4 L1 misses
 * (A, B, C and the write-through store, which the L1 counts as a miss).
 * Were the directory FIFO by allocation (the bug this guards against: its
 * entries were never touched after allocation), A would go instead, and
 * the last load would miss and recall again: 2 recalls, 5 misses. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "models/profile.h"
#include "models/recall.h"
#include "sim/gpu.h"
#include "sim/l2_impl.h" /* the directory lookup, white-box */
#include "sim/stats.h"
#include "tests/testutil.h"

enum { LINE_A = 10, LINE_B = 11, LINE_C = 12 };

typedef struct step {
    uint8_t kind;
    uint64_t line;
} step;

static const step lru_prog[] = {
    {CM_INST_LOAD, LINE_A}, {CM_INST_LOAD, LINE_B},   {CM_INST_STORE, LINE_A},
    {CM_INST_FENCE, 0},     {CM_INST_LOAD, LINE_C},   {CM_INST_COMPUTE, 0},
    {CM_INST_LOAD, LINE_A}, {CM_INST_END, 0}};

typedef struct script {
    const step *prog;
    size_t n; /* the last step is CM_INST_END */
    uint32_t pc;
    uint64_t addr;
} script;

static cm_status script_next(void *obj, uint32_t sm, uint32_t warp,
                             cm_inst *inst, cm_err *err)
{
    (void)sm;
    (void)warp;
    (void)err;
    script *s = obj;
    const step *prog = s->prog;
    size_t n = s->n;
    size_t pc = s->pc < n ? s->pc++ : n - 1;
    memset(inst, 0, sizeof *inst);
    inst->kind = prog[pc].kind;
    if (inst->kind == CM_INST_COMPUTE) inst->n = 2000; /* recall settles */
    if (inst->kind == CM_INST_LOAD || inst->kind == CM_INST_STORE ||
        inst->kind == CM_INST_ATOMIC) {
        s->addr = prog[pc].line;
        inst->addrs = &s->addr;
        inst->n = 1;
        inst->bytes = 4;
    }
    return CM_OK;
}

static void set_param(cm_params *prm, const char *name, const char *value)
{
    cm_err err = {0};
    ck_assert_msg(cm_params_set(prm, name, value, &err) == CM_OK, "%s",
                  err.msg);
}

static void set_params(cm_params *prm, const char *const (*kv)[2], size_t n)
{
    for (size_t i = 0; i < n; i++) set_param(prm, kv[i][0], kv[i][1]);
}

/* One SM of one warp, a 4-line L1, one L2 bank. */
static void small_machine(cm_params *prm)
{
    static const char *const kv[][2] = {{"gpu.sms", "1"},
                                        {"gpu.warps_per_sm", "1"},
                                        {"sched.active_warps", "1"},
                                        {"l1.line", "128"},
                                        {"l1.size", "512"},
                                        {"l1.ways", "4"},
                                        {"l2.banks", "1"}};
    cm_params_init(prm);
    set_params(prm, kv, sizeof kv / sizeof *kv);
}

/* small_machine with a fully associative 16-line L1 and a directory of 4
 * sets of 2 ways (dir.ratio 0.5 of 16 lines). */
static void stride_machine(cm_params *prm)
{
    static const char *const kv[][2] = {{"l1.size", "2048"},
                                        {"l1.ways", "16"},
                                        {"dir.ratio", "0.5"},
                                        {"dir.ways", "2"}};
    small_machine(prm);
    set_params(prm, kv, sizeof kv / sizeof *kv);
}

/* Runs prog on one warp under GPU-VIni; the recalls and L1 misses. */
static void run_gpu_vini(const cm_params *prm, const step *prog, size_t n,
                         double *recalls, double *misses)
{
    script s = {prog, n, 0, 0};
    tu_sim r;
    tu_sim_run(prm, "gpu-vini", (cm_warp_source){script_next, &s}, NULL, 0,
               &r);
    ck_assert(r.finished);
    *recalls = tu_sim_stat(&r, "dir.recalls");
    *misses = tu_sim_stat(&r, "l1.misses");
    tu_sim_free(&r);
}

START_TEST(test_directory_evicts_least_recently_used)
{
    cm_params prm;
    small_machine(&prm);
    set_param(&prm, "dir.ratio", "0.5");
    set_param(&prm, "dir.ways", "2");
    double recalls, misses;
    run_gpu_vini(&prm, lru_prog, sizeof lru_prog / sizeof *lru_prog,
                 &recalls, &misses);
    ck_assert_double_eq(recalls, 1);
    ck_assert_double_eq(misses, 4);
}
END_TEST

/* dir.index on lines 0, 4 and 8 of a directory of 4 sets of 2 ways (one
 * bank, a fully associative 16-line L1 that keeps them all): by address
 * bits all three fall into set 0, the third load evicts line 0's entry and
 * recalls its copy, and line 0's reload misses and recalls line 4; the hash XOR-folds bits 2-3
 * into the index (sets 0, 1, 2), so nothing is recalled and the reload
 * hits. */
START_TEST(test_directory_index_hash_spreads_strides)
{
    static const step prog[] = {
        {CM_INST_LOAD, 0},    {CM_INST_LOAD, 4}, {CM_INST_LOAD, 8},
        {CM_INST_COMPUTE, 0}, {CM_INST_LOAD, 0}, {CM_INST_END, 0}};
    cm_params prm;
    stride_machine(&prm);
    double recalls, misses;
    set_param(&prm, "dir.index", "bits");
    run_gpu_vini(&prm, prog, sizeof prog / sizeof *prog, &recalls, &misses);
    ck_assert_double_eq(recalls, 2);
    ck_assert_double_eq(misses, 4);
    set_param(&prm, "dir.index", "hash");
    run_gpu_vini(&prm, prog, sizeof prog / sizeof *prog, &recalls, &misses);
    ck_assert_double_eq(recalls, 0);
    ck_assert_double_eq(misses, 3);
}
END_TEST

/* The profile rows of GPU-VIni's directory stream (sim/profile_rec.c,
 * dir_stream), on: load A, atomic A, atomic B, load A.  Only loads
 * allocate entries: B, never loaded, touches none, so the second load of A
 * is at stack distance 0 (the L2's own stream, dir.stack_distance, counts
 * B and puts it at 1).  The atomic empties A's list of one sharer: one
 * emptying, at distance 0, followed by A's next GETS with no GETS between
 * (gap 0).  GETS counted: A's miss and A again; the miss served again
 * after the fill is the same request, counted once (as the L2 counts it). */
/* Weight of dist name in [lo, hi) (hi = INFINITY: the mass at infinity). */
static double dist_weight(const cm_profile *p, const char *name, double lo,
                          double hi)
{
    const cm_dist *d;
    cm_err err = {0};
    ck_assert_msg(cm_profile_dist(p, name, &d, &err) == CM_OK, "%s",
                  err.msg);
    if (isinf(hi)) return d->w_inf;
    double w = 0;
    for (size_t b = 0; b < d->n; b++)
        if (d->lo[b] >= lo && d->hi[b] <= hi) w += d->w[b];
    return w;
}

static cm_profile *profile_atomics(const char *protocol, double *cycles)
{
    cm_params prm;
    small_machine(&prm);
    static const step prog[] = {{CM_INST_LOAD, LINE_A},
                                {CM_INST_ATOMIC, LINE_A},
                                {CM_INST_ATOMIC, LINE_B},
                                {CM_INST_LOAD, LINE_A},
                                {CM_INST_END, 0}};
    script s = {prog, sizeof prog / sizeof *prog, 0, 0};
    tu_sim r;
    tu_sim_run(&prm, protocol, (cm_warp_source){script_next, &s}, NULL, 1,
               &r);
    ck_assert(r.finished);
    *cycles = (double)r.cycles;
    cm_profile *prof = r.prof;
    r.prof = NULL;
    tu_sim_free(&r);
    return prof;
}

START_TEST(test_profile_directory_stream)
{
    double cycles, v;
    cm_err err = {0};
    cm_profile *p = profile_atomics("gpu-vini", &cycles);
    ck_assert_double_eq(dist_weight(p, "dir.alloc_distance", 0, 1), 1);
    ck_assert_double_eq(dist_weight(p, "dir.alloc_distance", 1, 1e300),
                        0);
    ck_assert_double_eq(dist_weight(p, "dir.alloc_distance", 0, INFINITY), 1);
    /* the L2's stream counts B between the two touches of A */
    ck_assert_double_eq(dist_weight(p, "dir.stack_distance", 1, 2), 1);
    ck_assert_double_eq(dist_weight(p, "dir.empty_distance", 0, 1), 1);
    ck_assert_double_eq(dist_weight(p, "dir.empty_gap", 0, 1), 1);
    ck_assert_double_eq(dist_weight(p, "dir.empty_gap", 0, INFINITY), 0);
    ck_assert_int_eq(cm_profile_rate(p, "rate.dir_empties", &v, &err), CM_OK);
    ck_assert_double_eq_tol(v * cycles, 1, 1e-9);
    ck_assert_int_eq(
        cm_profile_rate(p, "rate.dir_alloc_footprint", &v, &err), CM_OK);
    ck_assert_double_eq(v, 1);
    ck_assert_int_eq(cm_profile_rate(p, "rate.l2_loads", &v, &err), CM_OK);
    ck_assert_double_eq_tol(v * cycles, 2, 1e-9);
    cm_profile_free(p);
    /* the rows are GPU-VIni's: GPU-VI's directory is the L2 */
    p = profile_atomics("gpu-vi", &cycles);
    const cm_dist *d;
    ck_assert_int_eq(cm_profile_dist(p, "dir.alloc_distance", &d, &err),
                     CM_EINPUT);
    ck_assert_int_eq(cm_profile_rate(p, "rate.dir_empties", &v, &err),
                     CM_EINPUT);
    cm_profile_free(p);
}
END_TEST

/* One warp runs prog (n steps) on GPU-VIni, the directory indexed by
 * address bits on the strided machine, to its end. */
static void run_bits(step *prog, size_t n, cm_params *prm, tu_sim *r)
{
    stride_machine(prm);
    set_param(prm, "dir.index", "bits");
    script sc = {prog, n, 0, 0};
    tu_sim_run(prm, "gpu-vini", (cm_warp_source){script_next, &sc}, NULL, 1,
               r);
    ck_assert(r->finished);
}

/* Lines 0, 4, ... last loaded in turn, five times, each load followed by
 * a compute step; the steps written (10 per line). */
static size_t lines_in_turn(step *prog, uint64_t last)
{
    size_t n = 0;
    for (int round = 0; round < 5; round++)
        for (uint64_t line = 0; line <= last; line += 4) {
            prog[n++] = (step){CM_INST_LOAD, line};
            prog[n++] = (step){CM_INST_COMPUTE, 0};
        }
    return n;
}

/* The L1's sets in the profile of r (joint.l1.set_mates_<w>, 2^w sets,
 * the line's low bits) when lines 0, 4 and 8 were loaded in turn, five
 * times, by one warp: each reload has the other two lines between
 * (d = 2).  Up to 4 sets the three share a set (j = 2); at 8 sets 0 and 8
 * share one and 4 is alone (j = 1 for 8 reloads, 0 for 4); from 16 sets
 * each is alone. */
static void check_l1_sets(const tu_sim *r)
{
    static const double want[6][3] = {{0, 0, 12}, {0, 0, 12}, {0, 0, 12},
                                      {4, 8, 0},  {12, 0, 0}, {12, 0, 0}};
    for (unsigned w = 0; w < 6; w++) {
        char name[40];
        snprintf(name, sizeof name, "joint.l1.set_mates_%u", w);
        const cm_point *pt;
        size_t np;
        double got[3] = {0, 0, 0};
        cm_profile_points(r->prof, name, &pt, &np);
        for (size_t i = 0; i < np; i++) {
            ck_assert_msg(pt[i].x == 2 && pt[i].y < 3,
                          "%s: point (%g, %g)", name, pt[i].x, pt[i].y);
            got[(int)pt[i].y] += pt[i].w;
        }
        for (int j = 0; j < 3; j++)
            ck_assert_msg(got[j] == want[w][j], "%s: %g loads at j = %d, "
                          "want %g", name, got[j], j, want[w][j]);
    }
}

/* The directory's sets in the profile, and the recall model reading them,
 * against the simulator (recall.c, "Sets").  Lines 0, 4 and 8 loaded in
 * turn, five times, in a directory of 4 sets of 2 ways indexed by address
 * bits (one bank): all three share set 0, so from the third load on every
 * load evicts the least recently used entry (13 evictions), and each
 * reload's GETS finds the 2 other lines loaded since it (set-local
 * distance 2 >= W).  A GETS served again after an L2 miss (a recalled
 * line's L2 copy goes too) is recorded once, when it first came: no
 * point at distance 0.  The binomial of a uniform
 * index puts two lines in one of 4 sets with probability 1/16; measured,
 * the model counts the 13 evictions exactly: 12 reloads and one cold load
 * in three (the third line into a full set).  The same run's L1 sets:
 * check_l1_sets. */
START_TEST(test_profile_measured_sets)
{
    step prog[3 * 2 * 5 + 1];
    size_t n = lines_in_turn(prog, 8);
    prog[n++] = (step){CM_INST_END, 0};
    cm_params prm;
    tu_sim r;
    run_bits(prog, n, &prm, &r);
    double evictions = tu_sim_stat(&r, "dir.evictions");
    ck_assert_double_eq(evictions, 13);
    const cm_point *pt;
    size_t np;
    double far = 0;
    cm_profile_points(r.prof, "joint.dir.set_mates_2", &pt, &np);
    for (size_t i = 0; i < np; i++) {
        ck_assert_msg(pt[i].y == 2, "set-mates point (%g, %g)", pt[i].x,
                      pt[i].y);
        far += pt[i].w;
    }
    ck_assert_double_eq(far, 12);
    cm_recall_input in;
    cm_recall_result res;
    cm_err err = {0};
    double rate;
    ck_assert_msg(cm_recall_input_from_params(&prm, CM_RECALL_GPU_VINI, r.prof,
                                              &in, &err) == CM_OK,
                  "%s", err.msg);
    ck_assert_msg(cm_recall_solve(&in, &res, &err) == CM_OK, "%s", err.msg);
    ck_assert_int_eq(cm_profile_rate(r.prof, "rate.dir_accesses", &rate, &err),
                     CM_OK);
    ck_assert_double_eq_tol(res.p_dir_evict * rate * (double)r.cycles,
                            evictions, 1e-9);
    check_l1_sets(&r);
    tu_sim_free(&r);
}
END_TEST

/* How the run gained its lines (joint.dir.index_late_<b>, recall_geom.c,
 * "The run's length"), against the simulator: lines 0 and 4 loaded in
 * turn five times, then line 8 once, last.  Only line 8 is first loaded
 * in the run's last quarter of GETS, so at every index width the late
 * lines sum to 1, and a pair never has more late lines than lines; with
 * 8 sets by address bits (b = 3) lines 0 and 8 share a pair (n = 2, one
 * late) and line 4 is alone (n = 1, none). */
START_TEST(test_profile_late_lines)
{
    step prog[2 * 2 * 5 + 3];
    size_t n = lines_in_turn(prog, 4);
    prog[n++] = (step){CM_INST_LOAD, 8};
    prog[n++] = (step){CM_INST_COMPUTE, 0};
    prog[n++] = (step){CM_INST_END, 0};
    cm_params prm;
    tu_sim r;
    run_bits(prog, n, &prm, &r);
    int widths = 0;
    for (unsigned b = 0; b < 8; b++) {
        char name[48];
        snprintf(name, sizeof name, "joint.dir.index_late_%u", b);
        const cm_point *pt;
        size_t np;
        cm_profile_points(r.prof, name, &pt, &np);
        if (!np) continue;
        widths++;
        double late = 0;
        for (size_t i = 0; i < np; i++) {
            ck_assert(pt[i].x >= 1 && pt[i].y >= 0 && pt[i].y <= pt[i].x);
            late += pt[i].w * pt[i].y;
            if (b == 3)
                ck_assert_msg((pt[i].x == 2 && pt[i].y == 1 && pt[i].w == 1) ||
                                  (pt[i].x == 1 && pt[i].y == 0 &&
                                   pt[i].w == 1),
                              "b = 3: point (%g, %g, %g)", pt[i].x, pt[i].y,
                              pt[i].w);
        }
        ck_assert_double_eq_tol(late, 1, 1e-12);
    }
    ck_assert(widths >= 4);
    tu_sim_free(&r);
}
END_TEST

/* l2_dir_find remembers its last entry found and its last line found
 * absent.  A line found absent, then given an entry, then looked up after
 * another line's lookup must be found (the absent memo must not outlive
 * l2_dir_put); an entry given to another line must not answer for the old
 * one.  One set of two ways, so every line shares it. */
START_TEST(test_directory_lookup_memo)
{
    cm_l2 l2 = {0};
    l2.cfg.banks = 1;
    l2.dir_sets = 1;
    l2.dir_ways = 2;
    l2_dirent dir[2] = {{0}};
    l2_bank b = {.l2 = &l2, .dir = dir, .dir_absent = L2_NONE};
    ck_assert_ptr_null(l2_dir_find(&l2, &b, LINE_A));
    l2_dir_put(&b, &dir[0], LINE_A);
    l2_dir_put(&b, &dir[1], LINE_B);
    ck_assert_ptr_eq(l2_dir_find(&l2, &b, LINE_B), &dir[1]);
    ck_assert_ptr_eq(l2_dir_find(&l2, &b, LINE_A), &dir[0]);
    ck_assert_ptr_null(l2_dir_find(&l2, &b, LINE_C));
    l2_dir_put(&b, &dir[0], LINE_C); /* A's entry goes to C */
    ck_assert_ptr_eq(l2_dir_find(&l2, &b, LINE_B), &dir[1]);
    ck_assert_ptr_eq(l2_dir_find(&l2, &b, LINE_C), &dir[0]);
    ck_assert_ptr_null(l2_dir_find(&l2, &b, LINE_A));
    ck_assert_ptr_null(l2_dir_find(&l2, &b, LINE_A));
}
END_TEST

Suite *suite_coh_dir(void)
{
    Suite *s = suite_create("coh_dir");
    TCase *tc = tcase_create("lru");
    tcase_add_test(tc, test_directory_evicts_least_recently_used);
    tcase_add_test(tc, test_directory_index_hash_spreads_strides);
    tcase_add_test(tc, test_profile_directory_stream);
    tcase_add_test(tc, test_profile_measured_sets);
    tcase_add_test(tc, test_profile_late_lines);
    tcase_add_test(tc, test_directory_lookup_memo);
    suite_add_tcase(s, tc);
    return s;
}
