/* progress.h - how long-running calls report progress, and the one bar
 * every command draws from it.
 *
 * A library call never prints; it calls back with how far it has come:
 * done of total units of the work actually to be done (runs, grid points,
 * cycles of the run that will happen), reaching done == total when it
 * ends.  total is 0 when the end is not known in advance, and done then
 * counts bytes read (a streamed trace).  A call made of steps (the study,
 * mrc's passes over a trace) reports each step from 0 again: a report
 * whose done goes back, or whose total changes, starts the next step.
 *
 * The bar (cm_progress_bar) turns reports into the text to write, so the
 * drawing is testable without a terminal; the CLI decides whether to write
 * it (stderr a terminal, no --quiet; cli/cli.h).  It redraws when the
 * shown per mille changes, ends its line when a step reaches its total,
 * when the next step starts (the last one having ended: drawn at 100% of
 * what it did), and at the end of the command (cm_progress_bar_finish),
 * so no message is ever glued onto a bar. */
#ifndef CM_PROGRESS_H
#define CM_PROGRESS_H

#include <stddef.h>

typedef void (*cm_progress_fn)(size_t done, size_t total, void *arg);

typedef struct cm_progress_bar {
    char label[64];     /* shown after the bar: "validate", "ls.lackey" */
    size_t known_total; /* the total of a report that gives 0 (a file's
                           bytes), 0 when not known either */
    size_t done, total; /* the step's last report (total as shown) */
    int shown;          /* per mille last drawn, or MB for unknown totals */
    int open;           /* a bar is on the line and not ended */
    unsigned step;      /* steps started, from 1 */
} cm_progress_bar;

/* label may be NULL. */
void cm_progress_bar_init(cm_progress_bar *b, const char *label,
                          size_t known_total);

/* The text one report calls for (often ""), at most len - 1 bytes and
 * NUL-terminated; returns its length. */
size_t cm_progress_bar_report(cm_progress_bar *b, size_t done, size_t total,
                              char *buf, size_t len);

/* The text that ends the bar when the command ends: the last step at its
 * total if the work completed (ok) and "\n", just "\n" if it failed, ""
 * when no bar is open. */
size_t cm_progress_bar_finish(cm_progress_bar *b, int ok, char *buf,
                              size_t len);

#endif
