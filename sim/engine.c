/* engine.c - the event queue, ports and pools of engine.h.
 *
 * The event queue is a timing wheel for the near future plus a 4-ary heap
 * for the rest.  Nearly every event is due a few cycles ahead (an SM's
 * next tick, hit latencies, port pipelines), so a wheel of CM_ENGINE_WHEEL
 * FIFO slots, slot t mod WHEEL holding the events due at t for now <= t <
 * now + WHEEL, makes schedule and pop O(1) where a heap pays a sift of
 * log4(pending) levels of hard-to-predict compares for each.  A slot is a
 * singly-linked list over a node array allocated at init (with a free
 * list), so the run loop still never allocates; a two-level bitmap of the
 * non-empty slots finds the next due slot with at most three word scans.
 *
 * The order stays exactly (time, seq) without a seq in the wheel, because
 * a slot's list is always in scheduling order: an event for t goes to the
 * heap only while t >= now + WHEEL, i.e. before any event for t can be in
 * the wheel, and heap events move to their slot, in (time, seq) order, as
 * soon as now reaches t - WHEEL + 1 and before any handler at that time
 * runs - the earliest moment the wheel can take an event for t.  Hence
 * every heap event is also later than every wheel event.
 *
 * The heap sifts a hole rather than swapping; the least of four children
 * is found by a branch-free tournament, so each level costs three compares
 * and one move.  Its keys (time, seq) are unique, hence the order is total
 * and never depends on the heap's shape.  A port computes each message's
 * arrival at send time: the link is a single server whose free time only
 * grows, so arrivals come out in send order and a ring buffer plus one
 * pending delivery event is all the state a port needs. */
#include "sim/engine.h"

#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WHEEL_MASK (CM_ENGINE_WHEEL - 1u)
#define NO_NODE UINT32_MAX

_Static_assert((CM_ENGINE_WHEEL & WHEEL_MASK) == 0 && CM_ENGINE_WHEEL >= 64 &&
                   CM_ENGINE_WHEEL <= 64 * 64,
               "the wheel is a power of two covered by a two-level bitmap");

cm_status cm_engine_init(cm_engine *eng, size_t capacity, cm_err *err)
{
    memset(eng, 0, sizeof *eng);
    /* Node indices are 32-bit, NO_NODE excluded. */
    if (capacity < 1 || capacity >= NO_NODE ||
        capacity > SIZE_MAX / sizeof(cm_event))
        return cm_err_set(err, CM_EINPUT,
                          "event queue capacity %zu out of range", capacity);
    eng->heap = malloc(capacity * sizeof *eng->heap);
    eng->nodes = malloc(capacity * sizeof *eng->nodes);
    if (!eng->heap || !eng->nodes) {
        cm_engine_free(eng);
        return cm_err_set(err, CM_EINTERNAL,
                          "out of memory for an event queue of %zu", capacity);
    }
    for (size_t i = 0; i < capacity; i++)
        eng->nodes[i].next = i + 1 < capacity ? (uint32_t)(i + 1) : NO_NODE;
    eng->free_node = 0;
    eng->cap = capacity;
    return CM_OK;
}

void cm_engine_free(cm_engine *eng)
{
    free(eng->heap);
    free(eng->nodes);
    eng->heap = NULL;
    eng->nodes = NULL;
    eng->size = eng->wheel_size = eng->cap = 0;
}

/* ---- the wheel -------------------------------------------------------- */

/* Appends an event due at time (now <= time < now + WHEEL) to its slot; a
 * node must be free. */
static void wheel_push(cm_engine *eng, uint64_t time, cm_event_fn fn, void *obj,
                       uint64_t arg)
{
    uint32_t n = eng->free_node;
    cm_wheel_node *node = &eng->nodes[n];
    eng->free_node = node->next;
    *node = (cm_wheel_node){fn, obj, arg, NO_NODE};
    uint32_t s = (uint32_t)time & WHEEL_MASK;
    cm_wheel_slot *slot = &eng->slot[s];
    uint64_t bit = 1ull << (s & 63);
    if (eng->used[s >> 6] & bit) {
        eng->nodes[slot->tail].next = n;
    } else {
        slot->head = n;
        eng->used[s >> 6] |= bit;
        eng->used_words |= 1ull << (s >> 6);
    }
    slot->tail = n;
    eng->wheel_size++;
}

/* The first non-empty slot at or after now's, going round: the slot of the
 * wheel's earliest events, as they span less than one turn.  The wheel
 * must not be empty. */
