/* plot.c - cohmod's figures on PLplot's cairo driver (see plot.h).
 *
 * The look is set here once, so every figure in a study matches and can go
 * into a paper unedited:
 *   - white page, black axes and text: PLplot's own default is a black page
 *     with red ink, which no journal prints;
 *   - sans-serif text at ~1/40 of the figure width, so labels stay legible
 *     when the figure is shrunk to one column;
 *   - the Okabe-Ito palette, distinguishable under every common form of
 *     colour blindness, at most once per panel (a ninth series is an error:
 *     the caller splits into panels), and a filled marker per series, so
 *     the series stay apart in greyscale print too;
 *   - categories on a categorical axis with their names: grouped bars (a
 *     marker above each bar says its series in greyscale) or dodged
 *     points, never a line from one category to the next;
 *   - a light grey grid behind the data, axis labels with units (shrunk
 *     rather than cut when too long), tick labels in plain decimals (no
 *     "(x10^k)" beside the axis), error bars where the data has intervals,
 *     markers on at most ~20 points of a dense line;
 *   - the legend in an inside corner only where it covers no mark, else
 *     beside the plot, or below it when it is wide;
 *   - log axes that always show two labelled powers of ten;
 *   - line widths proportional to the page, so a PNG and a PDF of the same
 *     figure look the same.
 *
 * The extension picks the cairo device: .png (1200x900 pixels), .svg and
 * .pdf (460x345 points, i.e. 6.4x4.8 in), taller by 60% per extra panel.
 * PLplot renders into a temporary file beside the target, which is renamed
 * over it only when complete.
 *
 * The legend's size is estimated before drawing (PLplot measures text only
 * while it draws it).  Every mark drawn is recorded in page coordinates; if
 * the legend PLplot drew covers a mark or leaves the page, the figure is
 * drawn again with the legend's measured size, so the placement rests on
 * what was drawn, not on the estimate.
 *
 * PLplot keeps its state in "streams".  Each figure makes a new stream,
 * configures it before plinit, ends it with plend1 and restores the caller's
 * stream, so figures never leak settings into each other.  PLplot reports
 * recoverable errors through plabort and fatal ones through plexit, which
 * would exit the process; while a figure renders both are routed here (the
 * exit handler long-jumps back), so either becomes a returned cm_err, and
 * afterwards both handlers are reset to PLplot's defaults.  PLplot is not
 * thread-safe, and neither is this module.
 *
 * This file holds the entry point, the formats, the record of marks and
 * PLplot's error paths; plot_prep.c readies the data, plot_layout.c places
 * ticks, panels and legends, plot_draw.c draws (plot_impl.h: what they
 * share). */
#include "plots/plot.h"

#include <limits.h>
#include <math.h>
#include <plplot.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "data/atomic.h"
#include "plots/plot_impl.h"

/* ---- the formats ---------------------------------------------------------- */

static const fig_format formats[] = {
    {".png", "pngcairo", 1200, 900},
    {".svg", "svgcairo", 460, 345},
    {".pdf", "pdfcairo", 460, 345},
};

/* ---- helpers --------------------------------------------------------------- */

/* The format of `path` from its extension, or NULL after setting err. */
static const fig_format *format_for(const char *path, cm_err *err)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    const char *slash = path ? strrchr(path, '/') : NULL;
    if (!path || !path[0]) {
        cm_err_set(err, CM_EINPUT, "no figure file given");
        return NULL;
    }
    if (dot && !(slash && dot < slash))
        for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
            if (strcasecmp(dot, formats[i].ext) == 0) return &formats[i];
    cm_err_set(err, CM_EINPUT,
               "%s: unknown figure format; use .png, .svg or .pdf", path);
    return NULL;
}

cm_status cm_plot_check_path(const char *path, cm_err *err)
{
    return format_for(path, err) ? CM_OK : CM_EINPUT;
}

/* Length of the valid UTF-8 sequence at s, or 0 if s starts an invalid
 * one (overlong forms and surrogates included). */
