/* check_trace_source.c - trace mode's warp source (sim/trace_source.h) on
 * the hand-written traces of tests/data/simtrace: the instruction stream of
 * every warp slot worked out by hand from the trace lines (128-byte lines,
 * 2 SMs of 4 warp slots), the size limit, and whole-machine runs whose
 * instruction and L1 access counts are those hand counts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/gpu.h"
#include "sim/protocol.h"
#include "sim/trace_source.h"
#include "tests/testutil.h"

#define ACCEL "tests/data/simtrace/kernelslist.g"
#define CSV "tests/data/simtrace/hand.csv"

static void small_machine(cm_params *p)
{
    cm_params_init(p);
    p->gpu_sms = 2;
    p->gpu_warps_per_sm = 4;
    p->sched_active_warps = 4;
    p->l1_line = 128;
}

static cm_trace_source *load(const char *path)
{
    cm_params p;
    small_machine(&p);
    cm_trace_source_config c = {.path = path};
    cm_trace_source *ts = NULL;
    cm_err err = {0};
    ck_assert_msg(cm_trace_source_load(&p, &c, &ts, &err) == CM_OK, "%s",
                  err.msg);
    return ts;
}

/* One expected instruction: kind, n (compute count or lines), lines. */
typedef struct want {
    uint8_t kind;
    uint32_t n;
    uint64_t lines[2];
} want;

static void expect_warp(cm_trace_source *ts, uint32_t sm, uint32_t warp,
                        const want *w, size_t nw)
{
    cm_warp_source src = cm_trace_source_warps(ts);
    cm_err err = {0};
    for (size_t i = 0; i <= nw; i++) {
        cm_inst in;
        ck_assert_int_eq(src.next(src.obj, sm, warp, &in, &err), CM_OK);
        uint8_t kind = i < nw ? w[i].kind : CM_INST_END;
        ck_assert_msg(in.kind == kind, "sm%u w%u inst %zu: kind %u, want %u",
                      sm, warp, i, in.kind, kind);
        if (i == nw) break;
        ck_assert_uint_eq(in.n, w[i].n);
        for (uint32_t k = 0; kind != CM_INST_COMPUTE && k < in.n; k++)
            ck_assert_uint_eq(in.addrs[k], w[i].lines[k]);
    }
}

static void expect_counts(const cm_trace_source *ts,
                          cm_trace_source_counts want)
{
    cm_trace_source_counts c;
    cm_trace_source_get_counts(ts, &c);
    ck_assert_uint_eq(c.records, want.records);
    ck_assert_uint_eq(c.mem_insts, want.mem_insts);
    ck_assert_uint_eq(c.requests, want.requests);
    ck_assert_uint_eq(c.compute, want.compute);
    ck_assert_uint_eq(c.warps, want.warps);
    ck_assert_uint_eq(c.kernels, want.kernels);
}

START_TEST(test_accel_mapping_and_gaps)
{
    cm_trace_source *ts = load(ACCEL);
    expect_counts(ts, (cm_trace_source_counts){.records = 9, .mem_insts = 7,
                                               .requests = 9, .compute = 4,
                                               .warps = 4, .kernels = 2});
    /* Block 0 warp 0: IMAD, LDG of 32 x 4 B at 0x10000 (line 0x200), FADD,
     * STG stride 8 from 0x20000 (lines 0x400, 0x401); kernel 2's only warp
     * takes the same slot after a KERNEL. */
    const want w0[] = {{CM_INST_COMPUTE, 1, {0}},
                       {CM_INST_LOAD, 1, {0x200}},
                       {CM_INST_COMPUTE, 1, {0}},
                       {CM_INST_STORE, 2, {0x400, 0x401}},
                       {CM_INST_KERNEL, 0, {0}},
                       {CM_INST_LOAD, 1, {0x200}}};
    expect_warp(ts, 0, 0, w0, 6);
    /* Block 0 warp 1: the shared LDS between its loads is compute. */
    const want w1[] = {{CM_INST_LOAD, 1, {0x201}},
                       {CM_INST_COMPUTE, 1, {0}},
                       {CM_INST_LOAD, 1, {0x200}}};
    expect_warp(ts, 0, 1, w1, 3);
    /* Block 2 goes round-robin back to SM 0, after block 0's two warps. */
    const want w2[] = {{CM_INST_COMPUTE, 1, {0}},
                       {CM_INST_LOAD, 2, {0x800, 0x802}}};
    expect_warp(ts, 0, 2, w2, 2);
    expect_warp(ts, 0, 3, NULL, 0);
    const want b1[] = {{CM_INST_ATOMIC, 1, {0x600}}};
    expect_warp(ts, 1, 0, b1, 1);
    expect_warp(ts, 1, 1, NULL, 0); /* block 1 warp 1 has no instruction */
    /* A rewound source replays from the start. */
    cm_trace_source_rewind(ts);
    expect_warp(ts, 1, 0, b1, 1);
    cm_trace_source_free(ts);
}
END_TEST

