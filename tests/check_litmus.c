/* check_litmus.c - the litmus tests (sim/litmus.h) as a regression suite of
 * the coherence protocols: on every protocol, every test runs LITMUS_RUNS
 * times under random timing and must never show an outcome the protocol's
 * consistency model forbids, nor fail to finish; NO-COH must show the stale
 * message-passing outcome (so the checker can fail); a batch is a function
 * of its seed; the tables say what litmus.h says; and `cohmod litmus` writes
 * its columns and rejects bad input.  COHMOD_LITMUS_RUNS overrides the runs
 * per pair for a longer validation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/table.h"
#include "sim/litmus.h"
#include "tests/testutil.h"

/* Runs per (test, protocol): NO-COH shows the stale mp+fences read in
 * about a quarter of the runs, so 300 see it for sure; the suite takes
 * ~1.3 s here (~16 s under make check-asan).  No forbidden outcome showed in
 * 10,000 runs per pair at the default jitter, nor in 3,000 at jitters 150
 * to 5000, when this was written. */
#define LITMUS_RUNS 300
#define LITMUS_SEED 1

static uint64_t litmus_runs(void)
{
    const char *e = getenv("COHMOD_LITMUS_RUNS");
    long n = e ? atol(e) : 0;
    return n > 0 ? (uint64_t)n : LITMUS_RUNS;
}

START_TEST(test_litmus_tables)
{
    static const struct {
        const char *name;
        unsigned forbidden; /* none, rcpc, rcsc */
    } want[] = {
        {"mp", 0},         {"mp+fences", 6}, {"sb", 0},   {"sb+fences", 4},
        {"lb", 7},         {"iriw", 4},      {"corr", 6}, {"cowr", 6},
        {"coww", 6},       {"corw", 6},
    };
    size_t n = sizeof want / sizeof want[0];
    ck_assert_uint_eq(cm_litmus_test_count(), n);
    ck_assert_ptr_null(cm_litmus_test_at(n));
    ck_assert_ptr_null(cm_litmus_test_find("nosuch"));
    for (size_t i = 0; i < n; i++) {
        const cm_litmus_test *t = cm_litmus_test_find(want[i].name);
        ck_assert_ptr_nonnull(t);
        ck_assert_ptr_eq(t, cm_litmus_test_at(i));
        ck_assert_uint_eq(t->forbidden, want[i].forbidden);
        ck_assert(t->nthreads >= 1 && t->nthreads <= CM_LITMUS_MAX_THREADS);
        ck_assert(t->nvars >= 1 && t->nvars <= CM_LITMUS_MAX_VARS);
        /* every register is loaded exactly once, every variable exists */
        unsigned loaded[CM_LITMUS_MAX_REGS] = {0};
        for (unsigned th = 0; th < CM_LITMUS_MAX_THREADS; th++)
            for (unsigned k = 0; k < CM_LITMUS_MAX_OPS; k++) {
                const cm_litmus_op *op = &t->prog[th][k];
                if (!op->kind) continue;
                ck_assert_msg(th < t->nthreads, "%s: thread %u", t->name, th);
                if (op->kind == CM_LITMUS_FENCE) continue;
                ck_assert(op->var < t->nvars);
                if (op->kind == CM_LITMUS_LD) {
                    ck_assert(op->reg < t->nregs);
                    loaded[op->reg]++;
                }
            }
        for (unsigned r = 0; r < t->nregs; r++)
            ck_assert_msg(loaded[r] == 1, "%s: r%u", t->name, r);
        /* the all-initial outcome is weak only for the store-buffering
         * tests and cowr (its own store not seen) */
        cm_litmus_outcome zero = {{0}, {0}};
        int zweak = !strcmp(t->name, "sb") || !strcmp(t->name, "sb+fences") ||
                    !strcmp(t->name, "cowr");
        ck_assert_int_eq(!!t->weak(&zero), zweak);
    }
    /* the variables fall in different banks for any power-of-two count */
    ck_assert_uint_ne(CM_LITMUS_LINE(0) & 1, CM_LITMUS_LINE(1) & 1);
    ck_assert_uint_ne(cm_litmus_run_seed(1, 0), cm_litmus_run_seed(1, 1));
    ck_assert_uint_ne(cm_litmus_run_seed(1, 0), cm_litmus_run_seed(2, 0));
    ck_assert_uint_eq(cm_litmus_run_seed(5, 9), cm_litmus_run_seed(5, 9));
    char buf[128];
    const cm_litmus_test *mp = cm_litmus_test_find("mp");
    cm_litmus_outcome o = {{cm_litmus_store_value(0, 2), 0},
                           {cm_litmus_store_value(0, 1),
                            cm_litmus_store_value(0, 2)}};
    cm_litmus_outcome_format(mp, &o, buf, sizeof buf);
    ck_assert_str_eq(buf, "r0=0.2 r1=0 x=0.1 y=0.2");
    ck_assert(mp->weak(&o));
}
END_TEST

