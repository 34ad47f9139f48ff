/* workload.c - workload profiles (registry, validation, CSV) and the
 * per-warp stream generator.  The model of every parameter is documented in
 * workload.h; the built-in profiles and their sources are in
 * workload_builtin.c. */
#include "data/workload.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

/* ---- parameter registry -------------------------------------------------- */

static const cm_wl_param_info params[CM_WLP_COUNT] = {
#define CM_WL_INFO(id, lo, hi, integer, help)                                  \
    {#id, lo, hi, integer, help, offsetof(cm_workload_profile, id)},
    CM_WL_PARAMS(CM_WL_INFO)
#undef CM_WL_INFO
};

const cm_wl_param_info *cm_wl_param_at(size_t i)
{
    return i < CM_WLP_COUNT ? &params[i] : NULL;
}

const cm_wl_param_info *cm_wl_param_find(const char *name)
{
    for (size_t i = 0; i < CM_WLP_COUNT; i++)
        if (strcmp(params[i].name, name) == 0) return &params[i];
    return NULL;
}

double cm_wl_param_get(const cm_workload_profile *p, const cm_wl_param_info *pi)
{
    return *(const double *)((const char *)p + pi->offset);
}

static void param_put(cm_workload_profile *p, const cm_wl_param_info *pi,
                      double v)
{
    *(double *)((char *)p + pi->offset) = v;
}

void cm_workload_profile_default(cm_workload_profile *p)
{
    /* A plain, cache-friendly, coherence-free kernel: the values a user
     * profile keeps for the rows it leaves out (assumed). */
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "user");
    snprintf(p->suite, sizeof p->suite, "user");
    p->seed = -1;
    p->private_lines = 1024;
    p->sm_shared_lines = 256;
    p->gpu_shared_lines = 1024;
    p->reuse_prob = 0.5;
    p->reuse_window = 16;
    p->reuse_skew = 1;
    p->false_share_lines = 64;
    p->write_frac = 0.2;
    p->atomic_lines = 1024;
    p->reqs_mean = 1;
    p->line_stride = 1;
    p->gap_mean = 8;
    p->gap_dist = 1;
    p->kernels = 1;
    p->kernel_len = 1000;
    p->region_density = 1;
}

static void format_range(const cm_wl_param_info *pi, char *buf, size_t len)
{
    char lo[32], hi[32];
    cm_fmt_double(lo, pi->min);
    cm_fmt_double(hi, pi->max);
    snprintf(buf, len, "%s %s..%s",
             pi->integer ? "an integer in" : "a number in", lo, hi);
}

/* One value against its parameter's range: the message without location. */
static cm_status check_value(const cm_wl_param_info *pi, double v, cm_err *err)
{
    char range[96], got[32];
    format_range(pi, range, sizeof range);
    cm_fmt_double(got, v);
    if (!isfinite(v) || v < pi->min || v > pi->max ||
        (pi->integer && v != floor(v)))
        return cm_err_set(err, CM_EINPUT, "%s = %s; expected %s", pi->name, got,
                          range);
    return CM_OK;
}

/* The shares drawn from one coin must leave room for each other. */
static const struct {
    cm_wl_param_id a, b, c;
} share_sums[] = {
    {CM_WLP_share_gpu, CM_WLP_share_sm, CM_WLP_false_share},
    {CM_WLP_write_frac, CM_WLP_atomic_frac, CM_WLP_COUNT},
};

/* Index of the first violated sum, or -1. */
static long check_sums(const cm_workload_profile *p, cm_err *err)
{
    for (size_t i = 0; i < sizeof share_sums / sizeof share_sums[0]; i++) {
        double s = cm_wl_param_get(p, &params[share_sums[i].a]) +
                   cm_wl_param_get(p, &params[share_sums[i].b]);
        if (share_sums[i].c != CM_WLP_COUNT)
            s += cm_wl_param_get(p, &params[share_sums[i].c]);
        if (s > 1 + 1e-12) {
            cm_err_set(
                err, CM_EINPUT, "%s + %s%s%s = %g; expected at most 1",
                params[share_sums[i].a].name, params[share_sums[i].b].name,
                share_sums[i].c != CM_WLP_COUNT ? " + " : "",
                share_sums[i].c != CM_WLP_COUNT ? params[share_sums[i].c].name
                                                : "",
                s);
            return (long)i;
        }
    }
    return -1;
}

