/* datadir.c - the shipped data's directory (datadir.h). */
#include "data/datadir.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifndef CM_DATA_DIR
#error "CM_DATA_DIR: the Makefile gives the source tree's data directory"
#endif

cm_status cm_data_path(const char *rel, char *buf, size_t len, cm_err *err)
{
    const char *env = getenv("COHMOD_DATA");
    const char *dir = env && *env ? env : CM_DATA_DIR;
    int n = snprintf(buf, len, "%s/%s", dir, rel);
    if (n < 0 || (size_t)n >= len)
        return cm_err_set(err, CM_EINPUT, "%s/%s: path too long", dir, rel);
    if (access(buf, R_OK) != 0)
        return cm_err_set(err, CM_EINPUT,
                          "%s: not found in cohmod's data directory %s%s",
                          rel, dir,
                          env && *env ? " (COHMOD_DATA)"
                                      : " (set COHMOD_DATA to an installed "
                                        "copy of data/)");
    return CM_OK;
}
