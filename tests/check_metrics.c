/* check_metrics.c - the statistics registry (data/metrics.def): every
 * entry is complete, derived rows map to their entry, every statistic a
 * run writes under any protocol or sampling mode is in the table, every
 * entry shows up in some run, and the shared quantities carry one name
 * under every protocol. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/columns.h"
#include "data/metrics.h"
#include "sim/gpu.h"
#include "sim/protocol.h"
#include "tests/testutil.h"

START_TEST(test_entries_complete)
{
    ck_assert_uint_gt(cm_metric_count(), 40);
    for (size_t i = 0; i < cm_metric_count(); i++) {
        const cm_metric *m = cm_metric_at(i);
        /* a result column of text (a protocol's name) has no unit */
        ck_assert_msg(*m->name && (*m->unit || m->kind == CM_METRIC_RESULT) &&
                          *m->label && *m->help,
                      "%s: empty field", m->name);
        for (size_t j = 0; j < i; j++)
            ck_assert_msg(strcmp(cm_metric_at(j)->name, m->name),
                          "%s twice", m->name);
    }
    ck_assert_ptr_null(cm_metric_at(cm_metric_count()));
}
END_TEST

START_TEST(test_rows_map_to_entries)
{
    static const struct {
        const char *row, *entry;
    } map[] = {{"ipc", "ipc"},
               {"l1.mshr.occupancy_mean", "l1.mshr.occupancy"},
               {"l1.mshr.occupancy.frac_at_0", "l1.mshr.occupancy"},
               {"l1.mshr.occupancy.frac_at_128_or_more", "l1.mshr.occupancy"},
               {"l1.mshr.full_fraction", "l1.mshr.full_fraction"},
               {"roundtrip.latency.frac_in_256_512", "roundtrip.latency"},
               {"roundtrip.latency.frac_from_4194304", "roundtrip.latency"},
               {"roundtrip.latency_stddev", "roundtrip.latency"},
               {"noc.msgs.gets", "noc.msgs.<msg>"},
               {"noc.msgs", "noc.msgs"},
               {"noc.req.latency_mean", "noc.req.latency"},
               {"tc.lifetime_mean", "tc.lifetime"},
               {"sm.issue.stall.mem_wait", "sm.issue.stall.<reason>"}};
    for (size_t i = 0; i < sizeof map / sizeof *map; i++) {
        const cm_metric *m = cm_metric_of_row(map[i].row);
        ck_assert_msg(m && !strcmp(m->name, map[i].entry), "%s -> %s",
                      map[i].row, m ? m->name : "nothing");
    }
    static const char *const none[] = {
        "foo",           "noc.msgs.gets.x",  "l1.mshr.occupancy.frac_at_x",
        "ipc_mean",      "noc.msgs.",        "tc.lifetime",
        "l1.accesses_mean", "roundtrip.latency.frac_in_4",
        "l1.mshr.occupancy.frac_at_1.5"};
    for (size_t i = 0; i < sizeof none / sizeof *none; i++)
        ck_assert_msg(!cm_metric_of_row(none[i]), "%s matched", none[i]);
    ck_assert_ptr_nonnull(cm_metric_find("noc.flits.data", CM_METRIC_COUNTER));
    ck_assert_ptr_null(cm_metric_find("noc.flits.data", CM_METRIC_RATIO));
}
END_TEST

/* The rows of a short bh run of protocol p (sampling mode sample); their
 * components live in *stats. */
static cm_stat_row *run_rows(const char *p, int sample, size_t *n,
                             cm_stats **stats_out)
{
    cm_params par;
    cm_params_init(&par);
    par.gpu_sms = 4;
    par.gpu_warps_per_sm = 8;
    par.sched_active_warps = 8;
    par.sim_max_cycles = sample ? 60000 : 4000;
    par.sim_sample = sample;
    par.sim_sample_window = 2000;
    par.sim_sample_warmup = 2000;
    par.sim_sample_period = 20000;
    par.sim_sample_sms = 2;
    cm_stats *stats = cm_stats_new();
    cm_gpu_run_config cfg = {.params = &par,
                             .workload = cm_workload_builtin("bh"),
                             .protocol = cm_protocol_find(p)};
    cm_gpu_result res;
    cm_err err = {0};
    ck_assert_msg(cm_gpu_run(&cfg, stats, &res, &err) == CM_OK,
                  "%s, sim.sample %d: %s", p, sample, err.msg);
    cm_stat_row *rows;
    ck_assert(cm_stats_rows(stats, &rows, n, &err) == CM_OK);
    *stats_out = stats;
    return rows;
}

