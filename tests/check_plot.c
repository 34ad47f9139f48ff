/* check_plot.c - the plotting layer: formats, the look, atomic output,
 * errors, repeated rendering and plotting from tables.
 *
 * Cairo writes SVG text as glyph outlines and colours as rgb(r%,g%,b%), so
 * the SVG checks look for those: colours by value, text by the number of
 * glyphs placed (<use> elements). */
#include <dirent.h>
#include <math.h>
#include <plplot.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/table.h"
#include "plots/plot.h"
#include "tests/figcheck.h"
#include "tests/testutil.h"

/* ---- fixture and helpers --------------------------------------------- */

/* Each test (forked by Check) gets a fresh directory, emptied and removed
 * after it, and the two-series demo figure in s/sp. */
static char *dir;
static cm_plot_series s[2];
static cm_plot_spec sp;

static const double X[] = {1, 2, 3, 4, 5};
static const double Y1[] = {2, 4, 3, 5, 6};
static const double Y2[] = {1, 1.5, 2.5, 2, 3};
static const double LO[] = {1.8, 3.8, 2.8, 4.8, 5.8};
static const double HI[] = {2.2, 4.2, 3.2, 5.2, 6.2};

/* Two labelled series with units on the axes. */
static void demo(void)
{
    s[0] = (cm_plot_series){.label = "Alpha-series-label-one", .x = X,
                            .y = Y1, .n = 5};
    s[1] = (cm_plot_series){.label = "Beta-series-label-two", .x = X,
                            .y = Y2, .n = 5};
    sp = (cm_plot_spec){.title = "A title", .xlabel = "L1 MSHRs (entries)",
                        .ylabel = "latency (cycles)",
                        .style = CM_PLOT_LINES_POINTS, .series = s,
                        .nseries = 2};
}

static void setup(void)
{
    dir = tu_tmpdir();
    demo();
}

static fc_record *last;

static void teardown(void)
{
    tu_rm_tree(dir);
    fc_free(last);
    last = NULL;
}

/* dir/name, in a rotating buffer that stays valid for 7 more calls. */
static const char *at(const char *name)
{
    static char bufs[8][4200];
    static int next;
    char *b = bufs[next++ % 8];
    snprintf(b, sizeof bufs[0], "%s/%s", dir, name);
    return b;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0, len = strlen(needle);
    for (const char *p = hay; (p = strstr(p, needle)); p += len) n++;
    return n;
}

static void assert_magic(const char *path, const char *magic, size_t n)
{
    size_t len = 0;
    char *data = tu_read_file(path, &len);
    ck_assert_msg(data != NULL, "%s was not written", path);
    ck_assert_msg(len > 500, "%s is only %zu bytes", path, len);
    ck_assert_msg(memcmp(data, magic, n) == 0, "%s: wrong magic bytes", path);
    free(data);
}

/* Does the SVG use colour #rrggbb anywhere?  Cairo writes rgb(r%,g%,b%). */
static int svg_has_colour(const char *svg, unsigned hex)
{
    double want[3] = {(hex >> 16) & 0xFF, (hex >> 8) & 0xFF, hex & 0xFF};
    for (const char *p = svg; (p = strstr(p, "rgb(")); p += 4) {
        double c[3];
        if (sscanf(p, "rgb(%lf%%,%lf%%,%lf%%)", &c[0], &c[1], &c[2]) != 3)
            continue;
        int same = 1;
        for (int i = 0; i < 3; i++)
            same &= fabs(c[i] * 2.55 - want[i]) < 0.6;
        if (same) return 1;
    }
    return 0;
}

static const unsigned okabe_ito[8] = {0x0072B2, 0xD55E00, 0x009E73,
                                      0xCC79A7, 0xE69F00, 0x56B4E9,
                                      0xF0E442, 0x000000};

static cm_status render(const cm_plot_spec *sp, const char *path,
                        cm_err *err)
{
    cm_err_clear(err);
    return cm_plot_render(sp, path, err);
}

static void render_ok(const cm_plot_spec *sp, const char *path)
{
    cm_err err;
    cm_status st = render(sp, path, &err);
    ck_assert_msg(st == CM_OK, "render %s: %s", path, err.msg);
}

/* Renders to an SVG file and returns its text. */
static char *render_svg(const cm_plot_spec *spec)
{
    const char *p = at("render.svg");
    render_ok(spec, p);
    char *svg = tu_read_file(p, NULL);
    ck_assert_ptr_nonnull(svg);
    unlink(p);
    return svg;
}

/* ---- formats and look -------------------------------------------------- */

START_TEST(test_png_magic)
{
    umask(022);
    const char *p = at("fig.png");
    render_ok(&sp, p);
    assert_magic(p, "\x89PNG\r\n\x1a\n", 8);
    ck_assert_uint_eq(tu_dir_entries(dir), 1); /* no temporary left */
    struct stat sb;
    ck_assert_int_eq(stat(p, &sb), 0);
    ck_assert_msg((sb.st_mode & 0644) == 0644, "figure mode %o, not 644",
                  (unsigned)sb.st_mode & 0777);
}
END_TEST

START_TEST(test_pdf_and_svg_magic)
{
    const char *pdf = at("fig.pdf"), *svg = at("fig.SVG");
    render_ok(&sp, pdf);
    assert_magic(pdf, "%PDF-", 5);
    render_ok(&sp, svg); /* the extension is case-insensitive */
    assert_magic(svg, "<?xml", 5);
    char *text = tu_read_file(svg, NULL);
    ck_assert_ptr_nonnull(strstr(text, "<svg"));
    free(text);
    ck_assert_uint_eq(tu_dir_entries(dir), 2);
}
END_TEST

START_TEST(test_svg_paper_look)
{
    char *svg = render_svg(&sp);
    /* The page is painted white before anything else. */
    const char *defs = strstr(svg, "</defs>");
    const char *rect = strstr(defs ? defs : svg, "<rect");
    ck_assert_ptr_nonnull(rect);
    ck_assert_msg(strncmp(strstr(rect, "fill:"), "fill:rgb(100%,100%,100%)",
                          24) == 0,
                  "background is not white: %.120s", rect);
    /* Black ink, the first two Okabe-Ito colours for the two series, and
     * neither the third colour nor PLplot's default red. */
    ck_assert(svg_has_colour(svg, 0x000000));
    ck_assert(svg_has_colour(svg, okabe_ito[0]));
    ck_assert(svg_has_colour(svg, okabe_ito[1]));
    ck_assert(!svg_has_colour(svg, okabe_ito[2]));
    ck_assert(!svg_has_colour(svg, 0xFF0000));
    free(svg);
}
END_TEST

