/* check_figures.c - the study's figures and its report.html, checked on
 * what was drawn.
 *
 * The study runs once, in this process (an unchecked fixture, before the
 * forked tests), with every coherence simulation cut short; the plotting
 * layer hands each figure's record to an observer (cm_plot_set_observer),
 * and the tests read those records: first the rules every figure keeps
 * (tests/figcheck.h), then, for each figure issue 24 names, the fix it
 * asked for.  report.html is rendered by headless Chromium, which runs a
 * small check inside the page and writes what it found into the DOM it
 * dumps. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/datadir.h"
#include "data/params.h"
#include "plots/plot.h"
#include "sim/protocol.h"
#include "study/study.h"
#include "study/validate.h"
#include "tests/figcheck.h"
#include "tests/testutil.h"

#define MAX_FIGS 256

static char *outdir, *griddir; /* the study's; the grid validations' */
static fc_record *recs[MAX_FIGS];
static size_t nrecs;
static char study_error[1024];

/* PNG records only: the SVG of each figure is drawn from the same spec. */
static void observe(const cm_plot_record *r, void *arg)
{
    (void)arg;
    size_t n = strlen(r->path);
    if (n > 4 && !strcmp(r->path + n - 4, ".png") && nrecs < MAX_FIGS)
        recs[nrecs++] = fc_copy(r);
}

/* A grid validation (the study draws random designs, which have no axes
 * to draw along): its figures along the last axis, as `cohmod validate`
 * draws them by default, into griddir/grid_<model> (not the study's
 * directory: its report shows what is there). */
static cm_status run_grid(const cm_validate_model *m,
                          const char *const axes[2], cm_err *err)
{
    static const char *const wl[] = {"kmn", "bfs", "cfd"};
    cm_params p;
    cm_params_init(&p);
    p.gpu_sms = 2;
    p.sim_max_cycles = 20000;
    cm_sweep sw[2];
    size_t n = 0;
    cm_status st = CM_OK;
    for (; n < 2 && !st; n++) st = cm_sweep_parse(axes[n], &sw[n], err);
    if (st) n--;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/grid_%s", griddir, m->name);
    cm_validate_config c = {.base = &p,
                            .model = m,
                            .axes = sw,
                            .naxes = 2,
                            .workloads = wl,
                            .nworkloads = 3,
                            .protocol = cm_protocol_find("no-coh"),
                            .outdir = dir,
                            .mode = CM_RUN_WHOLE};
    cm_validate_summary sum;
    if (!st) st = cm_validate_run(&c, &sum, err);
    for (size_t k = 0; k < n; k++) cm_sweep_free(&sw[k]);
    return st;
}

static void run_study(void)
{
    outdir = tu_tmpdir();
    griddir = tu_tmpdir();
    cm_params p;
    cm_params_init(&p);
    p.sim_max_cycles = 5000; /* short coherence runs, as check_cli_study */
    cm_err err = {0};
    char trace[4096];
    /* the trace `cohmod study` reads by default */
    if (cm_data_path("traces/sort.lackey", trace, sizeof trace, &err)) {
        snprintf(study_error, sizeof study_error, "%s", err.msg);
        return;
    }
    cm_plot_set_observer(observe, NULL);
    static const char *const mshr_axes[] = {"l1.mshrs=8,16,32",
                                            "sched.active_warps=8,24,48"};
    static const char *const reuse_axes[] = {"l1.size=16K,64K",
                                             "sched.active_warps=8,24,48"};
    if (cm_study_run(&p, outdir, trace, NULL, NULL, NULL, NULL, &err))
        snprintf(study_error, sizeof study_error, "the study failed: %s",
                 err.msg);
    else if (run_grid(&cm_validate_mshr, mshr_axes, &err) ||
             run_grid(&cm_validate_reuse, reuse_axes, &err))
        snprintf(study_error, sizeof study_error,
                 "a grid validation failed: %s", err.msg);
    cm_plot_set_observer(NULL, NULL);
}

static void remove_study(void)
{
    for (size_t i = 0; i < nrecs; i++) fc_free(recs[i]);
    nrecs = 0;
    if (outdir) tu_rm_tree(outdir);
    if (griddir) tu_rm_tree(griddir);
    free(outdir);
    free(griddir);
    outdir = griddir = NULL;
}

