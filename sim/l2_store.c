/* l2_store.c - what an L2 bank keeps (see l2_impl.h): tags, MSHR entries
 * and their map, GPU-VIni's directory, DRAM's values, the DRAM FIFO and
 * the reply FIFO. */
#include "sim/l2_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void l2_fail(cm_l2 *l2, const char *fmt, const char *a, const char *c)
{
    /* the engine's sticky error ends the run */
    if (l2->eng->err.code == CM_OK)
        cm_err_set(&l2->eng->err, CM_EINTERNAL, fmt, l2->cfg.proto->name, a,
                   c);
    cm_engine_stop(l2->eng);
}

/* ---- tags ------------------------------------------------------------------ */

/* The index of line's set's first way. */
static size_t set_of(const cm_l2 *l2, uint64_t line)
{
    /* line mod banks chose the bank; the set comes from the bits above */
    uint64_t set = l2->set_mask ? (line >> l2->bank_shift) & l2->set_mask
                                : (line / l2->cfg.banks) % l2->sets;
    return (size_t)set * l2->cfg.ways;
}

l2_way *l2_way_find(const cm_l2 *l2, const l2_bank *b, uint64_t line)
{
    size_t s = set_of(l2, line);
    for (uint32_t i = 0; i < l2->cfg.ways; i++)
        if (b->tagl[s + i] == line) return &b->tags[s + i];
    return NULL;
}

/* A way for line: an invalid one, else the LRU one whose line has no
 * entry (transient lines stay); NULL when none. */
l2_way *l2_victim(cm_l2 *l2, l2_bank *b, uint64_t line)
{
    size_t s = set_of(l2, line);
    for (uint32_t i = 0; i < l2->cfg.ways; i++)
        if (b->tagl[s + i] == L2_NONE) return &b->tags[s + i];
    l2_way *set = &b->tags[s], *v = NULL;
    for (uint32_t i = 0; i < l2->cfg.ways; i++) {
        if (v && set[i].stamp >= v->stamp) continue;
        if (!l2_ent_find(l2, b, set[i].line)) v = &set[i];
    }
    return v;
}

void l2_way_install(cm_l2 *l2, l2_bank *b, l2_way *v, uint64_t line)
{
    *v = (l2_way){.line = line, .value = l2_mem_read(l2, line), .valid = 1,
                  .owner = -1, .reader = -1, .stamp = ++b->stamp};
    b->tagl[v - b->tags] = line;
}

void l2_way_clear(l2_bank *b, l2_way *w)
{
    w->valid = 0;
    b->tagl[w - b->tags] = L2_NONE;
}

/* ---- entries ------------------------------------------------------------- */