cm_status cm_workload_profile_validate(const cm_workload_profile *p,
                                       cm_err *err)
{
    for (size_t i = 0; i < CM_WLP_COUNT; i++)
        if (check_value(&params[i], cm_wl_param_get(p, &params[i]), err) !=
            CM_OK) {
            cm_err_prefix(err, p->name);
            return CM_EINPUT;
        }
    if (check_sums(p, err) >= 0) {
        cm_err_prefix(err, p->name);
        return CM_EINPUT;
    }
    return CM_OK;
}

/* ---- user profiles ---------------------------------------------------------
 */

static cm_status parse_number(const char *text, double *v)
{
    const char *s = text;
    while (isspace((unsigned char)*s)) s++;
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    while (isspace((unsigned char)*end)) end++;
    if (end == s || *end || errno == ERANGE || !isfinite(x)) return CM_EINPUT;
    *v = x;
    return CM_OK;
}

static cm_status set_text(char *dst, const char *text, const cm_table *t,
                          size_t r, size_t c, cm_err *err)
{
    size_t n = strlen(text);
    int ok = n > 0 && n < CM_WL_NAME_MAX;
    for (size_t i = 0; ok && i < n; i++)
        ok = isalnum((unsigned char)text[i]) || strchr("_-.", text[i]);
    if (!ok) {
        unsigned long line, col;
        cm_table_cell_pos(t, r, c, &line, &col);
        return cm_err_at(err, CM_EINPUT, cm_table_name(t), line, col,
                         "'%s': expected 1..%d letters, digits or _-.", text,
                         CM_WL_NAME_MAX - 1);
    }
    memcpy(dst, text, n + 1);
    return CM_OK;
}

static cm_status apply_rows(const cm_table *t, cm_workload_profile *p,
                            cm_err *err)
{
    size_t cname, cval;
    cm_status st = cm_table_col_require(t, "parameter", &cname, err);
    if (st == CM_OK) st = cm_table_col_require(t, "value", &cval, err);
    if (st != CM_OK) return st;
    /* Where each parameter was set, for the cross-parameter checks. */
    unsigned long where[CM_WLP_COUNT][2] = {{0}};
    for (size_t r = 0; r < cm_table_nrows(t); r++) {
        const char *name = cm_table_cell(t, r, cname);
        const char *text = cm_table_cell(t, r, cval);
        unsigned long line, col;
        if (strcmp(name, "base") == 0) {
            const cm_workload_profile *b = cm_workload_builtin(text);
            cm_table_cell_pos(t, r, r == 0 ? cval : cname, &line, &col);
            if (r != 0)
                return cm_err_at(err, CM_EINPUT, cm_table_name(t), line, col,
                                 "'base' must be the first row");
            if (!b)
                return cm_err_at(err, CM_EINPUT, cm_table_name(t), line, col,
                                 "unknown built-in workload '%s'", text);
            *p = *b;
            p->seed = -1;
            continue;
        }
        if (strcmp(name, "name") == 0 || strcmp(name, "suite") == 0) {
            st = set_text(name[0] == 'n' ? p->name : p->suite, text, t, r, cval,
                          err);
            if (st != CM_OK) return st;
            continue;
        }
        const cm_wl_param_info *pi = cm_wl_param_find(name);
        if (!pi) {
            cm_table_cell_pos(t, r, cname, &line, &col);
            return cm_err_at(err, CM_EINPUT, cm_table_name(t), line, col,
                             "unknown workload parameter '%s'", name);
        }
        cm_table_cell_pos(t, r, cval, &line, &col);
        char range[96];
        format_range(pi, range, sizeof range);
        double v;
        if (parse_number(text, &v) != CM_OK)
            return cm_err_at(err, CM_EINPUT, cm_table_name(t), line, col,
                             "%s: '%s' is not a number; expected %s", pi->name,
                             text, range);
        cm_err verr;
        if (check_value(pi, v, &verr) != CM_OK)
            return cm_err_at(err, CM_EINPUT, cm_table_name(t), line, col, "%s",
                             verr.msg);
        param_put(p, pi, v);
        size_t id = (size_t)(pi - params);
        where[id][0] = line;
        where[id][1] = col;
    }
    cm_err serr;
    long bad = check_sums(p, &serr);
    if (bad >= 0) {
        /* Blame the last-set row among the parameters of the sum. */
        cm_wl_param_id ids[3] = {share_sums[bad].a, share_sums[bad].b,
                                 share_sums[bad].c};
        unsigned long line = 1, col = 1;
        for (int k = 0; k < 3; k++)
            if (ids[k] != CM_WLP_COUNT && where[ids[k]][0] >= line &&
                where[ids[k]][0]) {
                line = where[ids[k]][0];
                col = where[ids[k]][1];
            }
        return cm_err_at(err, CM_EINPUT, cm_table_name(t), line, col, "%s",
                         serr.msg);
    }
    return CM_OK;
}

