/* profile_sets.c - set-local LRU stack distances at every cache size, for
 * the profile recorder (profile_rec_impl.h): the GPU-VIni directory's
 * (profile_dirsets.c, joint.dir.set_mates_<b>) and the L1's
 * (profile_rec.c, joint.l1.set_mates_<b>).
 *
 * For every width w from min_w (2^w sets per unit, a unit an L2 bank or an
 * SM; nbits widths), each set keeps its lines as an LRU list, so that an
 * access's position in its set's list is its set-local stack distance j:
 * the distinct lines of its set accessed since its own last access.  An
 * LRU cache of W ways misses it iff j >= W (Mattson et al. 1970, per set:
 * Hill & Smith 1989), whatever the placement: lines that camp on a few
 * sets (scluster's stride of 32 lines, exactly li2014's 32 L1 sets) and
 * lines spread over all of them alike.  Counted per access by the octave of
 * its stack distance d in the unit's whole stream, the cells give (mean d,
 * mean j): the reader discounts the lines in flight, a share of d.  The
 * lists are walked to PS_CAP at most; j from PS_CAP on is recorded as
 * PS_CAP, "at least". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/profile_rec_impl.h"

#define PS_BITS 13
#define PS_CAP 64
#define PS_DBINS 48
#define PS_JBINS 26

/* A set's lines, most recent first, the first PS_CAP of them. */
typedef struct ps_set {
    uint32_t *ids;
    uint8_t len, cap;
} ps_set;

struct profile_sets {
    uint32_t units;
    unsigned min_w, nbits;
    size_t nsets;
    size_t off[PS_BITS]; /* where width min_w + b's sets start */
    ps_set *set;         /* units << (min_w + b) sets per width */
    double cell[PS_BITS][PS_DBINS][PS_JBINS][3]; /* accesses, sum d, sum j */
};

profile_sets *profile_sets_new(uint32_t units, unsigned min_w,
                               unsigned max_w, size_t max_sets)
{
    profile_sets *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->units = units;
    s->min_w = min_w;
    while (s->nbits < PS_BITS && min_w + s->nbits <= max_w &&
           s->nsets + ((size_t)units << (min_w + s->nbits)) <= max_sets) {
        s->off[s->nbits] = s->nsets;
        s->nsets += (size_t)units << (min_w + s->nbits++);
    }
    s->set = calloc(s->nsets ? s->nsets : 1, sizeof *s->set);
    if (!s->set) {
        free(s);
        return NULL;
    }
    return s;
}

void profile_sets_free(profile_sets *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->nsets; i++) free(s->set[i].ids);
    free(s->set);
    free(s);
}

unsigned profile_sets_widths(const profile_sets *s, unsigned *min_w)
{
    *min_w = s->min_w;
    return s->nbits;
}

/* 0 .. 16 one each, then [17,19) [19,23) [23,27) [27,32) [32,38) [38,45)
 * [45,54) [54,64) and PS_CAP on. */
static int ps_jbin(unsigned j)
{
    static const unsigned edge[] = {19, 23, 27, 32, 38, 45, 54, PS_CAP};
    if (j <= 16) return (int)j;
    for (int k = 0; k < 8; k++)
        if (j < edge[k]) return 17 + k;
    return PS_JBINS - 1;
}

int profile_sets_access(profile_sets *s, uint32_t unit, uint32_t id,
                        const uint64_t *idx, int64_t d)
{
    int db = d < 1 ? 0 : 1 + (int)floor(log2((double)d));
    if (db >= PS_DBINS) db = PS_DBINS - 1;
    for (unsigned b = 0; b < s->nbits; b++) {
        unsigned w = s->min_w + b;
        ps_set *st = &s->set[s->off[b] + ((size_t)unit << w |
                                          (size_t)(idx[b] & ((1ull << w) - 1)))];
        unsigned j = 0;
        while (j < st->len && st->ids[j] != id) j++;
        if (d >= 0) {
            double *c = s->cell[b][db][ps_jbin(j < PS_CAP ? j : PS_CAP)];
            c[0] += 1;
            c[1] += (double)d;
            c[2] += j < PS_CAP ? j : PS_CAP;
        }
        if (j == st->len) { /* not among the first PS_CAP: in at the front */
            if (st->len == st->cap && st->cap < PS_CAP) {
                unsigned nc = st->cap ? 2u * st->cap : 2;
                if (nc > PS_CAP) nc = PS_CAP;
                uint32_t *n = realloc(st->ids, nc * sizeof *n);
                if (!n) return -1;
                st->ids = n;
                st->cap = (uint8_t)nc;
            }
            if (st->len < st->cap) st->len++;
            j = st->len - 1u;
        }
        memmove(st->ids + 1, st->ids, j * sizeof *st->ids);
        st->ids[0] = id;
    }
    return 0;
}

void profile_sets_rows(const profile_sets *s, const char *prefix,
                       profile_rows *o)
{
    for (unsigned b = 0; s && b < s->nbits && !o->st; b++) {
        char name[64];
        snprintf(name, sizeof name, "%s%u", prefix, s->min_w + b);
        for (int i = 0; i < PS_DBINS; i++)
            for (int j = 0; j < PS_JBINS; j++) {
                const double *c = s->cell[b][i][j];
                if (c[0] > 0)
                    profile_table_row(o, name, c[1] / c[0], c[2] / c[0], c[0],
                                      0);
            }
    }
}
