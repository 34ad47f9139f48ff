/* profile_table.c - the profile recorder's output (profile_rec_impl.h):
 * after the run, its records as the profile's rows quantity,lo,hi,value
 * (models/profile.h): the rates, the histograms, the joint cells and the
 * GPU-VIni directory's index rows. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/l2.h"
#include "sim/profile_rec_impl.h"

/* in the order of the H_ enum (profile_rec_impl.h) */
static const char *const hist_names[H_COUNT] = {
    "l1.reuse_time",         "l1.residency",
    "l2.read_to_write",      "l2.read_to_write_shared",
    "l2.load_gap",           "l2.evict_age",
    "warp.store_to_fence",   "warp.fence_lease_slack",
    "warp.fence_ack_wait",   "dir.stack_distance",
    "l1.load_gap",           "l1.load_distance",
    "l1.store_gap",          "l1.last_use",
    "dir.alloc_distance",    "dir.empty_distance",
    "dir.empty_gap",         "l1.lease_delay",
    "l2.read_to_write_own",  "l2.read_to_write_own_shared",
    "l2.read_to_write_other", "l2.read_to_write_other_shared",
    "l2.read_to_write_own_next", "l2.read_to_write_own_next_shared"};

void profile_table_row(profile_rows *o, const char *q, double lo, double hi,
                       double v, int rate)
{
    if (o->st) return;
    char a[32], b[32], c[32];
    cm_fmt_double(a, lo);
    cm_fmt_double(b, hi);
    cm_fmt_double(c, v);
    const char *cells[4] = {q, rate ? "" : a, rate ? "" : b, c};
    o->st = cm_table_append(o->t, cells, o->err);
}

static double stat_value(const cm_stat_row *rs, size_t n, const char *metric,
                         const char *comp)
{
    const cm_stat_row *x = cm_stats_find(rs, n, metric, comp);
    return x && isfinite(x->value) ? x->value : 0;
}

static void dist_rows(cm_profile_rec *r, profile_rows *o)
{
    for (int k = 0; k < H_COUNT; k++) {
        const hist *h = &r->h[k];
        for (int i = 0; i < HBINS; i++)
            if (h->bin[i] > 0)
                profile_table_row(o, hist_names[k], hist_edge(i),
                                  hist_edge(i + 1), h->bin[i], 0);
        if (h->inf > 0)
            profile_table_row(o, hist_names[k], INFINITY, INFINITY, h->inf, 0);
    }
    static const char *const joint_names[JOINT_COUNT] = {
        "joint.l2.behind_parts", "joint.l2.behind_parts_shared",
        "joint.warp.fence_ack_slack"};
    for (int k = 0; k < JOINT_COUNT; k++)
        for (int i = 0; i < HBINS; i++)
            for (int j = 0; j < HBINS; j++) {
                const double *cell = r->joint[k][i][j];
                if (cell[0] > 0)
                    profile_table_row(o, joint_names[k], cell[1] / cell[0],
                                      cell[2] / cell[0], cell[0], 0);
            }
    struct {
        const char *name;
        const double *w;
        int n;
    } counts[] = {{"dir.sharers", r->sharers_hist, 65},
                  {"l1.load_flags", r->load_flags, HF_COUNT},
                  {"l1.store_flags", r->store_flags, SF_COUNT},
                  {"l1.write_sharers", r->write_sharers, 65}};
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++)
        for (int i = 0; i < counts[k].n; i++)
            if (counts[k].w[i] > 0)
                profile_table_row(o, counts[k].name, i, i + 1, counts[k].w[i],
                                  0);
}

/* GPU-VIni: how the lines the run loaded (the directory's entries) spread
 * over the sets of a directory of any size, under its own index
 * (cm_l2_dir_fold).  For every number of index bits b from 0 to a few past
 * the lines per bank, the (bank, index) pairs by the lines they hold: the
 * point (b, n) weighs the pairs holding n lines (n = 0 too).  The model
 * reduces an index modulo the sets as the directory does.  Stops at 2^22
 * counters.  And how the pairs fill as the run goes on: at width b,
 * joint.dir.index_late_<b> has per number n of lines a pair holds (x) the
 * mean of them first loaded in the run's last quarter of GETS (y),
 * weight the pairs (n >= 1): a longer or shorter run of the same program
 * adds or drops lines at that rate (models/recall_geom.c, "The run's length"). */