cm_status cm_workload_profile_load(const char *csv_path,
                                   cm_workload_profile *out, cm_err *err)
{
    cm_table *t = NULL;
    cm_status st = cm_table_read_file(csv_path, &t, err);
    if (st != CM_OK) return st;
    cm_workload_profile p;
    cm_workload_profile_default(&p);
    st = apply_rows(t, &p, err);
    cm_table_free(t);
    if (st == CM_OK) *out = p;
    return st;
}

/* What each built-in profile stands for: the benchmark the source
 * document names, in its words (seed 000: Singh's thesis, "Improving GPU
 * programming models through hardware cache coherence"; seed 002: Li's,
 * "Orchestrating Thread Scheduling and Cache Management to Improve Memory
 * System Throughput in Throughput Processors").  The profiles' numbers
 * are in sim/workload_builtin.c; a test keeps the two lists equal. */
static const struct {
    const char *name, *text;
} descriptions[] = {
    {"bh", "Barnes-Hut n-body: octree build with fine-grained locks"},
    {"cc", "CudaCuts: push-relabel max-flow, kernels fused by coherence"},
    {"cl", "cloth physics: constraint solver with fine-grained locks"},
    {"dlb", "dynamic load balancing: task stealing on non-blocking queues"},
    {"stn", "3D wave stencil: persistent threads, inter-workgroup barriers"},
    {"vpr", "Versatile Place and Route: annealing with low-contention locks"},
    {"hsp", "HotSpot thermal simulation (false sharing)"},
    {"kmn", "k-means clustering"},
    {"lps", "3D Laplace solver"},
    {"ndl", "Needleman-Wunsch sequence alignment (streaming)"},
    {"rg", "Gaussian filter (working set kept across kernels)"},
    {"sr", "anisotropic diffusion (SRAD)"},
    {"comd", "CoMD molecular dynamics"},
    {"ii", "inverted index (Mars)"},
    {"bfs", "breadth-first search (LonestarGPU)"},
    {"sm", "string match (Mars)"},
    {"ss", "similarity score (Mars)"},
    {"sssp", "single-source shortest paths (LonestarGPU)"},
    {"scluster", "Streamcluster clustering (Rodinia)"},
    {"atax", "matrix-transpose-vector multiply (PolyBench)"},
    {"bicg", "BiCGStab linear-solver sub-kernel (PolyBench)"},
    {"gesummv", "scalar-vector-matrix multiply (PolyBench)"},
    {"mvt", "matrix-vector product and transpose (PolyBench)"},
    {"wc", "word count (Mars)"},
    {"cfd", "CFD solver (Rodinia)"},
};

const char *cm_workload_description(const char *name)
{
    for (size_t i = 0; name && i < sizeof descriptions / sizeof *descriptions;
         i++)
        if (!strcmp(descriptions[i].name, name)) return descriptions[i].text;
    return NULL;
}