/* Loop index: a protocol.  Every test on it. */
START_TEST(test_litmus_protocol)
{
    const cm_protocol *p = cm_protocol_at((size_t)_i);
    ck_assert_ptr_nonnull(p);
    const char *pn = p->name;
    cm_params params;
    cm_params_init(&params);
    uint64_t runs = litmus_runs();
    for (size_t i = 0; i < cm_litmus_test_count(); i++) {
        const cm_litmus_test *t = cm_litmus_test_at(i);
        cm_litmus_result r;
        cm_err err = {0};
        cm_status st = cm_litmus_run(t, p, &params, runs, LITMUS_SEED,
                                     (uint32_t)params.litmus_jitter, &r, &err);
        ck_assert_msg(st == CM_OK, "%s on %s: %s", t->name, pn, err.msg);
        ck_assert_uint_eq(r.runs, runs);
        ck_assert_msg(r.unfinished == 0, "%s on %s: %llu unfinished runs",
                      t->name, pn, (unsigned long long)r.unfinished);
        ck_assert_msg(r.forbidden == 0,
                      "%s on %s (%s): forbidden outcome in %llu of %llu runs, "
                      "first run %llu, replay: cohmod litmus --test %s "
                      "--protocol %s --replay %llu",
                      t->name, pn, cm_litmus_model_name(r.model),
                      (unsigned long long)r.forbidden,
                      (unsigned long long)r.runs,
                      (unsigned long long)r.first_forbidden_run, t->name, pn,
                      (unsigned long long)r.first_forbidden_seed);
        if (!strcmp(pn, "no-coh") && !strcmp(t->name, "mp+fences"))
            ck_assert_msg(r.weak > 0, "NO-COH never showed the stale "
                          "mp+fences outcome in %llu runs",
                          (unsigned long long)runs);
        uint64_t sum = 0;
        for (size_t h = 0; h < r.nhist; h++) sum += r.hist[h].count;
        ck_assert_uint_eq(sum, r.runs - r.unfinished);
        cm_litmus_result_free(&r);
    }
}
END_TEST

static void expect_same(const cm_litmus_result *a, const cm_litmus_result *b)
{
    ck_assert_uint_eq(a->runs, b->runs);
    ck_assert_uint_eq(a->weak, b->weak);
    ck_assert_uint_eq(a->forbidden, b->forbidden);
    ck_assert_uint_eq(a->unfinished, b->unfinished);
    ck_assert_uint_eq(a->first_weak_seed, b->first_weak_seed);
    ck_assert_uint_eq(a->nhist, b->nhist);
    for (size_t h = 0; h < a->nhist; h++) {
        ck_assert_uint_eq(a->hist[h].count, b->hist[h].count);
        ck_assert(!memcmp(&a->hist[h].outcome, &b->hist[h].outcome,
                          sizeof a->hist[h].outcome));
    }
}

/* Same seed, same counts, whether the batch runs in one piece or two; a
 * recorded run seed replays its outcome. */
