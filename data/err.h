/* err.h - errors as values.
 *
 * Every library function that can fail on bad input returns a cm_status and
 * fills a cm_err with one human-readable line.  Input-file errors carry a
 * "file:line:col: " prefix.  The status codes double as the CLI's exit codes
 * (2 = bad usage or input, 1 = internal failure), so the CLI never has to
 * translate. */
#ifndef CM_ERR_H
#define CM_ERR_H

#include <stddef.h>

typedef enum cm_status {
    CM_OK = 0,
    CM_EINTERNAL = 1, /* numerical failure, out of memory, I/O fault */
    CM_EINPUT = 2     /* the user's input is wrong: fix it and retry */
} cm_status;

#define CM_ERR_MSG_MAX 512

typedef struct cm_err {
    cm_status code;
    char msg[CM_ERR_MSG_MAX];
} cm_err;

/* Records the error (err may be NULL) and returns code, so callers can write
 * `return cm_err_set(err, CM_EINPUT, "...")`. */
cm_status cm_err_set(cm_err *err, cm_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Like cm_err_set, with a "file:line:col: " location prefix. */
cm_status cm_err_at(cm_err *err, cm_status code, const char *file,
                    unsigned long line, unsigned long col, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Prefixes the existing message with "context: " (e.g. the path). */
void cm_err_prefix(cm_err *err, const char *context);

void cm_err_clear(cm_err *err);

#endif