START_TEST(test_palette_per_series)
{
    double ys[8][5];
    cm_plot_series eight[8];
    for (int i = 0; i < 8; i++) {
        for (int j = 0; j < 5; j++) ys[i][j] = i + X[j] * 0.1;
        eight[i] = (cm_plot_series){.label = NULL, .x = X, .y = ys[i], .ylo = NULL, .yhi = NULL, .n = 5};
    }
    cm_plot_spec spec = {.title = NULL, .xlabel = "x", .ylabel = "y", .logx = 0, .logy = 0, .style = CM_PLOT_POINTS, .series = eight, .nseries = 8};
    char *svg = render_svg(&spec);
    for (int i = 0; i < 8; i++)
        ck_assert_msg(svg_has_colour(svg, okabe_ito[i]),
                      "series %d colour #%06X missing", i, okabe_ito[i]);
    free(svg);
}
END_TEST

START_TEST(test_legend_labels_drawn)
{
    char *with = render_svg(&sp);
    s[0].label = s[1].label = NULL; /* no labels: no legend */
    char *without = render_svg(&sp);
    size_t a = count(with, "<use"), b = count(without, "<use");
    size_t letters = strlen("Alpha-series-label-one") +
                     strlen("Beta-series-label-two");
    ck_assert_msg(a >= b + letters,
                  "legend text missing: %zu glyphs with labels, %zu without",
                  a, b);
    free(with);
    free(without);
}
END_TEST

START_TEST(test_error_bars_drawn)
{
    sp.nseries = 1;
    char *plain = render_svg(&sp);
    s[0].ylo = LO;
    s[0].yhi = HI;
    char *bars = render_svg(&sp);
    size_t a = count(bars, "<path"), b = count(plain, "<path");
    ck_assert_msg(a >= b + 5, "error bars missing: %zu paths, %zu without",
                  a, b);
    free(plain);
    free(bars);
}
END_TEST

/* A marker on every point of a scatter plot, but only on every few points
 * of a dense line (markers are glyphs: one <use> each). */
START_TEST(test_markers_per_style)
{
    double x[100], y[100];
    for (int i = 0; i < 100; i++) {
        x[i] = i;
        y[i] = i * i;
    }
    cm_plot_series one = {.label = NULL, .x = x, .y = y, .ylo = NULL, .yhi = NULL, .n = 100};
    cm_plot_spec spec = {.title = NULL, .xlabel = "x", .ylabel = "y", .logx = 0, .logy = 0, .style = CM_PLOT_LINES, .series = &one, .nseries = 1};
    char *svg = render_svg(&spec);
    size_t lines = count(svg, "<use");
    free(svg);
    spec.style = CM_PLOT_POINTS;
    svg = render_svg(&spec);
    size_t points = count(svg, "<use");
    free(svg);
    spec.style = CM_PLOT_LINES_POINTS;
    svg = render_svg(&spec);
    size_t both = count(svg, "<use");
    free(svg);
    ck_assert_uint_eq(points - lines, 100);
    ck_assert_msg(both - lines >= 10 && both - lines <= 25,
                  "%zu markers on a 100-point line", both - lines);
}
END_TEST

/* Cairo's SVG keeps one glyph set per font size: "glyph<set>-<glyph>". */
static int font_sizes(const char *svg)
{
    int max = -1, set;
    for (const char *p = svg; (p = strstr(p, "id=\"glyph")); p++)
        if (sscanf(p, "id=\"glyph%d-", &set) == 1 && set > max) max = set;
    return max + 1;
}

START_TEST(test_long_labels_shrink)
{
    sp.nseries = 1;
    s[0].label = NULL;
    char *svg = render_svg(&sp);
    int normal = font_sizes(svg);
    free(svg);
    sp.title = "A title far too long to fit across the page at the size of "
               "the axis labels, so it is drawn smaller";
    svg = render_svg(&sp);
    ck_assert_int_eq(font_sizes(svg), normal + 1);
    free(svg);
    sp.title = NULL;
    sp.xlabel = "an x label far too long to fit across the page at full "
                "size, even without a title";
    svg = render_svg(&sp);
    ck_assert_int_eq(font_sizes(svg), normal + 1);
    free(svg);
}
END_TEST

/* A log axis always shows at least two labelled powers of ten, even for
 * data within one decade. */
START_TEST(test_log_axis_two_decades)
{
    static const double narrow[] = {20, 30, 40, 50, 45};
    static const double wide[] = {20, 300, 4000, 5000, 450};
    cm_plot_series one = {.label = NULL, .x = X, .y = narrow, .ylo = NULL, .yhi = NULL, .n = 5};
    cm_plot_spec spec = {.title = NULL, .xlabel = "x", .ylabel = "y", .logx = 0, .logy = 1, .style = CM_PLOT_POINTS, .series = &one, .nseries = 1};
    char *a = render_svg(&spec);
    one.y = wide; /* 10^2 and 10^3 inside the data */
    char *b = render_svg(&spec);
    /* the same number of glyphs: two "10^k" labels each */
    ck_assert_uint_eq(count(a, "<use"), count(b, "<use"));
    free(a);
    free(b);
}
END_TEST

/* Left edge of the legend's white box in an SVG (the second white fill,
 * after the page), or -1. */
static double legend_left(const char *svg)
{
    const char *p = strstr(svg, "fill:rgb(100%,100%,100%)");
    if (p) p = strstr(p + 1, "fill:rgb(100%,100%,100%)");
    if (p) p = strstr(p, "d=\"M ");
    double x;
    return p && sscanf(p, "d=\"M %lf", &x) == 1 ? x : -1;
}

START_TEST(test_legend_avoids_data)
{
    /* Points in three corners: the legend takes the fourth. */
    static const double x1[] = {0, 1, 1}, y1[] = {1, 1, 0}; /* BL free */
    static const double x2[] = {0, 1, 0}, y2[] = {1, 1, 0}; /* BR free */
    cm_plot_series one = {.label = "A", .x = x1, .y = y1, .ylo = NULL, .yhi = NULL, .n = 3};
    cm_plot_spec spec = {.title = NULL, .xlabel = "x", .ylabel = "y", .logx = 0, .logy = 0, .style = CM_PLOT_POINTS, .series = &one, .nseries = 1};
    char *svg = render_svg(&spec);
    double left = legend_left(svg);
    ck_assert_msg(left > 0 && left < 460 / 2, "legend at x=%g, not left",
                  left);
    free(svg);
    one.x = x2;
    one.y = y2;
    svg = render_svg(&spec);
    left = legend_left(svg);
    ck_assert_msg(left > 460 / 2, "legend at x=%g, not right", left);
    free(svg);
}
END_TEST


/* ---- the record of what was drawn ------------------------------------------ */

/* The observer keeps the last record (freed by teardown). */
static void keep_last(const cm_plot_record *r, void *arg)
{
    (void)arg;
    fc_free(last);
    last = fc_copy(r);
}

/* Renders with the observer on; the record, or a failed test. */
static const cm_plot_record *render_rec(const cm_plot_spec *spec,
                                        const char *name)
{
    cm_plot_set_observer(keep_last, NULL);
    render_ok(spec, at(name));
    cm_plot_set_observer(NULL, NULL);
    ck_assert_ptr_nonnull(last);
    return &last->rec;
}

