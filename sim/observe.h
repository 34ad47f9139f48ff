/* observe.h - observers: what the simulator's components report, for
 * whoever records more than the statistics registry does (the timing
 * profile the coherence models read, sim/profile_rec.h; tests).
 *
 * A component calls its observer's hooks where something happens, with
 * what it knows there: the time, the line, the tag slot (way) it concerns,
 * the message.  Hooks are optional (NULL); an observer keeps whatever
 * state it needs on its side (per tag slot, per warp), so the components
 * carry none of it.  Hooks never change the run: same inputs, same run,
 * observed or not. */
#ifndef CM_OBSERVE_H
#define CM_OBSERVE_H

#include <stdint.h>

#include "sim/mem.h"

/* What the SM reports of a warp (warp hook). */
typedef enum cm_obs_warp_event {
    CM_OBS_MEMORY = 0, /* a memory instruction issued */
    CM_OBS_STORE,      /* one line of a store handed to the L1 */
    CM_OBS_LOAD,       /* one line of a load handed to the L1 */
    CM_OBS_FENCE,      /* a fence issued */
    CM_OBS_FENCE_DONE, /* ... completed (acks in, GWCT passed) */
    CM_OBS_BARRIER,    /* a barrier issued */
    CM_OBS_KERNEL      /* the SM passed a kernel boundary (warp: 0) */
} cm_obs_warp_event;

/* An L2 request served by a row (l2_request hook). */
typedef struct cm_obs_l2 {
    uint32_t bank;
    int32_t way;        /* the line's tag slot in the bank, or -1 */
    uint8_t state, event;
    uint32_t actions;   /* the row's */
    uint64_t sharers;   /* before the row (a directory's or the tags') */
    uint64_t gt;        /* the line's GT (timestamps), before the row */
    int32_t reader;     /* the lease's only reader so far, or -1 */
    uint8_t multi;      /* more than one reader since GT last passed */
    double blocked;     /* the bank's cycles blocked with nothing it may
                           serve, closed spells and the open one, so far */
    uint64_t lifetime;  /* the lease the bank grants now (timestamps) */
} cm_obs_l2;

typedef struct cm_observer {
    void *obj;
    /* an L1 accepted an access of warp; way: the slot whose copy (valid or
     * expired) it found, else -1; req: the request it sent, or NULL */
    void (*l1_access)(void *obj, uint32_t sm, uint32_t warp, uint64_t line,
                      uint8_t op, int32_t way, const cm_mreq *req,
                      uint64_t now);
    /* a fill installed reply r's line in slot way */
    void (*l1_fill)(void *obj, uint32_t sm, int32_t way, const cm_mreq *r,
                    uint64_t now);
    /* the copy in slot way leaves (capacity: as a fill's victim) */
    void (*l1_leave)(void *obj, uint32_t sm, int32_t way, int capacity,
                     uint64_t now);
    /* a load or atomic of warp returned value (at a hit: when it read the
     * copy) */
    void (*value)(void *obj, uint32_t sm, uint32_t warp, uint64_t line,
                  uint64_t value);
    /* the L1 consumed the reply to one of its requests */
    void (*l1_reply)(void *obj, uint32_t sm, const cm_mreq *r, uint64_t now);
    void (*warp)(void *obj, uint32_t sm, uint32_t warp,
                 cm_obs_warp_event what, uint64_t now);
    /* a request joined bank's queue */
    void (*l2_enqueue)(void *obj, uint32_t bank, const cm_mreq *r,
                       uint64_t now);
    /* a request first stalled (row STALL or no room) */
    void (*l2_stall)(void *obj, const cm_obs_l2 *at, const cm_mreq *r,
                     uint64_t now);
    /* a request is served by a row (before its actions run) */
    void (*l2_request)(void *obj, const cm_obs_l2 *at, const cm_mreq *r,
                       uint64_t now);
    /* a row writes request r's value into the line (CM_A2_WRITE) */
    void (*l2_write)(void *obj, const cm_obs_l2 *at, const cm_mreq *r,
                     uint64_t now);
    /* a row replies r (reply) to a request (GT, GWCT set) */
    void (*l2_reply)(void *obj, const cm_obs_l2 *at, const cm_mreq *reply,
                     uint64_t now);
    /* the line in slot way leaves the bank's tags; a fill takes slot way */
    void (*l2_evict)(void *obj, uint32_t bank, int32_t way, uint64_t now);
    void (*l2_fill)(void *obj, uint32_t bank, int32_t way, uint64_t line,
                    uint64_t now);
    /* a REPLACE or DIR_REPLACE row runs: the L1 copies it reaches */
    void (*l2_replace)(void *obj, uint32_t bank, unsigned copies,
                       uint64_t now);
    /* bytes of messages the bank's reply port sends (busy time) */
    void (*l2_reply_busy)(void *obj, uint32_t bank, double cycles);
} cm_observer;

#endif