static size_t utf8_seq(const unsigned char *s)
{
    unsigned c = s[0];
    size_t n;
    unsigned lo = 0x80, hi = 0xBF; /* range of the second byte */
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) n = 3;
    else if (c >= 0xF0 && c <= 0xF4) n = 4;
    else return 0;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
    if (s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF) return 0;
    return n;
}

/* Copies text for PLplot: '#', its escape character, doubled; bytes that
 * are not UTF-8 (PLplot would refuse the whole string) replaced by U+FFFD;
 * cut after MAX_LABEL bytes at a character boundary. */
void plot_text_encode(const char *text, char *buf, size_t len)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t n = 0;
    if (len == 0) return;
    while (s && *s && n < MAX_LABEL) {
        size_t k = utf8_seq(s), w = k;
        const char *src = (const char *)s;
        if (k == 0) {
            src = "\xEF\xBF\xBD";
            w = 3;
        } else if (*s == '#') {
            src = "##";
            w = 2;
        }
        if (n + w >= len) break;
        memcpy(buf + n, src, w);
        n += w;
        s += k ? k : 1;
    }
    buf[n] = '\0';
}

/* Characters (not bytes) of UTF-8 text. */
size_t plot_text_chars(const char *s)
{
    size_t n = 0;
    for (; s && *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

const char *plot_series_name(const cm_plot_series *s, size_t i, char *buf,
                               size_t len)
{
    if (s->label && s->label[0]) return s->label;
    snprintf(buf, len, "#%zu", i + 1);
    return buf;
}

int cm_plot_box_overlap(const cm_plot_box *a, const cm_plot_box *b)
{
    return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

/* Liang-Barsky: does the segment p0-p1 pass through the box's inside? */
int cm_plot_segment_crosses(const cm_plot_box *seg, const cm_plot_box *b)
{
    double x0 = seg->x0, y0 = seg->y0, dx = seg->x1 - x0, dy = seg->y1 - y0;
    double p[4] = {-dx, dx, -dy, dy};
    double q[4] = {x0 - b->x0, b->x1 - x0, y0 - b->y0, b->y1 - y0};
    double t0 = 0, t1 = 1;
    for (int i = 0; i < 4; i++) {
        if (p[i] == 0) {
            if (q[i] <= 0) return 0;
            continue;
        }
        double t = q[i] / p[i];
        if (p[i] < 0) t0 = fmax(t0, t);
        else t1 = fmin(t1, t);
        if (t0 >= t1) return 0;
    }
    return 1;
}


/* ---- the record of what was drawn ------------------------------------------ */

void plot_add_mark(figure *f, size_t series, cm_plot_mark_kind kind,
                   double x0, double y0, double x1, double y1)
{
    int is_segment = kind == CM_MARK_SEGMENT;
    if (f->nmarks == f->capmarks) {
        size_t cap = f->capmarks ? 2 * f->capmarks : 256;
        cm_plot_mark *g = realloc(f->marks, cap * sizeof *g);
        if (!g) {
            f->out_of_memory = 1;
            return;
        }
        f->marks = g;
        f->capmarks = cap;
    }
    cm_plot_box b = is_segment ? (cm_plot_box){x0, y0, x1, y1}
                               : (cm_plot_box){fmin(x0, x1), fmin(y0, y1),
                                               fmax(x0, x1), fmax(y0, y1)};
    f->marks[f->nmarks++] = (cm_plot_mark){b, series, kind, 0};
}

/* ---- the record --------------------------------------------------------------- */

static cm_plot_observer observer;
static void *observer_arg;

void cm_plot_set_observer(cm_plot_observer fn, void *arg)
{
    observer = fn;
    observer_arg = arg;
}

static void notify(const figure *f)
{
    if (!observer) return;
    const cm_plot_spec *sp = f->spec;
    cm_plot_series_rec *sr = calloc(sp->nseries, sizeof *sr);
    cm_plot_axis_rec *ax = calloc(2 * f->npanels, sizeof *ax);
    const char **ticks = calloc(2 * f->npanels * MAX_TICKS, sizeof *ticks);
    cm_plot_box *legends = calloc(f->npanels, sizeof *legends);
    cm_plot_box *areas = calloc(f->npanels, sizeof *areas);
    if (sr && ax && legends && areas && ticks) {
        size_t nleg = 0;
        for (size_t i = 0; i < sp->nseries; i++) {
            const prep_series *s = &f->ps[i];
            const cm_plot_series *in = &sp->series[i];
            size_t pts = 0;
            for (PLINT j = 0; j < s->n; j++)
                pts += isfinite(s->x[j]) && isfinite(s->y[j]);
            const cm_plot_series *head =
                &sp->series[f->pn[in->panel].entries[s->entry].head];
            sr[i] = (cm_plot_series_rec){head->label ? head->label : "",
                                         s->entry, s->colour, s->marker,
                                         s->line, in->panel, pts};
        }
        for (size_t k = 0; k < f->npanels; k++) {
            const panel *p = &f->pn[k];
            for (int a = 0; a < 2; a++) {
                const char **t = ticks + (2 * k + (size_t)a) * MAX_TICKS;
                for (size_t j = 0; j < p->nticks[a]; j++) t[j] = p->ticks[a][j];
                ax[2 * k + (size_t)a] = (cm_plot_axis_rec){
                    k, a ? 'y' : 'x',
                    (a ? p->ylabel : p->xlabel) ? (a ? p->ylabel : p->xlabel)
                                                : "",
                    !a && plot_categorical(f), a ? p->logy : p->logx, t,
                    p->nticks[a]};
            }
            areas[k] = (cm_plot_box){p->vx0, p->vy0, p->vx1, p->vy1};
            if (p->where != LEG_NONE) legends[nleg++] = p->legend;
        }
        cm_plot_record rec = {f->path, sp->title ? sp->title : "",
                              f->npanels, sr, sp->nseries, ax,
                              2 * f->npanels, legends, nleg, areas, f->marks,
                              f->nmarks};
        observer(&rec, observer_arg);
    }
    free(sr);
    free(ax);
    free(ticks);
    free(legends);
    free(areas);
}

/* ---- PLplot's error paths ---------------------------------------------------- */

/* Valid only while one figure renders. */
static struct {
    jmp_buf jump;
    int aborted;
    char msg[256];
    PLINT errcode;
    char errbuf[1024]; /* plsError: PLplot writes aborts here, not stderr */
} trap;

static void trap_note(const char *msg)
{
    if (trap.aborted) return; /* the first error is the informative one */
    trap.aborted = 1;
    snprintf(trap.msg, sizeof trap.msg, "%s", msg ? msg : "unknown error");
    size_t n = strlen(trap.msg);
    while (n > 0 && (trap.msg[n - 1] == '\n' || trap.msg[n - 1] == ' '))
        trap.msg[--n] = '\0';
}

static void on_plabort(PLCHAR_VECTOR msg)
{
    trap_note(msg);
}

static int on_plexit(PLCHAR_VECTOR msg)
{
    trap_note(msg);
    longjmp(trap.jump, 1);
}

/* Runs plot_draw() with PLplot's error paths routed here.  Returns 0 if PLplot
 * finished, -1 if it gave up through plexit (its stream is then abandoned:
 * ending a half-built stream can crash, and the case is pathological). */
static int draw_trapped(figure *f)
{
    if (setjmp(trap.jump)) return -1;
    plot_draw(f);
    return 0;
}

static cm_status render_file(figure *f, cm_err *err)
{
    PLINT prev = 0, strm = -1;
    plgstrm(&prev);
    memset(&trap, 0, sizeof trap);
    plsabort(on_plabort);
    plsexit(on_plexit);
    plmkstrm(&strm);
    int finished = 0;
    if (strm >= 0 && strm != prev && !trap.aborted) {
        plsError(&trap.errcode, trap.errbuf);
        finished = draw_trapped(f) == 0;
    }
    plsexit(NULL);
    plsabort(NULL);
    plsstrm(prev);
    if (trap.aborted || !finished)
        return cm_err_set(err, CM_EINTERNAL, "PLplot: %s",
                          trap.aborted ? trap.msg : "failed");
    if (f->out_of_memory)
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    return CM_OK;
}

/* ---- rendering to a file -------------------------------------------------- */

/* Cairo numbers the surfaces of a process in turn and writes the number
 * into every SVG (<g id="surface1687">), so the same figure drawn by
 * another process (a shard of the study) would differ by it.  The id is
 * referred to nowhere; it becomes surface1, and an SVG depends on its
 * figure alone. */
static cm_status normalise_svg(const char *path, cm_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return cm_err_set(err, CM_EINTERNAL, "%s: cannot read", path);
    char *buf = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
        fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) &&
        fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (!buf) return cm_err_set(err, CM_EINTERNAL, "%s: cannot read", path);
    buf[n] = '\0';
    static const char tag[] = "id=\"surface";
    char *at = strstr(buf, tag);
    cm_status st = CM_OK;
    if (at) {
        char *digits = at + sizeof tag - 1, *end = digits;
        while (*end >= '0' && *end <= '9') end++;
        f = fopen(path, "wb");
        if (!f ||
            fwrite(buf, 1, (size_t)(digits - buf), f) !=
                (size_t)(digits - buf) ||
            fputs("1", f) == EOF ||
            fwrite(end, 1, (size_t)(buf + n - end), f) !=
                (size_t)(buf + n - end))
            st = cm_err_set(err, CM_EINTERNAL, "%s: cannot write", path);
        if (f && fclose(f) != 0 && !st)
            st = cm_err_set(err, CM_EINTERNAL, "%s: cannot write", path);
    }
    free(buf);
    return st;
}

cm_status cm_plot_render(const cm_plot_spec *spec, const char *path,
                         cm_err *err)
{
    const fig_format *fmt = format_for(path, err);
    if (!fmt) return err ? err->code : CM_EINPUT;
    if (!spec || spec->nseries == 0 || !spec->series)
        return cm_err_set(err, CM_EINPUT, "%s: nothing to plot: no series",
                          path);
    if (spec->nseries > MAX_SERIES)
        return cm_err_set(err, CM_EINPUT,
                          "%s: %zu series; a figure takes at most %d", path,
                          spec->nseries, MAX_SERIES);

    figure *f = calloc(1, sizeof *f);
    if (!f) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    f->spec = spec;
    f->fmt = fmt;
    f->path = path;
    cm_status st = plot_prepare(f, err);
    if (st) {
        plot_figure_free(f);
        free(f);
        return st;
    }
    double grow = 1.0 + PANEL_GROWTH * (double)(f->npanels - 1);
    f->width = fmt->width;
    f->height = (int)lround(fmt->height * grow);

    /* PLplot opens the temporary by name and writes it through a FILE of
     * its own; af.f stays unused, but syncing it at commit syncs the file,
     * which is what fsync acts on. */
    cm_atomic_file af;
    if ((st = cm_atomic_open(&af, path, err))) {
        plot_figure_free(f);
        free(f);
        return st;
    }
    f->file = af.tmp;
    st = render_file(f, err);
    if (!st && plot_legends_misplaced(f)) st = render_file(f, err);
    struct stat sb;
    if (!st && (stat(af.tmp, &sb) != 0 || sb.st_size == 0))
        st = cm_err_set(err, CM_EINTERNAL, "%s: the renderer wrote nothing",
                        path);
    if (!st && !strcmp(fmt->ext, ".svg")) st = normalise_svg(af.tmp, err);
    if (st)
        cm_atomic_abort(&af);
    else
        st = cm_atomic_commit(&af, err);
    if (!st) notify(f);
    plot_figure_free(f);
    free(f);
    return st;
}