static const cm_plot_record *figure(const char *name)
{
    ck_assert_msg(!study_error[0], "%s", study_error);
    char tail[300];
    snprintf(tail, sizeof tail, "/%s.png", name);
    const cm_plot_record *r = fc_find(recs, nrecs, tail);
    ck_assert_msg(r != NULL, "the study drew no %s.png", name);
    return r;
}

static void assert_rules(const cm_plot_record *r)
{
    char msg[1024];
    ck_assert_msg(fc_check(r, msg, sizeof msg), "%s", msg);
}

/* Every mark of a kind inside its panel's frame. */
static void assert_marks_inside(const cm_plot_record *r)
{
    for (size_t m = 0; m < r->nmarks; m++) {
        const cm_plot_mark *mk = &r->marks[m];
        if (mk->kind != CM_MARK_MARKER && mk->kind != CM_MARK_BAR) continue;
        const cm_plot_box *a = &r->plot_areas[r->series[mk->series].panel];
        const double eps = 1e-9;
        ck_assert_msg(mk->box.y0 >= a->y0 - eps && mk->box.y1 <= a->y1 + eps,
                      "%s: a mark of '%s' at y %.3f-%.3f crosses the frame "
                      "(%.3f-%.3f)",
                      r->path, r->series[mk->series].label, mk->box.y0,
                      mk->box.y1, a->y0, a->y1);
    }
}

/* ---- every figure -------------------------------------------------------- */

START_TEST(test_every_figure_keeps_the_rules)
{
    ck_assert_msg(!study_error[0], "%s", study_error);
    /* the study: 6 MSHR, 3 reuse, 8 validation parity (mshr 2, reuse 1,
     * directory 2, lifetime 3; recall does not run on 5000-cycle runs), 8
     * coherence figures; the grid validations: 2 parity + 6 per-workload
     * (mshr), 1 + 3 (reuse) */
    ck_assert_uint_eq(nrecs, 6 + 3 + 8 + 8 + 8 + 4);
    for (size_t i = 0; i < nrecs; i++) assert_rules(&recs[i]->rec);
}
END_TEST

/* ---- the figures issue 24 names ---------------------------------------- */

/* Protocols per workload: a categorical axis with the workloads' names,
 * grouped bars, a panel per protocol family (no colour twice), NO-COH
 * the dashed line, every bar and its marker inside the frame (the old
 * speed.png clipped values at its y floor). */
static void check_per_workload(const char *name)
{
    const cm_plot_record *r = figure(name);
    assert_rules(r);
    ck_assert_uint_eq(r->npanels, 2);
    static const char *const wl[] = {"bh", "dlb", "hsp", "sr"};
    for (size_t a = 0; a < r->naxes; a++) {
        if (r->axes[a].axis != 'x') continue;
        ck_assert(r->axes[a].categorical);
        ck_assert_uint_eq(r->axes[a].nticks, 4);
        for (size_t k = 0; k < 4; k++)
            ck_assert_str_eq(r->axes[a].ticks[k], wl[k]);
    }
    static const char *const protocols[] = {
        "NO-L1", "MESI", "GPU-VI", "GPU-VIni", "TCSUO", "TCS", "TCSOO",
        "TCW", "TCW-FIXED", "NO-COH (= 1)"};
    for (size_t p = 0; p < 10; p++) {
        long s = fc_series(r, protocols[p]);
        ck_assert_msg(s >= 0, "%s: no series '%s'", name, protocols[p]);
        ck_assert_int_eq(r->series[s].line, p == 9); /* only the baseline */
        ck_assert_uint_eq(r->series[s].points, p == 9 ? 2 : 4);
    }
    size_t bars = 0;
    for (size_t m = 0; m < r->nmarks; m++)
        bars += r->marks[m].kind == CM_MARK_BAR;
    ck_assert_uint_eq(bars, 9 * 4);
    assert_marks_inside(r);
}

START_TEST(test_speed_figure)
{
    check_per_workload("coh/speed");
}
END_TEST

START_TEST(test_traffic_figure)
{
    check_per_workload("coh/traffic");
}
END_TEST

/* Bars over categories: the x axis names them, no series is a line, and
 * every bar and marker stays inside the frame. */