static void assert_figure_ok(const cm_plot_record *r)
{
    char msg[1024];
    ck_assert_msg(fc_check(r, msg, sizeof msg), "%s", msg);
}

/* The record says what the file shows: its series, labels, and a legend
 * box where the SVG draws the legend's white box. */
START_TEST(test_record_matches_file)
{
    const cm_plot_record *r = render_rec(&sp, "rec.svg");
    ck_assert_uint_eq(r->nseries, 2);
    ck_assert_str_eq(r->series[0].label, "Alpha-series-label-one");
    ck_assert_int_ne(r->series[0].colour, r->series[1].colour);
    ck_assert_int_ne(r->series[0].marker, r->series[1].marker);
    ck_assert_uint_eq(r->series[0].points, 5);
    ck_assert_uint_eq(r->naxes, 2);
    ck_assert_str_eq(r->axes[0].label, "L1 MSHRs (entries)");
    ck_assert_uint_eq(r->nlegends, 1);
    /* 5 markers and 4 segments a series */
    size_t markers = 0, segments = 0;
    for (size_t m = 0; m < r->nmarks; m++) {
        markers += r->marks[m].kind == CM_MARK_MARKER;
        segments += r->marks[m].kind == CM_MARK_SEGMENT;
    }
    ck_assert_uint_eq(markers, 10);
    ck_assert_uint_eq(segments, 8);
    char *svg = tu_read_file(at("rec.svg"), NULL);
    double left = legend_left(svg); /* points of a 460-point page */
    ck_assert_msg(fabs(left / 460 - r->legends[0].x0) < 0.01,
                  "record says the legend starts at %.3f, the SVG at %.3f",
                  r->legends[0].x0, left / 460);
    free(svg);
    /* the plotting layer's own figures pass the rules */
    assert_figure_ok(r);
}
END_TEST

/* The rules catch what they are about: a legend moved onto the data, two
 * series given one style, a label without a unit. */
START_TEST(test_figure_rules_can_fail)
{
    const cm_plot_record *r = render_rec(&sp, "rules.png");
    char msg[1024];
    fc_record *c = fc_copy(r);
    cm_plot_box *leg = (cm_plot_box *)c->rec.legends;
    *leg = c->rec.marks[0].box; /* on top of a marker */
    ck_assert(!fc_check(&c->rec, msg, sizeof msg));
    ck_assert_ptr_nonnull(strstr(msg, "covers a mark"));
    fc_free(c);
    c = fc_copy(r);
    cm_plot_series_rec *sr = (cm_plot_series_rec *)c->rec.series;
    sr[1].colour = sr[0].colour;
    sr[1].marker = sr[0].marker;
    ck_assert(!fc_check(&c->rec, msg, sizeof msg));
    ck_assert_ptr_nonnull(strstr(msg, "share colour"));
    fc_free(c);
    sp.ylabel = "latency";
    r = render_rec(&sp, "rules.png");
    ck_assert(!fc_check(r, msg, sizeof msg));
    ck_assert_ptr_nonnull(strstr(msg, "has no unit"));
    sp.ylabel = "l1.mshrs (entries)"; /* a raw registry name */
    r = render_rec(&sp, "rules.png");
    ck_assert(!fc_check(r, msg, sizeof msg));
    ck_assert_ptr_nonnull(strstr(msg, "raw"));
}
END_TEST

/* Points everywhere: no inside corner is free, so the legend goes beside
 * the plot, and covers nothing (issue 24: legends hid the data). */
START_TEST(test_legend_leaves_the_data)
{
    double xs[100], ya[100], yb[100];
    for (int i = 0; i < 100; i++) {
        xs[i] = i % 10;
        ya[i] = i / 10;
        yb[i] = 9 - i / 10 + 0.5;
    }
    cm_plot_series two[2] = {
        {.label = "first", .x = xs, .y = ya, .n = 100},
        {.label = "second", .x = xs, .y = yb, .n = 100}};
    cm_plot_spec spec = {.xlabel = "x (m)", .ylabel = "y (m)",
                         .style = CM_PLOT_POINTS, .series = two,
                         .nseries = 2};
    const cm_plot_record *r = render_rec(&spec, "full.png");
    assert_figure_ok(r);
    ck_assert_uint_eq(r->nlegends, 1);
    ck_assert(r->legends[0].x0 >= r->plot_areas[0].x1 ||
              r->legends[0].y1 <= r->plot_areas[0].y0);
    /* a line through every corner: the same */
    two[0].n = two[1].n = 10;
    static const double lx[] = {0, 9, 0, 9, 0, 9, 0, 9, 0, 9},
                        ly[] = {0, 9, 9, 0, 0, 9, 9, 0, 0, 9};
    two[0].x = lx;
    two[0].y = ly;
    spec.style = CM_PLOT_LINES;
    r = render_rec(&spec, "lines.png");
    assert_figure_ok(r);
}
END_TEST

/* More series than colours in one panel is an error, never a colour used
 * twice; panels take the rest, and a series repeated in every panel keeps
 * its colour and marker. */
START_TEST(test_colours_never_recycled)
{
    double ys[9][5];
    cm_plot_series nine[9];
    char names[9][16];
    for (int i = 0; i < 9; i++) {
        for (int j = 0; j < 5; j++) ys[i][j] = i + X[j] * 0.1;
        snprintf(names[i], sizeof names[i], "s%d", i);
        nine[i] = (cm_plot_series){.label = names[i], .x = X, .y = ys[i],
                                   .n = 5};
    }
    cm_plot_spec spec = {.xlabel = "x (m)", .ylabel = "y (m)",
                         .style = CM_PLOT_POINTS, .series = nine,
                         .nseries = 9};
    cm_err err;
    ck_assert_int_eq(render(&spec, at("nine.png"), &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "split the figure into panels"));
    nine[8].panel = 1;
    cm_plot_panel pn[2] = {{.title = "a"}, {.title = "b"}};
    spec.panels = pn;
    spec.npanels = 2;
    const cm_plot_record *r = render_rec(&spec, "nine.png");
    assert_figure_ok(r);
    ck_assert_int_eq(r->series[8].colour, 0);
    ck_assert_int_ne(r->series[8].marker, r->series[0].marker);
    /* the same series in both panels: the same style */
    snprintf(names[8], sizeof names[8], "s0");
    r = render_rec(&spec, "nine.png");
    assert_figure_ok(r);
    ck_assert_int_eq(r->series[8].marker, r->series[0].marker);
}
END_TEST

/* Categories: bars on a categorical axis with the names as ticks, a
 * marker above every bar, never a line between categories. */
