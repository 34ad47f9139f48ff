/* shard.c - shard slices and run manifests (see shard.h). */
#include "data/shard.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "data/table.h"

cm_status cm_shard_parse(const char *text, cm_shard *s, cm_err *err)
{
    char *end;
    const char *slash = strchr(text, '/');
    unsigned long i = 0, n = 0;
    int ok = slash && text[0] >= '0' && text[0] <= '9';
    if (ok) {
        i = strtoul(text, &end, 10);
        ok = end == slash && slash[1] >= '0' && slash[1] <= '9';
    }
    if (ok) {
        n = strtoul(slash + 1, &end, 10);
        ok = !*end && i >= 1 && i <= n && n <= 100000;
    }
    if (!ok)
        return cm_err_set(err, CM_EINPUT,
                          "--shard '%s': expected I/N, 1 <= I <= N <= 100000 "
                          "(e.g. 2/8)", text);
    s->index = (unsigned)i;
    s->count = (unsigned)n;
    return CM_OK;
}

void cm_shard_range(const cm_shard *s, size_t n, size_t *first, size_t *end)
{
    if (!s || s->count == 0) {
        *first = 0;
        *end = n;
        return;
    }
    /* exact in 64 bits for n below 1.8e14 points */
    *first = (size_t)((unsigned long long)(s->index - 1) * n / s->count);
    *end = (size_t)((unsigned long long)s->index * n / s->count);
}

static cm_status add_row(cm_table *t, const char *key, const char *value,
                         cm_err *err)
{
    const char *cells[2] = {key, value};
    return cm_table_append(t, cells, err);
}

cm_status cm_run_manifest_write(const char *path, const cm_run_plan *plan,
                                size_t points, int complete,
                                const char *const *rows, size_t nrows,
                                cm_err *err)
{
    static const char *const hdr[2] = {"key", "value"};
    cm_table *t = cm_table_new(2, hdr);
    if (!t) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    char buf[64];
    cm_status st = add_row(t, "command", plan->command, err);
    for (size_t i = 0; i < plan->nargs && !st; i++)
        st = add_row(t, "arg", plan->args[i], err);
    if (!st && plan->mode == CM_RUN_SHARD) {
        snprintf(buf, sizeof buf, "%u/%u", plan->shard.index,
                 plan->shard.count);
        st = add_row(t, "shard", buf, err);
    }
    snprintf(buf, sizeof buf, "%zu", points);
    if (!st) st = add_row(t, "points", buf, err);
    if (!st) st = add_row(t, "status", complete ? "complete" : "running", err);
    for (size_t i = 0; i < nrows && !st; i++)
        st = add_row(t, "rows", rows[i], err);
    if (!st) st = cm_table_write_file(t, path, err);
    cm_table_free(t);
    return st;
}

static cm_status push(char ***list, size_t *n, const char *s, cm_err *err)
{
    char **g = realloc(*list, (*n + 1) * sizeof **list);
    if (!g) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    *list = g;
    if (!(g[*n] = strdup(s)))
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    (*n)++;
    return CM_OK;
}

cm_status cm_run_manifest_read(const char *path, cm_run_manifest *m,
                               cm_err *err)
{
    memset(m, 0, sizeof *m);
    cm_table *t = NULL;
    size_t ck, cv;
    cm_status st = cm_table_read_file(path, &t, err);
    if (!st) st = cm_table_col_require(t, "key", &ck, err);
    if (!st) st = cm_table_col_require(t, "value", &cv, err);
    int have_points = 0, have_status = 0;
    for (size_t r = 0; !st && r < cm_table_nrows(t); r++) {
        const char *k = cm_table_cell(t, r, ck), *v = cm_table_cell(t, r, cv);
        if (!strcmp(k, "command") && !m->command) {
            if (!(m->command = strdup(v)))
                st = cm_err_set(err, CM_EINTERNAL, "out of memory");
        } else if (!strcmp(k, "arg")) {
            st = push(&m->args, &m->nargs, v, err);
        } else if (!strcmp(k, "rows")) {
            st = push(&m->rows, &m->nrows, v, err);
        } else if (!strcmp(k, "shard")) {
            st = cm_shard_parse(v, &m->shard, err);
        } else if (!strcmp(k, "points")) {
            long p;
            st = cm_table_get_long(t, r, cv, &p, err);
            if (!st && p < 0) st = cm_err_set(err, CM_EINPUT, "%s: points "
                                              "below zero", path);
            m->points = (size_t)p;
            have_points = 1;
        } else if (!strcmp(k, "status")) {
            m->complete = !strcmp(v, "complete");
            have_status = 1;
        }
    }
    if (!st && (!m->command || !have_points || !have_status))
        st = cm_err_set(err, CM_EINPUT, "%s: not a cohmod run manifest "
                        "(no command, points or status)", path);
    cm_table_free(t);
    if (st) {
        if (err) cm_err_prefix(err, path);
        cm_run_manifest_free(m);
    }
    return st;
}

static void free_list(char **list, size_t n)
{
    for (size_t i = 0; i < n; i++) free(list[i]);
    free(list);
}

void cm_run_manifest_free(cm_run_manifest *m)
{
    free(m->command);
    free_list(m->args, m->nargs);
    free_list(m->rows, m->nrows);
    memset(m, 0, sizeof *m);
}

int cm_run_manifest_same_run(const cm_run_manifest *a,
                             const cm_run_manifest *b)
{
    if (strcmp(a->command, b->command) || a->nargs != b->nargs ||
        a->points != b->points || a->nrows != b->nrows)
        return 0;
    for (size_t i = 0; i < a->nargs; i++)
        if (strcmp(a->args[i], b->args[i])) return 0;
    for (size_t i = 0; i < a->nrows; i++)
        if (strcmp(a->rows[i], b->rows[i])) return 0;
    return 1;
}

cm_status cm_run_check_resume(const char *path, const cm_run_plan *plan,
                              size_t points, cm_err *err)
{
    struct stat sb;
    if (!plan->resume || stat(path, &sb) != 0) return CM_OK;
    cm_run_manifest old;
    cm_status st = cm_run_manifest_read(path, &old, err);
    if (st) return st;
    cm_run_manifest now = {(char *)plan->command, (char **)plan->args,
                           plan->nargs, plan->shard, points, 0, NULL, 0};
    if (plan->mode != CM_RUN_SHARD) now.shard = (cm_shard){0, 0};
    if (!cm_run_manifest_same_run(&old, &now) ||
        old.shard.index != now.shard.index ||
        old.shard.count != now.shard.count)
        st = cm_err_set(err, CM_EINPUT,
                        "--resume: %s is of another run (`cohmod %s` with "
                        "other arguments, points or shard); give a new --out "
                        "or leave out --resume", path, old.command);
    cm_run_manifest_free(&old);
    return st;
}
