/* report.c - report.html: the study on one self-contained page (study.h).
 *
 * The page holds the summary's findings, every figure the study drew as
 * inline SVG under a one-line caption (what it shows, what to read from
 * it), and the key tables (the validations' held-out errors, seed 000's
 * statements beside ours).  Nothing is linked: no script, no style sheet,
 * no image file, so the page survives being mailed or archived alone.
 *
 * The figures come from the files, not from memory, so a merge of shards
 * or a resumed run writes the same page as one uninterrupted run.  Every
 * figure has its caption in the table below: a figure with none, or a
 * caption whose figure is missing, is an error, so the page can neither
 * leave a figure out nor describe one that is not there.
 *
 * Cairo names the glyphs and clip paths of every SVG alike (glyph0-1,
 * clip1); inline, those ids would collide across figures, so each
 * figure's are prefixed with its number. */
#include "study/study.h"

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "data/atomic.h"
#include "data/table.h"

typedef struct fig_entry {
    const char *section;
    const char *name;    /* path under the study's directory, without
                            ".svg"; one '*' stands for a workload's name */
    const char *caption; /* "{}" is replaced by what '*' matched */
} fig_entry;

static const fig_entry figures[] = {
    {"MSHR occupancy", "mshr_pfull_vs_entries",
     "Time with every L1 MSHR busy against the MSHR count, a line per "
     "memory intensity: past the point where a line nears zero, more MSHRs "
     "buy nothing."},
    {"MSHR occupancy", "mshr_occupancy_vs_entries",
     "Mean busy MSHRs against the MSHR count: where a line turns flat is "
     "the occupancy the workload needs; left of it the MSHRs are the "
     "limit."},
    {"MSHR occupancy", "mshr_bandwidth_vs_entries",
     "L1 miss bandwidth of the GPU against the MSHR count: it stops rising "
     "where the crossbar, L2 or DRAM becomes the limit instead."},
    {"MSHR occupancy", "mshr_pfull_vs_warps",
     "Time with every MSHR busy against active warps at high intensity: "
     "the knee is the warp count above which throttling pays."},
    {"MSHR occupancy", "mshr_throughput_vs_warps",
     "Memory instructions per cycle per SM against active warps at high "
     "intensity: the plateau is the memory system's throughput limit."},
    {"MSHR occupancy", "mshr_occupancy_pmf",
     "The distribution of busy MSHRs at high intensity: mass at the right "
     "end means the file is often full."},
    {"Reuse of a real trace", "reuse_mrc",
     "Miss ratio against cache capacity, exact and sampled: a sampled curve "
     "should lie on the exact one wherever it is drawn."},
    {"Reuse of a real trace", "reuse_setassoc",
     "Set-associative miss ratio against capacity, a panel per "
     "associativity: the gap between a model and the simulation is its "
     "error."},
    {"Reuse of a real trace", "reuse_interleave",
     "L1 hit rate against interleaved warps, model and simulation: each "
     "warp's share of the cache shrinks as warps are added."},
    {"MSHR model against the simulator", "validate_mshr/parity_occupancy",
     "Simulated against modelled mean MSHR occupancy at every point of a "
     "random design over both presets: points on the dashed line are "
     "exact; a count marks repeated points."},
    {"MSHR model against the simulator", "validate_mshr/parity_p_full",
     "Simulated against modelled time with every MSHR busy: distance from "
     "the dashed line is the model's error at that point."},
    {"L1 reuse model against the simulator",
     "validate_reuse/parity_l1_miss_ratio",
     "Simulated against predicted L1 miss ratio at every design point: "
     "points on the dashed line are exact."},
    {"Directory traffic model against the simulator",
     "validate_directory/parity_msgs_per_access",
     "Simulated against modelled coherence messages per L1 access under "
     "GPU-VI: distance from the dashed line is the model's error."},
    {"Directory traffic model against the simulator",
     "validate_directory/parity_flits_per_access",
     "Simulated against modelled interconnect flits per L1 access under "
     "GPU-VI."},
    {"Recall model against the simulator",
     "validate_recall/parity_recalls_per_access",
     "Simulated against modelled recalls per directory access under "
     "GPU-VIni, over directory sizes and associativities."},
    {"Lifetime model against the simulator", "validate_lifetime/parity_p_hit",
     "Simulated against modelled share of TCS copies hit before they "
     "expire, over lifetimes."},
    {"Lifetime model against the simulator",
     "validate_lifetime/parity_p_expired",
     "Simulated against modelled share of TCS copies that expire before "
     "their next use."},
    {"Lifetime model against the simulator",
     "validate_lifetime/parity_stall_cycles",
     "Simulated against modelled TCS store stall per L2 store: the cost "
     "of waiting for leases to expire."},
    {"Coherence protocols", "coh/speed",
     "IPC of each protocol over NO-COH's on each workload: bars below the "
     "dashed line are speed lost to keeping L1s coherent."},
    {"Coherence protocols", "coh/traffic",
     "Interconnect flits per instruction over NO-COH's: bars above the "
     "dashed line are the traffic coherence costs."},
    {"Coherence protocols", "coh/traffic_class",
     "Messages per 1000 instructions by class, the workloads pooled: "
     "which messages each protocol adds."},
    {"Coherence protocols", "coh/tc_outcomes",
     "How the L1 copies of the temporal-coherence protocols end: hits "
     "before expiry are the reuse a lifetime buys."},
    {"Coherence protocols", "coh/lifetime_sweep",
     "Geomean speed of TCS and TCW-FIXED against their fixed lifetime: the "
     "peak is the best lifetime on these workloads."},
    {"Coherence protocols", "coh/dir_sweep_speed",
     "GPU-VIni's speed against its directory size R, a line per "
     "associativity: flat lines mean the size does not matter here."},
    {"Coherence protocols", "coh/dir_sweep_recalls",
     "GPU-VIni's recalls per 1000 instructions against directory size R: "
     "recalls fall as the directory grows."},
    {"Coherence protocols", "coh/predictor_sweep",
     "TCW's speed against each TC-Weak predictor constant, a panel each: a "
     "flat panel means that constant hardly matters."},
};
#define NFIGURES (sizeof figures / sizeof *figures)

