/* profile_rec_impl.h - what the parts of the profile recorder share
 * (profile_rec.c: its records, hooks and setup, and the L1's sets;
 * profile_dirsets.c: the GPU-VIni directory's stream and its sets;
 * profile_sets.c: set-local stack distances at every size, for both;
 * profile_table.c: the profile's rows): the recorder's state, the
 * histogram bins, and the functions they call across. */
#ifndef CM_PROFILE_REC_IMPL_H
#define CM_PROFILE_REC_IMPL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "data/linemap.h"
#include "data/stackdist.h"
#include "sim/profile_rec.h"

#define NONE64 UINT64_MAX
#define HBINS 181

/* the histograms, named in this order by hist_names (profile_table.c) */
enum {
    H_REUSE, H_RESID, H_R2W, H_R2WS, H_GAP, H_EVAGE, H_S2F, H_FSLACK, H_FACK,
    H_SD, H_LGAP, H_LSD, H_SGAP, H_LAST, H_ASD, H_ESD, H_EGAP, H_LDELAY,
    H_OWN, H_OWNS, H_R2WO, H_R2WOS, H_OWNN, H_OWNNS, H_COUNT
};

/* l1.load_flags and l1.store_flags (models/profile.h) */
enum {
    HF_REMOTE = 1, HF_STORE = 2, HF_ATOMIC = 4, HF_SYNC = 8, HF_OWNED = 16,
    HF_SEEN = 32, HF_COUNT = 64
};
enum { SF_HOLDS = 1, SF_ONLY = 2, SF_COUNT = 4 };
enum { JOINT_BEHIND, JOINT_BEHIND_SHARED, JOINT_FENCE, JOINT_COUNT };

typedef struct hist {
    double bin[HBINS], inf;
} hist;

typedef struct l1_rec {
    uint64_t fill_t, use_t, lt;
    uint8_t live, open; /* open: its first load is still to come */
} l1_rec;

typedef struct l2_rec {
    uint64_t read_t; /* the latest load that set the lease (NONE64) */
    double read_hol; /* the bank's blocked cycles then */
    uint32_t read_core, read_warp, read_inst;
} l2_rec;

typedef struct warp_rec {
    uint64_t last_store, fence_t, lease_t, acked_t;
    uint32_t waits, stores_out;
} warp_rec;

typedef struct req_rec {
    uint64_t lease1;    /* 1 + the L2 load a GWCT reply's lease came from */
    uint64_t lease_len; /* the lifetime a lease-granting reply carried */
    uint64_t stall_read_t; /* a write held by a lease: its load's time */
    double stall_read_hol, stall_hol;
    uint32_t inst, stall_read_core, stall_read_warp, stall_read_inst;
    uint32_t next_free;
} req_rec;

typedef struct profile_sets profile_sets;

