/* l2_impl.h - the L2 bank's structures and the helpers its files share:
 * sim/l2.c (service and the rows' actions), sim/l2_store.c (tags,
 * entries, directory, DRAM, memory values, reply FIFO), sim/l2_warm.c
 * (setup, statistics, functional execution).  Private to those files.
 *
 * Per bank, sized at setup (DRAM's values excepted, which grow with the
 * lines written back):
 *  - tags: sets x ways of l2_way (line, value, dirty, GT, sharers, owner,
 *    the lease's reader), LRU by stamp, sets indexed by line / banks;
 *  - MSHR entries: a free stack, and an open-addressing map line -> entry
 *    for the entries of a line (not the parked TC-Weak timestamps or the
 *    write-backs, which are no line's state);
 *  - the request queue, a list through cm_mreq.next;
 *  - the DRAM FIFO of entries whose read or write-back awaits a queue slot;
 *  - the reply FIFO: replies and forwards in bank order with the cycle
 *    each is ready; a served row reserves its slots first;
 *  - GPU-VIni's directory: sets x ways of l2_dirent, hashed index. */
#ifndef CM_L2_IMPL_H
#define CM_L2_IMPL_H

#include "sim/l2.h"

#define L2_NONE UINT64_MAX

typedef struct l2_way {
    uint64_t line, value, gt, stamp, sharers;
    int32_t owner;  /* the L1 holding it E or M (write-back), -1 */
    int32_t reader; /* the lease's only reader so far, -1 */
    uint8_t valid, dirty;
    uint8_t multi; /* more than one reader since GT last passed */
} l2_way;

enum { ENT_FREE = 0, ENT_LINE, ENT_SIDE, ENT_WB };
enum { DR_NONE = 0, DR_WAIT, DR_READ };

typedef struct l2_ent {
    uint64_t line, gt, since, value;
    cm_mreq *txn;      /* the request a transaction holds */
    cm_mreq *wh, *wt;  /* requests waiting on the entry, in order */
    uint32_t acks;     /* answers still awaited */
    uint32_t nwait;
    uint8_t state;     /* transient state (ENT_LINE) */
    uint8_t kind;      /* ENT_* */
    uint8_t dram;      /* DR_*: its read */
    uint8_t wb;        /* ENT_LINE: an owner's dirty line (value) goes to
                          DRAM when the transaction ends */
    uint8_t reply_slot; /* a transaction's final reply has its slot */
} l2_ent;

typedef struct l2_dirent {
    uint64_t line, sharers, stamp;
    uint8_t valid;
} l2_dirent;

typedef struct l2_out {
    cm_mreq *m;
    uint64_t ready;
} l2_out;

typedef struct l2_memval {
    uint64_t line, value;
} l2_memval;

typedef struct l2_bank {
    cm_l2 *l2;
    unsigned id, ch;
    l2_way *tags;
    /* per way, its line while valid, else L2_NONE: a set's search reads
     * these 8 bytes a way, not the ways themselves (a cache line each) */
    uint64_t *tagl;
    l2_ent *ent;
    uint32_t *free_stack, nfree;
    int32_t *map;
    l2_dirent *dir;
    l2_dirent *dir_last; /* l2_dir_find's last entry found: NULL or stale */
    uint64_t dir_absent; /* its last line found absent, or L2_NONE */
    cm_mreq *qh, *qt;
    uint32_t qn;
    cm_mreq *pipe_first; /* the first request still in the input pipeline */
    uint32_t npipe;      /* requests in it (queued, not yet ready) */
    uint32_t *todram, dhead, dcount;
    l2_out *out;
    uint32_t ohead, ocount, reserved;
    uint64_t serve_tick, atomic_tick, last_ready, stall_since, wake_at, stamp;
    int serve_pending, out_pending, kicking, stalled, pipe_pending;
    uint64_t pipe_at; /* the pipeline wake-up pending */
    double hol_cum; /* cycles blocked with nothing servable, closed spells */
    double pred; /* the lifetime predictor */
    cm_stat *st_acc, *st_miss, *st_merge, *st_wb, *st_atom, *st_hol;
    cm_stat *st_evict, *st_sstall, *st_inv, *st_rcl, *st_direv;
    cm_stat *st_qocc, *st_qwait, *st_mocc, *st_mlife, *st_pred[4], *st_life;
} l2_bank;

