/* engine.h - the simulator's discrete-event core: events, ports and pools.
 *
 * Events run in order of time (cycles), then of scheduling (a sequence
 * number), so events of equal time run first-scheduled first and a run is a
 * pure function of its inputs and seeds.  Pending events sit in a timing
 * wheel when they are due within CM_ENGINE_WHEEL cycles (nearly all of
 * them: an SM's next tick, cache and port latencies) and in a 4-ary heap
 * otherwise; engine.c explains why the two together keep the exact order.
 * Capacity is fixed at init: the run loop never allocates, and scheduling
 * into a full queue is an error value, never a crash.  The first error is
 * sticky: every later schedule and run returns it, so a component deep in
 * a handler needs no error path of its own.
 *
 * Components talk only through events and ports.  A port is a bounded FIFO
 * link: a message occupies it from send until delivery; it is serialised at
 * the link's rate (units such as flits or bytes, `rate_units` every
 * `rate_cycles` cycles), then travels `latency` cycles, then the receiver is
 * called.  A full port refuses a send (back-pressure); the sender retries,
 * e.g. from the port's space callback.  Arrival times never decrease, so a
 * port keeps one event pending at a time whatever its load: the engine's
 * capacity must cover the components' own events plus one per port.
 *
 * A pool hands out fixed-size records (memory requests) from one block
 * allocated at init; an empty pool is back-pressure, not an error. */
#ifndef CM_ENGINE_H
#define CM_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "data/err.h"
#include "sim/stats.h"

struct cm_engine;
typedef void (*cm_event_fn)(struct cm_engine *eng, void *obj, uint64_t arg);

typedef struct cm_event {
    uint64_t time, seq;
    cm_event_fn fn;
    void *obj;
    uint64_t arg;
} cm_event;

/* Slots of the timing wheel: a power of two, at most 64 * 64 (the two
 * levels of its occupancy bitmap). */
#define CM_ENGINE_WHEEL 1024u

/* An event in the wheel; its slot gives its time, its place in the slot's
 * list its order. */
typedef struct cm_wheel_node {
    cm_event_fn fn;
    void *obj;
    uint64_t arg;
    uint32_t next; /* the next node of the slot, or of the free list */
} cm_wheel_node;

typedef struct cm_wheel_slot {
    uint32_t head, tail; /* node indices; meaningless while empty */
} cm_wheel_slot;

/* Embeddable; the fields are private to engine.c. */
typedef struct cm_engine {
    cm_event *heap; /* events due at now + CM_ENGINE_WHEEL or later */
    size_t size, cap;
    cm_wheel_node *nodes; /* cap nodes: the wheel's events and free ones */
    uint32_t free_node;
    size_t wheel_size;
    cm_wheel_slot slot[CM_ENGINE_WHEEL];
    uint64_t used[CM_ENGINE_WHEEL / 64]; /* bit s: slot s is not empty */
    uint64_t used_words;                 /* bit w: used[w] != 0 */
    uint64_t now, seq, executed;
    int stop;
    cm_err err; /* sticky: err.code != CM_OK stops everything */
} cm_engine;

/* Why cm_engine_run returned. */
typedef enum cm_run_end {
    CM_RUN_EMPTY,      /* no events left */
    CM_RUN_UNTIL,      /* the next event lies after `until` */
    CM_RUN_STOPPED,    /* cm_engine_stop was called */
    CM_RUN_MAX_EVENTS, /* max_events executed */
    CM_RUN_ERROR       /* the sticky error is set */
} cm_run_end;

/* capacity: the most events pending at once (1 to UINT32_MAX - 1). */
cm_status cm_engine_init(cm_engine *eng, size_t capacity, cm_err *err);
void cm_engine_free(cm_engine *eng);

static inline uint64_t cm_engine_now(const cm_engine *eng)
{
    return eng->now;
}

/* Runs fn(eng, obj, arg) at now + delay, or at time (>= now).  CM_OK, or
 * CM_EINTERNAL (queue full, time in the past or overflowing), which also
 * becomes the engine's sticky error. */
cm_status cm_engine_schedule(cm_engine *eng, uint64_t delay, cm_event_fn fn,
                             void *obj, uint64_t arg);
cm_status cm_engine_schedule_at(cm_engine *eng, uint64_t time, cm_event_fn fn,
                                void *obj, uint64_t arg);