static void index_rows(cm_profile_rec *r, profile_rows *o)
{
    if (!r->asd || !r->an || o->st) return;
    size_t per_bank = (r->an + r->banks - 1) / r->banks;
    unsigned top = 0;
    while (top < 40 && ((size_t)1 << top) < per_bank) top++;
    top += 3;
    while (top > 0 && ((size_t)r->banks << top) > ((size_t)1 << 22)) top--;
    uint32_t *cnt = malloc(((size_t)r->banks << top) * sizeof *cnt);
    uint32_t *late = malloc(((size_t)r->banks << top) * sizeof *late);
    double *hist = NULL, *hlate = NULL;
    size_t hcap = 0;
    uint64_t last_quarter = (uint64_t)(r->n_l2_loads * 3 / 4);
    if (!cnt || !late) {
        free(cnt);
        free(late);
        r->oom = 1;
        return;
    }
    for (unsigned b = 0; b <= top && !o->st; b++) {
        size_t n = (size_t)r->banks << b, most = 0;
        uint64_t mask = ((uint64_t)1 << b) - 1;
        memset(cnt, 0, n * sizeof *cnt);
        memset(late, 0, n * sizeof *late);
        for (size_t i = 0; i <= r->amap.mask; i++) {
            const cm_linemap_entry *e = &r->amap.e[i];
            if (e->val == CM_LINEMAP_EMPTY) continue;
            uint64_t idx = cm_l2_dir_fold(e->key, r->banks, b, r->dir_hash);
            size_t k = (size_t)(e->key % r->banks) << b | (size_t)(idx & mask);
            if (++cnt[k] > most) most = cnt[k];
            if (r->arec[e->val].first_load >= last_quarter) late[k]++;
        }
        if (most + 1 > hcap) {
            double *nh = realloc(hist, (most + 1) * sizeof *nh);
            double *nl = nh ? realloc(hlate, (most + 1) * sizeof *nl) : NULL;
            if (nh) hist = nh;
            if (nl) hlate = nl;
            if (!nh || !nl) {
                r->oom = 1;
                break;
            }
            hcap = most + 1;
        }
        memset(hist, 0, (most + 1) * sizeof *hist);
        memset(hlate, 0, (most + 1) * sizeof *hlate);
        for (size_t k = 0; k < n; k++) {
            hist[cnt[k]] += 1;
            hlate[cnt[k]] += late[k];
        }
        for (size_t v = 0; v <= most; v++)
            if (hist[v] > 0)
                profile_table_row(o, "joint.dir.index_lines", b, v, hist[v], 0);
        char name[48];
        snprintf(name, sizeof name, "joint.dir.index_late_%u", b);
        for (size_t v = 1; v <= most && !o->st; v++)
            if (hist[v] > 0)
                profile_table_row(o, name, v, hlate[v] / hist[v], hist[v], 0);
    }
    free(hist);
    free(hlate);
    free(late);
    free(cnt);
    profile_dirsets_rows(r, o);
}

cm_status cm_profile_rec_table(cm_profile_rec *r, const cm_stats *stats,
                               uint64_t cycles, cm_table **out, cm_err *err)
{
    static const char *const cols[4] = {"quantity", "lo", "hi", "value"};
    *out = NULL;
    if (r->oom)
        return cm_err_set(err, CM_EINTERNAL, "out of memory for the profile");
    cm_stat_row *rs = NULL;
    size_t nrs = 0;
    cm_status st = cm_stats_rows(stats, &rs, &nrs, err);
    if (st) return st;
    profile_rows o = {cm_table_new(4, cols), CM_OK, err};
    if (!o.t) {
        free(rs);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    profile_rec_close_copies(r, cycles);
    double t = cycles ? (double)cycles : 1, occ = 0;
    for (uint32_t b = 0; b < r->banks; b++) {
        char comp[32];
        snprintf(comp, sizeof comp, "bank%u", b);
        occ += stat_value(rs, nrs, "l2.mshr.occupancy_mean", comp);
    }
    double hol = stat_value(rs, nrs, "l2.hol_stall_cycles", "all");
    free(rs);
    struct {
        const char *name;
        double v;
    } rates[] = {
        {"rate.l1_fills", r->n_fills / t},
        {"rate.l1_loads", r->n_loads / t},
        {"rate.l1_stores", r->n_stores / t},
        {"rate.l1_atomics", r->n_atomics / t},
        {"rate.l2_loads", r->n_l2_loads / t},
        {"rate.l2_loads_unleased", r->n_l2_unleased / t},
        {"rate.l2_stores", r->n_l2_stores / t},
        {"rate.l2_evictions", r->n_l2_evict / t},
        {"rate.fences", r->n_fences / t},
        {"rate.dir_accesses", r->n_dir / t},
        {"rate.l2_banks", r->banks},
        {"rate.store_ack_latency", r->ack_n ? r->ack_sum / r->ack_n : 0},
        {"rate.fill_latency", r->fill_n ? r->fill_sum / r->fill_n : 0},
        {"rate.request_flight", r->flight_n ? r->flight_sum / r->flight_n : 0},
        {"rate.dir_footprint", (double)cm_stackdist_lines(r->sd)},
        {"rate.l1_lines", r->l1_lines},
        {"rate.l2_reply_busy", r->reply_busy / (r->banks * t)},
        {"rate.l2_mshr_occupancy", occ / r->banks},
        /* the lifetime the run held fixed: what models/lifetime.c carries
         * the profile from */
        {"rate.lifetime", (double)r->fixed_lifetime},
        /* bank-cycles with nothing the bank may serve per store stall
         * cycle: 1 at an in-order bank, whose stalled store blocks it;
         * less when it serves around the stalled stores (TCSOO) */
        {"rate.l2_hol_per_stall", r->sstall_sum > 0 ? hol / r->sstall_sum : 0},
        /* stores held by a lease per store, and their mean wait after it
         * passed (0 without such stores) */
        {"rate.l2_stall_share",
         r->n_l2_stores > 0 ? r->n_held / r->n_l2_stores : 0},
        {"rate.l2_post_wait", r->n_held > 0 ? r->post_sum / r->n_held : 0},
    };
    for (size_t i = 0; i < sizeof rates / sizeof *rates; i++)
        profile_table_row(&o, rates[i].name, 0, 0, rates[i].v, 1);
    if (r->asd) {
        profile_table_row(&o, "rate.dir_alloc_footprint", 0, 0,
                          (double)cm_stackdist_lines(r->asd), 1);
        profile_table_row(&o, "rate.dir_empties", 0, 0, r->n_empties / t, 1);
    }
    dist_rows(r, &o);
    index_rows(r, &o);
    profile_sets_rows(r->l1sl, "joint.l1.set_mates_", &o);
    if (r->oom && !o.st)
        o.st = cm_err_set(err, CM_EINTERNAL, "out of memory for the profile");
    if (o.st) {
        cm_table_free(o.t);
        return o.st;
    }
    *out = o.t;
    return CM_OK;
}
