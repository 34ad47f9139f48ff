/* check_coh_dir.c - the GPU-VIni directory of the coherence simulator on a
 * hand-checked scenario: one warp, a 4-line L1, one L2 bank and a directory
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
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/coh.h"
#include "tests/testutil.h"

enum { LINE_A = 10, LINE_B = 11, LINE_C = 12 };

typedef struct script {
    uint32_t pc;
    uint64_t addr;
} script;

static cm_status script_next(void *obj, uint32_t sm, uint32_t warp,
                             cm_inst *inst, cm_err *err)
{
    (void)sm;
    (void)warp;
    (void)err;
    static const struct {
        uint8_t kind;
        uint64_t line;
    } prog[] = {{CM_INST_LOAD, LINE_A},  {CM_INST_LOAD, LINE_B},
                {CM_INST_STORE, LINE_A}, {CM_INST_FENCE, 0},
                {CM_INST_LOAD, LINE_C},  {CM_INST_COMPUTE, 0},
                {CM_INST_LOAD, LINE_A},  {CM_INST_END, 0}};
    script *s = obj;
    size_t n = sizeof prog / sizeof *prog;
    size_t pc = s->pc < n ? s->pc++ : n - 1;
    memset(inst, 0, sizeof *inst);
    inst->kind = prog[pc].kind;
    if (inst->kind == CM_INST_COMPUTE) inst->n = 2000; /* recall settles */
    if (inst->kind == CM_INST_LOAD || inst->kind == CM_INST_STORE) {
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

static double stat_of(const cm_stat_row *rows, size_t n, const char *metric)
{
    const cm_stat_row *r = cm_stats_find(rows, n, metric, "all");
    ck_assert_msg(r != NULL, "no statistic %s", metric);
    return r->value;
}

START_TEST(test_directory_evicts_least_recently_used)
{
    cm_params prm;
    cm_params_init(&prm);
    set_param(&prm, "l1.line", "128");
    set_param(&prm, "l1.size", "512");
    set_param(&prm, "l1.ways", "4");
    set_param(&prm, "l2.banks", "1");
    set_param(&prm, "dir.ratio", "0.5");
    set_param(&prm, "dir.ways", "2");
    const cm_coh_protocol *proto = cm_coh_protocol_find("gpu-vini");
    ck_assert_ptr_nonnull(proto);
    script s = {0};
    cm_stats *stats = cm_stats_new();
    ck_assert_ptr_nonnull(stats);
    cm_coh_config cfg = {.proto = proto, .params = &prm, .cores = 1,
                         .warps = 1, .src = {script_next, &s},
                         .stats = stats};
    cm_coh *c = NULL;
    cm_err err = {0};
    ck_assert_int_eq(cm_coh_new(&cfg, &c, &err), CM_OK);
    cm_coh_result res;
    ck_assert_msg(cm_coh_run(c, 1000000, &res, &err) == CM_OK, "%s",
                  err.msg);
    ck_assert(res.finished);
    cm_stat_row *rows = NULL;
    size_t n = 0;
    ck_assert_int_eq(cm_stats_rows(stats, &rows, &n, &err), CM_OK);
    ck_assert_double_eq(stat_of(rows, n, "dir.recalls"), 1);
    ck_assert_double_eq(stat_of(rows, n, "l1.misses"), 4);
    free(rows);
    cm_coh_free(c);
    cm_stats_free(stats);
}
END_TEST

Suite *suite_coh_dir(void)
{
    Suite *s = suite_create("coh_dir");
    TCase *tc = tcase_create("lru");
    tcase_add_test(tc, test_directory_evicts_least_recently_used);
    suite_add_tcase(s, tc);
    return s;
}
