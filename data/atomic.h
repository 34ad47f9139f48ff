/* atomic.h - files that appear whole or not at all.
 *
 * Every result cohmod writes (CSV, figures, summaries) goes to a temporary
 * file beside its target, created with mkstemp, and is renamed over the
 * target only after a successful flush and fsync; any failure, or an
 * explicit abort, removes the temporary.  So an interrupted or failed run
 * never leaves a half-written result, and an existing target stays intact
 * until its replacement is complete.  A target that exists and is not a
 * regular file (/dev/null, /dev/stdout, a FIFO) is written through. */
#ifndef CM_ATOMIC_H
#define CM_ATOMIC_H

#include <stddef.h>
#include <stdio.h>

#include "data/err.h"

typedef struct cm_atomic_file {
    FILE *f;    /* write here */
    char *path; /* the target */
    char *tmp;  /* the temporary: "<path>.tmp.XXXXXX" */
} cm_atomic_file;

/* Creates the temporary.  An unwritable or missing directory is CM_EINPUT
 * "path: cannot create: <reason>". */
cm_status cm_atomic_open(cm_atomic_file *af, const char *path, cm_err *err);

/* Flushes, syncs, closes and renames into place. Always releases af. */
cm_status cm_atomic_commit(cm_atomic_file *af, cm_err *err);

/* Closes and removes the temporary; the target is untouched. */
void cm_atomic_abort(cm_atomic_file *af);

/* Whole buffer to path, atomically. */
cm_status cm_atomic_write(const char *path, const void *data, size_t len,
                          cm_err *err);

/* mkdir -p; an existing directory is fine.  Errors are CM_EINPUT. */
cm_status cm_mkdir_p(const char *dir, cm_err *err);

#endif
