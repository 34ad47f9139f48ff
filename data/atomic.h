/* atomic.h - files that appear whole or not at all.
 *
 * Every result cohmod writes (CSV, figures, summaries) goes to a temporary
 * file beside its target, created with mkstemp, and is renamed over the
 * target only after a successful flush and fsync; any failure, or an
 * explicit abort, removes the temporary.  So an interrupted or failed run
 * never leaves a half-written result, and an existing target stays intact
 * until its replacement is complete.  A target that exists and is not a
 * regular file (/dev/null, /dev/stdout, a FIFO) is written through.
 *
 * Temporaries are named "<target>.cohmod-tmp.<pid>.XXXXXX".  Every live one
 * is listed where a signal handler can reach it (cm_atomic_remove_all), and
 * the first file opened in a directory removes the temporaries there whose
 * process is gone (a run killed by SIGKILL leaves them behind).
 *
 * A batch (cm_atomic_batch_begin) groups every file of one command: commit
 * then only completes the temporary, and the renames happen together in
 * cm_atomic_batch_commit, so a command with several outputs writes all of
 * them or none. */
#ifndef CM_ATOMIC_H
#define CM_ATOMIC_H

#include <stddef.h>
#include <stdio.h>

#include "data/err.h"

typedef struct cm_atomic_file {
    FILE *f;    /* write here */
    char *path; /* the target */
    char *tmp;  /* the temporary, NULL when written through */
} cm_atomic_file;

/* Creates the temporary.  An unwritable or missing directory is CM_EINPUT
 * "path: cannot create: <reason>". */
cm_status cm_atomic_open(cm_atomic_file *af, const char *path, cm_err *err);

/* Flushes, syncs, closes and renames into place (inside a batch: leaves the
 * rename to the batch).  Always releases af. */
cm_status cm_atomic_commit(cm_atomic_file *af, cm_err *err);

/* Closes and removes the temporary; the target is untouched. */
void cm_atomic_abort(cm_atomic_file *af);

/* Whole buffer to path, atomically. */
cm_status cm_atomic_write(const char *path, const void *data, size_t len,
                          cm_err *err);

/* mkdir -p; an existing directory is fine.  Errors are CM_EINPUT. */
cm_status cm_mkdir_p(const char *dir, cm_err *err);

/* ---- batches ---------------------------------------------------------- */

/* Starts a batch; one at a time (CM_EINTERNAL when one is open). */
cm_status cm_atomic_batch_begin(cm_err *err);

/* Renames every completed temporary of the batch into place, in the order
 * they were committed (a target written twice ends with the later one),
 * and ends the batch.  A failed rename removes the temporaries not yet
 * renamed and is the error. */
cm_status cm_atomic_batch_commit(cm_err *err);

/* Removes every temporary of the batch and ends it. */
void cm_atomic_batch_abort(void);

/* ---- interruption and stale temporaries ------------------------------ */

/* Removes every live temporary of this process (open or waiting in a
 * batch).  Async-signal-safe: made for a SIGINT/SIGTERM handler. */
void cm_atomic_remove_all(void);

/* Removes the temporaries of cohmod's naming in dir whose process is no
 * longer running; returns how many.  cm_atomic_open does it once per
 * directory, so callers rarely need it. */
size_t cm_atomic_remove_stale(const char *dir);

/* ---- checks before the work ------------------------------------------ */

/* Whether a result can later be written at path: its directory exists and
 * accepts a new file (probed by creating and removing one), and path is
 * not a directory.  CM_EINPUT "path: cannot create: <reason>", as
 * cm_atomic_open would say later. */
cm_status cm_output_check_file(const char *path, cm_err *err);

/* Whether dir can hold results: an existing directory that accepts a new
 * file, or a path whose nearest existing ancestor is such a directory
 * (cm_mkdir_p would create the rest).  Nothing is left behind. */
cm_status cm_output_check_dir(const char *dir, cm_err *err);

#endif