/* Executes events in order until the queue empties (time stays at the last
 * event), the next event lies after `until` (time then advances to
 * `until`, inclusive bound), cm_engine_stop is called
 * (from a handler: after it returns), max_events have run in this call (0:
 * no limit) or an error occurs.  why (may be NULL) says which; the status is
 * the sticky error, copied into err. */
cm_status cm_engine_run(cm_engine *eng, uint64_t until, uint64_t max_events,
                        cm_run_end *why, cm_err *err);

/* The same for the cycles before `end`: events at times below it, then
 * time advances to `end` (a budget of N cycles runs cycles 0 .. N-1). */
cm_status cm_engine_run_before(cm_engine *eng, uint64_t end,
                               uint64_t max_events, cm_run_end *why,
                               cm_err *err);

/* Ends the current run (or the next one) after the running event. */
void cm_engine_stop(cm_engine *eng);

uint64_t cm_engine_executed(const cm_engine *eng); /* over all runs */
size_t cm_engine_pending(const cm_engine *eng);

/* ---- ports ------------------------------------------------------------ */

/* Called at delivery with the message given to cm_port_send. */
typedef void (*cm_port_fn)(cm_engine *eng, void *obj, void *msg);

typedef struct cm_port_config {
    uint32_t capacity;    /* messages between send and delivery (>= 1) */
    uint64_t latency;     /* cycles from the end of serialisation */
    uint32_t rate_units;  /* the link moves rate_units units ... */
    uint32_t rate_cycles; /* ... per rate_cycles cycles; 0: no limit */
    /* optional: extra cycles of latency per message (randomised timing);
     * a message still never arrives before the one sent before it */
    uint64_t (*extra)(void *obj);
    void *extra_obj;
} cm_port_config;

typedef struct cm_port_slot {
    void *msg;
    uint64_t sent, arrive;
} cm_port_slot;

/* Embeddable; the fields are private to engine.c. */
typedef struct cm_port {
    cm_engine *eng;
    cm_port_fn recv, space;
    void *recv_obj, *space_obj;
    cm_port_slot *ring;
    uint32_t cap, head, count;
    uint32_t rate_units, rate_cycles;
    uint64_t latency;
    uint64_t (*extra)(void *obj);
    void *extra_obj;
    uint64_t link_free; /* in ticks: 1 cycle = rate_units ticks */
    cm_stat *st_msgs, *st_units, *st_busy, *st_occ, *st_lat;
} cm_port;

cm_status cm_port_init(cm_port *port, cm_engine *eng, const cm_port_config *cfg,
                       cm_port_fn recv, void *recv_obj, cm_err *err);
void cm_port_free(cm_port *port);

/* Optional: called (not scheduled), with the message just delivered, right
 * after a delivery frees a slot of a port that was full, so a refused
 * sender can retry at once. */
void cm_port_on_space(cm_port *port, cm_port_fn space, void *space_obj);

/* Registers, under prefix and component: <prefix>.msgs, <prefix>.units and
 * <prefix>.busy_cycles (counters), <prefix>.occupancy (messages in the
 * port; full fraction <prefix>.full_fraction) and <prefix>.latency (cycles
 * from send to delivery, log2 bins).  Before the first send. */
cm_status cm_port_register_stats(cm_port *port, cm_stats *reg,
                                 const char *prefix, const char *component,
                                 cm_err *err);

/* Sends msg of `units` units: 0, or -1 when the port is full. */
int cm_port_send(cm_port *port, void *msg, uint32_t units);

static inline uint32_t cm_port_count(const cm_port *port)
{
    return port->count;
}

/* ---- pools ------------------------------------------------------------ */

typedef struct cm_pool {
    unsigned char *mem;
    void *free_list;
    size_t elem_size, capacity, in_use;
} cm_pool;

/* capacity records of elem_size bytes, aligned for any type. */
cm_status cm_pool_init(cm_pool *pool, size_t elem_size, size_t capacity,
                       cm_err *err);
void cm_pool_free(cm_pool *pool);

/* A record with unspecified contents, or NULL when all are in use.  The
 * most recently returned record is handed out first (deterministic). */
void *cm_pool_get(cm_pool *pool);
/* Returns a record obtained from this pool. */
void cm_pool_put(cm_pool *pool, void *elem);

static inline size_t cm_pool_in_use(const cm_pool *pool)
{
    return pool->in_use;
}

#endif