START_TEST(test_categorical_bars)
{
    static const char *const cats[] = {"bh", "dlb", "hsp"};
    static const double cx[] = {0, 1, 2}, a[] = {0.9, 0.7, 1.0},
                        b[] = {0.8, 1.1, 0.95}, rx[] = {-0.5, 2.5},
                        ry[] = {1, 1};
    cm_plot_series ser[3] = {
        {.label = "MESI", .x = cx, .y = a, .n = 3},
        {.label = "TCW", .x = cx, .y = b, .n = 3},
        {.label = "NO-COH (= 1)", .x = rx, .y = ry, .n = 2, .reference = 1}};
    cm_plot_spec spec = {.xlabel = "workload", .ylabel = "speed (ratio)",
                         .style = CM_PLOT_BARS, .series = ser, .nseries = 3,
                         .categories = cats, .ncategories = 3};
    const cm_plot_record *r = render_rec(&spec, "bars.png");
    assert_figure_ok(r);
    ck_assert(r->axes[0].categorical);
    ck_assert_uint_eq(r->axes[0].nticks, 3);
    ck_assert_str_eq(r->axes[0].ticks[1], "dlb");
    size_t bars = 0, markers = 0;
    double top = 0;
    for (size_t m = 0; m < r->nmarks; m++) {
        bars += r->marks[m].kind == CM_MARK_BAR;
        markers += r->marks[m].kind == CM_MARK_MARKER;
        if (r->marks[m].kind == CM_MARK_MARKER)
            top = fmax(top, r->marks[m].box.y1);
    }
    ck_assert_uint_eq(bars, 6);
    ck_assert_uint_eq(markers, 6);
    /* every marker inside the frame: the y floor and ceiling make room */
    ck_assert(top <= r->plot_areas[0].y1);
    cm_err err;
    spec.style = CM_PLOT_LINES_POINTS;
    ck_assert_int_eq(render(&spec, at("bad.png"), &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "lines must not join categories"));
    spec.style = CM_PLOT_BARS;
    spec.logy = 1;
    ck_assert_int_eq(render(&spec, at("bad.png"), &err), CM_EINPUT);
    spec.logy = 0;
    spec.categories = NULL;
    ck_assert_int_eq(render(&spec, at("bad.png"), &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "categorical"));
    static const double off[] = {0, 1.5, 2};
    spec.categories = cats;
    ser[0].x = off;
    ck_assert_int_eq(render(&spec, at("bad.png"), &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "category 1.5"));
}
END_TEST

/* The model of a configuration is drawn in its simulation's colour: one
 * legend entry, the line without markers, the markers with no line. */
START_TEST(test_model_beside_simulation)
{
    static const double x[] = {8, 24, 48}, sim[] = {7.9, 15.8, 15.9},
                        lo[] = {7.5, 15, 15}, hi[] = {8.3, 16.6, 16.8},
                        mod[] = {8, 16, 16};
    cm_plot_series ser[4] = {
        {.label = "8 entries", .x = x, .y = sim, .ylo = lo, .yhi = hi,
         .n = 3},
        {.label = "8 entries", .x = x, .y = mod, .n = 3, .line_only = 1,
         .with_previous = 1},
        {.label = "16 entries", .x = x, .y = mod, .n = 3},
        {.label = "16 entries", .x = x, .y = sim, .n = 3, .line_only = 1,
         .with_previous = 1}};
    cm_plot_spec spec = {.xlabel = "warps (warps)", .ylabel = "busy (entries)",
                         .style = CM_PLOT_POINTS, .series = ser,
                         .nseries = 4, .legend_title = "L1 MSHRs"};
    const cm_plot_record *r = render_rec(&spec, "pair.png");
    assert_figure_ok(r);
    ck_assert_int_eq(r->series[0].colour, r->series[1].colour);
    ck_assert_uint_eq(r->series[0].entry, r->series[1].entry);
    ck_assert(!r->series[0].line && r->series[0].marker >= 0);
    ck_assert(r->series[1].line && r->series[1].marker < 0);
    ck_assert_int_ne(r->series[0].colour, r->series[2].colour);
    /* two series of one entry with markers: refused */
    ser[1].line_only = 0;
    cm_err err;
    ck_assert_int_eq(render(&spec, at("pair.png"), &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "only one of them can have"));
}
END_TEST

/* Coincident points are drawn once with their count: 27 points never look
 * like 8 (issue 24's parity plots). */
START_TEST(test_overlaps_counted)
{
    static const double x[] = {0, 0, 0, 0, 0, 1, 1, 0.5},
                        y[] = {0, 0, 0, 0, 0, 1, 1, 0.4};
    cm_plot_series one = {.label = "points (8)", .x = x, .y = y, .n = 8};
    cm_plot_spec spec = {.xlabel = "model (m)", .ylabel = "simulation (m)",
                         .style = CM_PLOT_POINTS, .series = &one,
                         .nseries = 1, .count_overlaps = 1};
    const cm_plot_record *r = render_rec(&spec, "count.png");
    assert_figure_ok(r);
    size_t markers = 0, counted = 0;
    for (size_t m = 0; m < r->nmarks; m++) {
        if (r->marks[m].kind == CM_MARK_MARKER) markers++;
        if (r->marks[m].kind == CM_MARK_COUNT)
            counted += (size_t)r->marks[m].count - 1;
    }
    ck_assert_uint_eq(markers, 3);
    ck_assert_uint_eq(markers + counted, 8); /* every point accounted for */

    /* Two series piled at the frame's corner: the held-out and calibration
     * points of the study's parity_p_full.png, whose "x17" was drawn over
     * its "x4" (issue 24 asked for counts that can be read): each count finds a place inside the frame, clear
     * of the other count and of every marker; the rules say so. */
    static const double hx[] = {0.993, 1, 0.063, 1, 1, 0, 1, 1, 1, 1, 0.978,
                                1, 0, 1, 1, 1, 1, 0.993, 1, 1, 1, 1},
                        hy[] = {0.992, 1, 0.147, 0.999, 1, 0.001, 0.992,
                                0.976, 1, 1, 0.837, 1, 0.509, 0.984, 0.999,
                                1, 1, 0.845, 1, 1, 0.992, 0.999},
                        cx[] = {1, 1, 1, 1, 0}, cy[] = {1, 0.99, 1, 0.992,
                                                        0.537};
    cm_plot_series two[] = {
        {.label = "held-out points (22)", .x = hx, .y = hy, .n = 22},
        {.label = "calibration points (5)", .x = cx, .y = cy, .n = 5}};
    spec.series = two;
    spec.nseries = 2;
    r = render_rec(&spec, "count2.png");
    assert_figure_ok(r);
    size_t counts = 0;
    for (size_t m = 0; m < r->nmarks; m++)
        counts += r->marks[m].kind == CM_MARK_COUNT;
    ck_assert_uint_eq(counts, 2);
    /* the rule can fail: one count moved onto the other */
    fc_record *c = fc_copy(r);
    cm_plot_mark *mk = (cm_plot_mark *)c->rec.marks;
    size_t first = c->rec.nmarks;
    for (size_t m = 0; m < c->rec.nmarks; m++) {
        if (mk[m].kind != CM_MARK_COUNT) continue;
        if (first == c->rec.nmarks) {
            first = m;
            continue;
        }
        mk[m].box = mk[first].box;
    }
    char msg[1024];
    ck_assert(!fc_check(&c->rec, msg, sizeof msg));
    ck_assert_ptr_nonnull(strstr(msg, "covers a count"));
    fc_free(c);
}
END_TEST