/* The directories the study draws into, for figures with no caption. */
static const char *const figure_dirs[] = {
    "", "validate_mshr/", "validate_reuse/", "validate_directory/",
    "validate_recall/", "validate_lifetime/", "coh/"};

typedef struct key_table {
    const char *path, *title;
    const char *cols[8];  /* the CSV's columns shown */
    const char *heads[8]; /* their headings on the page */
} key_table;

#define SUMMARY_COLS                                                           \
    {"quantity", "heldout_points", "mare", "mean_abs_error", "target",         \
     "target_value", "target_met"},                                            \
    {"quantity", "held-out points", "mean relative error",                     \
     "mean absolute error", "target measure", "target", "target met"}
static const key_table tables[] = {
    {"validate_mshr/summary.csv",
     "MSHR model: held-out errors against the simulator", SUMMARY_COLS},
    {"validate_reuse/summary.csv",
     "L1 miss ratio from reuse distances: held-out errors", SUMMARY_COLS},
    {"validate_directory/summary.csv",
     "Directory traffic model (GPU-VI): held-out errors", SUMMARY_COLS},
    {"validate_recall/summary.csv",
     "Recall model (GPU-VIni): held-out errors", SUMMARY_COLS},
    {"validate_lifetime/summary.csv",
     "Lifetime model (TCS): held-out errors", SUMMARY_COLS},
    {"coh/seed_compare.csv",
     "Seed 000's statements beside our numbers",
     {"claim", "seed_value", "our_value", "ordering_holds",
      "ratio_to_seed"},
     {"claim", "seed 000", "ours", "ordering holds (1 = yes)",
      "ours / seed's"}},
};
#define NTABLES (sizeof tables / sizeof *tables)

/* ---- a growing page ---------------------------------------------------- */

typedef struct page {
    char *text;
    size_t len, cap;
    int oom;
} page;

static void put_n(page *pg, const char *s, size_t n)
{
    if (pg->oom) return;
    if (pg->len + n + 1 > pg->cap) {
        size_t cap = (pg->len + n + 1) * 2;
        char *g = realloc(pg->text, cap);
        if (!g) {
            pg->oom = 1;
            return;
        }
        pg->text = g;
        pg->cap = cap;
    }
    memcpy(pg->text + pg->len, s, n);
    pg->len += n;
    pg->text[pg->len] = '\0';
}

