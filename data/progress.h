/* progress.h - how long-running library calls report progress.
 *
 * A library call never prints; it calls back with how far it has come, and
 * the CLI draws a progress bar when stderr is a terminal.  total is 0 when
 * the end is not known in advance (e.g. bytes of a streamed trace). */
#ifndef CM_PROGRESS_H
#define CM_PROGRESS_H

#include <stddef.h>

typedef void (*cm_progress_fn)(size_t done, size_t total, void *arg);

#endif