/* Small values get plain decimal ticks, not "(x10^-2)" beside the axis
 * (issue 24: mshr_throughput_vs_warps.png). */
START_TEST(test_plain_ticks)
{
    static const double x[] = {1, 10, 20, 30, 48},
                        y[] = {0.002, 0.02, 0.045, 0.054, 0.055};
    cm_plot_series one = {.x = x, .y = y, .n = 5};
    cm_plot_spec spec = {.xlabel = "warps (warps)",
                         .ylabel = "rate (inst/cycle)",
                         .style = CM_PLOT_LINES_POINTS, .series = &one,
                         .nseries = 1};
    const cm_plot_record *r = render_rec(&spec, "ticks.png");
    assert_figure_ok(r);
    ck_assert_uint_ge(r->axes[1].nticks, 3);
    int small = 0;
    for (size_t t = 0; t < r->axes[1].nticks; t++)
        small |= strncmp(r->axes[1].ticks[t], "0.0", 3) == 0;
    ck_assert_msg(small, "no tick below 0.1 written as a decimal");
}
END_TEST

/* ---- errors leave nothing behind --------------------------------------- */

START_TEST(test_unknown_extension)
{
    static const char *const names[] = {"f.xyz", "f", "f.png.bak",
                                        "d.png/f"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *p = at(names[i]);
        cm_err err;
        ck_assert_int_eq(render(&sp, p, &err), CM_EINPUT);
        ck_assert_int_eq(err.code, CM_EINPUT);
        char want[512];
        snprintf(want, sizeof want,
                 "%s: unknown figure format; use .png, .svg or .pdf", p);
        ck_assert_str_eq(err.msg, want);
    }
    ck_assert_uint_eq(tu_dir_entries(dir), 0);
}
END_TEST

START_TEST(test_unwritable_directory)
{
    free(tu_write_file(dir, "plain", "x"));
    const char *paths[] = {at("nope/f.png"), at("plain/f.pdf")};
    for (int i = 0; i < 2; i++) {
        cm_err err;
        ck_assert_int_eq(render(&sp, paths[i], &err), CM_EINPUT);
        char want[512];
        snprintf(want, sizeof want, "%s: cannot create: ", paths[i]);
        ck_assert_msg(strncmp(err.msg, want, strlen(want)) == 0,
                      "message: %s", err.msg);
    }
    if (geteuid() != 0) { /* root writes anywhere */
        ck_assert_int_eq(mkdir(at("ro"), 0555), 0);
        cm_err err;
        ck_assert_int_eq(render(&sp, at("ro/f.svg"), &err), CM_EINPUT);
        ck_assert_ptr_nonnull(strstr(err.msg, "cannot create"));
        ck_assert_uint_eq(tu_dir_entries(at("ro")), 0);
        rmdir(at("ro"));
    }
    ck_assert_uint_eq(tu_dir_entries(dir), 1); /* just "plain" */
}
END_TEST

START_TEST(test_log_axis_rejects_non_positive)
{
    const char *p = at("f.png");
    free(tu_write_file(dir, "f.png", "old figure"));
    static const double ybad[] = {2, 4, 0, 5, 6};
    static const double xbad[] = {1, 2, 3, -4, 5};
    static const double lobad[] = {1.8, 3.8, 2.8, -1, 5.8};
    cm_err err;

    sp.logy = 1;
    s[1].y = ybad;
    ck_assert_int_eq(render(&sp, p, &err), CM_EINPUT);
    ck_assert_str_eq(err.msg, "series 'Beta-series-label-two': a log y axis "
                              "needs positive values, but point 3 has "
                              "latency (cycles) = 0");

    s[1].y = Y2;
    s[0].ylo = lobad;
    s[0].yhi = HI;
    ck_assert_int_eq(render(&sp, p, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "point 4 has latency (cycles) = -1"));

    s[0].ylo = NULL;
    s[0].yhi = NULL;
    sp.logy = 0;
    sp.logx = 1;
    s[0].x = xbad;
    ck_assert_int_eq(render(&sp, p, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "log x axis"));
    ck_assert_ptr_nonnull(strstr(err.msg, "L1 MSHRs (entries) = -4"));

    /* The old figure is untouched and no temporary is left. */
    char *text = tu_read_file(p, NULL);
    ck_assert_str_eq(text, "old figure");
    free(text);
    ck_assert_uint_eq(tu_dir_entries(dir), 1);

    /* Positive data on log axes renders, replacing the old file. */
    s[0].x = X;
    sp.logy = 1;
    render_ok(&sp, p);
    assert_magic(p, "\x89PNG", 4);
    ck_assert_uint_eq(tu_dir_entries(dir), 1);
}
END_TEST

START_TEST(test_bad_specs)
{
    const char *p = at("f.png");
    cm_err err;
    sp.nseries = 0;
    ck_assert_int_eq(render(&sp, p, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "nothing to plot"));
    ck_assert_int_eq(render(NULL, p, &err), CM_EINPUT);

    demo();
    s[0].ylo = LO; /* yhi missing */
    ck_assert_int_eq(render(&sp, p, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "error bars need both"));

    static const double nan5[] = {NAN, NAN, INFINITY, -INFINITY, NAN};
    demo();
    s[0].y = s[1].y = nan5;
    ck_assert_int_eq(render(&sp, p, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "no point has finite x and y"));
    ck_assert_int_eq(render(&sp, "", &err), CM_EINPUT);
    ck_assert_uint_eq(tu_dir_entries(dir), 0);
}
END_TEST

START_TEST(test_non_finite_points_skipped)
{
    const char *p = at("f.png");
    static const double y[] = {1, NAN, 3, INFINITY, 5};
    static const double x[] = {1, 2, NAN, 4, 5};
    for (int style = CM_PLOT_LINES_POINTS; style <= CM_PLOT_POINTS; style++) {
        cm_plot_series two[2] = {{.label = "a", .x = X, .y = y, .ylo = NULL, .yhi = NULL, .n = 5},
                                 {.label = "b", .x = x, .y = Y2, .ylo = LO, .yhi = HI, .n = 5}};
        cm_plot_spec spec = {.title = NULL, .xlabel = NULL, .ylabel = NULL, .logx = style == 1, .logy = style == 2, .style = (cm_plot_style)style, .series = two, .nseries = 2};
        render_ok(&spec, p);
        assert_magic(p, "\x89PNG", 4);
    }
    /* one finite point, and a constant series: the range still opens up */
    static const double one[] = {NAN, NAN, 7, NAN, NAN};
    cm_plot_series s1 = {.label = NULL, .x = X, .y = one, .ylo = NULL, .yhi = NULL, .n = 5};
    cm_plot_spec sp1 = {.title = NULL, .xlabel = "x", .ylabel = "y", .logx = 0, .logy = 0, .style = CM_PLOT_LINES, .series = &s1, .nseries = 1};
    render_ok(&sp1, p);
    sp1.logx = sp1.logy = 1;
    render_ok(&sp1, p);
}
END_TEST

