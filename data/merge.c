/* merge.c - shards back into one run's files (cm_shards_merge, shard.h).
 *
 * Nothing is guessed: each directory says in its manifest which run and
 * which shard it holds and whether it finished, so a missing or crashed
 * shard is named rather than merged around.  Files are copied as bytes;
 * rows files go through the table layer, so the merged file is what one
 * writer of the same cells writes. */
#include "data/shard.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "data/atomic.h"
#include "data/table.h"

typedef struct shard_dir {
    const char *dir;
    char manifest[256]; /* its file name inside dir (a d_name) */
    cm_run_manifest m;
    int ok; /* the manifest was read */
} shard_dir;

/* A growing message of every problem found, "; " between them. */
typedef struct problems {
    char text[900];
    size_t len;
} problems;

static void add_problem(problems *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void add_problem(problems *p, const char *fmt, ...)
{
    if (p->len + 8 >= sizeof p->text) return;
    if (p->len) p->len += (size_t)snprintf(p->text + p->len,
                                           sizeof p->text - p->len, "; ");
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(p->text + p->len, sizeof p->text - p->len, fmt, ap);
    va_end(ap);
    if (k > 0) p->len += (size_t)k;
    if (p->len >= sizeof p->text) p->len = sizeof p->text - 1;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && !strcmp(s + n - k, tail);
}

/* run.csv, or else the directory's one *.run.csv (a sweep's shard). */
static cm_status find_manifest(shard_dir *d, cm_err *err)
{
    char path[4096];
    struct stat sb;
    snprintf(path, sizeof path, "%s/run.csv", d->dir);
    if (stat(path, &sb) == 0) {
        snprintf(d->manifest, sizeof d->manifest, "run.csv");
        return CM_OK;
    }
    DIR *dh = opendir(d->dir);
    if (!dh)
        return cm_err_set(err, CM_EINPUT, "%s: cannot open the directory",
                          d->dir);
    size_t found = 0;
    for (struct dirent *e; (e = readdir(dh));)
        if (ends_with(e->d_name, ".run.csv") &&
            strlen(e->d_name) < sizeof d->manifest && !found++)
            snprintf(d->manifest, sizeof d->manifest, "%s", e->d_name);
    closedir(dh);
    if (found > 1)
        return cm_err_set(err, CM_EINPUT, "%s holds %zu runs (*.run.csv): "
                          "give each shard a directory of its own", d->dir,
                          found);
    if (!found)
        return cm_err_set(err, CM_EINPUT, "%s: no run.csv: not a cohmod "
                          "shard, or it was killed before it began", d->dir);
    return CM_OK;
}

/* Reads every manifest and checks the set: one run, every shard once,
 * each finished.  Problems of shards are gathered into one message. */
static cm_status check_shards(shard_dir *d, size_t n, cm_err *err)
{
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        cm_status st = find_manifest(&d[i], err);
        snprintf(path, sizeof path, "%s/%s", d[i].dir, d[i].manifest);
        if (!st) st = cm_run_manifest_read(path, &d[i].m, err);
        if (st) return st;
        d[i].ok = 1;
        if (d[i].m.shard.count == 0)
            return cm_err_set(err, CM_EINPUT, "%s is a whole run, not a "
                              "shard (no --shard)", d[i].dir);
        if (!cm_run_manifest_same_run(&d[i].m, &d[0].m) ||
            d[i].m.shard.count != d[0].m.shard.count)
            return cm_err_set(err, CM_EINPUT, "%s and %s are shards of "
                              "different runs (command, arguments or N "
                              "differ)", d[0].dir, d[i].dir);
    }
    unsigned count = d[0].m.shard.count;
    const char **holder = calloc(count + 1, sizeof *holder);
    if (!holder) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    problems p = {"", 0};
    for (size_t i = 0; i < n; i++) {
        unsigned k = d[i].m.shard.index;
        if (holder[k])
            add_problem(&p, "%s and %s both hold shard %u/%u", holder[k],
                        d[i].dir, k, count);
        holder[k] = d[i].dir;
        if (!d[i].m.complete)
            add_problem(&p, "shard %u/%u in %s did not finish (run it again "
                        "with --resume)", k, count, d[i].dir);
    }
    for (unsigned k = 1; k <= count; k++)
        if (!holder[k])
            add_problem(&p, "shard %u/%u is missing", k, count);
    free(holder);
    if (p.len)
        return cm_err_set(err, CM_EINPUT, "%s", p.text);
    return CM_OK;
}

