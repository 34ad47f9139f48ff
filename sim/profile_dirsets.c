/* profile_dirsets.c - the profile recorder's GPU-VIni directory
 * (profile_rec_impl.h): the stream of requests its directory sees, which
 * differs from the L2's, and how the lines it loads fall into the sets of
 * a directory of every size (joint.dir.set_mates_<b>, through
 * profile_sets.c).  Apart from profile_rec.c because only GPU-VIni
 * records it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/l2.h"
#include "sim/profile_rec_impl.h"

/* ---- the sets at every size ----------------------------------------------------- */

/* For every width b of the directory's index from DS_MIN_W (2^b sets per
 * bank under cm_l2_dir_fold, to 14 at most: 16384 sets per bank), each
 * set's GETS as an LRU list (profile_sets.c).  Only loads count: a store or
 * atomic refreshes an entry only while it is there (j < W), which depends
 * on W; counting every request undercounted the misses of a trace-driven
 * LRU directory by 5-7% on dlb, loads alone overcount them by 0.5-4%.
 * The stack distance d is the whole directory stream's
 * (profile_dirsets_record's, as the model reads it). */
#define DS_MIN_W 2
#define DS_MAX_W 14

profile_sets *profile_dirsets_new(uint32_t banks)
{
    return profile_sets_new(banks, DS_MIN_W, DS_MAX_W, (size_t)1 << 21);
}

/* A GETS of line (its record id, stack distance d, -1: its first). */
static void sl_access(cm_profile_rec *r, uint32_t id, uint64_t line, int64_t d)
{
    uint64_t idx[DS_MAX_W - DS_MIN_W + 1];
    unsigned min_w, n = profile_sets_widths(r->sl, &min_w);
    for (unsigned b = 0; b < n; b++)
        idx[b] = cm_l2_dir_fold(line, r->banks, min_w + b, r->dir_hash);
    if (profile_sets_access(r->sl, (uint32_t)(line % r->banks), id, idx, d))
        r->oom = 1;
}

/* ---- the directory's stream and the rows ------------------------------------- */

/* GPU-VIni's directory sees a different stream from the L2's: only a load
 * (GETS) creates an entry, so a store or atomic to a line never loaded
 * touches none, and an entry whose sharer list a store or atomic empties is
 * the first victim of its set.  Recorded per request, with the sharer
 * lists of an unbounded directory (the cores whose GETS the line served
 * since its latest emptying): dir.alloc_distance, dir.empty_distance and
 * dir.empty_gap (models/profile.h). */
void profile_dirsets_record(cm_profile_rec *r, const cm_mreq *m)
{
    int load = m->msg == CM_MSG_GETS, fresh = 0;
    struct arec *a;
    if (load) {
        a = profile_rec_grow(r, &r->amap, m->line, (void **)&r->arec, &r->an,
                             &r->acap, sizeof *a, &fresh);
        if (!a) return;
        if (fresh) {
            a->sharers = 0;
            a->first_load = (uint64_t)r->n_l2_loads;
        }
    } else {
        cm_linemap_entry *e = cm_linemap_find(&r->amap, m->line);
        if (!e) return; /* never loaded: no entry to touch */
        a = &r->arec[e->val];
    }
    int64_t d;
    cm_err err = {0};
    if (cm_stackdist_access(r->asd, m->line, &d, NULL, &err)) {
        r->oom = 1;
        return;
    }
    double dist = d < 0 ? INFINITY : (double)d;
    uint64_t me = 1ull << m->sm;
    if (r->sl && load) sl_access(r, (uint32_t)(a - r->arec), m->line, d);
    if (load) {
        hist_add(&r->h[H_ASD], dist);
        if (a->empty_at != NONE64) {
            hist_add(&r->h[H_EGAP], r->n_l2_loads - (double)a->empty_at);
            a->empty_at = NONE64;
        }
        a->sharers |= me;
        return;
    }
    uint64_t left = m->msg == CM_MSG_ATOMIC ? 0 : a->sharers & me;
    if (a->sharers && !left) {
        hist_add(&r->h[H_ESD], dist);
        r->n_empties++;
        a->empty_at = (uint64_t)r->n_l2_loads;
    }
    a->sharers = left;
}

/* The set-local distances' cells, after the index rows
 * (profile_table.c index_rows). */
void profile_dirsets_rows(cm_profile_rec *r, profile_rows *o)
{
    profile_sets_rows(r->sl, "joint.dir.set_mates_", o);
}