static void put(page *pg, const char *s)
{
    put_n(pg, s, strlen(s));
}

/* Text as HTML: <, >, & and quotes escaped. */
static void put_text(page *pg, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': put(pg, "&lt;"); break;
        case '>': put(pg, "&gt;"); break;
        case '&': put(pg, "&amp;"); break;
        case '"': put(pg, "&quot;"); break;
        default: put_n(pg, s, 1);
        }
    }
}

/* ---- figures ------------------------------------------------------------ */

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
            (buf = malloc((size_t)n + 1))) {
            if (fread(buf, 1, (size_t)n, f) == (size_t)n) {
                buf[n] = '\0';
                *len = (size_t)n;
            } else {
                free(buf);
                buf = NULL;
            }
        }
    }
    fclose(f);
    return buf;
}

/* The SVG's own element, its ids prefixed with "f<k>-". */
static cm_status put_svg(page *pg, const char *path, size_t k, cm_err *err)
{
    size_t len = 0;
    char *svg = read_all(path, &len);
    if (!svg) return cm_err_set(err, CM_EINPUT, "%s: cannot read", path);
    const char *p = strstr(svg, "<svg");
    if (!p) {
        free(svg);
        return cm_err_set(err, CM_EINPUT, "%s: not an SVG file", path);
    }
    static const char *const refs[] = {"id=\"", "href=\"#", "url(#"};
    char prefix[32];
    snprintf(prefix, sizeof prefix, "f%zu-", k);
    while (*p) {
        const char *next = NULL;
        size_t which = 0;
        for (size_t r = 0; r < 3; r++) {
            const char *q = strstr(p, refs[r]);
            if (q && (!next || q < next)) {
                next = q;
                which = r;
            }
        }
        if (!next) {
            put(pg, p);
            break;
        }
        size_t n = strlen(refs[which]);
        put_n(pg, p, (size_t)(next - p) + n);
        put(pg, prefix);
        p = next + n;
    }
    free(svg);
    return CM_OK;
}

typedef struct match_list {
    char names[64][512]; /* the paths matched, under the study's directory */
    char wild[64][256];  /* what '*' matched */
    size_t n;
} match_list;

static int cmp_names(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* The SVG files a figure entry names: its one file, or every workload's
 * for a name with '*'. */
static cm_status find_figures(const char *outdir, const char *name,
                              match_list *m, cm_err *err)
{
    m->n = 0;
    const char *star = strchr(name, '*');
    char path[4096];
    if (!star) {
        snprintf(path, sizeof path, "%s/%s.svg", outdir, name);
        FILE *f = fopen(path, "rb");
        if (f) {
            fclose(f);
            snprintf(m->names[0], sizeof m->names[0], "%.500s", name);
            m->wild[0][0] = '\0';
            m->n = 1;
        }
        return CM_OK;
    }
    const char *slash = strrchr(name, '/');
    size_t dlen = slash ? (size_t)(slash - name) + 1 : 0;
    snprintf(path, sizeof path, "%s/%.*s", outdir, (int)dlen, name);
    const char *head = name + dlen;
    size_t hlen = (size_t)(star - head);
    DIR *d = opendir(path);
    if (!d) return CM_OK;
    char found[64][256];
    size_t n = 0;
    if (dlen > 200) {
        closedir(d);
        return cm_err_set(err, CM_EINPUT, "%s: name too long", name);
    }
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len <= hlen + 4 || strncmp(e->d_name, head, hlen) ||
            strcmp(e->d_name + len - 4, ".svg"))
            continue;
        if (n == 64) {
            closedir(d);
            return cm_err_set(err, CM_EINPUT, "%s: too many figures", path);
        }
        snprintf(found[n++], sizeof found[0], "%.*s", (int)(len - 4),
                 e->d_name);
    }
    closedir(d);
    qsort(found, n, sizeof found[0], cmp_names);
    for (size_t i = 0; i < n; i++) {
        snprintf(m->names[i], sizeof m->names[i], "%.*s%.255s", (int)dlen,
                 name, found[i]);
        snprintf(m->wild[i], sizeof m->wild[i], "%.200s", found[i] + hlen);
    }
    m->n = n;
    return CM_OK;
}