START_TEST(test_awkward_text_and_ranges)
{
    const char *p = at("f.png");
    cm_err err;
    /* Latin-1 bytes, a cut UTF-8 sequence, PLplot's escape '#' and Pango
     * markup characters are drawn, not rejected. */
    s[0].label = "caf\xE9 #g <b>&amp; \xE2\x82";
    sp.title = "#(850) 100% \xFF";
    sp.xlabel = "x\xC0\xAF";
    render_ok(&sp, p);
    char long_title[1200];
    memset(long_title, 'T', sizeof long_title - 1);
    long_title[sizeof long_title - 1] = '\0';
    sp.title = long_title;
    render_ok(&sp, p);

    /* '#' is a character like any other: as many glyphs as plain text. */
    demo();
    s[0].label = "#gx#gx#gx#gx";
    char *escaped = render_svg(&sp);
    s[0].label = "agxagxagxagx";
    char *plain = render_svg(&sp);
    ck_assert_uint_eq(count(escaped, "<use"), count(plain, "<use"));
    free(escaped);
    free(plain);

    static const double huge[] = {-1e308, 1e308, 0, 1, 2};
    demo();
    s[1].y = huge;
    ck_assert_int_eq(render(&sp, p, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "span too wide a range"));
    ck_assert_uint_eq(tu_dir_entries(dir), 1); /* f.png from above */
}
END_TEST

static size_t open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) return 0;
    size_t n = 0;
    while (readdir(d)) n++;
    closedir(d);
    return n;
}

START_TEST(test_repeated_rendering)
{
    static const char *const ext[] = {"png", "svg", "pdf"};
    /* The caller's current stream survives every render. */
    PLINT before, after;
    plmkstrm(&before);
    size_t fds = open_fds();
    for (int i = 0; i < 21; i++) {
        char name[32];
        snprintf(name, sizeof name, "f%02d.%s", i, ext[i % 3]);
        const char *p = at(name);
        sp.logy = i % 2;
        sp.style = (cm_plot_style)(i % 3);
        render_ok(&sp, p);
        assert_magic(p, i % 3 == 0 ? "\x89PNG" : i % 3 == 1 ? "<?xm" : "%PDF",
                     4);
    }
    plgstrm(&after);
    ck_assert_int_eq(before, after);
    plend1(); /* the caller's own, never initialised stream */
    ck_assert_uint_eq(open_fds(), fds); /* every output file was closed */
    ck_assert_uint_eq(tu_dir_entries(dir), 21); /* and no temporary is left */
}
END_TEST

START_TEST(test_axis_label)
{
    /* human names and units from the registries: a parameter, a model's
     * result column, a simulator statistic's output row (its time
     * fraction at a level, too), and a name no registry knows */
    char buf[64];
    cm_plot_axis_label("l1.mshrs", buf, sizeof buf);
    ck_assert_str_eq(buf, "L1 MSHRs per SM (entries)");
    cm_plot_axis_label("mean_occupancy", buf, sizeof buf);
    ck_assert_str_eq(buf, "mean L1 MSHR occupancy (entries)");
    cm_plot_axis_label("p_full", buf, sizeof buf);
    ck_assert_str_eq(buf, "time with all L1 MSHRs busy (fraction)");
    cm_plot_axis_label("l1.mshr.occupancy_mean", buf, sizeof buf);
    ck_assert_str_eq(buf, "L1 MSHR occupancy (entries)");
    cm_plot_axis_label("l1.mshr.occupancy.frac_at_3", buf, sizeof buf);
    ck_assert_str_eq(buf, "L1 MSHR occupancy, share of time (fraction)");
    cm_plot_axis_label("no_such_column", buf, sizeof buf);
    ck_assert_str_eq(buf, "no_such_column");
    cm_plot_axis_label("l1.mshrs", buf, 5);
    ck_assert_str_eq(buf, "L1 M");
    buf[0] = 'x';
    cm_plot_axis_label("l1.mshrs", buf, 0);
    ck_assert_int_eq(buf[0], 'x');
}
END_TEST

/* ---- from tables ---------------------------------------------------------- */

static cm_table *table(const char *text)
{
    cm_table *t = NULL;
    cm_err err = {0};
    ck_assert_msg(cm_table_read_buffer("t.csv", text, strlen(text), &t,
                                       &err) == CM_OK,
                  "%s", err.msg);
    return t;
}

static const char grid_csv[] =
    "l1.mshrs,load,mean_occupancy,occupancy,lo,hi\n"
    "8,1,2,2.5,1.5,2.5\n"
    "8,2,4,4.5,3.5,4.5\n"
    "16,1,2.2,2.7,1.7,2.7\n"
    "16,2,5,5.5,4.5,5.5\n"
    "32,1,2.4,2.9,1.9,2.9\n"
    "32,2,6,nan,5.5,6.5\n"
    "8,3,5,,4.5,5.5\n";

static cm_status plot_table(const char *csv, const cm_plot_table_opts *o,
                            const char *path, cm_err *err)
{
    cm_table *t = table(csv);
    cm_err_clear(err);
    cm_status st = cm_plot_table(t, o, path, err);
    cm_table_free(t);
    return st;
}

START_TEST(test_table_by_groups)
{
    const char *p = at("f.svg");
    const char *y[] = {"mean_occupancy", "occupancy"};
    cm_plot_table_opts o = {.x = "load", .y = y, .ny = 1, .by = "l1.mshrs"};
    cm_err err;
    ck_assert_int_eq(plot_table(grid_csv, &o, p, &err), CM_OK);
    char *svg = tu_read_file(p, NULL);
    for (int i = 0; i < 3; i++) ck_assert(svg_has_colour(svg, okabe_ito[i]));
    ck_assert(!svg_has_colour(svg, okabe_ito[3])); /* 3 values: 3 series */
    free(svg);

    o.ny = 2; /* 3 groups x 2 columns: a panel per group, a colour per
                 column, the same in every panel */
    ck_assert_int_eq(plot_table(grid_csv, &o, p, &err), CM_OK);
    svg = tu_read_file(p, NULL);
    for (int i = 0; i < 2; i++) ck_assert(svg_has_colour(svg, okabe_ito[i]));
    ck_assert(!svg_has_colour(svg, okabe_ito[2]));
    free(svg);

    o.by = NULL; /* 2 columns: 2 series */
    ck_assert_int_eq(plot_table(grid_csv, &o, p, &err), CM_OK);
    svg = tu_read_file(p, NULL);
    ck_assert(svg_has_colour(svg, okabe_ito[1]));
    ck_assert(!svg_has_colour(svg, okabe_ito[2]));
    free(svg);

    o.ny = 1;
    o.errlo = "lo";
    o.errhi = "hi";
    o.logx = o.logy = 1;
    o.title = "with # and <markup> & more";
    o.style = CM_PLOT_POINTS;
    ck_assert_int_eq(plot_table(grid_csv, &o, p, &err), CM_OK);
    ck_assert_uint_eq(tu_dir_entries(dir), 1);
}
END_TEST