static const cm_plot_record *check_bars(const char *name, size_t ncat,
                                        size_t k, const char *tick,
                                        size_t nseries)
{
    const cm_plot_record *r = figure(name);
    assert_rules(r);
    ck_assert(r->axes[0].categorical);
    ck_assert_uint_eq(r->axes[0].nticks, ncat);
    ck_assert_str_eq(r->axes[0].ticks[k], tick);
    ck_assert_uint_eq(r->nseries, nseries);
    for (size_t i = 0; i < r->nseries; i++) ck_assert(!r->series[i].line);
    assert_marks_inside(r);
    return r;
}

/* 18 message classes were 18 series recycling 8 colours; now 6 classes of
 * messages, bars over the protocols' names. */
START_TEST(test_traffic_class_figure)
{
    const cm_plot_record *r =
        check_bars("coh/traffic_class", 10, 2, "MESI", 6);
    ck_assert_int_ge(fc_series(r, "invalidations, recalls and their acks"),
                     0);
}
END_TEST

START_TEST(test_tc_outcomes_figure)
{
    check_bars("coh/tc_outcomes", 5, 0, "TCSUO", 4);
}
END_TEST

/* Three constants were on one x axis; now a panel each, its axis named
 * after its constant. */
START_TEST(test_predictor_sweep_figure)
{
    const cm_plot_record *r = figure("coh/predictor_sweep");
    assert_rules(r);
    ck_assert_uint_eq(r->npanels, 3);
    static const char *const names[] = {"t_hit", "t_evict", "t_write"};
    size_t seen = 0;
    for (size_t a = 0; a < r->naxes; a++)
        if (r->axes[a].axis == 'x') {
            ck_assert_msg(strstr(r->axes[a].label, names[r->axes[a].panel]),
                          "panel %zu's x axis is '%s'", r->axes[a].panel + 1,
                          r->axes[a].label);
            seen++;
        }
    ck_assert_uint_eq(seen, 3);
    for (size_t i = 0; i < r->nseries; i++)
        ck_assert_uint_eq(r->series[i].panel, i);
}
END_TEST

/* The legends hid the rising part of the curves; the rules check it on
 * the record.  The legends name intensities with their unit. */
START_TEST(test_mshr_legend_figures)
{
    static const char *const names[] = {"mshr_occupancy_vs_entries",
                                        "mshr_bandwidth_vs_entries",
                                        "mshr_pfull_vs_entries"};
    for (size_t k = 0; k < 3; k++) {
        const cm_plot_record *r = figure(names[k]);
        assert_rules(r);
        ck_assert_uint_eq(r->nlegends, 1);
        ck_assert_int_ge(fc_series(r, "0.1 inst/inst"), 0);
        ck_assert_ptr_nonnull(strstr(r->axes[0].label, "L1 MSHRs"));
    }
}
END_TEST

/* A stray "(x10^-2)" stood beside the title: the ticks are plain decimals
 * now. */
START_TEST(test_mshr_throughput_figure)
{
    const cm_plot_record *r = figure("mshr_throughput_vs_warps");
    assert_rules(r);
    const cm_plot_axis_rec *y = &r->axes[1];
    ck_assert_int_eq(y->axis, 'y');
    ck_assert_uint_ge(y->nticks, 3);
    for (size_t t = 0; t < y->nticks; t++) {
        double v = strtod(y->ticks[t], NULL);
        ck_assert_msg(v == 0 || v < 0.1, "tick '%s'", y->ticks[t]);
    }
    ck_assert_ptr_nonnull(strstr(y->label, "(inst/cycle)"));
}
END_TEST

/* A grid validation's figure along its last axis for its w-th workload,
 * checked against the rules. */
static const cm_plot_record *along_axis(const char *stem, size_t w)
{
    static const char *const wl[] = {"bfs", "cfd", "kmn"};
    char name[160];
    snprintf(name, sizeof name, "%s_vs_sched.active_warps_%s", stem, wl[w]);
    const cm_plot_record *r = figure(name);
    assert_rules(r);
    return r;
}

/* Model and simulation of one configuration in one colour: the model a
 * line without markers, the simulation markers without a line, one legend
 * entry for both. */