struct cm_l2 {
    cm_l2_config cfg;
    const cm_params *p;
    cm_engine *eng;
    cm_noc *noc;
    cm_dram *dram;
    l2_bank *bank;
    uint64_t sets;
    /* line / banks and % sets as a shift and a mask where both are powers
     * of two (every preset): a set's lookup is on every request */
    unsigned bank_shift;
    uint64_t set_mask; /* 0: divide */
    uint32_t map_mask, out_cap;
    uint64_t pipe_in; /* the part of the bank pipeline before service */
    uint32_t dir_sets, dir_ways, dir_bits;
    int dir_hash, timestamps, fences_seen, timed;
    uint64_t lifetime; /* fixed lifetime (timestamps without prediction) */
    /* the rows by (state, event), refined events falling back */
    const cm_proto_row *row[CM_L2S_COUNT][CM_L2E_COUNT];
    /* DRAM's values */
    l2_memval *mem;
    size_t mem_cap, mem_n;
    /* functional calls */
    cm_l2_forward_fn fwd;
    void *fwd_obj;
};

/* Predictor events (tc.pred.*). */
enum { PE_L1_EXPIRED, PE_L2_EXPIRED, PE_EVICT, PE_WRITE, PE_COUNT };

/* l2_store.c */
l2_way *l2_way_find(const cm_l2 *l2, const l2_bank *b, uint64_t line);
l2_way *l2_victim(cm_l2 *l2, l2_bank *b, uint64_t line);
l2_ent *l2_ent_find(const cm_l2 *l2, const l2_bank *b, uint64_t line);
l2_ent *l2_ent_new(cm_l2 *l2, l2_bank *b, uint64_t line, uint8_t kind,
                   uint8_t state);
void l2_ent_free(cm_l2 *l2, l2_bank *b, l2_ent *e);
uint32_t l2_ents_used(const cm_l2 *l2, const l2_bank *b);
uint64_t *l2_sharers(cm_l2 *l2, l2_bank *b, uint64_t line, l2_way *way);
l2_dirent *l2_dir_find(const cm_l2 *l2, l2_bank *b, uint64_t line);
/* Way v takes line, fresh from memory (LRU stamp now); way w leaves. */
void l2_way_install(cm_l2 *l2, l2_bank *b, l2_way *v, uint64_t line);
void l2_way_clear(l2_bank *b, l2_way *w);
l2_dirent *l2_dir_set(const cm_l2 *l2, const l2_bank *b, uint64_t line);
/* Gives directory entry v to line (the only way an entry gets one). */
void l2_dir_put(l2_bank *b, l2_dirent *v, uint64_t line);
uint64_t l2_mem_read(const cm_l2 *l2, uint64_t line);
void l2_mem_write(cm_l2 *l2, uint64_t line, uint64_t value);
void l2_todram(cm_l2 *l2, l2_bank *b, l2_ent *e);
void l2_drain_todram(l2_bank *b);
void l2_writeback(cm_l2 *l2, l2_bank *b, uint64_t line, uint64_t value,
                  l2_ent *carrier);
void l2_out_push(cm_l2 *l2, l2_bank *b, cm_mreq *m, int atomic);
void l2_out_kick(l2_bank *b);
/* Sets the engine's sticky error (fmt takes the protocol's name, a, c). */
void l2_fail(cm_l2 *l2, const char *fmt, const char *a, const char *c);
/* l2.c */
void l2_kick(l2_bank *b);
unsigned l2_state(cm_l2 *l2, l2_bank *b, uint64_t line, uint64_t now,
                  l2_way **way, l2_ent **ent);
unsigned l2_refine(cm_l2 *l2, l2_bank *b, const cm_mreq *m, unsigned st,
                   l2_way *way);
uint64_t l2_lifetime(const cm_l2 *l2, const l2_bank *b);
void l2_pred_event(l2_bank *b, unsigned st, unsigned ev, const cm_mreq *m,
                   uint64_t now);
void l2_pred_add(l2_bank *b, double d, uint64_t now);

#endif