START_TEST(test_csv_grouping)
{
    cm_trace_source *ts = load(CSV);
    expect_counts(ts, (cm_trace_source_counts){.records = 7, .mem_insts = 6,
                                               .requests = 8, .compute = 0,
                                               .warps = 4, .kernels = 1});
    /* Three loads of cycle 10: one instruction, lines 0x20 and 0x21. */
    const want w0[] = {{CM_INST_LOAD, 2, {0x20, 0x21}}};
    expect_warp(ts, 0, 0, w0, 1);
    const want w1[] = {{CM_INST_STORE, 1, {0x40}}, {CM_INST_LOAD, 1, {0x20}}};
    expect_warp(ts, 0, 1, w1, 2);
    /* modify: a load, then a store; sm 3 folds onto SM 1, and 4 bytes at
     * 0x10fe straddle lines 0x21 and 0x22. */
    const want s1w0[] = {{CM_INST_LOAD, 1, {0x60}}, {CM_INST_STORE, 1, {0x60}}};
    expect_warp(ts, 1, 0, s1w0, 2);
    const want s1w2[] = {{CM_INST_LOAD, 2, {0x21, 0x22}}};
    expect_warp(ts, 1, 2, s1w2, 1);
    cm_trace_source_free(ts);
}
END_TEST

START_TEST(test_size_limit_refused)
{
    cm_params p;
    small_machine(&p);
    cm_trace_source_config c = {.path = ACCEL, .max_words = 10};
    cm_trace_source *ts = NULL;
    cm_err err = {0};
    ck_assert_int_eq(cm_trace_source_load(&p, &c, &ts, &err), CM_EINPUT);
    ck_assert_ptr_null(ts);
    ck_assert_ptr_nonnull(strstr(err.msg, "more than 10"));
    /* 7 instruction headers + 9 lines + 1 KERNEL: 17 words, exactly. */
    c.max_words = 17;
    ck_assert_int_eq(cm_trace_source_load(&p, &c, &ts, &err), CM_OK);
    cm_trace_source_free(ts);
    c.max_words = 16;
    ck_assert_int_eq(cm_trace_source_load(&p, &c, &ts, &err), CM_EINPUT);
    ck_assert_ptr_null(ts);
}
END_TEST

START_TEST(test_malformed_trace_has_position)
{
    char *dir = tu_tmpdir();
    char *bad = tu_write_file(dir, "bad.csv",
                              "op,addr,size,sm,warp\nload,0x10,4,0,0\n"
                              "load,0x20,4,zero,0\n");
    cm_params p;
    small_machine(&p);
    cm_trace_source_config c = {.path = bad};
    cm_trace_source *ts = NULL;
    cm_err err = {0};
    ck_assert_int_eq(cm_trace_source_load(&p, &c, &ts, &err), CM_EINPUT);
    ck_assert_ptr_null(ts);
    char want[4200];
    snprintf(want, sizeof want, "%s:3:13:", bad);
    ck_assert_msg(!strncmp(err.msg, want, strlen(want)), "%s", err.msg);
    free(bad);
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

/* The whole machine on the traces: every instruction issued, every L1
 * access made, every request answered (cm_gpu_run checks conservation and
 * fails otherwise). */
static void run_machine(const char *path, const char *proto, uint64_t insts,
                        double accesses, double misses)
{
    cm_params p;
    small_machine(&p);
    cm_trace_source *ts = load(path);
    cm_stats *stats = cm_stats_new();
    ck_assert_ptr_nonnull(stats);
    cm_gpu_run_config cfg = {.params = &p,
                             .protocol = cm_protocol_find(proto),
                             .source = cm_trace_source_warps(ts)};
    cm_gpu_result res;
    cm_err err = {0};
    ck_assert_msg(cm_gpu_run(&cfg, stats, &res, &err) == CM_OK, "%s",
                  err.msg);
    ck_assert(res.finished);
    ck_assert_uint_eq(res.instructions, insts);
    cm_stat_row *rows = NULL;
    size_t n = 0;
    ck_assert_int_eq(cm_stats_rows(stats, &rows, &n, &err), CM_OK);
    const cm_stat_row *a = cm_stats_find(rows, n, "l1.accesses", "all");
    const cm_stat_row *m = cm_stats_find(rows, n, "l1.misses", "all");
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(m);
    ck_assert_double_eq(a->value, accesses);
    ck_assert_double_eq(m->value, misses);
    free(rows);
    cm_stats_free(stats);
    cm_trace_source_free(ts);
}

START_TEST(test_machine_runs_traces)
{
    /* 7 memory + 4 compute instructions, 9 lines.  NO-COH misses all but
     * kernel 2's reload of line 0x200, which is still valid (block 0 warp
     * 1's reload of it joins warp 0's fill in flight: a merge, a miss); WT
     * invalidates at the kernel boundary, so that one misses too. */
    run_machine(ACCEL, "no-coh", 11, 9, 8);
    run_machine(ACCEL, "wt", 11, 9, 9);
    /* 6 memory instructions, 8 lines, nothing re-used after its fill. */
    run_machine(CSV, "no-coh", 6, 8, 8);
}
END_TEST

Suite *suite_trace_source(void)
{
    Suite *s = suite_create("trace_source");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_accel_mapping_and_gaps);
    tcase_add_test(tc, test_csv_grouping);
    tcase_add_test(tc, test_size_limit_refused);
    tcase_add_test(tc, test_malformed_trace_has_position);
    tcase_add_test(tc, test_machine_runs_traces);
    suite_add_tcase(s, tc);
    return s;
}