/* Whether an SVG file's name (under the study's directory, without
 * ".svg") has a caption. */
static int has_caption(const char *name)
{
    for (size_t i = 0; i < NFIGURES; i++) {
        const char *pat = figures[i].name, *star = strchr(pat, '*');
        if (!star) {
            if (!strcmp(pat, name)) return 1;
            continue;
        }
        size_t h = (size_t)(star - pat);
        if (!strncmp(name, pat, h) && strlen(name) > h &&
            !strchr(name + h, '/'))
            return 1;
    }
    return 0;
}

static cm_status check_captions(const char *outdir, cm_err *err)
{
    for (size_t k = 0; k < sizeof figure_dirs / sizeof *figure_dirs; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", outdir, figure_dirs[k]);
        DIR *d = opendir(path);
        if (!d) continue;
        cm_status st = CM_OK;
        for (struct dirent *e; !st && (e = readdir(d));) {
            size_t len = strlen(e->d_name);
            if (len < 5 || strcmp(e->d_name + len - 4, ".svg")) continue;
            char name[512];
            snprintf(name, sizeof name, "%s%.*s", figure_dirs[k],
                     (int)(len - 4), e->d_name);
            if (!has_caption(name))
                st = cm_err_set(err, CM_EINTERNAL,
                                "%s/%s.svg: the study drew a figure "
                                "report.html has no caption for",
                                outdir, name);
        }
        closedir(d);
        if (st) return st;
    }
    return CM_OK;
}

static void put_caption(page *pg, const char *caption, const char *wild)
{
    const char *at = strstr(caption, "{}");
    if (!at) {
        put_text(pg, caption);
        return;
    }
    char head[512];
    snprintf(head, sizeof head, "%.*s", (int)(at - caption), caption);
    put_text(pg, head);
    put_text(pg, wild);
    put_text(pg, at + 2);
}

/* ---- tables ----------------------------------------------------------- */

/* A cell: a number to three significant digits (an integer as it is),
 * right-aligned; text as it is. */
static void put_cell(page *pg, const char *cell)
{
    char *end;
    double v = strtod(cell, &end);
    int number = *cell && !*end && isfinite(v);
    put(pg, number ? "<td class=\"num\">" : "<td>");
    if (number && strspn(cell, "-0123456789") != strlen(cell)) {
        char buf[64];
        snprintf(buf, sizeof buf, "%.3g", v);
        put_text(pg, buf);
    } else {
        put_text(pg, cell);
    }
    put(pg, "</td>");
}

static cm_status put_table(page *pg, const char *outdir, const key_table *kt,
                           cm_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", outdir, kt->path);
    struct stat sb;
    if (stat(path, &sb) != 0) return CM_OK; /* its section did not run */
    cm_table *t = NULL;
    cm_status st = cm_table_read_file(path, &t, err);
    if (st) return st;
    size_t cols[8], nc = 0;
    for (size_t c = 0; c < 8 && kt->cols[c]; c++) {
        long k = cm_table_col_find(t, kt->cols[c]);
        if (k < 0) {
            cm_table_free(t);
            return cm_err_set(err, CM_EINPUT, "%s: no column '%s'", path,
                              kt->cols[c]);
        }
        cols[nc++] = (size_t)k;
    }
    put(pg, "<table>\n<caption>");
    put_text(pg, kt->title);
    put(pg, " (");
    put_text(pg, kt->path);
    put(pg, ")</caption>\n<tr>");
    for (size_t c = 0; c < nc; c++) {
        put(pg, "<th title=\"");
        put_text(pg, kt->cols[c]); /* the CSV's name, on hover */
        put(pg, "\">");
        put_text(pg, kt->heads[c]);
        put(pg, "</th>");
    }
    put(pg, "</tr>\n");
    for (size_t r = 0; r < cm_table_nrows(t); r++) {
        put(pg, "<tr>");
        for (size_t c = 0; c < nc; c++)
            put_cell(pg, cm_table_cell(t, r, cols[c]));
        put(pg, "</tr>\n");
    }
    put(pg, "</table>\n");
    cm_table_free(t);
    return CM_OK;
}