START_TEST(test_validate_mshr_figures)
{
    for (size_t w = 0; w < 3; w++) {
        const cm_plot_record *r = along_axis("grid_mshr/occupancy", w);
        ck_assert_uint_eq(r->nseries, 6);
        for (size_t i = 0; i < 6; i += 2) {
            const cm_plot_series_rec *sim = &r->series[i],
                                     *model = &r->series[i + 1];
            ck_assert_int_eq(sim->colour, model->colour);
            ck_assert_uint_eq(sim->entry, model->entry);
            ck_assert(!sim->line && sim->marker >= 0);
            ck_assert(model->line && model->marker == CM_PLOT_NO_MARKER);
            ck_assert_ptr_nonnull(strstr(sim->label, "entries"));
        }
        ck_assert_int_ne(r->series[0].colour, r->series[2].colour);
    }
}
END_TEST

/* 27 points looked like 8: each marker now stands for the points it
 * covers, with their number beside it where no other count or marker is
 * (the rules check that). */
START_TEST(test_parity_figures)
{
    static const char *const names[] = {"validate_mshr/parity_p_full",
                                        "validate_mshr/parity_occupancy",
                                        "validate_reuse/parity_l1_miss_ratio"};
    /* the study's designs: 3 points per workload and preset cell, over
     * the 25 built-in workloads (mshr) and 4 (reuse) */
    static const size_t points[] = {150, 150, 24};
    static const char *const titles[] = {"MSHR model against", "MSHR model "
                                         "against", "L1 reuse model against"};
    for (size_t k = 0; k < 3; k++) {
        const cm_plot_record *r = figure(names[k]);
        assert_rules(r);
        /* the model by its name, not its command's ("mshr model") */
        ck_assert_msg(!strncmp(r->title, titles[k], strlen(titles[k])),
                      "%s: title '%s'", names[k], r->title);
        size_t total = 0, shown = 0;
        for (size_t i = 0; i < r->nseries; i++)
            if (r->series[i].colour != CM_PLOT_REF_COLOUR)
                total += r->series[i].points;
        for (size_t m = 0; m < r->nmarks; m++) {
            if (r->marks[m].kind == CM_MARK_MARKER) shown++;
            if (r->marks[m].kind == CM_MARK_COUNT)
                shown += (size_t)r->marks[m].count - 1;
        }
        ck_assert_uint_eq(total, points[k]);
        ck_assert_msg(shown == total, "%s: markers and counts show %zu of "
                      "%zu points", names[k], shown, total);
    }
}
END_TEST

/* Two x points per series made every line straight: three now.  The
 * legend names L1 sizes as sizes ("16 KB", not "16384 B"). */
START_TEST(test_validate_reuse_figures)
{
    for (size_t w = 0; w < 3; w++) {
        const cm_plot_record *r =
            along_axis("grid_reuse/l1_miss_ratio", w);
        for (size_t i = 0; i < r->nseries; i++)
            ck_assert_uint_ge(r->series[i].points, 3);
        ck_assert_int_ge(fc_series(r, "16 KB"), 0);
    }
}
END_TEST

/* The sampled curves are named by their method, not by the --sample spec
 * ("shards:0.01"). */
START_TEST(test_reuse_mrc_figure)
{
    const cm_plot_record *r = figure("reuse_mrc");
    assert_rules(r);
    static const char *const names[] = {"exact", "SHARDS, 1% of lines",
                                        "SHARDS, 10% of lines",
                                        "StatStack, 1% of accesses"};
    for (size_t k = 0; k < 4; k++)
        ck_assert_msg(fc_series(r, names[k]) >= 0, "no series '%s'",
                      names[k]);
}
END_TEST

/* ---- report.html in a browser --------------------------------------------- */

/* Runs inside the page: every figure an SVG element that rendered to a
 * real size with something drawn in it, every caption there, nothing
 * fetched from elsewhere; the findings there too, and the key tables
 * headed in words, not CSV column names.  The result goes into
 * attributes of <body>, which --dump-dom prints. */
