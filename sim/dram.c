/* dram.c - the DRAM channels of dram.h.
 *
 * The bus is a single server whose free time (in ticks of 1/den core
 * cycle) only grows; a request is issued at the cycle its burst can start
 * and completes by its own event, so completions may overtake each other
 * (a row hit behind a conflict): the L2 matches them by ctx.  Completion
 * records come from a per-channel slot array sized for the most requests
 * the bus can have in flight (the longest access over the shortest burst),
 * so nothing is allocated while running. */
#include "sim/dram.h"

#include <stdio.h>
#include <stdlib.h>

#define ROW_CLOSED UINT64_MAX

typedef struct dram_ch {
    cm_dram *d;
    unsigned id;
    cm_dram_req *q; /* FIFO of queue slots */
    uint32_t head, count;
    cm_dram_req *fly; /* issued, awaiting completion */
    uint32_t *fly_free, nfree;
    uint64_t bus_free; /* ticks */
    uint64_t *open_row;
    uint32_t *refused, nrefused; /* sources to call back, oldest first */
    uint32_t *calling;           /* the list being called back */
    uint8_t *is_refused;
    int issue_pending, issuing;
    cm_stat *st_reads, *st_writes, *st_hits, *st_busy, *st_bus, *st_q;
} dram_ch;

struct cm_dram {
    cm_dram_config cfg;
    cm_engine *eng;
    dram_ch *ch;
    cm_retry *retry; /* [sources] */
    uint32_t fly_cap;
};

static uint32_t fly_cap(const cm_dram_config *c)
{
    uint64_t longest = cm_ratio_ceil(c->burst.num, c->burst) + c->conflict;
    return (uint32_t)((longest * c->burst.den + c->burst.num - 1) /
                          c->burst.num +
                      2);
}

size_t cm_dram_events(const cm_dram_config *cfg)
{
    return (size_t)cfg->channels * (1 + fly_cap(cfg));
}

static void issue_ev(cm_engine *eng, void *obj, uint64_t arg);
static void done_ev(cm_engine *eng, void *obj, uint64_t arg);

static void issue(dram_ch *ch)
{
    cm_dram *d = ch->d;
    cm_engine *eng = d->eng;
    const cm_dram_config *c = &d->cfg;
    cm_ratio b = c->burst;
    uint32_t issued = 0;
    ch->issuing = 1;
    while (ch->count && ch->nfree) {
        uint64_t now = eng->now;
        if (now < ch->bus_free / b.den) {
            /* Issue in the cycle the bus frees (its fraction carried in
             * ticks), so a fractional burst loses no bandwidth. */
            ch->issue_pending = 1;
            cm_engine_schedule_at(eng, ch->bus_free / b.den, issue_ev, ch, 0);
            break;
        }
        uint64_t start = now * b.den;
        if (start < ch->bus_free) start = ch->bus_free;
        uint64_t end = start + b.num;
        ch->bus_free = end;
        cm_dram_req q = ch->q[ch->head];
        if (++ch->head == c->queue) ch->head = 0;
        ch->count--;
        issued++;
        uint64_t row = q.line / c->lines_per_row;
        uint64_t *open = &ch->open_row[row % c->banks];
        uint64_t lat = *open == row          ? c->hit
                       : *open == ROW_CLOSED ? c->closed
                                             : c->conflict;
        if (*open == row) cm_stat_add(ch->st_hits, 1);
        *open = row;
        uint32_t slot = ch->fly_free[--ch->nfree];
        ch->fly[slot] = q;
        cm_stat_add(q.write ? ch->st_writes : ch->st_reads, 1);
        cm_stat_add(ch->st_busy, (double)b.num / b.den);
        cm_stat_level(ch->st_bus, 1, start / b.den);
        cm_stat_level(ch->st_bus, 0, end / b.den);
        cm_engine_schedule_at(eng, cm_ratio_ceil(end, b) + lat, done_ev, ch,
                              slot);
    }
    ch->issuing = 0;
    if (!issued) return;
    cm_stat_level(ch->st_q, ch->count, eng->now);
    /* Call back the refused senders once each, oldest first; one that
     * finds the queue full again is listed anew by cm_dram_send, so the
     * list is emptied before the callbacks run. */
    uint32_t n = ch->nrefused;
    ch->nrefused = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t src = ch->calling[k] = ch->refused[k];
        ch->is_refused[src] = 0;
    }
    for (uint32_t k = 0; k < n; k++) {
        cm_retry *r = &d->retry[ch->calling[k]];
        if (r->ready) r->ready(r->obj);
    }
}

static void issue_ev(cm_engine *eng, void *obj, uint64_t arg)
{
    (void)eng;
    (void)arg;
    dram_ch *ch = obj;
    ch->issue_pending = 0;
    issue(ch);
}

