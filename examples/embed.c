/* embed.c - embedding libcohmod in a program of your own: the MSHR
 * occupancy model on a preset machine, and LRU miss ratios from reuse
 * distances, exact and sampled, of an address stream the program makes.
 *
 * Build against an installed cohmod (make install PREFIX=...):
 *     cc -std=c11 embed.c $(pkg-config --cflags --libs cohmod) -o embed
 * and run ./embed (with PREFIX/lib on LD_LIBRARY_PATH unless it is a
 * system directory).  Every call returns a cm_status and fills a cm_err;
 * the library never exits, so the program decides what a failure means. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cohmod/cohmod.h>

static int fail(const cm_err *err)
{
    fprintf(stderr, "embed: %s\n", err->msg);
    return 1;
}

/* P(all MSHRs busy) and the mean busy entries of one SM of the li2014
 * machine (the GTX480-like one) as its MSHR file grows. */
static int mshr_demo(void)
{
    cm_params p;
    cm_err err = {0};
    cm_params_init(&p);
    if (cm_params_load(&p, "li2014", &err) ||
        cm_params_set(&p, "wl.mem_rate", "0.02", &err))
        return fail(&err);
    cm_mshr_ws *ws = cm_mshr_ws_new();
    if (!ws) return 1;
    static const char *const sizes[] = {"8", "16", "32", "64", "128"};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        cm_mshr_input in;
        cm_mshr_result r;
        if (cm_params_set(&p, "l1.mshrs", sizes[i], &err)) break;
        cm_mshr_input_from_params(&p, &in);
        if (cm_mshr_solve(&in, ws, &r, NULL, &err)) break;
        char pf[32], occ[32];
        cm_fmt_double(pf, r.p_full);
        cm_fmt_double(occ, r.mean_occupancy);
        printf("mshr mshrs=%s p_full=%s occupancy=%s bottleneck=%s\n",
               sizes[i], pf, occ, cm_mshr_resource_name(r.bottleneck));
    }
    cm_mshr_ws_free(ws);
    return err.code ? fail(&err) : 0;
}

/* A loop over LINES lines, ROUNDS times: every access after the first
 * round has stack distance LINES - 1, so an LRU cache of LINES - 1 lines
 * misses every access and one of LINES lines only the cold ones,
 * 1 / ROUNDS of them. */
#define LINES 1000
#define ROUNDS 10

static int reuse_demo(const char *sampling)
{
    cm_sample_spec spec;
    cm_reuse_engine *e = NULL;
    cm_reuse_hist h = {0};
    cm_err err = {0};
    if (cm_sample_spec_parse(sampling, &spec, &err) ||
        cm_reuse_engine_new(&spec, 4096, &e, &err))
        return fail(&err);
    cm_status st = CM_OK;
    for (uint64_t k = 0; k < (uint64_t)LINES * ROUNDS && !st; k++)
        st = cm_reuse_engine_access(e, k % LINES, &err);
    if (!st) st = cm_reuse_engine_finish(e, &h, &err);
    if (!st) {
        char below[32], at[32];
        cm_fmt_double(below, cm_reuse_hist_miss_ratio(&h, LINES - 1));
        cm_fmt_double(at, cm_reuse_hist_miss_ratio(&h, LINES));
        printf("reuse %s miss_ratio(%d)=%s miss_ratio(%d)=%s\n", sampling,
               LINES - 1, below, LINES, at);
    }
    cm_reuse_hist_free(&h);
    cm_reuse_engine_free(e);
    return st ? fail(&err) : 0;
}

int main(void)
{
    int rc = mshr_demo();
    if (!rc) rc = reuse_demo("none");
    if (!rc) rc = reuse_demo("shards:0.1");
    return rc;
}