cm_status cm_workload_list_table(cm_table **out, cm_err *err)
{
    enum { NFIX = 4 }; /* name, description, seed, suite */
    const char *names[NFIX + CM_WLP_COUNT] = {"name", "description", "seed",
                                              "suite"};
    for (size_t i = 0; i < CM_WLP_COUNT; i++) names[NFIX + i] = params[i].name;
    cm_table *t = cm_table_new(NFIX + CM_WLP_COUNT, names);
    if (!t) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    char buf[NFIX + CM_WLP_COUNT][32];
    const char *cells[NFIX + CM_WLP_COUNT];
    for (size_t i = 0; i < cm_workload_builtin_count(); i++) {
        const cm_workload_profile *p =
            cm_workload_builtin(cm_workload_builtin_name(i));
        const char *d = cm_workload_description(p->name);
        cells[0] = p->name;
        cells[1] = d ? d : "";
        snprintf(buf[2], sizeof buf[2], "%03d", p->seed);
        cells[2] = buf[2];
        cells[3] = p->suite;
        for (size_t k = 0; k < CM_WLP_COUNT; k++) {
            cm_fmt_double(buf[NFIX + k], cm_wl_param_get(p, &params[k]));
            cells[NFIX + k] = buf[NFIX + k];
        }
        cm_status st = cm_table_append(t, cells, err);
        if (st != CM_OK) {
            cm_table_free(t);
            return st;
        }
    }
    *out = t;
    return CM_OK;
}

/* ---- generator ----------------------------------------------------------- */

enum { ST_GAP, ST_MEM, ST_FENCE, ST_BARRIER, ST_BOUNDARY, ST_DONE };

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* A gsl_rng over the state inside the generator: no allocation, and a
 * copied generator gets its own view. */
static gsl_rng rng_view(cm_wgen *g)
{
    gsl_rng r = {gsl_rng_taus2, &g->rng_state};
    return r;
}

cm_status cm_wgen_init(cm_wgen *g, const cm_workload_profile *prof,
                       uint64_t seed, uint32_t sm, uint32_t warp,
                       uint32_t line_bytes, cm_err *err)
{
    cm_status st = cm_workload_profile_validate(prof, err);
    if (st != CM_OK) return st;
    if (sm >= 65536 || warp >= 4096)
        return cm_err_set(err, CM_EINPUT,
                          "workload generator: sm %u, warp %u; expected sm "
                          "< 65536 and warp < 4096",
                          sm, warp);
    if (line_bytes < 4 || line_bytes > 4096 || (line_bytes & (line_bytes - 1)))
        return cm_err_set(err, CM_EINPUT,
                          "workload generator: line size %u; expected a "
                          "power of two in 4..4096",
                          line_bytes);
    if (gsl_rng_taus2->size > sizeof g->rng_state)
        return cm_err_set(err, CM_EINTERNAL,
                          "gsl taus2 state (%zu bytes) exceeds %zu",
                          gsl_rng_taus2->size, sizeof g->rng_state);
    memset(g, 0, sizeof *g);
    g->prof = *prof;
    g->sm = sm;
    g->warp = warp;
    g->line_bytes = line_bytes;
    unsigned k = (unsigned)prof->reuse_window;
    double sum = 0;
    for (unsigned d = 0; d < k; d++)
        sum += g->zipf_cdf[d] = pow(d + 1.0, -prof->reuse_skew);
    double acc = 0;
    for (unsigned d = 0; d < k; d++)
        g->zipf_cdf[d] = (acc += g->zipf_cdf[d]) / sum;
    g->zipf_cdf[k - 1] = 1;
    /* Bucket b holds u in [b/G, (b+1)/G) (G a power of two: u * G and b / G
     * are exact), whose answer is no less than the first d with cdf[d] >
     * b/G. */
    for (unsigned b = 0, d = 0; b < CM_WGEN_GUIDE; b++) {
        while (g->zipf_cdf[d] <= (double)b / CM_WGEN_GUIDE) d++;
        g->zipf_guide[b] = (uint8_t)d;
    }
    g->lines_per_region = line_bytes >= 1024 ? 1 : 1024 / line_bytes;
    double used = round(prof->region_density * g->lines_per_region);
    g->used_per_region = used < 1 ? 1 : (unsigned)used;
    /* The stream is a function of (seed, sm, warp) alone. */
    uint64_t h =
        splitmix64(seed ^ splitmix64(((uint64_t)sm << 12 | warp) + 0x5EED));
    g->warp_off = splitmix64(h) & 0xFFFFF;
    gsl_rng r = rng_view(g);
    gsl_rng_set(&r, (unsigned long)(h >> 32) ^ (unsigned long)(h & 0xFFFFFFFF));
    g->stage = ST_GAP;
    return CM_OK;
}