static void done_ev(cm_engine *eng, void *obj, uint64_t arg)
{
    (void)eng;
    dram_ch *ch = obj;
    cm_dram_req q = ch->fly[arg];
    ch->fly_free[ch->nfree++] = (uint32_t)arg;
    ch->d->cfg.done(ch->d->cfg.obj, &q);
    if (ch->count && !ch->issue_pending && !ch->issuing) issue(ch);
}

int cm_dram_send(cm_dram *d, unsigned c, const cm_dram_req *q)
{
    dram_ch *ch = &d->ch[c];
    if (ch->count == d->cfg.queue) {
        if (!ch->is_refused[q->src]) {
            ch->is_refused[q->src] = 1;
            ch->refused[ch->nrefused++] = q->src;
        }
        return CM_SINK_BUSY;
    }
    uint32_t t = ch->head + ch->count;
    ch->q[t >= d->cfg.queue ? t - d->cfg.queue : t] = *q;
    ch->count++;
    cm_stat_level(ch->st_q, ch->count, d->eng->now);
    if (!ch->issuing && !ch->issue_pending) issue(ch);
    return CM_SINK_OK;
}

void cm_dram_set_retry(cm_dram *d, unsigned src, cm_retry retry)
{
    d->retry[src] = retry;
}

static cm_status ch_stats(dram_ch *ch, cm_stats *stats, cm_err *err)
{
    char comp[32];
    snprintf(comp, sizeof comp, "ch%u", ch->id);
    cm_status st =
        cm_stats_counter(stats, "dram.reads", comp, &ch->st_reads, err);
    if (!st)
        st = cm_stats_counter(stats, "dram.writes", comp, &ch->st_writes, err);
    if (!st)
        st = cm_stats_counter(stats, "dram.row_hits", comp, &ch->st_hits, err);
    if (!st)
        st = cm_stats_counter(stats, "dram.busy_cycles", comp, &ch->st_busy,
                              err);
    if (!st)
        st = cm_stats_occupancy(stats, "dram.bus", comp, 1, "dram.utilisation",
                                &ch->st_bus, err);
    if (!st)
        st = cm_stats_occupancy(stats, "dram.queue.occupancy", comp,
                                ch->d->cfg.queue, "dram.queue.full_fraction",
                                &ch->st_q, err);
    return st;
}

cm_status cm_dram_new(const cm_dram_config *cfg, cm_engine *eng,
                      cm_stats *stats, cm_dram **out, cm_err *err)
{
    *out = NULL;
    if (!cfg->channels || !cfg->sources || !cfg->queue || !cfg->banks ||
        !cfg->lines_per_row || !cfg->burst.num || !cfg->burst.den || !cfg->done)
        return cm_err_set(err, CM_EINPUT, "DRAM: incomplete configuration");
    cm_dram *d = calloc(1, sizeof *d);
    if (!d) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    d->cfg = *cfg;
    d->eng = eng;
    d->fly_cap = fly_cap(cfg);
    d->ch = calloc(cfg->channels, sizeof *d->ch);
    d->retry = calloc(cfg->sources, sizeof *d->retry);
    cm_status st = CM_OK;
    if (!d->ch || !d->retry)
        st = cm_err_set(err, CM_EINTERNAL, "out of memory for DRAM");
    for (unsigned c = 0; !st && c < cfg->channels; c++) {
        dram_ch *ch = &d->ch[c];
        ch->d = d;
        ch->id = c;
        ch->q = malloc(cfg->queue * sizeof *ch->q);
        ch->fly = malloc(d->fly_cap * sizeof *ch->fly);
        ch->fly_free = malloc(d->fly_cap * sizeof *ch->fly_free);
        ch->open_row = malloc(cfg->banks * sizeof *ch->open_row);
        ch->refused = malloc(cfg->sources * sizeof *ch->refused);
        ch->calling = malloc(cfg->sources * sizeof *ch->calling);
        ch->is_refused = calloc(cfg->sources, 1);
        if (!ch->q || !ch->fly || !ch->fly_free || !ch->open_row ||
            !ch->refused || !ch->calling || !ch->is_refused) {
            st = cm_err_set(err, CM_EINTERNAL, "out of memory for DRAM");
            break;
        }
        for (uint32_t k = 0; k < d->fly_cap; k++)
            ch->fly_free[k] = d->fly_cap - 1 - k; /* slot 0 first */
        ch->nfree = d->fly_cap;
        for (uint32_t k = 0; k < cfg->banks; k++) ch->open_row[k] = ROW_CLOSED;
        st = ch_stats(ch, stats, err);
    }
    if (st) {
        cm_dram_free(d);
        return st;
    }
    *out = d;
    return CM_OK;
}

void cm_dram_free(cm_dram *d)
{
    if (!d) return;
    for (unsigned c = 0; d->ch && c < d->cfg.channels; c++) {
        dram_ch *ch = &d->ch[c];
        free(ch->q);
        free(ch->fly);
        free(ch->fly_free);
        free(ch->open_row);
        free(ch->refused);
        free(ch->calling);
        free(ch->is_refused);
    }
    free(d->ch);
    free(d->retry);
    free(d);
}
