/* datadir.h - where the data cohmod ships (data/traces, ...) is found,
 * whatever the working directory.
 *
 * The directory is $COHMOD_DATA when set, else PREFIX/share/cohmod for a
 * program installed as PREFIX/bin/cohmod (`make install`) when the file is
 * there, else the data/ directory of the source tree the library was built
 * from (the Makefile compiles its absolute path in as CM_DATA_DIR).  A file that is
 * not there is an error naming where it was looked for: the study used to
 * look for data/traces/sort.lackey relative to the working directory and
 * skip its reuse section, with exit 0, wherever that failed. */
#ifndef CM_DATADIR_H
#define CM_DATADIR_H

#include <stddef.h>

#include "data/err.h"

/* The shipped file `rel` ("traces/sort.lackey") as a readable path in buf;
 * CM_EINPUT when it is not readable there. */
cm_status cm_data_path(const char *rel, char *buf, size_t len, cm_err *err);

#endif