static unsigned filter_bucket(uint64_t line)
{
    return (unsigned)((line * 0x9E3779B97F4A7C15ull) >> 40) &
           (CM_WGEN_FILTER - 1);
}

/* Moves `line` to the top of the warp's LRU stack (exact for the top
 * CM_WGEN_STACK_MAX positions, which is all the reuse draws look at). */
/* at: line's position in the stack when the caller knows it (it just
 * read it there), else SIZE_MAX to search; known_new skips the search. */
static size_t stack_slot(const cm_wgen *g, size_t i)
{
    size_t k = g->top + i;
    return k < CM_WGEN_STACK_MAX ? k : k - CM_WGEN_STACK_MAX;
}

static uint64_t stack_at(const cm_wgen *g, size_t i)
{
    return g->stack[stack_slot(g, i)];
}

static void stack_touch(cm_wgen *g, uint64_t line, int known_new, size_t at)
{
    size_t i = g->depth;
    if (at < g->depth)
        i = at;
    else if (!known_new && g->in_stack[filter_bucket(line)])
        for (i = 0; i < g->depth && stack_at(g, i) != line; i++) continue;
    if (i == g->depth) { /* the line enters; at full depth the LRU leaves */
        if (!g->skim) g->in_stack[filter_bucket(line)]++;
        if (g->depth < CM_WGEN_STACK_MAX)
            g->depth++;
        else if (!g->skim)
            g->in_stack[filter_bucket(stack_at(g, g->depth - 1))]--;
        /* the ring turns: the new top takes the slot of the bottom */
        g->top = g->top ? g->top - 1 : CM_WGEN_STACK_MAX - 1;
    } else if (g->top + i < CM_WGEN_STACK_MAX) {
        /* No wrap: plain slots, a move the compiler can make in one go;
         * with the search above, kmn's sampled run 1.20 -> 1.13 CPU s,
         * the same output. */
        for (size_t k = g->top + i; k > g->top; k--)
            g->stack[k] = g->stack[k - 1];
    } else {
        for (; i > 0; i--)
            g->stack[stack_slot(g, i)] = g->stack[stack_slot(g, i - 1)];
    }
    g->stack[g->top] = line;
}

/* The first d with cdf[d] > u (cdf[K-1] = 1 > u): from the guide's first
 * candidate of u's bucket, a short scan.  A binary search touched eight
 * places of the 2 KB table, each a cache miss: the machine's generators
 * do not stay in cache, and it was a third of the generator's time. */
static unsigned draw_zipf(const cm_wgen *g, double u)
{
    unsigned d = g->zipf_guide[(unsigned)(u * CM_WGEN_GUIDE)];
    while (g->zipf_cdf[d] <= u) d++;
    return d;
}

/* floor(m) plus a coin for the fractional part: mean exactly m. */
static uint64_t draw_fixed(gsl_rng *r, double m)
{
    double f = floor(m);
    return (uint64_t)f + (gsl_rng_uniform(r) < m - f);
}

/* Logical offset -> physical offset with only used_per_region lines of each
 * 1 KB region in use. */
static uint64_t sparse(const cm_wgen *g, uint64_t o)
{
    return o / g->used_per_region * g->lines_per_region +
           o % g->used_per_region;
}

/* Sweep position i -> footprint offset: consecutive positions are
 * line_stride apart, and a full cycle covers the (stride-rounded)
 * footprint once. */
static uint64_t sweep_offset(const cm_wgen *g, uint64_t i)
{
    uint64_t s = (uint64_t)g->prof.line_stride;
    uint64_t f = (uint64_t)g->prof.private_lines;
    uint64_t rows = f / s ? f / s : 1;
    i %= rows * s;
    return (i % rows) * s + i / rows;
}

