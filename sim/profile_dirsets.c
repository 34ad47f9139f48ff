/* profile_dirsets.c - the profile recorder's GPU-VIni directory
 * (profile_rec_impl.h): the stream of requests its directory sees, which
 * differs from the L2's, and how the lines it loads fall into the sets of
 * a directory of every size (joint.dir.set_mates_<b>).  Apart from
 * profile_rec.c because only GPU-VIni records it, and its set lists are a
 * structure of their own. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/l2.h"
#include "sim/profile_rec_impl.h"

/* ---- the sets at every size ----------------------------------------------------- */

/* For every width b of the directory's index from SL_MIN (2^b sets per bank
 * under cm_l2_dir_fold; nbits widths, to 14 at most: 16384 sets per bank),
 * each set's GETS as an LRU list, so that a
 * GETS's position in its set's list is its set-local stack distance j, the
 * distinct lines of its set loaded since its own last load: an LRU
 * directory of W ways misses it iff j >= W.  Only loads count: a store or
 * atomic refreshes an entry only while it is there (j < W), which depends
 * on W; counting every request undercounted the misses of a trace-driven
 * LRU directory by 5-7% on dlb, loads alone overcount them by 0.5-4%.
 * Counted per GETS by the octave of its stack distance d in the whole
 * directory stream (profile_dirsets_record's, as the model reads it), into
 * joint.dir.set_mates_<b> (x: mean d, y: mean j of a cell; j from SL_CAP
 * on is recorded as SL_CAP, "at least").  The lists are walked to SL_CAP
 * at most. */
#define SL_MIN 2
#define SL_BITS 13
#define SL_CAP 64
#define SL_DBINS 48
#define SL_JBINS 26

/* A set's lines, most recent first, the first SL_CAP of them. */
typedef struct sl_set {
    uint32_t *ids;
    uint8_t len, cap;
} sl_set;

typedef struct setlocal {
    unsigned nbits;
    size_t off[SL_BITS]; /* where width SL_MIN + b's sets start */
    sl_set *set;         /* banks << (SL_MIN + b) sets per width */
    double cell[SL_BITS][SL_DBINS][SL_JBINS][3]; /* GETS, sum d, sum j */
} setlocal;

setlocal *profile_dirsets_new(uint32_t banks)
{
    setlocal *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    size_t sets = 0;
    while (s->nbits < SL_BITS &&
           sets + ((size_t)banks << (SL_MIN + s->nbits)) <= ((size_t)1 << 21)) {
        s->off[s->nbits] = sets;
        sets += (size_t)banks << (SL_MIN + s->nbits++);
    }
    s->set = calloc(sets ? sets : 1, sizeof *s->set);
    if (!s->set) {
        free(s);
        return NULL;
    }
    return s;
}

void profile_dirsets_free(setlocal *s, uint32_t banks)
{
    if (!s) return;
    size_t sets = s->nbits ? s->off[s->nbits - 1] +
                                 ((size_t)banks << (SL_MIN + s->nbits - 1))
                           : 0;
    for (size_t i = 0; i < sets; i++) free(s->set[i].ids);
    free(s->set);
    free(s);
}

/* 0 .. 16 one each, then [17,19) [19,23) [23,27) [27,32) [32,38) [38,45)
 * [45,54) [54,64) and SL_CAP on. */
static int sl_jbin(unsigned j)
{
    static const unsigned edge[] = {19, 23, 27, 32, 38, 45, 54, SL_CAP};
    if (j <= 16) return (int)j;
    for (int k = 0; k < 8; k++)
        if (j < edge[k]) return 17 + k;
    return SL_JBINS - 1;
}

/* A GETS of line (its record id, stack distance d, -1: its first): its
 * set-local distance at every width, and the line to the front of its
 * sets. */
static void sl_access(cm_profile_rec *r, uint32_t id, uint64_t line, int64_t d)
{
    setlocal *s = r->sl;
    int db = d < 1 ? 0 : 1 + (int)floor(log2((double)d));
    if (db >= SL_DBINS) db = SL_DBINS - 1;
    for (unsigned b = 0; b < s->nbits; b++) {
        unsigned w = SL_MIN + b;
        uint64_t idx = cm_l2_dir_fold(line, r->banks, w, r->dir_hash);
        sl_set *st =
            &s->set[s->off[b] + ((size_t)(line % r->banks) << w |
                                 (size_t)(idx & (((uint64_t)1 << w) - 1)))];
        unsigned j = 0;
        while (j < st->len && st->ids[j] != id) j++;
        if (d >= 0) {
            double *c = s->cell[b][db][sl_jbin(j < SL_CAP ? j : SL_CAP)];
            c[0] += 1;
            c[1] += (double)d;
            c[2] += j < SL_CAP ? j : SL_CAP;
        }
        if (j == st->len) { /* not among the first SL_CAP: in at the front */
            if (st->len == st->cap && st->cap < SL_CAP) {
                unsigned nc = st->cap ? 2u * st->cap : 2;
                if (nc > SL_CAP) nc = SL_CAP;
                uint32_t *n = realloc(st->ids, nc * sizeof *n);
                if (!n) {
                    r->oom = 1;
                    return;
                }
                st->ids = n;
                st->cap = (uint8_t)nc;
            }
            if (st->len < st->cap) st->len++;
            j = st->len - 1u;
        }
        memmove(st->ids + 1, st->ids, j * sizeof *st->ids);
        st->ids[0] = id;
    }
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
    for (unsigned b = 0; r->sl && b < r->sl->nbits && !o->st; b++) {
        char name[48];
        snprintf(name, sizeof name, "joint.dir.set_mates_%u", SL_MIN + b);
        for (int i = 0; i < SL_DBINS; i++)
            for (int j = 0; j < SL_JBINS; j++) {
                const double *c = r->sl->cell[b][i][j];
                if (c[0] > 0)
                    profile_table_row(o, name, c[1] / c[0], c[2] / c[0], c[0],
                                      0);
            }
    }
}
