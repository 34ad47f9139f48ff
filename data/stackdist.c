/* stackdist.c - exact LRU stack distances (see stackdist.h) and reuse times, O(log M) each.
 *
 * The classic Mattson stack walk costs O(M) per access.  Following the
 * tree-over-access-times formulation (Bennett & Kruskal, "LRU stack
 * processing", IBM J. R&D 1975; Almasi, Cascaval & Padua, MSP'02), every
 * access takes the next slot of a time axis, and the axis holds a 1 at the
 * slot of each line's latest access.  The distance of an access whose line
 * was last seen at slot p is the number of ones after p.  A hash map
 * (data/linemap.h) maps each line to its slot.
 *
 * The ones are a bitmap with a Fenwick tree over the counts of its
 * 512-bit blocks: a rank is one Fenwick walk plus at most eight popcounts
 * of one cache line.  That keeps the counting structure at ~1.1 bits per
 * slot (0.6 MB for 2 million lines, cache-resident), where a Fenwick tree
 * over the slots themselves would take 32 bits a slot and a cache miss at
 * most of its levels; the hash probe is then the one miss per access.
 *
 * The axis fills after as many accesses as it has slots; then it is
 * compacted: the live slots are renumbered in order to 0 .. M-1 (each
 * map entry's new slot is its rank), and the bitmap and tree are rebuilt
 * in O(slots).  The axis keeps at least 2(M+1) slots, so a compaction is
 * paid for by the >= M accesses since the previous one (amortised O(1)),
 * and once the line count stops growing nothing is allocated again.
 *
 * Reuse times count the accesses strictly between two accesses to a line
 * (0 for an immediate re-use, so reuse time >= distance), from a global
 * access counter kept per slot (written in slot order, read only when a
 * caller asks for reuse times), since slots are renumbered.
 *
 * Limits: fewer than 2^32 - 1 live lines (block counts are 32-bit). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "data/stackdist.h"
#include "data/linemap.h"

#define SD_BLOCK 512u /* bits per counted block: one cache line */
#define SD_WORDS (SD_BLOCK / 64)
#define SD_MIN_SLOTS (4 * SD_BLOCK)
#define SD_MIN_LOG2_MAP 10u

struct cm_stackdist {
    cm_linemap map;  /* line -> slot of its latest access */
    uint64_t *bits;  /* [cap / 64]: 1 at each live line's slot */
    uint32_t *fen;   /* Fenwick tree over block counts, 1-based */
    uint64_t *when;  /* [cap]: access index of each slot's access */
    size_t cap;      /* slots on the axis, a multiple of SD_BLOCK */
    size_t next;     /* next free slot */
    size_t live;     /* lines tracked: ones in the bitmap */
    uint64_t now;    /* accesses so far */
};

cm_stackdist *cm_stackdist_new(void)
{
    cm_stackdist *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->cap = SD_MIN_SLOTS;
    s->bits = calloc(s->cap / 64, sizeof *s->bits);
    s->fen = calloc(s->cap / SD_BLOCK + 1, sizeof *s->fen);
    s->when = malloc(s->cap * sizeof *s->when);
    if (!s->bits || !s->fen || !s->when ||
        cm_linemap_alloc(&s->map, SD_MIN_LOG2_MAP)) {
        cm_stackdist_free(s);
        return NULL;
    }
    return s;
}

void cm_stackdist_free(cm_stackdist *s)
{
    if (!s) return;
    cm_linemap_free(&s->map);
    free(s->bits);
    free(s->fen);
    free(s->when);
    free(s);
}

size_t cm_stackdist_lines(const cm_stackdist *s) { return s->live; }

/* SWAR popcount: without -mpopcnt the builtin is a libgcc call. */
static inline size_t sd_popcount(uint64_t x)
{
    x -= (x >> 1) & 0x5555555555555555ull;
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (size_t)((x * 0x0101010101010101ull) >> 56);
}

/* Unsigned wrap-around makes delta = (uint32_t)-1 a decrement. */
static inline void sd_flip(cm_stackdist *s, size_t slot, uint32_t delta)
{
    s->bits[slot / 64] ^= 1ull << (slot % 64);
    size_t nblocks = s->cap / SD_BLOCK;
    for (size_t i = slot / SD_BLOCK + 1; i <= nblocks; i += i & -i)
        s->fen[i] += delta;
}

/* Ones in slots after `slot`: live minus the ones in the blocks up to and
 * including slot's, plus the ones after slot inside its block. */
static inline size_t sd_ones_after(const cm_stackdist *s, size_t slot)
{
    size_t upto = 0;
    for (size_t i = slot / SD_BLOCK + 1; i > 0; i -= i & -i) upto += s->fen[i];
    const uint64_t *w = s->bits + slot / 64;
    size_t here = sd_popcount((*w >> (slot % 64)) >> 1);
    for (const uint64_t *end = s->bits + (slot / SD_BLOCK + 1) * SD_WORDS;
         ++w < end;)
        here += sd_popcount(*w);
    return s->live - upto + here;
}

/* Fenwick tree over the block counts of a bitmap whose ones fill
 * [0, live): built bottom-up in O(blocks). */