enum { FR_SWEEP, FR_STREAM, FR_SM, FR_GPU, FR_FALSE, FR_LOCK };

static uint64_t tag(cm_wregion r)
{
    return (uint64_t)r << 60;
}

static uint64_t stream_line(cm_wgen *g)
{
    uint64_t gw = (uint64_t)g->sm << 12 | g->warp;
    /* From the warp's own offset, as the private footprint: streams that
     * all started at offset 0 would walk the same cache sets and L2 banks
     * in lockstep, a conflict no real kernel's warps have. */
    return tag(CM_WR_STREAM) | gw << 32 |
           ((g->warp_off + sparse(g, g->stream_next++)) & 0xFFFFFFFFull);
}

/* The k-th fresh line of an instruction drawn from region `fr`. */
static uint64_t fresh_line(cm_wgen *g, int fr, uint64_t start, unsigned k)
{
    const cm_workload_profile *p = &g->prof;
    uint64_t s = (uint64_t)p->line_stride, gw = (uint64_t)g->sm << 12 | g->warp;
    switch (fr) {
    case FR_SWEEP: {
        uint64_t o = g->sweep_base + sweep_offset(g, g->cursor++);
        return tag(CM_WR_PRIVATE) | gw << 32 |
               ((g->warp_off + sparse(g, o)) & 0xFFFFFFFFull);
    }
    case FR_SM:
        return tag(CM_WR_SM_SHARED) | (uint64_t)g->sm << 32 |
               (start + k * s) % (uint64_t)p->sm_shared_lines;
    case FR_GPU:
        return tag(CM_WR_GPU_SHARED) |
               (start + k * s) % (uint64_t)p->gpu_shared_lines;
    case FR_FALSE:
        return tag(CM_WR_FALSE_SHARED) |
               (start + k) % (uint64_t)p->false_share_lines;
    case FR_LOCK:
        return tag(CM_WR_LOCK) | (start + k) % (uint64_t)p->atomic_lines;
    default:
        return stream_line(g);
    }
}

static uint64_t region_size(const cm_workload_profile *p, int fr)
{
    switch (fr) {
    case FR_SM:
        return (uint64_t)p->sm_shared_lines;
    case FR_GPU:
        return (uint64_t)p->gpu_shared_lines;
    case FR_FALSE:
        return (uint64_t)p->false_share_lines;
    case FR_LOCK:
        return (uint64_t)p->atomic_lines;
    default:
        return 1;
    }
}

static void emit_mem(cm_wgen *g, gsl_rng *r, cm_winst *in)
{
    const cm_workload_profile *p = &g->prof;
    double u = gsl_rng_uniform(r);
    in->op = u < p->atomic_frac                   ? CM_WOP_ATOMIC
             : u < p->atomic_frac + p->write_frac ? CM_WOP_STORE
                                                  : CM_WOP_LOAD;
    unsigned n;
    if (p->reqs_dist == 1)
        n = gsl_rng_uniform(r) < (p->reqs_mean - 1) / 31 ? 32 : 1;
    else
        n = (unsigned)draw_fixed(r, p->reqs_mean);
    if (n > CM_WINST_MAX_LINES) n = CM_WINST_MAX_LINES;
    int fr = FR_LOCK;
    if (in->op != CM_WOP_ATOMIC) {
        double v = gsl_rng_uniform(r);
        fr = v < p->share_gpu                                  ? FR_GPU
             : v < p->share_gpu + p->share_sm                  ? FR_SM
             : v < p->share_gpu + p->share_sm + p->false_share ? FR_FALSE
             : gsl_rng_uniform(r) < p->stream_frac             ? FR_STREAM
                                                               : FR_SWEEP;
    }
    uint64_t start = gsl_rng_uniform_int(r, region_size(p, fr));
    unsigned fresh = 0, words = g->line_bytes / 4;
    for (unsigned j = 0; j < n; j++) {
        uint64_t line;
        int is_new = 0;
        size_t pos = SIZE_MAX;
        if (in->op != CM_WOP_ATOMIC && gsl_rng_uniform(r) < p->reuse_prob)
            pos = j + draw_zipf(g, gsl_rng_uniform(r));
        size_t at = SIZE_MAX;
        if (pos < g->depth) {
            line = stack_at(g, pos);
            at = pos;
        } else {
            line = fresh_line(g, fr, start, fresh++);
            is_new = fr == FR_STREAM || g->skim;
            /* Positions 0..j-1 are this instruction's lines. */
            for (unsigned q = 0; !is_new && q < j; q++)
                if (stack_at(g, q) == line) {
                    line = stream_line(g);
                    is_new = 1;
                }
        }
        in->lines[j] = line;
        in->off[j] = cm_wline_region(line) == CM_WR_FALSE_SHARED
                         ? (uint16_t)(g->sm % words * 4)
                         : 0;
        stack_touch(g, line, is_new, at);
    }
    in->n = (uint8_t)n;
}