/* ---- the page ------------------------------------------------------------ */

static const char style[] =
    "body{font-family:sans-serif;max-width:60em;margin:2em auto;"
    "padding:0 1em;color:#111;line-height:1.4}"
    "h1,h2{font-weight:600}"
    "pre{white-space:pre-wrap;background:#f6f6f6;padding:1em;"
    "font-size:0.9em}"
    "figure{margin:2em 0;border-top:1px solid #ddd;padding-top:1em}"
    "figure svg{width:100%;height:auto;max-width:46em;display:block}"
    "figcaption{margin-top:0.5em}"
    "figcaption code{font-size:0.85em;color:#555}"
    "table{border-collapse:collapse;margin:1em 0;font-size:0.9em}"
    "caption{text-align:left;font-weight:600;padding:0.3em 0}"
    "td,th{border:1px solid #ccc;padding:0.2em 0.5em;vertical-align:top}"
    "td.num{text-align:right;font-variant-numeric:tabular-nums}";

cm_status cm_study_report(const char *outdir, const char *summary,
                          cm_err *err)
{
    cm_status st = check_captions(outdir, err);
    if (st) return st;
    page pg = {0};
    put(&pg, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
             "<meta charset=\"utf-8\">\n<title>cohmod study</title>\n"
             "<style>");
    put(&pg, style);
    put(&pg, "</style>\n</head>\n<body>\n<h1>cohmod study</h1>\n"
             "<p>Every number here is in the CSV files beside this page; "
             "each figure is also a PNG and an SVG file of its own.</p>\n"
             "<h2 id=\"findings\">Findings</h2>\n<pre>");
    put_text(&pg, summary);
    put(&pg, "</pre>\n<h2 id=\"tables\">Key tables</h2>\n");
    for (size_t i = 0; !st && i < NTABLES; i++)
        st = put_table(&pg, outdir, &tables[i], err);
    size_t k = 0;
    match_list *m = malloc(sizeof *m);
    if (!m) st = cm_err_set(err, CM_EINTERNAL, "out of memory");
    /* section by section: one that ran shows every figure of it; one that
     * did not (the library's study without a trace has no reuse section)
     * says so */
    for (size_t i = 0; !st && i < NFIGURES;) {
        const char *section = figures[i].section;
        size_t end = i, found = 0;
        while (end < NFIGURES && !strcmp(figures[end].section, section)) {
            st = st ? st : find_figures(outdir, figures[end].name, m, err);
            found += m->n > 0;
            end++;
        }
        put(&pg, "<h2>");
        put_text(&pg, section);
        put(&pg, "</h2>\n");
        if (!st && found == 0) put(&pg, "<p>This section did not run.</p>\n");
        for (; !st && found && i < end; i++) {
            const fig_entry *fe = &figures[i];
            st = find_figures(outdir, fe->name, m, err);
            if (!st && m->n == 0)
                st = cm_err_set(err, CM_EINPUT,
                                "%s/%s.svg: figure missing (report.html "
                                "shows every figure of the study)",
                                outdir, fe->name);
            for (size_t j = 0; !st && j < m->n; j++) {
                char path[4096];
                snprintf(path, sizeof path, "%s/%s.svg", outdir,
                         m->names[j]);
                put(&pg, "<figure data-name=\"");
                put_text(&pg, m->names[j]);
                put(&pg, "\">\n");
                st = put_svg(&pg, path, k++, err);
                put(&pg, "\n<figcaption>");
                put_caption(&pg, fe->caption, m->wild[j]);
                put(&pg, " <code>");
                put_text(&pg, m->names[j]);
                put(&pg, ".png</code></figcaption>\n</figure>\n");
            }
        }
        i = end;
    }
    free(m);
    put(&pg, "</body>\n</html>\n");
    if (!st && pg.oom) st = cm_err_set(err, CM_EINTERNAL, "out of memory");
    char path[4096];
    if (!st && (size_t)snprintf(path, sizeof path, "%s/report.html",
                                outdir) >= sizeof path)
        st = cm_err_set(err, CM_EINPUT, "%s: output path too long", outdir);
    if (!st) st = cm_atomic_write(path, pg.text, pg.len, err);
    free(pg.text);
    return st;
}