struct cm_profile_rec {
    cm_observer obs;
    const cm_protocol *proto;
    uint32_t sms, warps, banks, l1_lines, l2_lines, line_bytes;
    int history; /* the program-order history (at most 64 SMs) */
    int dir_hash; /* dir.index=hash (joint.dir.index_lines) */
    uint64_t fixed_lifetime;
    l1_rec *l1;    /* [sm * l1_lines + way] */
    l2_rec *l2;    /* [bank * l2_lines + way] */
    warp_rec *w;   /* [sm * warps + warp] */
    uint64_t *sync_t; /* [sm]: the latest fence or kernel start */
    req_rec *req;
    uint32_t nreq, creq, free_req;
    cm_linemap reqmap; /* request id -> req index */
    hist h[H_COUNT];
    /* joint cells, by the bins of (x, y): weight, sum of x, sum of y.
     * JOINT_BEHIND(_SHARED): the stores queued behind the lease's load, by
     * (S less the bank's blocked cycles, those cycles), all / no private
     * writes; JOINT_FENCE: the fences with a lease to wait out, by (ack
     * wait, lease slack) */
    double (*joint)[HBINS][HBINS][3];
    double sharers_hist[65], load_flags[HF_COUNT], store_flags[SF_COUNT],
        write_sharers[65];
    double ack_sum, ack_n, fill_sum, fill_n, flight_sum, flight_n;
    double n_fills, n_loads, n_stores, n_atomics, n_l2_loads, n_l2_unleased, n_l2_stores,
        n_l2_evict, n_fences, n_dir, n_held, post_sum, sstall_sum,
        reply_busy, n_empties;
    cm_stackdist *sd, *asd, **lsd;
    /* the history: line x 64 + core -> hrec; line -> grec */
    cm_linemap hmap, gmap, amap;
    struct hrec { uint64_t load_t, store_t, atomic_t, any_t; } *hrec;
    struct grec { uint64_t w_t, w2_t, holders; int32_t writer; } *grec;
    struct arec { uint64_t sharers, empty_at, first_load; } *arec;
    profile_sets *sl;   /* GPU-VIni: the directory's sets at every size */
    profile_sets *l1sl; /* the L1's sets at every size, per SM */
    size_t hn, hcap, gn, gcap, an, acap;
    int oom; /* out of memory inside a hook: reported at the end */
};

/* ---- histograms -------------------------------------------------------------- */

/* Quarter-octave bins, [0,1), [1, 2^0.25), ..., plus the mass at infinity
 * ("never happened"); hist_edge(i) is bin i's lower edge. */
static inline int hist_bin(double x)
{
    int i = x < 1 ? 0 : 1 + (int)floor(4 * log2(x));
    return i < HBINS ? i : HBINS - 1;
}

static inline void hist_add(hist *h, double x)
{
    if (!isfinite(x))
        h->inf += 1;
    else
        h->bin[hist_bin(x)] += 1;
}

static inline double hist_edge(int i)
{
    return i == 0 ? 0 : exp2((i - 1) / 4.0);
}

/* ---- across the files ----------------------------------------------------------- */

/* profile_rec.c: a record of a line map (the program-order history's, the
 * directory stream's); the copies and emptied entries still open at the
 * end, closed before the rows are written */
void *profile_rec_grow(cm_profile_rec *r, cm_linemap *m, uint64_t key,
                       void **arr, size_t *n, size_t *cap, size_t sz,
                       int *fresh);
void profile_rec_close_copies(cm_profile_rec *r, uint64_t now);

/* profile_table.c: the table being written, and its first error */
typedef struct profile_rows {
    cm_table *t;
    cm_status st;
    cm_err *err;
} profile_rows;

void profile_table_row(profile_rows *o, const char *q, double lo, double hi,
                       double v, int rate);

/* profile_sets.c: set-local stack distances at widths min_w .. max_w
 * (2^w sets per unit) while the sets number at most max_sets (NULL: out
 * of memory); the widths kept (their count, the first in *min_w); an
 * access of line `id` by unit with set index idx[b] at width min_w + b and
 * stack distance d (-1: its first), -1 when out of memory; the rows
 * <prefix><w> */
profile_sets *profile_sets_new(uint32_t units, unsigned min_w, unsigned max_w,
                               size_t max_sets);
void profile_sets_free(profile_sets *s);
unsigned profile_sets_widths(const profile_sets *s, unsigned *min_w);
int profile_sets_access(profile_sets *s, uint32_t unit, uint32_t id,
                        const uint64_t *idx, int64_t d);
void profile_sets_rows(const profile_sets *s, const char *prefix,
                       profile_rows *o);

/* profile_dirsets.c: the set lists of a GPU-VIni recorder (NULL: out of
 * memory); a request the directory sees, recorded; the set-local rows
 * (joint.dir.set_mates_<b>) */
profile_sets *profile_dirsets_new(uint32_t banks);
void profile_dirsets_record(cm_profile_rec *r, const cm_mreq *m);
void profile_dirsets_rows(cm_profile_rec *r, profile_rows *o);

#endif
