/* progress.c - the text of the progress bar (progress.h). */
#include "data/progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define BAR_WIDTH 30

void cm_progress_bar_init(cm_progress_bar *b, const char *label,
                          size_t known_total)
{
    memset(b, 0, sizeof *b);
    snprintf(b->label, sizeof b->label, "%s", label ? label : "");
    b->known_total = known_total;
    b->shown = -1;
}

/* Appends to buf at *k, never past len - 1. */
static void put(char *buf, size_t len, size_t *k, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void put(char *buf, size_t len, size_t *k, const char *fmt, ...)
{
    if (*k >= len) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *k, len - *k, fmt, ap);
    va_end(ap);
    if (n > 0) *k = *k + (size_t)n < len ? *k + (size_t)n : len - 1;
}

/* The bar at the current state, from the start of the line. */
static void draw(const cm_progress_bar *b, char *buf, size_t len, size_t *k)
{
    char step[24] = "";
    if (b->step > 1) snprintf(step, sizeof step, ", step %u", b->step);
    if (b->total == 0) {
        put(buf, len, k, "\r%.1f MB read%s%s%s", (double)b->done / 1e6,
            b->label[0] ? " " : "", b->label, step);
        return;
    }
    double f = b->done >= b->total ? 1 : (double)b->done / (double)b->total;
    int fill = (int)(f * BAR_WIDTH);
    put(buf, len, k, "\r[%.*s%*s] %3d%% %zu/%zu%s%s%s", fill,
        "==============================", BAR_WIDTH - fill, "",
        (int)(100 * f), b->done < b->total ? b->done : b->total, b->total,
        b->label[0] ? " " : "", b->label, step);
}

/* Ends an open step as completed: a file read to its end, or a step whose
 * work turned out to be what it had done (a simulation that ended before
 * its cycle budget is 100% of the cycles it ran, not of the budget). */
static void complete(cm_progress_bar *b, char *buf, size_t len, size_t *k)
{
    if (!b->open) return;
    if (b->total && b->total == b->known_total) b->done = b->total;
    else if (b->done > 0 && b->total > 0) b->total = b->done;
    draw(b, buf, len, k);
    put(buf, len, k, "\n");
    b->open = 0;
}

size_t cm_progress_bar_report(cm_progress_bar *b, size_t done, size_t total,
                              char *buf, size_t len)
{
    size_t k = 0;
    if (len) buf[0] = '\0';
    /* bytes of a known file: a percentage; past it (a listing of several
     * files), bytes again */
    if (total == 0 && b->known_total && done <= b->known_total)
        total = b->known_total;
    int next = b->step == 0 || total != b->total || done < b->done;
    if (next) {
        complete(b, buf, len, &k); /* the step before ended: it is done */
        b->step++;
        b->shown = -1;
    }
    b->done = done;
    b->total = total;
    int shown = total ? (int)(1000.0 * (double)(done < total ? done : total) /
                              (double)total)
                      : (int)(done >> 20);
    if (shown != b->shown) {
        b->shown = shown;
        b->open = 1;
        draw(b, buf, len, &k);
    }
    if (total && done >= total && b->open) {
        put(buf, len, &k, "\n");
        b->open = 0;
    }
    return k;
}

size_t cm_progress_bar_finish(cm_progress_bar *b, int ok, char *buf,
                              size_t len)
{
    size_t k = 0;
    if (len) buf[0] = '\0';
    if (!b->open) return 0;
    if (ok) {
        complete(b, buf, len, &k);
    } else {
        put(buf, len, &k, "\n");
        b->open = 0;
    }
    return k;
}