static int has_row(const cm_stat_row *r, size_t n, const char *metric)
{
    return cm_stats_find(r, n, metric, "all") != NULL;
}

START_TEST(test_every_row_registered_every_entry_used)
{
    int *used = calloc(cm_metric_count(), sizeof *used);
    for (size_t i = 0; i < cm_protocol_count(); i++)
        for (int sample = 0; sample <= 3; sample++) {
            const cm_protocol *p = cm_protocol_at(i);
            size_t n;
            cm_stats *stats;
            cm_stat_row *r = run_rows(p->name, sample, &n, &stats);
            for (size_t k = 0; k < n; k++) {
                const cm_metric *m = cm_metric_of_row(r[k].metric);
                ck_assert_msg(m != NULL, "%s: row %s not in metrics.def",
                              p->name, r[k].metric);
                ck_assert_msg(m->kind != CM_METRIC_RESULT,
                              "%s: row %s taken for a result column",
                              p->name, r[k].metric);
                used[m - cm_metric_at(0)] = 1;
            }
            /* one name per quantity under every protocol */
            static const char *const shared[] = {
                "ipc", "l1.miss_ratio", "l1.mshr.occupancy_mean",
                "noc.flits", "l2.miss_ratio", "roundtrip.latency_mean"};
            for (size_t k = 0; k < sizeof shared / sizeof *shared; k++)
                ck_assert_msg(has_row(r, n, shared[k]), "%s: no %s", p->name,
                              shared[k]);
            ck_assert_int_eq(has_row(r, n, "dir.invalidations"),
                             p->sharers != CM_SHARERS_NONE);
            ck_assert_int_eq(has_row(r, n, "tc.lifetime_mean"),
                             p->lifetime != CM_LIFE_NONE);
            free(r);
            cm_stats_free(stats);
        }
    for (size_t i = 0; i < cm_metric_count(); i++)
        ck_assert_msg(used[i] || cm_metric_at(i)->kind == CM_METRIC_RESULT,
                      "%s: no run writes it", cm_metric_at(i)->name);
    free(used);
}
END_TEST

/* The sum of metric over the components whose name starts with prefix. */
static double sum_over(const cm_stat_row *r, size_t n, const char *metric,
                       const char *prefix, double *most)
{
    double s = 0;
    *most = 0;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(r[i].metric, metric) &&
            !strncmp(r[i].component, prefix, strlen(prefix))) {
            s += r[i].value;
            if (r[i].value > *most) *most = r[i].value;
        }
    return s;
}

/* The machine's totals add up from its components, at a budget of one
 * cycle and at a normal one: instructions, L1 and L2 accesses, messages
 * and flits by type; the machine's IPC is its instructions over its
 * cycles, and no SM ran more cycles than the machine.  Bug: at
 * sim.max_cycles=1 the machine read IPC 29 over 1 cycle while each SM
 * read 1 (they had run cycles 0 and 1: the budget's last cycle ran). */
START_TEST(test_totals_add_up)
{
    static const struct {
        const char *metric, *prefix;
    } sums[] = {{"sm.instructions", "sm"}, {"l1.accesses", "sm"},
                {"l1.misses", "sm"},       {"l2.accesses", "bank"},
                {"dram.reads", "ch"}};
    const double budgets[2] = {1, 100000};
    for (int b = 0; b < 2; b++) {
        cm_params p;
        cm_params_init(&p);
        p.sim_max_cycles = budgets[b];
        cm_stats *stats = cm_stats_new();
        cm_gpu_run_config cfg = {.params = &p,
                                 .workload = cm_workload_builtin("kmn"),
                                 .protocol = cm_protocol_find("mesi")};
        cm_gpu_result res;
        cm_err err = {0};
        ck_assert_msg(cm_gpu_run(&cfg, stats, &res, &err) == CM_OK, "%s",
                      err.msg);
        cm_stat_row *r;
        size_t n;
        ck_assert(cm_stats_rows(stats, &r, &n, &err) == CM_OK);
        double most;
        for (size_t k = 0; k < sizeof sums / sizeof *sums; k++)
            ck_assert_msg(sum_over(r, n, sums[k].metric, sums[k].prefix,
                                   &most) ==
                              cm_stats_find(r, n, sums[k].metric, "all")->value,
                          "budget %g: %s", budgets[b], sums[k].metric);
        double inst = cm_stats_find(r, n, "gpu.instructions", "all")->value;
        double cyc = cm_stats_find(r, n, "gpu.cycles", "all")->value;
        ck_assert(inst == sum_over(r, n, "sm.instructions", "sm", &most));
        ck_assert(cyc == budgets[b]);
        ck_assert(cm_stats_find(r, n, "ipc", "all")->value == inst / cyc);
        sum_over(r, n, "sm.cycles", "sm", &most);
        ck_assert_msg(most <= cyc, "an SM ran %g of %g cycles", most, cyc);
        /* messages and flits by type sum to their totals */
        const char *tot[2] = {"noc.msgs", "noc.flits"};
        for (int t = 0; t < 2; t++) {
            double by = 0;
            size_t len = strlen(tot[t]);
            for (size_t i = 0; i < n; i++)
                if (!strncmp(r[i].metric, tot[t], len) &&
                    r[i].metric[len] == '.' && !strcmp(r[i].component, "all"))
                    by += r[i].value;
            ck_assert(by == cm_stats_find(r, n, tot[t], "all")->value);
        }
        free(r);
        cm_stats_free(stats);
    }
}
END_TEST