static const char page_check[] =
    "<script>(function(){var bad=[],names=[];"
    "document.querySelectorAll('figure').forEach(function(f){"
    "var n=f.getAttribute('data-name');names.push(n);"
    "var s=f.querySelector('svg'),c=f.querySelector('figcaption');"
    "if(!s||!(s instanceof SVGSVGElement)){bad.push(n+': no svg');return;}"
    "var r=s.getBoundingClientRect();"
    "if(r.width<200||r.height<100)bad.push(n+': '+r.width+'x'+r.height);"
    "var b=s.getBBox();if(b.width<100||b.height<50)"
    "bad.push(n+': nothing drawn');"
    "if(!c||c.textContent.trim().length<40)bad.push(n+': no caption');});"
    "document.querySelectorAll('[src],[href],link').forEach(function(e){"
    "var u=e.getAttribute('src')||e.getAttribute('href')||'';"
    "if(u.charAt(0)!=='#')bad.push('external: '+u);});"
    "if(!document.getElementById('findings'))bad.push('no findings');"
    "if(document.querySelectorAll('table').length<3)bad.push('tables');"
    "document.querySelectorAll('th').forEach(function(h){"
    "if(/_/.test(h.textContent))bad.push('raw heading '+h.textContent);});"
    "document.body.setAttribute('data-figures',names.join(' '));"
    "document.body.setAttribute('data-bad',bad.join('; '));"
    "document.body.setAttribute('data-checked','yes');})();</script>";

static const char *chromium(void)
{
    static const char *const names[] = {"chromium", "chromium-browser"};
    for (size_t i = 0; i < 2; i++) {
        tu_run r = tu_shf("command -v %s", names[i]);
        int ok = r.status == 0;
        tu_run_free(&r);
        if (ok) return names[i];
    }
    return NULL;
}

/* The page with the check before </body>, rendered; what the check
 * wrote (malloc'd: the dumped DOM), or NULL when Chromium failed. */
static char *render_page(const char *browser, const char *html,
                         const char *dir)
{
    const char *end = strstr(html, "</body>");
    size_t head = end ? (size_t)(end - html) : strlen(html);
    size_t n = head + sizeof page_check + 64;
    char *text = malloc(n);
    ck_assert_ptr_nonnull(text);
    snprintf(text, n, "%.*s%s</body></html>\n", (int)head, html, page_check);
    char *path = tu_write_file(dir, "checked.html", text);
    free(text);
    tu_run r = tu_shf("timeout 120 %s --headless --no-sandbox --disable-gpu "
                      "--disable-dev-shm-usage --user-data-dir=%s/profile "
                      "--dump-dom file://%s 2>/dev/null",
                      browser, dir, path);
    free(path);
    char *dom = r.status == 0 ? r.out : NULL;
    if (!dom) free(r.out);
    free(r.err);
    return dom;
}

/* The value of attribute `name` of <body> in a dumped DOM (malloc'd). */
static char *body_attr(const char *dom, const char *name)
{
    const char *b = strstr(dom, "<body");
    char key[64];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *a = b ? strstr(b, key) : NULL;
    const char *close = b ? strchr(b, '>') : NULL;
    if (!a || (close && a > close)) return NULL;
    a += strlen(key);
    const char *q = strchr(a, '"');
    return q ? strndup(a, (size_t)(q - a)) : NULL;
}

/* Every PNG the study wrote, as "dir/name" without the extension,
 * space-separated and sorted. */
static char *png_names(const char *dir)
{
    tu_run r = tu_shf("cd %s && find . -name '*.png' | sed 's|^\\./||; "
                      "s|\\.png$||' | LC_ALL=C sort | tr '\\n' ' '",
                      dir);
    ck_assert_int_eq(r.status, 0);
    free(r.err);
    size_t n = strlen(r.out);
    if (n && r.out[n - 1] == ' ') r.out[n - 1] = '\0';
    return r.out;
}

static char *sorted_words(const char *words)
{
    tu_run r = tu_shf("printf '%%s' '%s' | tr ' ' '\\n' | LC_ALL=C sort | "
                      "tr '\\n' ' '", words);
    free(r.err);
    size_t n = strlen(r.out);
    if (n && r.out[n - 1] == ' ') r.out[n - 1] = '\0';
    return r.out;
}