void cm_wgen_next(cm_wgen *g, cm_winst *in)
{
    const cm_workload_profile *p = &g->prof;
    gsl_rng r = rng_view(g);
    in->kind = CM_WI_END;
    in->op = 0;
    in->grid = 0;
    in->n = 0;
    in->compute = 0;
    for (;;) {
        in->kernel = (uint32_t)g->kernel;
        switch (g->stage) {
        case ST_GAP: {
            g->stage = ST_MEM;
            uint64_t c = 0;
            if (p->gap_mean > 0)
                c = p->gap_dist == 1
                        ? gsl_ran_geometric(&r, 1 / (1 + p->gap_mean)) - 1
                        : draw_fixed(&r, p->gap_mean);
            if (c == 0) continue;
            in->kind = CM_WI_COMPUTE;
            in->compute = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
            return;
        }
        case ST_MEM:
            in->kind = CM_WI_MEM;
            emit_mem(g, &r, in);
            g->mem_in_kernel++;
            g->stage =
                gsl_rng_uniform(&r) < p->fence_rate ? ST_FENCE : ST_BARRIER;
            return;
        case ST_FENCE:
            g->stage = ST_BARRIER;
            in->kind = CM_WI_FENCE;
            return;
        case ST_BARRIER:
            g->stage = ST_BOUNDARY;
            if (p->barrier_interval > 0 &&
                g->mem_in_kernel % (uint64_t)p->barrier_interval == 0) {
                in->kind = CM_WI_BARRIER;
                in->grid = p->barrier_grid > 0;
                return;
            }
            continue;
        case ST_BOUNDARY:
            g->stage = ST_GAP;
            if (g->mem_in_kernel < (uint64_t)p->kernel_len) continue;
            g->mem_in_kernel = 0;
            g->kernel++;
            g->cursor = 0;
            g->sweep_base +=
                (uint64_t)llround((1 - p->persist) * p->private_lines);
            if (g->kernel < (uint64_t)p->kernels) {
                in->kernel = (uint32_t)g->kernel;
                in->kind = CM_WI_KERNEL;
                return;
            }
            g->stage = ST_DONE;
            continue;
        default:
            in->kind = CM_WI_END;
            return;
        }
    }
}

void cm_wgen_skim(cm_wgen *g, int on)
{
    if (g->skim && !on) {
        /* Each line once, at its most recent place (a scratch hash set,
         * hot in cache across the machine's generators), the filter
         * recounted. */
        enum { SEEN = 1024 }; /* power of two, > 3 x CM_WGEN_STACK_MAX */
        uint64_t seen[SEEN];
        memset(seen, 0xFF, sizeof seen); /* no line has region bits 15 */
        memset(g->in_stack, 0, sizeof g->in_stack);
        size_t n = 0;
        for (size_t i = 0; i < g->depth; i++) {
            uint64_t line = stack_at(g, i);
            size_t b = filter_bucket(line) & (SEEN - 1);
            while (seen[b] != UINT64_MAX && seen[b] != line)
                b = (b + 1) & (SEEN - 1);
            if (seen[b] == line) continue; /* a repeat */
            seen[b] = line;
            g->in_stack[filter_bucket(line)]++;
            g->stack[stack_slot(g, n++)] = line;
        }
        g->depth = n;
    }
    g->skim = on != 0;
}