/* Little's law on the L2 queues and MSHRs of every bank, under every
 * protocol: the time-average number held is the arrival rate times the
 * mean time held (a run to its end: nothing still held).  Within 2%.
 * Bug: the queue's occupancy counted a request leaving the input pipeline
 * only at the bank's next kick (late while it was busy serving), and the
 * waiters a fill put back at the head not at all until then, so no-l1's
 * bank 0 held 0.220 against 0.250 by Little (13% low). */
START_TEST(test_littles_law_every_protocol)
{
    cm_workload_profile w = *cm_workload_builtin("bh");
    w.kernels = 2;
    w.kernel_len = 60;
    for (size_t k = 0; k < cm_protocol_count(); k++) {
        cm_params p;
        cm_params_init(&p);
        p.gpu_sms = 4;
        p.gpu_warps_per_sm = 8;
        p.sched_active_warps = 8;
        p.l2_banks = 2;
        cm_stats *stats = cm_stats_new();
        cm_gpu_run_config cfg = {.params = &p,
                                 .workload = &w,
                                 .protocol = cm_protocol_at(k)};
        cm_gpu_result res;
        cm_err err = {0};
        ck_assert_msg(cm_gpu_run(&cfg, stats, &res, &err) == CM_OK, "%s: %s",
                      cm_protocol_at(k)->name, err.msg);
        ck_assert(res.finished);
        cm_stat_row *r;
        size_t n;
        ck_assert(cm_stats_rows(stats, &r, &n, &err) == CM_OK);
        double T = cm_stats_find(r, n, "gpu.cycles", "all")->value;
        static const char *const q[2][3] = {
            {"l2.queue.occupancy_mean", "l2.queue.wait_count",
             "l2.queue.wait_mean"},
            {"l2.mshr.occupancy_mean", "l2.mshr.lifetime_count",
             "l2.mshr.lifetime_mean"}};
        for (int b = 0; b < 2; b++) {
            char comp[16];
            snprintf(comp, sizeof comp, "bank%d", b);
            for (int j = 0; j < 2; j++) {
                double L = cm_stats_find(r, n, q[j][0], comp)->value;
                double lw = cm_stats_find(r, n, q[j][1], comp)->value *
                            cm_stats_find(r, n, q[j][2], comp)->value / T;
                ck_assert_msg(L > 0 && fabs(L - lw) <= 0.02 * L,
                              "%s %s %s: %g held, %g by Little", 
                              cm_protocol_at(k)->name, comp, q[j][0], L, lw);
            }
        }
        free(r);
        cm_stats_free(stats);
    }
}
END_TEST

/* A legend entry reads a value with its unit, bytes in KB or MB where
 * they are whole ones (issue 24: "16384 B" in the reuse validation). */
START_TEST(test_column_values_read_as_text)
{
    static const char *const cases[][3] = {
        {"l1.size", "16384", "16 KB"},
        {"l1.size", "1048576", "1 MB"},
        {"l1.size", "1000", "1000 B"},
        {"capacity_bytes", "512", "512 B"},
        {"wl.mem_rate", "0.1", "0.1 inst/inst"},
        {"l1.mshrs", "32", "32 entries"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char buf[64];
        cm_column_value(cases[i][0], cases[i][1], buf, sizeof buf);
        ck_assert_str_eq(buf, cases[i][2]);
    }
}
END_TEST

Suite *suite_metrics(void)
{
    Suite *s = suite_create("metrics");
    TCase *tc = tcase_create("registry");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_entries_complete);
    tcase_add_test(tc, test_rows_map_to_entries);
    tcase_add_test(tc, test_every_row_registered_every_entry_used);
    tcase_add_test(tc, test_totals_add_up);
    tcase_add_test(tc, test_littles_law_every_protocol);
    tcase_add_test(tc, test_column_values_read_as_text);
    suite_add_tcase(s, tc);
    return s;
}