/* The relative paths copied so far, and the shard each came from. */
typedef struct copied {
    char **rel;
    const char **from;
    size_t n, cap;
} copied;

static long copied_find(const copied *c, const char *rel)
{
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->rel[i], rel)) return (long)i;
    return -1;
}

static cm_status read_all(const char *path, char **buf, size_t *len,
                          cm_err *err)
{
    FILE *f = fopen(path, "rb");
    *buf = NULL;
    *len = 0;
    if (!f) return cm_err_set(err, CM_EINPUT, "%s: cannot read", path);
    size_t cap = 1 << 16;
    char *b = malloc(cap);
    size_t got;
    while (b && (got = fread(b + *len, 1, cap - *len, f)) > 0) {
        *len += got;
        if (*len == cap) {
            char *g = realloc(b, cap * 2);
            if (!g) {
                free(b);
                b = NULL;
            } else {
                b = g;
                cap *= 2;
            }
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!b || bad) {
        free(b);
        return cm_err_set(err, b ? CM_EINPUT : CM_EINTERNAL, "%s: cannot "
                          "read", path);
    }
    *buf = b;
    return CM_OK;
}

static cm_status mkdirs_for(const char *path, cm_err *err)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash) return CM_OK;
    *slash = '\0';
    return cm_mkdir_p(dir, err);
}

/* Copies one shard file to out/rel, or checks it against the copy of an
 * earlier shard. */
static cm_status copy_one(const shard_dir *d, const char *rel,
                          const char *out, copied *c, cm_err *err)
{
    char src[4096], dst[4096];
    if ((size_t)snprintf(src, sizeof src, "%s/%s", d->dir, rel) >=
            sizeof src ||
        (size_t)snprintf(dst, sizeof dst, "%s/%s", out, rel) >= sizeof dst)
        return cm_err_set(err, CM_EINPUT, "%s: path too long", rel);
    char *a = NULL, *b = NULL;
    size_t na, nb;
    cm_status st = read_all(src, &a, &na, err);
    long seen = st ? -1 : copied_find(c, rel);
    if (!st && seen >= 0) {
        st = read_all(dst, &b, &nb, err);
        if (!st && (na != nb || memcmp(a, b, na)))
            st = cm_err_set(err, CM_EINPUT, "%s differs between %s and %s",
                            rel, c->from[seen], d->dir);
    } else if (!st) {
        st = mkdirs_for(dst, err);
        if (!st) st = cm_atomic_write(dst, a, na, err);
        if (!st && c->n == c->cap) {
            size_t cap = c->cap ? 2 * c->cap : 64;
            char **r = realloc(c->rel, cap * sizeof *r);
            if (r) c->rel = r;
            const char **f = realloc(c->from, cap * sizeof *f);
            if (f) c->from = f;
            if (!r || !f) st = cm_err_set(err, CM_EINTERNAL, "out of memory");
            else c->cap = cap;
        }
        if (!st && !(c->rel[c->n] = strdup(rel)))
            st = cm_err_set(err, CM_EINTERNAL, "out of memory");
        if (!st) c->from[c->n++] = d->dir;
    }
    free(a);
    free(b);
    return st;
}

static int is_rows_file(const cm_run_manifest *m, const char *rel)
{
    for (size_t i = 0; i < m->nrows; i++)
        if (!strcmp(m->rows[i], rel)) return 1;
    return 0;
}

/* Every regular file below d->dir/sub, in name order (so that the same
 * shards copy alike), but its manifest, rows files and temporaries. */
static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static cm_status copy_tree(const shard_dir *d, const char *sub,
                           const char *out, copied *c, cm_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s%s", d->dir, *sub ? "/" : "", sub);
    DIR *dh = opendir(path);
    if (!dh) return cm_err_set(err, CM_EINPUT, "%s: cannot open", path);
    char **names = NULL;
    size_t n = 0, cap = 0;
    cm_status st = CM_OK;
    for (struct dirent *e; !st && (e = readdir(dh));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 32;
            char **g = realloc(names, cap * sizeof *g);
            if (!g) st = cm_err_set(err, CM_EINTERNAL, "out of memory");
            else names = g;
        }
        if (!st && !(names[n++] = strdup(e->d_name)))
            st = cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    closedir(dh);
    if (!st && n) qsort(names, n, sizeof *names, cmp_names);
    for (size_t i = 0; i < n && !st; i++) {
        char rel[4096];
        struct stat sb;
        int k = snprintf(rel, sizeof rel, "%s%s%s", sub, *sub ? "/" : "",
                         names[i]);
        if (k < 0 || (size_t)k >= sizeof rel ||
            (size_t)snprintf(path, sizeof path, "%s/%s", d->dir, rel) >=
                sizeof path) {
            st = cm_err_set(err, CM_EINPUT, "%s/%s: path too long", d->dir,
                            names[i]);
            break;
        }
        if (stat(path, &sb)) continue;
        if (S_ISDIR(sb.st_mode)) st = copy_tree(d, rel, out, c, err);
        else if (S_ISREG(sb.st_mode) && strcmp(rel, d->manifest) &&
                 !strstr(names[i], ".tmp.") && !is_rows_file(&d->m, rel))
            st = copy_one(d, rel, out, c, err);
    }
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    return st;
}