static void sd_build(cm_stackdist *s)
{
    size_t nblocks = s->cap / SD_BLOCK;
    memset(s->bits, 0, s->cap / 8);
    for (size_t i = 0; i < s->live / 64; i++) s->bits[i] = ~0ull;
    if (s->live % 64) s->bits[s->live / 64] = (1ull << (s->live % 64)) - 1;
    for (size_t b = 0; b < nblocks; b++) {
        size_t lo = b * SD_BLOCK;
        s->fen[b + 1] = s->live <= lo ? 0
                        : s->live - lo >= SD_BLOCK ? SD_BLOCK
                        : (uint32_t)(s->live - lo);
    }
    for (size_t i = 1; i <= nblocks; i++) {
        size_t up = i + (i & -i);
        if (up <= nblocks) s->fen[up] += s->fen[i];
    }
}

static cm_status sd_grow(cm_stackdist *s, size_t cap, cm_err *err)
{
    uint64_t *bits = realloc(s->bits, cap / 8);
    if (bits) s->bits = bits;
    uint32_t *fen = realloc(s->fen, (cap / SD_BLOCK + 1) * sizeof *fen);
    if (fen) s->fen = fen;
    uint64_t *when = realloc(s->when, cap * sizeof *when);
    if (when) s->when = when;
    if (!bits || !fen || !when)
        return cm_err_set(err, CM_EINTERNAL,
                          "stack distance: out of memory for %zu slots", cap);
    memset(s->bits + s->cap / 64, 0, (cap - s->cap) / 8);
    s->cap = cap;
    return CM_OK;
}

/* Renumbers the live slots to 0 .. live-1, growing the axis to keep at
 * least 2 (live + 1) slots. */
static cm_status sd_compact(cm_stackdist *s, cm_err *err)
{
    if (s->live >= UINT32_MAX - 1)
        return cm_err_set(err, CM_EINTERNAL,
                          "stack distance: more than 2^32 lines");
    size_t want = 2 * (s->live + 1);
    if (s->cap < want) {
        size_t cap = want > s->cap + s->cap / 2 ? want : s->cap + s->cap / 2;
        cap = (cap + SD_BLOCK - 1) / SD_BLOCK * SD_BLOCK;
        cm_status st = sd_grow(s, cap, err);
        if (st != CM_OK) return st;
    }
    /* fen[b] := ones in the blocks before b, so a rank is that plus the
     * popcounts inside b's cache line; the tree is rebuilt after. */
    size_t nblocks = s->cap / SD_BLOCK, sum = 0;
    for (size_t b = 0; b < nblocks; b++) {
        s->fen[b] = (uint32_t)sum;
        for (size_t w = b * SD_WORDS; w < (b + 1) * SD_WORDS; w++)
            sum += sd_popcount(s->bits[w]);
    }
    for (size_t i = 0; i <= s->map.mask; i++) {
        uint64_t *v = &s->map.e[i].val;
        if (*v == CM_LINEMAP_EMPTY) continue;
        size_t slot = (size_t)*v, rank = s->fen[slot / SD_BLOCK];
        const uint64_t *w = s->bits + slot / SD_BLOCK * SD_WORDS;
        for (; w < s->bits + slot / 64; w++)
            rank += sd_popcount(*w);
        rank += sd_popcount(*w & ((1ull << (slot % 64)) -
                                                   1));
        *v = rank;
    }
    size_t rank = 0;
    for (size_t w = 0; w < s->cap / 64; w++)
        for (uint64_t x = s->bits[w]; x; x &= x - 1)
            s->when[rank++] = s->when[w * 64 + (size_t)__builtin_ctzll(x)];
    sd_build(s);
    s->next = s->live;
    return CM_OK;
}

cm_status cm_stackdist_access(cm_stackdist *s, uint64_t line,
                              int64_t *distance, int64_t *reuse_time,
                              cm_err *err)
{
    cm_status st;
    if (s->next == s->cap && (st = sd_compact(s, err)) != CM_OK) return st;
    cm_linemap_entry *e;
    int found;
    if ((st = cm_linemap_upsert(&s->map, line, &e, &found, err)) != CM_OK)
        return st;
    int64_t d = -1, rt = -1;
    if (found) {
        size_t p = (size_t)e->val;
        d = (int64_t)sd_ones_after(s, p);
        if (reuse_time) rt = (int64_t)(s->now - s->when[p] - 1);
        sd_flip(s, p, (uint32_t)-1);
    } else {
        s->live++;
    }
    size_t t = s->next++;
    sd_flip(s, t, 1);
    s->when[t] = s->now++;
    e->val = t;
    *distance = d;
    if (reuse_time) *reuse_time = rt;
    return CM_OK;
}

void cm_stackdist_prefetch(const cm_stackdist *s, uint64_t line)
{
    __builtin_prefetch(&s->map.e[cm_linemap_home(&s->map, line)]);
}

int cm_stackdist_remove(cm_stackdist *s, uint64_t line)
{
    cm_linemap_entry *e = cm_linemap_find(&s->map, line);
    if (!e) return 0;
    sd_flip(s, (size_t)e->val, (uint32_t)-1);
    cm_linemap_erase(&s->map, e);
    s->live--;
    return 1;
}