static uint32_t wheel_first(const cm_engine *eng)
{
    uint32_t s = (uint32_t)eng->now & WHEEL_MASK, w = s >> 6;
    uint64_t bits = eng->used[w] & (~0ull << (s & 63));
    if (bits) return w << 6 | (uint32_t)__builtin_ctzll(bits);
    /* Then the later words; failing those, round to the lowest word
     * (possibly w itself, whose bits are now all below s). */
    uint64_t words = eng->used_words & (~0ull << w << 1);
    if (!words) words = eng->used_words;
    w = (uint32_t)__builtin_ctzll(words);
    return w << 6 | (uint32_t)__builtin_ctzll(eng->used[w]);
}

/* Removes the first event of non-empty slot s into *out. */
static void wheel_pop(cm_engine *eng, uint32_t s, cm_wheel_node *out)
{
    cm_wheel_slot *slot = &eng->slot[s];
    uint32_t n = slot->head;
    *out = eng->nodes[n];
    if (out->next == NO_NODE) {
        eng->used[s >> 6] &= ~(1ull << (s & 63));
        if (!eng->used[s >> 6]) eng->used_words &= ~(1ull << (s >> 6));
    } else {
        slot->head = out->next;
    }
    eng->nodes[n].next = eng->free_node;
    eng->free_node = n;
    eng->wheel_size--;
}

/* ---- the heap --------------------------------------------------------- */

/* Without a short-circuit, so the compiler can make it branch-free: heap
 * compares are close to coin flips, and mispredicted branches cost more
 * than the memory the sifts touch (a split key/payload heap measured no
 * faster). */
static inline int before(const cm_event *a, const cm_event *b)
{
    return (a->time < b->time) | ((a->time == b->time) & (a->seq < b->seq));
}

static void heap_push(cm_engine *eng, const cm_event *ev)
{
    size_t i = eng->size++;
    while (i > 0) {
        size_t parent = (i - 1) / 4;
        if (!before(ev, &eng->heap[parent])) break;
        eng->heap[i] = eng->heap[parent];
        i = parent;
    }
    eng->heap[i] = *ev;
}

/* Removes the earliest event into *out; the heap must not be empty. */
static void heap_pop(cm_engine *eng, cm_event *out)
{
    cm_event *h = eng->heap;
    *out = h[0];
    size_t n = --eng->size;
    if (n == 0) return;
    cm_event last = h[n];
    size_t i = 0;
    for (;;) {
        size_t c = 4 * i + 1, best = c;
        if (c >= n) break;
        if (c + 3 < n) { /* all four children: a branch-free tournament */
            size_t a = c + before(&h[c + 1], &h[c]);
            size_t b = c + 2 + before(&h[c + 3], &h[c + 2]);
            best = before(&h[b], &h[a]) ? b : a;
        } else {
            for (size_t k = c + 1; k < n; k++)
                if (before(&h[k], &h[best])) best = k;
        }
        if (!before(&h[best], &last)) break;
        h[i] = h[best];
        i = best;
    }
    h[i] = last;
}

/* ---- the queue -------------------------------------------------------- */

/* Moves time to t (no later than any pending event) and, keeping the
 * invariant that makes slots FIFO in seq order, the heap events now due
 * within the wheel into it. */
static void advance(cm_engine *eng, uint64_t t)
{
    eng->now = t;
    while (eng->size && eng->heap[0].time - t < CM_ENGINE_WHEEL) {
        cm_event ev;
        heap_pop(eng, &ev);
        wheel_push(eng, ev.time, ev.fn, ev.obj, ev.arg);
    }
}

cm_status cm_engine_schedule_at(cm_engine *eng, uint64_t time, cm_event_fn fn,
                                void *obj, uint64_t arg)
{
    if (eng->err.code) return eng->err.code;
    if (eng->size + eng->wheel_size == eng->cap)
        return cm_err_set(&eng->err, CM_EINTERNAL,
                          "event queue full (capacity %zu): raise the "
                          "simulator's event capacity",
                          eng->cap);
    if (time < eng->now)
        return cm_err_set(&eng->err, CM_EINTERNAL,
                          "event scheduled at cycle %llu, before now (%llu)",
                          (unsigned long long)time,
                          (unsigned long long)eng->now);
    /* Only heap events need a seq: the wheel keeps order by position. */
    if (time - eng->now < CM_ENGINE_WHEEL)
        wheel_push(eng, time, fn, obj, arg);
    else
        heap_push(eng, &(cm_event){time, eng->seq++, fn, obj, arg});
    return CM_OK;
}

cm_status cm_engine_schedule(cm_engine *eng, uint64_t delay, cm_event_fn fn,
                             void *obj, uint64_t arg)
{
    if (delay > UINT64_MAX - eng->now) {
        if (eng->err.code) return eng->err.code;
        return cm_err_set(&eng->err, CM_EINTERNAL,
                          "event delay %llu overflows the clock",
                          (unsigned long long)delay);
    }
    return cm_engine_schedule_at(eng, eng->now + delay, fn, obj, arg);
}