/* One rows file: the header once, then each shard's rows in shard order. */
static cm_status merge_rows(shard_dir *const *order, size_t n,
                            const char *rel, const char *out, cm_err *err)
{
    char path[4096];
    cm_table *merged = NULL;
    cm_status st = CM_OK;
    for (size_t i = 0; i < n && !st; i++) {
        cm_table *t = NULL;
        snprintf(path, sizeof path, "%s/%s", order[i]->dir, rel);
        st = cm_table_read_file(path, &t, err);
        size_t nc = st ? 0 : cm_table_ncols(t);
        const char *cells[512];
        if (!st && nc > 512)
            st = cm_err_set(err, CM_EINPUT, "%s: too many columns", path);
        if (!st && !merged) {
            for (size_t k = 0; k < nc; k++) cells[k] = cm_table_colname(t, k);
            if (!(merged = cm_table_new(nc, cells)))
                st = cm_err_set(err, CM_EINTERNAL, "out of memory");
        }
        if (!st && nc != cm_table_ncols(merged))
            st = cm_err_set(err, CM_EINPUT, "%s: columns differ from shard "
                            "1's", path);
        for (size_t k = 0; k < nc && !st; k++)
            if (strcmp(cm_table_colname(t, k), cm_table_colname(merged, k)))
                st = cm_err_set(err, CM_EINPUT, "%s: columns differ from "
                                "shard 1's", path);
        for (size_t r = 0; !st && r < cm_table_nrows(t); r++) {
            for (size_t k = 0; k < nc; k++) cells[k] = cm_table_cell(t, r, k);
            st = cm_table_append(merged, cells, err);
        }
        cm_table_free(t);
    }
    snprintf(path, sizeof path, "%s/%s", out, rel);
    if (!st) st = mkdirs_for(path, err);
    if (!st) st = cm_table_write_file(merged, path, err);
    cm_table_free(merged);
    return st;
}

cm_status cm_shards_merge(const char *const *dirs, size_t n, const char *out,
                          cm_run_manifest *m, cm_err *err)
{
    memset(m, 0, sizeof *m);
    if (n == 0) return cm_err_set(err, CM_EINPUT, "which shards?");
    shard_dir *d = calloc(n, sizeof *d);
    shard_dir **order = calloc(n, sizeof *order);
    copied c = {NULL, NULL, 0, 0};
    struct stat so, sd;
    cm_status st = d && order ? CM_OK
                              : cm_err_set(err, CM_EINTERNAL, "out of memory");
    for (size_t i = 0; i < n && !st; i++) {
        d[i].dir = dirs[i];
        if (stat(out, &so) == 0 && stat(dirs[i], &sd) == 0 &&
            so.st_dev == sd.st_dev && so.st_ino == sd.st_ino)
            st = cm_err_set(err, CM_EINPUT, "--out %s is one of the shards",
                            out);
    }
    if (!st) st = check_shards(d, n, err);
    for (size_t i = 0; i < n && !st; i++) /* shard order */
        order[d[i].m.shard.index - 1] = &d[i];
    if (!st) st = cm_mkdir_p(out, err);
    for (size_t i = 0; i < n && !st; i++) st = copy_tree(order[i], "", out,
                                                         &c, err);
    for (size_t k = 0; !st && k < d[0].m.nrows; k++)
        st = merge_rows(order, n, d[0].m.rows[k], out, err);
    if (!st) { /* hand the run's manifest over */
        *m = d[0].m;
        memset(&d[0].m, 0, sizeof d[0].m);
    }
    for (size_t i = 0; d && i < n; i++) cm_run_manifest_free(&d[i].m);
    for (size_t i = 0; i < c.n; i++) free(c.rel[i]);
    free(c.rel);
    free(c.from);
    free(order);
    free(d);
    return st;
}
