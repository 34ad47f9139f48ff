/* linemap.h - an open-addressing hash map from a line address (or any
 * 64-bit key) to one 64-bit value, with linear probing, a load factor of at
 * most 1/2 (grown by rehashing) and backward-shift deletion, so there are
 * no tombstones and a map that stops growing never allocates again.  The
 * exact stack-distance engine keys its time slots by it, StatStack its
 * outstanding samples, the simulator's profile recorder its per-line
 * records; the functions are inline because they sit on per-access
 * paths. */
#ifndef CM_LINEMAP_H
#define CM_LINEMAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "data/err.h"

#define CM_LINEMAP_EMPTY UINT64_MAX /* a value no user stores */

typedef struct cm_linemap_entry {
    uint64_t key, val; /* val == CM_LINEMAP_EMPTY: free */
} cm_linemap_entry;

typedef struct cm_linemap {
    cm_linemap_entry *e;
    size_t mask;  /* capacity - 1, capacity a power of two */
    size_t count;
    unsigned shift; /* 64 - log2(capacity) */
} cm_linemap;

static inline size_t cm_linemap_home(const cm_linemap *m, uint64_t key)
{
    /* Line addresses are often sequential or strided: fold the high bits
     * down, then Fibonacci hashing takes the well-mixed top bits. */
    key ^= key >> 29;
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> m->shift);
}

static inline int cm_linemap_alloc(cm_linemap *m, unsigned log2cap)
{
    size_t cap = (size_t)1 << log2cap;
    cm_linemap_entry *e = malloc(cap * sizeof *e);
    if (!e) return -1;
    for (size_t i = 0; i < cap; i++) e[i].val = CM_LINEMAP_EMPTY;
    m->e = e;
    m->mask = cap - 1;
    m->count = 0;
    m->shift = 64 - log2cap;
    return 0;
}

static inline void cm_linemap_free(cm_linemap *m)
{
    free(m->e);
    m->e = NULL;
}

/* key's entry, or NULL. */
static inline cm_linemap_entry *cm_linemap_find(const cm_linemap *m,
                                                uint64_t key)
{
    for (size_t i = cm_linemap_home(m, key);; i = (i + 1) & m->mask) {
        cm_linemap_entry *e = &m->e[i];
        if (e->val == CM_LINEMAP_EMPTY) return NULL;
        if (e->key == key) return e;
    }
}

static inline cm_status cm_linemap_grow(cm_linemap *m, cm_err *err)
{
    cm_linemap old = *m;
    if (cm_linemap_alloc(m, 65 - old.shift))
        return cm_err_set(err, CM_EINTERNAL, "line map: out of memory");
    for (size_t i = 0; i <= old.mask; i++) {
        if (old.e[i].val == CM_LINEMAP_EMPTY) continue;
        size_t j = cm_linemap_home(m, old.e[i].key);
        while (m->e[j].val != CM_LINEMAP_EMPTY) j = (j + 1) & m->mask;
        m->e[j] = old.e[i];
    }
    m->count = old.count;
    cm_linemap_free(&old);
    return CM_OK;
}

/* key's entry in *out: *found says whether key was there; if not, the
 * key is inserted and the caller must store a value other than
 * CM_LINEMAP_EMPTY before the next call. */
static inline cm_status cm_linemap_upsert(cm_linemap *m, uint64_t key,
                                          cm_linemap_entry **out, int *found,
                                          cm_err *err)
{
    if (2 * (m->count + 1) > m->mask + 1) {
        cm_status st = cm_linemap_grow(m, err);
        if (st != CM_OK) return st;
    }
    size_t i = cm_linemap_home(m, key);
    for (;; i = (i + 1) & m->mask) {
        cm_linemap_entry *e = &m->e[i];
        if (e->val == CM_LINEMAP_EMPTY) break;
        if (e->key == key) {
            *out = e;
            *found = 1;
            return CM_OK;
        }
    }
    m->e[i].key = key;
    m->count++;
    *out = &m->e[i];
    *found = 0;
    return CM_OK;
}

/* Deletes the entry (as from find) by shifting later members of its probe
 * run back into the hole. */
static inline void cm_linemap_erase(cm_linemap *m, cm_linemap_entry *gone)
{
    size_t hole = (size_t)(gone - m->e);
    for (size_t i = (hole + 1) & m->mask;; i = (i + 1) & m->mask) {
        cm_linemap_entry *e = &m->e[i];
        if (e->val == CM_LINEMAP_EMPTY) break;
        size_t home = cm_linemap_home(m, e->key);
        /* e may move into the hole iff its home is not in (hole, i]. */
        if (((i - home) & m->mask) >= ((i - hole) & m->mask)) {
            m->e[hole] = *e;
            hole = i;
        }
    }
    m->e[hole].val = CM_LINEMAP_EMPTY;
    m->count--;
}

#endif