/* Events at times up to `last` (inclusive), then time at `stop_at`. */
static cm_status run_to(cm_engine *eng, uint64_t last, uint64_t stop_at,
                        uint64_t max_events, cm_run_end *why, cm_err *err)
{
    uint64_t done = 0;
    cm_run_end end;
    for (;;) {
        if (eng->err.code) {
            end = CM_RUN_ERROR;
            break;
        }
        if (eng->stop) {
            end = CM_RUN_STOPPED;
            break;
        }
        if (max_events && done == max_events) {
            end = CM_RUN_MAX_EVENTS;
            break;
        }
        uint64_t t;
        if (eng->wheel_size) {
            t = eng->now + ((wheel_first(eng) - eng->now) & WHEEL_MASK);
        } else if (eng->size) {
            t = eng->heap[0].time;
        } else {
            end = CM_RUN_EMPTY;
            break;
        }
        if (t > last) {
            if (stop_at > eng->now) advance(eng, stop_at);
            end = CM_RUN_UNTIL;
            break;
        }
        if (t != eng->now) advance(eng, t);
        cm_wheel_node ev;
        wheel_pop(eng, (uint32_t)t & WHEEL_MASK, &ev);
        ev.fn(eng, ev.obj, ev.arg);
        done++;
    }
    eng->stop = 0;
    eng->executed += done;
    if (why) *why = end;
    if (eng->err.code && err) *err = eng->err;
    return eng->err.code;
}

cm_status cm_engine_run(cm_engine *eng, uint64_t until, uint64_t max_events,
                        cm_run_end *why, cm_err *err)
{
    return run_to(eng, until, until, max_events, why, err);
}

cm_status cm_engine_run_before(cm_engine *eng, uint64_t end,
                               uint64_t max_events, cm_run_end *why,
                               cm_err *err)
{
    if (end == 0) { /* nothing lies before cycle 0 */
        if (why) *why = CM_RUN_UNTIL;
        if (eng->err.code && err) *err = eng->err;
        return eng->err.code;
    }
    return run_to(eng, end - 1, end, max_events, why, err);
}

void cm_engine_stop(cm_engine *eng)
{
    eng->stop = 1;
}
uint64_t cm_engine_executed(const cm_engine *eng)
{
    return eng->executed;
}
size_t cm_engine_pending(const cm_engine *eng)
{
    return eng->size + eng->wheel_size;
}

/* ---- ports ------------------------------------------------------------ */

cm_status cm_port_init(cm_port *port, cm_engine *eng, const cm_port_config *cfg,
                       cm_port_fn recv, void *recv_obj, cm_err *err)
{
    memset(port, 0, sizeof *port);
    if (cfg->capacity < 1 || !recv || (cfg->rate_cycles && !cfg->rate_units))
        return cm_err_set(err, CM_EINPUT,
                          "port: capacity %u, rate %u units per %u cycles "
                          "(capacity >= 1 and units >= 1 when limited)",
                          cfg->capacity, cfg->rate_units, cfg->rate_cycles);
    port->ring = malloc(cfg->capacity * sizeof *port->ring);
    if (!port->ring)
        return cm_err_set(err, CM_EINTERNAL, "out of memory for a port of %u",
                          cfg->capacity);
    port->eng = eng;
    port->recv = recv;
    port->recv_obj = recv_obj;
    port->cap = cfg->capacity;
    port->latency = cfg->latency;
    port->rate_units = cfg->rate_units;
    port->rate_cycles = cfg->rate_cycles;
    port->extra = cfg->extra;
    port->extra_obj = cfg->extra_obj;
    return CM_OK;
}

void cm_port_free(cm_port *port)
{
    free(port->ring);
    port->ring = NULL;
    port->cap = port->count = 0;
}

void cm_port_on_space(cm_port *port, cm_port_fn space, void *space_obj)
{
    port->space = space;
    port->space_obj = space_obj;
}