START_TEST(test_report_renders)
{
    ck_assert_msg(!study_error[0], "%s", study_error);
    const char *browser = chromium();
    if (!browser) {
        ck_assert_msg(!getenv("CI"), "chromium is missing (make deps "
                      "installs it); CI must render report.html");
        fprintf(stderr, "check_figures: SKIPPED test_report_renders: "
                "chromium is not installed (make deps installs it)\n");
        return;
    }
    char *path = tu_path_in(outdir, "report.html");
    char *html = tu_read_file(path, NULL);
    ck_assert_msg(html != NULL, "the study wrote no report.html");
    char *tmp = tu_tmpdir();
    char *dom = render_page(browser, html, tmp);
    ck_assert_msg(dom != NULL, "chromium could not render report.html");
    char *checked = body_attr(dom, "data-checked");
    ck_assert_msg(checked && !strcmp(checked, "yes"),
                  "the page's check did not run");
    char *bad = body_attr(dom, "data-bad");
    ck_assert_msg(bad && !bad[0], "report.html: %s", bad ? bad : "?");
    /* every figure the study drew is on the page, and nothing else */
    char *figs = body_attr(dom, "data-figures");
    char *want = png_names(outdir), *got = sorted_words(figs);
    ck_assert_str_eq(got, want);
    free(got);
    free(figs);
    free(bad);
    free(checked);
    free(dom);

    /* the check can fail: a page cut short in the middle of a figure */
    size_t len = strlen(html);
    const char *cut = strstr(html + len / 2, "<path");
    ck_assert_ptr_nonnull(cut);
    html[cut - html] = '\0';
    dom = render_page(browser, html, tmp);
    ck_assert_ptr_nonnull(dom);
    bad = body_attr(dom, "data-bad");
    figs = body_attr(dom, "data-figures");
    got = sorted_words(figs ? figs : "");
    ck_assert_msg((bad && bad[0]) || strcmp(got, want),
                  "a broken page passed the check");
    free(got);
    free(figs);
    free(bad);
    free(dom);
    free(want);
    free(html);
    free(path);
    tu_rm_tree(tmp);
    free(tmp);
}
END_TEST

/* report.html shows every figure: one missing is an error naming it, and
 * so is a figure it has no caption for. */
START_TEST(test_report_refuses_a_missing_figure)
{
    ck_assert_msg(!study_error[0], "%s", study_error);
    char *copy = tu_tmpdir();
    tu_run r = tu_shf("cp -r %s/. %s", outdir, copy);
    ck_assert_int_eq(r.status, 0);
    tu_run_free(&r);
    cm_err err = {0};
    ck_assert_int_eq(cm_study_report(copy, "findings", &err), CM_OK);
    char *gone = tu_path_in(copy, "coh/tc_outcomes.svg");
    ck_assert_int_eq(unlink(gone), 0);
    ck_assert_int_eq(cm_study_report(copy, "findings", &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "coh/tc_outcomes.svg: figure "
                                          "missing"));
    r = tu_shf("cp %s/coh/speed.svg %s/coh/stray.svg && cp "
               "%s/coh/speed.svg %s/coh/tc_outcomes.svg", copy, copy, copy,
               copy);
    ck_assert_int_eq(r.status, 0);
    tu_run_free(&r);
    ck_assert_int_eq(cm_study_report(copy, "findings", &err), CM_EINTERNAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "coh/stray.svg"));
    free(gone);
    tu_rm_tree(copy);
    free(copy);
}
END_TEST

Suite *suite_figures(void)
{
    Suite *s = suite_create("figures");
    TCase *tc = tcase_create("study");
    /* the study once, before the forked tests read what it drew */
    tcase_add_unchecked_fixture(tc, run_study, remove_study);
    tcase_set_timeout(tc, 180);
    tcase_add_test(tc, test_every_figure_keeps_the_rules);
    tcase_add_test(tc, test_speed_figure);
    tcase_add_test(tc, test_traffic_figure);
    tcase_add_test(tc, test_traffic_class_figure);
    tcase_add_test(tc, test_tc_outcomes_figure);
    tcase_add_test(tc, test_predictor_sweep_figure);
    tcase_add_test(tc, test_mshr_legend_figures);
    tcase_add_test(tc, test_mshr_throughput_figure);
    tcase_add_test(tc, test_validate_mshr_figures);
    tcase_add_test(tc, test_parity_figures);
    tcase_add_test(tc, test_validate_reuse_figures);
    tcase_add_test(tc, test_reuse_mrc_figure);
    tcase_add_test(tc, test_report_renders);
    tcase_add_test(tc, test_report_refuses_a_missing_figure);
    suite_add_tcase(s, tc);
    return s;
}
