/* atomic.c - files that appear whole or not at all (see atomic.h). */
#include "data/atomic.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* ---- the temporaries a signal handler may have to remove ------------- */

/* A fixed table of pointers, so the handler needs no lock and no
 * allocation: a slot holds a complete name or NULL.  Lock-free atomics are
 * the only shared objects C11 lets a handler touch. */
_Static_assert(ATOMIC_POINTER_LOCK_FREE == 2,
               "the handler's list of temporaries needs lock-free pointers");
#define LIVE_MAX 4096
static _Atomic(char *) live[LIVE_MAX];

static int live_add(char *tmp)
{
    for (size_t i = 0; i < LIVE_MAX; i++) {
        char *none = NULL;
        if (atomic_compare_exchange_strong(&live[i], &none, tmp)) return 0;
    }
    return -1;
}

static void live_drop(const char *tmp)
{
    for (size_t i = 0; i < LIVE_MAX; i++)
        if (atomic_load(&live[i]) == tmp) {
            atomic_store(&live[i], NULL);
            return;
        }
}

void cm_atomic_remove_all(void)
{
    for (size_t i = 0; i < LIVE_MAX; i++) {
        char *p = atomic_load(&live[i]);
        if (p) unlink(p);
    }
}

/* ---- naming and stale temporaries ------------------------------------ */

#define TMP_MARK ".cohmod-tmp."

/* "<target>.cohmod-tmp.<pid>.XXXXXX" (mkstemp fills the X's). */
static char *tmp_name(const char *target)
{
    char pid[32];
    int np = snprintf(pid, sizeof pid, "%ld.XXXXXX", (long)getpid());
    size_t n = strlen(target);
    char *s = malloc(n + sizeof TMP_MARK + (size_t)np);
    if (!s) return NULL;
    memcpy(s, target, n);
    memcpy(s + n, TMP_MARK, sizeof TMP_MARK - 1);
    memcpy(s + n + sizeof TMP_MARK - 1, pid, (size_t)np + 1);
    return s;
}

/* The pid in a name of our naming, or 0 when the name is not one. */
static long tmp_owner(const char *name)
{
    const char *m = NULL;
    for (const char *s = strstr(name, TMP_MARK); s; s = strstr(s + 1, TMP_MARK))
        m = s;
    if (!m) return 0;
    const char *d = m + sizeof TMP_MARK - 1, *e = d;
    long pid = 0;
    while (*e >= '0' && *e <= '9' && e - d < 10) pid = pid * 10 + (*e++ - '0');
    if (e == d || *e != '.' || strlen(e + 1) != 6) return 0;
    for (const char *x = e + 1; *x; x++)
        if (!((*x >= '0' && *x <= '9') || (*x >= 'a' && *x <= 'z') ||
              (*x >= 'A' && *x <= 'Z')))
            return 0;
    return pid;
}

/* A process id names a live process when signal 0 reaches it or is
 * refused (EPERM: someone else's).  Only ESRCH proves it gone.  A pid
 * reused since is taken as alive, which only delays the removal. */
static int pid_gone(long pid)
{
    return pid != (long)getpid() && kill((pid_t)pid, 0) != 0 &&
           errno == ESRCH;
}

size_t cm_atomic_remove_stale(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    size_t removed = 0, dlen = strlen(dir);
    struct dirent *de;
    while ((de = readdir(d))) {
        long pid = tmp_owner(de->d_name);
        if (pid <= 0 || !pid_gone(pid)) continue;
        char *p = malloc(dlen + strlen(de->d_name) + 2);
        if (!p) break;
        sprintf(p, "%s/%s", dir, de->d_name);
        struct stat sb;
        if (lstat(p, &sb) == 0 && S_ISREG(sb.st_mode) && unlink(p) == 0)
            removed++;
        free(p);
    }
    closedir(d);
    return removed;
}

/* "dir" of "dir/x.csv", "." of "x.csv", "/" of "/x.csv"; malloc'd. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return strdup(".");
    return strndup(path, slash == path ? 1 : (size_t)(slash - path));
}

/* Each directory is swept once per process: the first result written
 * there pays for one readdir. */