cm_status cm_port_register_stats(cm_port *port, cm_stats *reg,
                                 const char *prefix, const char *component,
                                 cm_err *err)
{
    static const char *const sfx[] = {".msgs",        ".units",
                                      ".busy_cycles", ".occupancy",
                                      ".latency",     ".full_fraction"};
    char name[6][CM_STAT_NAME_MAX + 16];
    for (int i = 0; i < 6; i++)
        snprintf(name[i], sizeof name[i], "%s%s", prefix, sfx[i]);
    cm_status st =
        cm_stats_counter(reg, name[0], component, &port->st_msgs, err);
    if (!st)
        st = cm_stats_counter(reg, name[1], component, &port->st_units, err);
    if (!st)
        st = cm_stats_counter(reg, name[2], component, &port->st_busy, err);
    if (!st)
        st = cm_stats_occupancy(reg, name[3], component, port->cap, name[5],
                                &port->st_occ, err);
    if (!st)
        st = cm_stats_latency(reg, name[4], component, 32, 0, &port->st_lat,
                              err);
    if (st) /* the port updates all of them or none */
        port->st_msgs = port->st_units = port->st_busy = port->st_occ =
            port->st_lat = NULL;
    return st;
}

static void port_deliver(cm_engine *eng, void *obj, uint64_t arg)
{
    (void)arg;
    cm_port *p = obj;
    cm_port_slot s = p->ring[p->head];
    int was_full = p->count == p->cap;
    if (++p->head == p->cap) p->head = 0;
    p->count--;
    if (p->st_occ) {
        cm_stat_level(p->st_occ, p->count, eng->now);
        cm_stat_sample(p->st_lat, (double)(eng->now - s.sent));
    }
    if (p->count)
        cm_engine_schedule_at(eng, p->ring[p->head].arrive, port_deliver, p, 0);
    p->recv(eng, p->recv_obj, s.msg);
    if (was_full && p->space) p->space(eng, p->space_obj, s.msg);
}

int cm_port_send(cm_port *p, void *msg, uint32_t units)
{
    if (p->count == p->cap) return -1;
    uint64_t now = p->eng->now, arrive = now;
    if (p->rate_cycles) {
        uint64_t start = now * p->rate_units;
        if (start < p->link_free) start = p->link_free;
        p->link_free = start + (uint64_t)units * p->rate_cycles;
        /* Arrives in the cycle its last unit leaves the link. */
        arrive = (p->link_free + p->rate_units - 1) / p->rate_units;
    }
    arrive += p->latency;
    uint32_t tail = p->head + p->count;
    if (tail >= p->cap) tail -= p->cap;
    if (p->extra) {
        arrive += p->extra(p->extra_obj);
        uint32_t last = tail ? tail - 1 : p->cap - 1;
        if (p->count && arrive < p->ring[last].arrive)
            arrive = p->ring[last].arrive;
    }
    p->ring[tail] = (cm_port_slot){msg, now, arrive};
    if (++p->count == 1)
        cm_engine_schedule_at(p->eng, arrive, port_deliver, p, 0);
    if (p->st_occ) {
        cm_stat_add(p->st_msgs, 1);
        cm_stat_add(p->st_units, units);
        if (p->rate_cycles)
            cm_stat_add(p->st_busy,
                        (double)units * p->rate_cycles / p->rate_units);
        cm_stat_level(p->st_occ, p->count, now);
    }
    return 0;
}

/* ---- pools ------------------------------------------------------------ */

cm_status cm_pool_init(cm_pool *pool, size_t elem_size, size_t capacity,
                       cm_err *err)
{
    memset(pool, 0, sizeof *pool);
    /* Round up so every record is aligned for any type and can hold the
     * free-list link while free. */
    size_t align = alignof(max_align_t);
    size_t size = elem_size < sizeof(void *) ? sizeof(void *) : elem_size;
    size = (size + align - 1) / align * align;
    if (capacity < 1 || size < elem_size || capacity > SIZE_MAX / size)
        return cm_err_set(err, CM_EINPUT,
                          "pool of %zu records of %zu bytes out of range",
                          capacity, elem_size);
    pool->mem = aligned_alloc(align, capacity * size);
    if (!pool->mem)
        return cm_err_set(err, CM_EINTERNAL,
                          "out of memory for a pool of %zu records of %zu "
                          "bytes",
                          capacity, elem_size);
    pool->elem_size = size;
    pool->capacity = capacity;
    /* Chained in address order: records are handed out lowest first. */
    for (size_t i = capacity; i-- > 0;) {
        void *e = pool->mem + i * size;
        memcpy(e, &pool->free_list, sizeof(void *));
        pool->free_list = e;
    }
    return CM_OK;
}

void cm_pool_free(cm_pool *pool)
{
    free(pool->mem);
    memset(pool, 0, sizeof *pool);
}

void *cm_pool_get(cm_pool *pool)
{
    void *e = pool->free_list;
    if (!e) return NULL;
    memcpy(&pool->free_list, e, sizeof(void *));
    pool->in_use++;
    return e;
}

void cm_pool_put(cm_pool *pool, void *elem)
{
    memcpy(elem, &pool->free_list, sizeof(void *));
    pool->free_list = elem;
    pool->in_use--;
}