static uint32_t hash(uint64_t line, uint32_t mask)
{
    return (uint32_t)((line * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

l2_ent *l2_ent_find(const cm_l2 *l2, const l2_bank *b, uint64_t line)
{
    uint32_t m = l2->map_mask;
    for (uint32_t i = hash(line, m); b->map[i] >= 0; i = (i + 1) & m)
        if (b->ent[b->map[i]].line == line) return &b->ent[b->map[i]];
    return NULL;
}

static void map_insert(const cm_l2 *l2, l2_bank *b, uint32_t idx)
{
    uint32_t m = l2->map_mask, i = hash(b->ent[idx].line, m);
    while (b->map[i] >= 0) i = (i + 1) & m;
    b->map[i] = (int32_t)idx;
}

static void map_remove(const cm_l2 *l2, l2_bank *b, uint32_t idx)
{
    uint32_t m = l2->map_mask, i = hash(b->ent[idx].line, m);
    while (b->map[i] != (int32_t)idx) i = (i + 1) & m;
    /* backward shift: pull later entries of the probe run into the hole
     * unless their home lies cyclically in (hole, slot] */
    for (uint32_t j = (i + 1) & m; b->map[j] >= 0; j = (j + 1) & m) {
        uint32_t k = hash(b->ent[b->map[j]].line, m);
        int stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (stays) continue;
        b->map[i] = b->map[j];
        i = j;
    }
    b->map[i] = -1;
}

uint32_t l2_ents_used(const cm_l2 *l2, const l2_bank *b)
{
    return l2->cfg.mshrs - b->nfree;
}

l2_ent *l2_ent_new(cm_l2 *l2, l2_bank *b, uint64_t line, uint8_t kind,
                   uint8_t state)
{
    if (!b->nfree) return NULL;
    uint32_t idx = b->free_stack[--b->nfree];
    l2_ent *e = &b->ent[idx];
    memset(e, 0, sizeof *e);
    e->line = line;
    e->kind = kind;
    e->state = state;
    e->since = l2->eng->now;
    if (kind == ENT_LINE) map_insert(l2, b, idx);
    if (l2->timed)
        cm_stat_level(b->st_mocc, l2_ents_used(l2, b), l2->eng->now);
    return e;
}

void l2_ent_free(cm_l2 *l2, l2_bank *b, l2_ent *e)
{
    uint32_t idx = (uint32_t)(e - b->ent);
    if (e->kind == ENT_LINE) map_remove(l2, b, idx);
    e->kind = ENT_FREE;
    b->free_stack[b->nfree++] = idx;
    if (!l2->timed) return;
    cm_stat_sample(b->st_mlife, (double)(l2->eng->now - e->since));
    cm_stat_level(b->st_mocc, l2_ents_used(l2, b), l2->eng->now);
}

/* ---- sharers and the directory ------------------------------------------ */

uint64_t cm_l2_dir_fold(uint64_t line, unsigned banks, unsigned bits, int hash)
{
    /* Address bits alone put lines a power-of-two stride apart (every
     * warp's region of a workload) into the same sets; the hash XOR-folds
     * all the bits above the bank into the index.  It does not spread
     * every layout: a region whose high bits vary little (a few SMs' small
     * shared regions) folds onto a few sets of a large directory, which
     * the recall model reads from the profile (models/recall.c). */
    uint64_t h = line / banks, idx = h;
    if (hash && bits) {
        uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
        idx = 0;
        for (; h; h = bits >= 64 ? 0 : h >> bits) idx ^= h & mask;
    }
    return idx;
}

l2_dirent *l2_dir_set(const cm_l2 *l2, const l2_bank *b, uint64_t line)
{
    uint64_t idx =
        cm_l2_dir_fold(line, l2->cfg.banks, l2->dir_bits, l2->dir_hash);
    return &b->dir[(idx % l2->dir_sets) * l2->dir_ways];
}

l2_dirent *l2_dir_find(const cm_l2 *l2, l2_bank *b, uint64_t line)
{
    /* A request looks its line up five to ten times (state, event, room,
     * actions, observers).  A line has at most one entry, so the last one
     * found is the answer while it still holds the line; and a line found
     * absent stays absent until l2_dir_put, the one way an entry gets a
     * line, forgets it. */
    l2_dirent *d = b->dir_last;
    if (d && d->valid && d->line == line) return d;
    if (line == b->dir_absent) return NULL;
    l2_dirent *set = l2_dir_set(l2, b, line);
    for (uint32_t i = 0; i < l2->dir_ways; i++)
        if (set[i].valid && set[i].line == line) return b->dir_last = &set[i];
    b->dir_absent = line;
    return NULL;
}

void l2_dir_put(l2_bank *b, l2_dirent *v, uint64_t line)
{
    *v = (l2_dirent){.line = line, .stamp = ++b->stamp, .valid = 1};
    b->dir_last = v;
    b->dir_absent = L2_NONE;
}

/* The line's sharer set, where the protocol keeps one; NULL if none. */
uint64_t *l2_sharers(cm_l2 *l2, l2_bank *b, uint64_t line, l2_way *way)
{
    if (l2->cfg.proto->sharers == CM_SHARERS_DIR) {
        l2_dirent *d = l2_dir_find(l2, b, line);
        return d ? &d->sharers : NULL;
    }
    if (l2->cfg.proto->sharers == CM_SHARERS_L2 && way) return &way->sharers;
    return NULL;
}

/* ---- DRAM's values ---------------------------------------------------------- */

static size_t mem_slot(const l2_memval *mem, size_t cap, uint64_t line)
{
    size_t h = (size_t)((line * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
    while (mem[h].line != L2_NONE && mem[h].line != line) h = (h + 1) & (cap - 1);
    return h;
}

uint64_t l2_mem_read(const cm_l2 *l2, uint64_t line)
{
    size_t h = mem_slot(l2->mem, l2->mem_cap, line);
    return l2->mem[h].line == line ? l2->mem[h].value : 0;
}

/* Grows (rarely: doubling) with the lines ever written back. */
void l2_mem_write(cm_l2 *l2, uint64_t line, uint64_t value)
{
    if (2 * (l2->mem_n + 1) > l2->mem_cap) {
        size_t cap = 2 * l2->mem_cap;
        l2_memval *nm = malloc(cap * sizeof *nm);
        if (!nm) {
            l2_fail(l2, "protocol %s: out of memory for DRAM's values%s%s",
                    "", "");
            return;
        }
        for (size_t i = 0; i < cap; i++) nm[i].line = L2_NONE;
        for (size_t i = 0; i < l2->mem_cap; i++)
            if (l2->mem[i].line != L2_NONE)
                nm[mem_slot(nm, cap, l2->mem[i].line)] = l2->mem[i];
        free(l2->mem);
        l2->mem = nm;
        l2->mem_cap = cap;
    }
    size_t h = mem_slot(l2->mem, l2->mem_cap, line);
    if (l2->mem[h].line != line) l2->mem_n++;
    l2->mem[h].line = line;
    l2->mem[h].value = value;
}

/* ---- DRAM ------------------------------------------------------------------- */

void l2_todram(cm_l2 *l2, l2_bank *b, l2_ent *e)
{
    uint32_t t = b->dhead + b->dcount++;
    b->todram[t >= l2->cfg.mshrs ? t - l2->cfg.mshrs : t] =
        (uint32_t)(e - b->ent);
    if (e->kind != ENT_WB) e->dram = DR_WAIT;
}

/* Sends the DRAM FIFO's entries in order while the channel takes them;
 * a write-back leaves its entry when queued. */
void l2_drain_todram(l2_bank *b)
{
    cm_l2 *l2 = b->l2;
    int released = 0;
    while (b->dcount) {
        l2_ent *e = &b->ent[b->todram[b->dhead]];
        cm_dram_req q = {e->line, e, b->id, e->kind == ENT_WB};
        if (cm_dram_send(l2->dram, b->ch, &q) != CM_SINK_OK) break;
        if (++b->dhead == l2->cfg.mshrs) b->dhead = 0;
        b->dcount--;
        if (e->kind == ENT_WB) {
            l2_ent_free(l2, b, e);
            released = 1;
        } else {
            e->dram = DR_READ;
        }
    }
    if (released) l2_kick(b);
}

/* A dirty line goes to DRAM: its value at once, its bus time through an
 * entry (carrier, or a new one: the caller made sure one is free). */
void l2_writeback(cm_l2 *l2, l2_bank *b, uint64_t line, uint64_t value,
                  l2_ent *carrier)
{
    l2_mem_write(l2, line, value);
    if (!l2->timed) return;
    cm_stat_add(b->st_wb, 1);
    l2_ent *e = carrier ? carrier : l2_ent_new(l2, b, line, ENT_WB, 0);
    if (!e) {
        l2_fail(l2, "protocol %s, L2: no MSHR entry for a write-back%s%s", "",
                "");
        return;
    }
    e->kind = ENT_WB;
    e->line = line;
    l2_todram(l2, b, e);
    l2_drain_todram(b);
}

/* ---- replies and forwards ----------------------------------------------- */

static void out_ev(cm_engine *eng, void *obj, uint64_t arg)
{
    (void)eng;
    (void)arg;
    l2_bank *b = obj;
    b->out_pending = 0;
    l2_out_kick(b);
}

/* Sends ready messages in order while the reply network takes them. */
void l2_out_kick(l2_bank *b)
{
    cm_l2 *l2 = b->l2;
    int freed = 0;
    if (b->out_pending) return;
    while (b->ocount) {
        l2_out *h = &b->out[b->ohead];
        if (h->ready > l2->eng->now) {
            b->out_pending = 1;
            cm_engine_schedule_at(l2->eng, h->ready, out_ev, b, 0);
            break;
        }
        if (cm_noc_send_reply(l2->noc, b->id, h->m) != CM_SINK_OK) break;
        if (l2->cfg.obs && l2->cfg.obs->l2_reply_busy)
            l2->cfg.obs->l2_reply_busy(l2->cfg.obs->obj, b->id,
                                       cm_noc_link_cycles(l2->noc, h->m));
        if (++b->ohead == l2->out_cap) b->ohead = 0;
        b->ocount--;
        b->reserved--;
        freed = 1;
    }
    if (freed && b->stalled) l2_kick(b);
}

/* Queues m (its slot was reserved) after the bank pipeline and, for an
 * atomic's reply, the atomic unit; messages leave in bank order. */
void l2_out_push(cm_l2 *l2, l2_bank *b, cm_mreq *m, int atomic)
{
    uint64_t now = l2->eng->now, ready = now + l2->cfg.pipe - l2->pipe_in;
    if (atomic) {
        cm_ratio a = l2->cfg.atomic;
        uint64_t start = ready * a.den;
        if (start < b->atomic_tick) start = b->atomic_tick;
        b->atomic_tick = start + a.num;
        ready = cm_ratio_ceil(b->atomic_tick, a);
        cm_stat_add(b->st_atom, 1);
    }
    if (ready < b->last_ready) ready = b->last_ready;
    b->last_ready = ready;
    uint32_t t = b->ohead + b->ocount++;
    b->out[t >= l2->out_cap ? t - l2->out_cap : t] = (l2_out){m, ready};
    l2_out_kick(b);
}