#define SWEPT_MAX 64
static char *swept[SWEPT_MAX];
static size_t nswept;

static void sweep_once(const char *path)
{
    char *dir = dir_of(path);
    if (!dir) return;
    for (size_t i = 0; i < nswept; i++)
        if (!strcmp(swept[i], dir)) {
            free(dir);
            return;
        }
    cm_atomic_remove_stale(dir);
    if (nswept < SWEPT_MAX) swept[nswept++] = dir;
    else free(dir);
}

/* ---- batches ---------------------------------------------------------- */

typedef struct pending {
    char *path, *tmp;
} pending;

static struct {
    int open;
    pending *v;
    size_t n, cap;
} batch;

cm_status cm_atomic_batch_begin(cm_err *err)
{
    if (batch.open)
        return cm_err_set(err, CM_EINTERNAL, "a batch of outputs is open");
    batch.open = 1;
    batch.n = 0;
    return CM_OK;
}

static void batch_end(void)
{
    free(batch.v);
    batch.v = NULL;
    batch.n = batch.cap = 0;
    batch.open = 0;
}

static void pending_remove(pending *p)
{
    unlink(p->tmp);
    live_drop(p->tmp);
    free(p->tmp);
    free(p->path);
}

void cm_atomic_batch_abort(void)
{
    for (size_t i = 0; i < batch.n; i++) pending_remove(&batch.v[i]);
    batch_end();
}

/* The rename is durable only once the directory entry is on disk too. */
static void sync_dir(const char *path)
{
    char *dir = dir_of(path);
    if (!dir) return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(dir);
}

/* Renames a completed temporary over its target; frees neither. */
static cm_status put_in_place(const char *tmp, const char *path, cm_err *err)
{
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        live_drop(tmp);
        return cm_err_set(err, CM_EINPUT, "%s: cannot rename into place: %s",
                          path, strerror(e));
    }
    live_drop(tmp);
    sync_dir(path);
    return CM_OK;
}

cm_status cm_atomic_batch_commit(cm_err *err)
{
    cm_status st = CM_OK;
    size_t i = 0;
    for (; i < batch.n && !st; i++) {
        st = put_in_place(batch.v[i].tmp, batch.v[i].path, err);
        free(batch.v[i].tmp);
        free(batch.v[i].path);
    }
    for (; i < batch.n; i++) pending_remove(&batch.v[i]);
    batch_end();
    return st;
}

static cm_status batch_add(char *path, char *tmp, cm_err *err)
{
    if (batch.n == batch.cap) {
        size_t nc = batch.cap ? 2 * batch.cap : 16;
        pending *nv = realloc(batch.v, nc * sizeof *nv);
        if (!nv) return cm_err_set(err, CM_EINTERNAL, "out of memory");
        batch.v = nv;
        batch.cap = nc;
    }
    batch.v[batch.n++] = (pending){path, tmp};
    return CM_OK;
}

/* ---- single files ----------------------------------------------------- */

static void atomic_release(cm_atomic_file *af)
{
    free(af->path);
    free(af->tmp);
    af->path = af->tmp = NULL;
    af->f = NULL;
}

/* The temporary is gone: forget it everywhere, then free. */
static void atomic_discard(cm_atomic_file *af)
{
    if (af->tmp) {
        unlink(af->tmp);
        live_drop(af->tmp);
    }
    atomic_release(af);
}

cm_status cm_atomic_open(cm_atomic_file *af, const char *path, cm_err *err)
{
    memset(af, 0, sizeof *af);
    af->path = strdup(path);
    af->tmp = tmp_name(path);
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
    sweep_once(path);
    int fd = mkstemp(af->tmp);
    if (fd < 0) {
        int e = errno;
        atomic_release(af);
        return cm_err_set(err, CM_EINPUT, "%s: cannot create: %s", path,
                          strerror(e));
    }
    if (live_add(af->tmp)) {
        close(fd);
        unlink(af->tmp);
        atomic_release(af);
        return cm_err_set(err, CM_EINTERNAL, "%s: more than %d outputs open "
                          "at once", path, LIVE_MAX);
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
        atomic_discard(af);
        return cm_err_set(err, CM_EINTERNAL, "%s: cannot create: %s", path,
                          strerror(e));
    }
    return CM_OK;
}

