/* datadir.c - the shipped data's directory (datadir.h). */
#include "data/datadir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CM_DATA_DIR
#error "CM_DATA_DIR: the Makefile gives the source tree's data directory"
#endif

/* PREFIX/share/cohmod for a program installed as PREFIX/bin/NAME (`make
 * install`), in buf; 0 when the executable's path is unknown. */
static int installed_dir(char *buf, size_t len)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return 0;
    exe[n] = '\0';
    for (int up = 0; up < 2; up++) { /* PREFIX/bin/NAME -> PREFIX */
        char *slash = strrchr(exe, '/');
        if (!slash) return 0;
        *slash = '\0';
    }
    int k = snprintf(buf, len, "%s/share/cohmod", exe);
    return k > 0 && (size_t)k < len;
}

static int readable_in(const char *dir, const char *rel, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s/%s", dir, rel);
    return n > 0 && (size_t)n < len && access(buf, R_OK) == 0;
}

cm_status cm_data_path(const char *rel, char *buf, size_t len, cm_err *err)
{
    const char *env = getenv("COHMOD_DATA");
    if (env && *env) {
        if (readable_in(env, rel, buf, len)) return CM_OK;
        return cm_err_set(err, CM_EINPUT,
                          "%s: not found in cohmod's data directory %s "
                          "(COHMOD_DATA)", rel, env);
    }
    char inst[4096];
    if (installed_dir(inst, sizeof inst) && readable_in(inst, rel, buf, len))
        return CM_OK;
    if (readable_in(CM_DATA_DIR, rel, buf, len)) return CM_OK;
    return cm_err_set(err, CM_EINPUT,
                      "%s: not found in cohmod's data directory %s (set "
                      "COHMOD_DATA to an installed copy of data/)", rel,
                      CM_DATA_DIR);
}
