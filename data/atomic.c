/* atomic.c - files that appear whole or not at all (see atomic.h). */
#include "data/atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void atomic_release(cm_atomic_file *af)
{
    free(af->path);
    free(af->tmp);
    af->path = af->tmp = NULL;
    af->f = NULL;
}

cm_status cm_atomic_open(cm_atomic_file *af, const char *path, cm_err *err)
{
    static const char suffix[] = ".tmp.XXXXXX";
    memset(af, 0, sizeof *af);
    size_t n = strlen(path);
    af->path = strdup(path);
    af->tmp = malloc(n + sizeof suffix);
    if (!af->path || !af->tmp) {
        atomic_release(af);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    /* A device or pipe (/dev/null, /dev/stdout, a FIFO) is written
     * through: renaming a temporary over it would replace the device. */
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)) {
        free(af->tmp);
        af->tmp = NULL;
        af->f = fopen(path, "w");
        if (af->f) return CM_OK;
        int e = errno;
        atomic_release(af);
        return cm_err_set(err, CM_EINPUT, "%s: cannot open: %s", path,
                          strerror(e));
    }
    memcpy(af->tmp, path, n);
    memcpy(af->tmp + n, suffix, sizeof suffix);
    int fd = mkstemp(af->tmp);
    if (fd < 0) {
        int e = errno;
        atomic_release(af);
        return cm_err_set(err, CM_EINPUT, "%s: cannot create: %s", path,
                          strerror(e));
    }
    /* mkstemp makes the file 0600; a result should get the usual mode, and
     * umask can only be read by setting it. */
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    af->f = fdopen(fd, "w");
    if (!af->f) {
        int e = errno;
        close(fd);
        unlink(af->tmp);
        atomic_release(af);
        return cm_err_set(err, CM_EINTERNAL, "%s: cannot create: %s", path,
                          strerror(e));
    }
    return CM_OK;
}

/* The rename is durable only once the directory entry is on disk too. */
static void sync_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path))
                      : strdup(".");
    if (!dir) return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(dir);
}

cm_status cm_atomic_commit(cm_atomic_file *af, cm_err *err)
{
    cm_status st = CM_OK;
    errno = 0;
    int bad = fflush(af->f) != 0 || ferror(af->f) ||
              (af->tmp && fsync(fileno(af->f)));
    int e = errno;
    if (fclose(af->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        if (af->tmp) unlink(af->tmp);
        st = cm_err_set(err, CM_EINTERNAL, "%s: cannot write: %s", af->path,
                        strerror(e ? e : EIO));
    } else if (!af->tmp) {
        /* written through: nothing to rename */
    } else if (rename(af->tmp, af->path) != 0) {
        e = errno;
        unlink(af->tmp);
        st = cm_err_set(err, CM_EINPUT, "%s: cannot rename into place: %s",
                        af->path, strerror(e));
    } else {
        sync_dir(af->path);
    }
    atomic_release(af);
    return st;
}

void cm_atomic_abort(cm_atomic_file *af)
{
    if (af->f) fclose(af->f);
    if (af->tmp) unlink(af->tmp);
    atomic_release(af);
}

cm_status cm_atomic_write(const char *path, const void *data, size_t len,
                          cm_err *err)
{
    cm_atomic_file af;
    cm_status st = cm_atomic_open(&af, path, err);
    if (st) return st;
    if (len && fwrite(data, 1, len, af.f) != len) {
        int e = errno;
        cm_atomic_abort(&af);
        return cm_err_set(err, CM_EINTERNAL, "%s: cannot write: %s", path,
                          strerror(e ? e : EIO));
    }
    return cm_atomic_commit(&af, err);
}

cm_status cm_mkdir_p(const char *dir, cm_err *err)
{
    if (!dir[0]) return cm_err_set(err, CM_EINPUT, "empty directory name");
    char *p = strdup(dir);
    if (!p) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    cm_status st = CM_OK;
    for (char *s = p + 1;; s++) {
        int end = *s == '\0';
        if (*s == '/' || end) {
            *s = '\0';
            struct stat sb;
            if (mkdir(p, 0777) != 0 && errno != EEXIST) {
                st = cm_err_set(err, CM_EINPUT, "%s: cannot create "
                                "directory: %s", p, strerror(errno));
                break;
            }
            if (stat(p, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
                st = cm_err_set(err, CM_EINPUT, "%s: not a directory", p);
                break;
            }
            if (end) break;
            *s = '/';
        }
    }
    free(p);
    return st;
}