cm_status cm_atomic_commit(cm_atomic_file *af, cm_err *err)
{
    errno = 0;
    int bad = fflush(af->f) != 0 || ferror(af->f) ||
              (af->tmp && fsync(fileno(af->f)));
    int e = errno;
    if (fclose(af->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    af->f = NULL;
    if (bad) {
        cm_err_set(err, CM_EINTERNAL, "%s: cannot write: %s", af->path,
                   strerror(e ? e : EIO));
        atomic_discard(af);
        return CM_EINTERNAL;
    }
    if (!af->tmp) { /* written through: nothing to rename */
        atomic_release(af);
        return CM_OK;
    }
    if (batch.open) { /* the batch renames it with the others */
        cm_status st = batch_add(af->path, af->tmp, err);
        if (st) {
            atomic_discard(af);
            return st;
        }
        af->path = af->tmp = NULL;
        return CM_OK;
    }
    cm_status st = put_in_place(af->tmp, af->path, err);
    atomic_release(af);
    return st;
}

void cm_atomic_abort(cm_atomic_file *af)
{
    if (af->f) fclose(af->f);
    atomic_discard(af);
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

/* ---- checks before the work ------------------------------------------ */

/* Creates and removes a file of the temporaries' naming at target: the
 * exact operation the result will need later.  0 or an errno. */
static int probe_create(const char *target)
{
    char *tmp = tmp_name(target);
    if (!tmp) return ENOMEM;
    int fd = mkstemp(tmp), e = fd < 0 ? errno : 0;
    if (fd >= 0) {
        close(fd);
        unlink(tmp);
    }
    free(tmp);
    return e;
}

cm_status cm_output_check_file(const char *path, cm_err *err)
{
    if (!path[0]) return cm_err_set(err, CM_EINPUT, "empty output path");
    struct stat sb;
    if (stat(path, &sb) == 0) {
        if (S_ISDIR(sb.st_mode))
            return cm_err_set(err, CM_EINPUT, "%s: cannot create: it is a "
                              "directory", path);
        if (!S_ISREG(sb.st_mode)) return CM_OK; /* a device: written through */
    }
    int e = probe_create(path);
    if (e)
        return cm_err_set(err, CM_EINPUT, "%s: cannot create: %s", path,
                          strerror(e));
    return CM_OK;
}

cm_status cm_output_check_dir(const char *dir, cm_err *err)
{
    if (!dir[0]) return cm_err_set(err, CM_EINPUT, "empty output directory");
    char *p = strdup(dir);
    if (!p) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    /* The nearest existing ancestor decides: mkdir -p makes the rest. */
    struct stat sb;
    while (stat(p, &sb) != 0) {
        size_t n = strlen(p);
        while (n > 1 && p[n - 1] == '/') p[--n] = '\0'; /* "a/b/" */
        char *slash = strrchr(p, '/');
        if (!strcmp(p, ".") || !strcmp(p, "/")) {
            int e = errno;
            free(p);
            return cm_err_set(err, CM_EINPUT, "%s: cannot create: %s", dir,
                              strerror(e));
        }
        if (!slash) strcpy(p, ".");
        else if (slash == p) p[1] = '\0';
        else *slash = '\0';
    }
    cm_status st = CM_OK;
    if (!S_ISDIR(sb.st_mode)) {
        st = cm_err_set(err, CM_EINPUT, "%s: cannot create directory: %s is "
                        "not a directory", dir, p);
    } else {
        size_t n = strlen(p);
        char *probe = malloc(n + 2);
        if (!probe) {
            st = cm_err_set(err, CM_EINTERNAL, "out of memory");
        } else {
            /* "<dir>/" + the mark: a hidden name in the directory. */
            snprintf(probe, n + 2, "%s/", p);
            int e = probe_create(probe);
            if (e)
                st = cm_err_set(err, CM_EINPUT, "%s: cannot create files in "
                                "it: %s", dir, strerror(e));
            free(probe);
        }
    }
    free(p);
    return st;
}