START_TEST(test_litmus_deterministic)
{
    const cm_protocol *p = cm_protocol_find("no-coh");
    const cm_litmus_test *t = cm_litmus_test_find("mp+fences");
    ck_assert_ptr_nonnull(p);
    cm_params params;
    cm_params_init(&params);
    uint32_t jit = (uint32_t)params.litmus_jitter;
    cm_err err = {0};
    cm_litmus_result a, b, c;
    ck_assert_int_eq(cm_litmus_run(t, p, &params, 60, 7, jit, &a, &err), CM_OK);
    ck_assert_int_eq(cm_litmus_run(t, p, &params, 60, 7, jit, &b, &err), CM_OK);
    expect_same(&a, &b);
    cm_litmus_result_init(&c, t, p);
    ck_assert_int_eq(cm_litmus_run_range(&c, &params, 0, 25, 7, jit, &err),
                     CM_OK);
    ck_assert_int_eq(cm_litmus_run_range(&c, &params, 25, 35, 7, jit, &err),
                     CM_OK);
    expect_same(&a, &c);
    if (a.weak) {
        cm_litmus_outcome o;
        int fin;
        ck_assert_int_eq(cm_litmus_run_once(t, p, &params, a.first_weak_seed,
                                            jit, &o, &fin, &err),
                         CM_OK);
        ck_assert(fin && t->weak(&o));
    }
    cm_litmus_result_free(&a);
    cm_litmus_result_free(&b);
    cm_litmus_result_free(&c);
}
END_TEST

START_TEST(test_cli_litmus)
{
    tu_run r = tu_cohmod("litmus --protocol all --test lb --runs 20 --quiet");
    ck_assert_msg(r.status == 0, "%s", r.err);
    cm_table *t = NULL;
    cm_err err = {0};
    ck_assert_int_eq(cm_table_read_buffer("l", r.out, strlen(r.out), &t, &err),
                     CM_OK);
    const char *cols[] = {"test",    "protocol", "model", "runs",
                          "forbidden", "weak",   "allowed_weak",
                          "first_forbidden_seed"};
    size_t col[8];
    for (size_t c = 0; c < 8; c++)
        ck_assert_int_eq(cm_table_col_require(t, cols[c], &col[c], &err),
                         CM_OK);
    ck_assert_uint_eq(cm_table_nrows(t), cm_protocol_count());
    for (size_t row = 0; row < cm_table_nrows(t); row++) {
        ck_assert_str_eq(cm_table_cell(t, row, col[0]), "lb");
        ck_assert_str_eq(cm_table_cell(t, row, col[1]),
                         cm_protocol_at(row)->name);
        ck_assert_str_eq(cm_table_cell(t, row, col[3]), "20");
        ck_assert_str_eq(cm_table_cell(t, row, col[4]), "0");
        ck_assert_str_eq(cm_table_cell(t, row, col[7]), "");
    }
    cm_table_free(t);
    tu_run_free(&r);

    /* a replay writes the outcome of one run */
    r = tu_cohmod("litmus --protocol no-coh --test mp --replay 12345");
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "test,protocol,model,seed,finished,"
                                        "weak,forbidden,outcome\n"
                                        "mp,no-coh,none,12345,1,"));
    tu_run_free(&r);

    struct { const char *args, *needle; } bad[] = {
        {"litmus --test nosuch", "--test 'nosuch'"},
        {"litmus --protocol nosuch", "--protocol 'nosuch'"},
        {"litmus --runs 0", "--runs"},
        {"litmus --runs x", "--runs"},
        {"litmus --test mp --replay 1", "--replay needs"},
        {"litmus --jitter -1", "litmus.jitter"},
        {"litmus extra", "unexpected argument"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        tu_expect_rejected(bad[i].args, bad[i].needle);
}
END_TEST

Suite *suite_litmus(void)
{
    Suite *s = suite_create("litmus");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_litmus_tables);
    tcase_add_loop_test(tc, test_litmus_protocol, 0,
                        (int)cm_protocol_count());
    tcase_add_test(tc, test_litmus_deterministic);
    suite_add_tcase(s, tc);
    TCase *cli = tcase_create("cli");
    tcase_set_timeout(cli, 120);
    tcase_add_test(cli, test_cli_litmus);
    suite_add_tcase(s, cli);
    return s;
}