/* A model's held-out error beside a y column is shaded, one band per run
 * of rows that have it: an empty error (outside the validated domain)
 * breaks the band, and --no-band (no_band) draws none. */
START_TEST(test_table_shades_heldout_error)
{
    static const char csv[] =
        "l1.mshrs,p_full,p_full_abs_err,occ,occ_rel_err\n"
        "4,0.9,0.1,10,0.2\n8,0.7,0.1,20,0.2\n16,0.5,,30,0.2\n"
        "32,0.3,0.05,40,\n64,0.1,0.05,50,\n";
    const char *p = at("band.svg");
    const char *y[] = {"p_full", "occ"};
    cm_plot_table_opts o = {.x = "l1.mshrs", .y = y, .ny = 1};
    cm_err err;
    ck_assert_int_eq(plot_table(csv, &o, p, &err), CM_OK);
    char *svg = tu_read_file(p, NULL);
    ck_assert_uint_eq(count(svg, "fill-opacity:0.22"), 2); /* 4-8, 32-64 */
    free(svg);
    o.y = y + 1; /* relative: one band, 4-16 */
    ck_assert_int_eq(plot_table(csv, &o, p, &err), CM_OK);
    svg = tu_read_file(p, NULL);
    ck_assert_uint_eq(count(svg, "fill-opacity:0.22"), 1);
    free(svg);
    o.no_band = 1;
    ck_assert_int_eq(plot_table(csv, &o, p, &err), CM_OK);
    svg = tu_read_file(p, NULL);
    ck_assert_uint_eq(count(svg, "fill-opacity:0.22"), 0);
    free(svg);
    /* a band alone never stretches an axis to zero on a log scale */
    o.no_band = 0;
    o.y = y;
    o.logy = 1;
    ck_assert_int_eq(plot_table(csv, &o, p, &err), CM_OK);
}
END_TEST

/* Equal SVG documents, but for the number cairo gives each surface it
 * creates in the process ("surface1", "surface6", ...). */
static int same_svg(const char *a, const char *b)
{
    static const char tag[] = "id=\"surface";
    for (;;) {
        if (strncmp(a, tag, sizeof tag - 1) == 0 &&
            strncmp(b, tag, sizeof tag - 1) == 0) {
            a += sizeof tag - 1;
            b += sizeof tag - 1;
            while (*a >= '0' && *a <= '9') a++;
            while (*b >= '0' && *b <= '9') b++;
        }
        if (*a != *b) return 0;
        if (!*a) return 1;
        a++;
        b++;
    }
}

/* cm_plot_table draws exactly the figure of the spec one would write by
 * hand: same series, labels and axis labels give the same SVG bytes. */
START_TEST(test_table_equals_hand_spec)
{
    const char *p = at("f.svg");
    const char *y[] = {"mean_occupancy", "occupancy"};
    cm_plot_table_opts o = {.x = "load", .y = y, .ny = 2, .by = "l1.mshrs",
                            .title = "T"};
    cm_err err;
    ck_assert_int_eq(plot_table(grid_csv, &o, p, &err), CM_OK);
    char *from_table = tu_read_file(p, NULL);

    static const double x8[] = {1, 2, 3}, m8[] = {2, 4, 5},
                        o8[] = {2.5, 4.5, NAN};
    static const double x16[] = {1, 2}, m16[] = {2.2, 5}, o16[] = {2.7, 5.5};
    static const double x32[] = {1, 2}, m32[] = {2.4, 6}, o32[] = {2.9, NAN};
    /* a panel per l1.mshrs value, titled with it; a series per column,
     * named from the registry */
    cm_plot_series six[6] = {
        {.label = "mean L1 MSHR occupancy", .x = x8, .y = m8, .n = 3},
        {.label = "busy L1 MSHRs", .x = x8, .y = o8, .n = 3},
        {.label = "mean L1 MSHR occupancy", .x = x16, .y = m16, .n = 2,
         .panel = 1},
        {.label = "busy L1 MSHRs", .x = x16, .y = o16, .n = 2, .panel = 1},
        {.label = "mean L1 MSHR occupancy", .x = x32, .y = m32, .n = 2,
         .panel = 2},
        {.label = "busy L1 MSHRs", .x = x32, .y = o32, .n = 2, .panel = 2},
    };
    const cm_plot_panel panels[3] = {
        {.title = "L1 MSHRs per SM: 8 entries"},
        {.title = "L1 MSHRs per SM: 16 entries"},
        {.title = "L1 MSHRs per SM: 32 entries"}};
    /* both columns are in entries: the y label names both, then the unit */
    cm_plot_spec spec = {.title = "T", .xlabel = "load",
                         .ylabel = "mean L1 MSHR occupancy, busy L1 MSHRs "
                                   "(entries)",
                         .style = CM_PLOT_LINES_POINTS, .series = six,
                         .nseries = 6, .panels = panels, .npanels = 3};
    char *by_hand = render_svg(&spec);
    ck_assert_msg(same_svg(from_table, by_hand),
                  "table figure differs from the hand-written spec");
    free(from_table);
    free(by_hand);

    /* one column, no --by: no legend, "label (unit)" on the axis */
    o.ny = 1;
    o.by = NULL;
    o.title = NULL;
    o.x = "l1.mshrs";
    o.y = y + 1;
    ck_assert_int_eq(plot_table("l1.mshrs,occupancy\n1,2\n2,3\n", &o, p,
                                &err),
                     CM_OK);
    from_table = tu_read_file(p, NULL);
    static const double xs[] = {1, 2}, ys[] = {2, 3};
    cm_plot_series one = {.label = NULL, .x = xs, .y = ys, .ylo = NULL, .yhi = NULL, .n = 2};
    cm_plot_spec sp1 = {.xlabel = "L1 MSHRs per SM (entries)",
                        .ylabel = "busy L1 MSHRs (entries)",
                        .style = CM_PLOT_LINES_POINTS, .series = &one,
                        .nseries = 1};
    by_hand = render_svg(&sp1);
    ck_assert_msg(same_svg(from_table, by_hand),
                  "single-column figure differs from the hand-written spec");
    free(from_table);
    free(by_hand);
}
END_TEST

/* `cohmod plot` hands every option to cm_plot_table: the binary and the
 * library draw the same figure. */
START_TEST(test_cli_matches_library)
{
    char *csv = tu_write_file(dir, "grid.csv", grid_csv);
    const char *y[] = {"mean_occupancy", "occupancy"};
    const cm_plot_table_opts opts[2] = {
        {.x = "load", .y = y, .ny = 2, .by = "l1.mshrs", .title = "Two",
         .logy = 1, .style = CM_PLOT_LINES},
        {.x = "load", .y = y, .ny = 1, .errlo = "lo", .errhi = "hi",
         .logx = 1, .style = CM_PLOT_POINTS},
    };
    const char *args[2] = {
        "--x load --y mean_occupancy,occupancy --by l1.mshrs --title Two "
        "--logy --style lines",
        "--x load --y mean_occupancy --errlo lo --errhi hi --logx --style "
        "points",
    };
    for (int i = 0; i < 2; i++) {
        char cmd[8192];
        snprintf(cmd, sizeof cmd, "plot %s %s --out %s", csv, args[i],
                 at("cli.svg"));
        tu_run r = tu_cohmod(cmd);
        ck_assert_msg(r.status == 0, "%s: %s", cmd, r.err);
        tu_run_free(&r);
        char *from_cli = tu_read_file(at("cli.svg"), NULL);
        cm_err err;
        ck_assert_int_eq(plot_table(grid_csv, &opts[i], at("lib.svg"), &err),
                         CM_OK);
        char *from_lib = tu_read_file(at("lib.svg"), NULL);
        ck_assert_msg(same_svg(from_cli, from_lib), "case %d differs", i);
        free(from_cli);
        free(from_lib);
    }
    free(csv);
}
END_TEST

START_TEST(test_table_errors)
{
    const char *p = at("f.png");
    const char *y[] = {"mean_occupancy", "occupancy"};
    const char *nope[] = {"nope"};
    cm_plot_table_opts o = {.x = "load", .y = nope, .ny = 1};
    cm_err err;
    ck_assert_int_eq(plot_table(grid_csv, &o, p, &err), CM_EINPUT);
    ck_assert_str_eq(err.msg, "t.csv:1:1: missing column 'nope'");

    o.y = y;
    o.x = "nox";
    ck_assert_int_eq(plot_table(grid_csv, &o, p, &err), CM_EINPUT);
    ck_assert_str_eq(err.msg, "t.csv:1:1: missing column 'nox'");

    o.x = "load";
    o.by = "noby";
    ck_assert_int_eq(plot_table(grid_csv, &o, p, &err), CM_EINPUT);
    ck_assert_str_eq(err.msg, "t.csv:1:1: missing column 'noby'");

    o.by = NULL;
    ck_assert_int_eq(plot_table("load,mean_occupancy\n1,2\n2,abc\n", &o, p,
                                &err),
                     CM_EINPUT);
    ck_assert_str_eq(err.msg, "t.csv:3:3: column 'mean_occupancy': expected "
                              "a number, got 'abc'");

    o.logy = 1;
    ck_assert_int_eq(plot_table("load,mean_occupancy\n1,2\n2,-3\n", &o, p,
                                &err),
                     CM_EINPUT);
    ck_assert_str_eq(err.msg, "t.csv:3:3: column 'mean_occupancy': a log "
                              "axis needs positive values, got '-3'");
    o.logy = 0;

    o.ny = 2;
    o.errlo = "lo";
    o.errhi = "hi";
    ck_assert_int_eq(plot_table(grid_csv, &o, p, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "exactly one y column"));
    o.ny = 1;
    o.errhi = NULL;
    ck_assert_int_eq(plot_table(grid_csv, &o, p, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "both a low and a high"));
    o.errlo = NULL;
    o.ny = 0;
    ck_assert_int_eq(plot_table(grid_csv, &o, p, &err), CM_EINPUT);

    o.ny = 1;
    ck_assert_int_eq(plot_table(grid_csv, &o, "f.gif", &err), CM_EINPUT);
    ck_assert_str_eq(err.msg,
                     "f.gif: unknown figure format; use .png, .svg or .pdf");
    ck_assert_int_eq(plot_table("load,mean_occupancy\n", &o, p, &err),
                     CM_EINPUT); /* no rows: nothing to plot */
    ck_assert_uint_eq(tu_dir_entries(dir), 0);
}
END_TEST

START_TEST(test_table_too_many_groups)
{
    const char *p = at("f.png");
    char csv[8192] = "k,x,y\n";
    for (int i = 0; i < 70; i++) {
        size_t n = strlen(csv);
        snprintf(csv + n, sizeof csv - n, "%d,%d,%d\n", i, i, i);
    }
    const char *y[] = {"y"};
    cm_plot_table_opts o = {.x = "x", .y = y, .ny = 1, .by = "k"};
    cm_err err;
    ck_assert_int_eq(plot_table(csv, &o, p, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "t.csv:66:1: column 'k' has more "
                                          "than 64 distinct values"));
    /* 64 groups: 8 panels of 8, no colour twice in one */
    csv[0] = '\0';
    snprintf(csv, sizeof csv, "k,x,y\n");
    for (int i = 0; i < 64; i++) {
        size_t n = strlen(csv);
        snprintf(csv + n, sizeof csv - n, "%d,%d,%d\n", i, i, i);
    }
    ck_assert_int_eq(plot_table(csv, &o, p, &err), CM_OK);
    unlink(p);
    ck_assert_uint_eq(tu_dir_entries(dir), 0);
}
END_TEST

Suite *suite_plot(void)
{
    Suite *s = suite_create("plot");
    TCase *tc = tcase_create("plot");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120); /* rendering under sanitizers is slow */
    tcase_add_test(tc, test_png_magic);
    tcase_add_test(tc, test_pdf_and_svg_magic);
    tcase_add_test(tc, test_svg_paper_look);
    tcase_add_test(tc, test_palette_per_series);
    tcase_add_test(tc, test_legend_labels_drawn);
    tcase_add_test(tc, test_error_bars_drawn);
    tcase_add_test(tc, test_legend_avoids_data);
    tcase_add_test(tc, test_record_matches_file);
    tcase_add_test(tc, test_figure_rules_can_fail);
    tcase_add_test(tc, test_legend_leaves_the_data);
    tcase_add_test(tc, test_colours_never_recycled);
    tcase_add_test(tc, test_categorical_bars);
    tcase_add_test(tc, test_model_beside_simulation);
    tcase_add_test(tc, test_overlaps_counted);
    tcase_add_test(tc, test_plain_ticks);
    tcase_add_test(tc, test_markers_per_style);
    tcase_add_test(tc, test_long_labels_shrink);
    tcase_add_test(tc, test_log_axis_two_decades);
    tcase_add_test(tc, test_unknown_extension);
    tcase_add_test(tc, test_unwritable_directory);
    tcase_add_test(tc, test_log_axis_rejects_non_positive);
    tcase_add_test(tc, test_bad_specs);
    tcase_add_test(tc, test_non_finite_points_skipped);
    tcase_add_test(tc, test_awkward_text_and_ranges);
    tcase_add_test(tc, test_repeated_rendering);
    tcase_add_test(tc, test_axis_label);
    tcase_add_test(tc, test_table_by_groups);
    tcase_add_test(tc, test_table_equals_hand_spec);
    tcase_add_test(tc, test_cli_matches_library);
    tcase_add_test(tc, test_table_errors);
    tcase_add_test(tc, test_table_too_many_groups);
    tcase_add_test(tc, test_table_shades_heldout_error);
    suite_add_tcase(s, tc);
    return s;
}
