/* testutil.c - see testutil.h. */
/* posix_openpt and friends: the pseudo-terminal of tu_cohmod_tty */
#define _XOPEN_SOURCE 700
#include "tests/testutil.h"

#include "models/profile.h"
#include "sim/gpu.h"
#include "sim/profile_rec.h"
#include "sim/stats.h"
#include "data/workload.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "data/table.h"

char *tu_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n < 2) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf) buf[n] = '\0';
    if (len) *len = n;
    return buf;
}

char *tu_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    char templ[4096];
    snprintf(templ, sizeof templ, "%s/cohmod-test-XXXXXX", base ? base : "/tmp");
    char *d = mkdtemp(templ);
    ck_assert_ptr_nonnull(d);
    return strdup(d);
}

char *tu_write_file(const char *dir, const char *name, const char *text)
{
    size_t len = strlen(dir) + strlen(name) + 2;
    char *path = malloc(len);
    ck_assert_ptr_nonnull(path);
    snprintf(path, len, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* Runs a shell command line with stdout and stderr captured. */
static tu_run run_shell(const char *line)
{
    tu_run r = {-1, NULL, NULL};
    char *dir = tu_tmpdir();
    size_t len = strlen(line) + 2 * strlen(dir) + 64;
    char *cmd = malloc(len);
    ck_assert_ptr_nonnull(cmd);
    snprintf(cmd, len, "%s >%s/o 2>%s/e", line, dir, dir);
    int st = system(cmd);
    if (st != -1 && WIFEXITED(st)) r.status = WEXITSTATUS(st);
    char p[4200];
    snprintf(p, sizeof p, "%s/o", dir);
    r.out = tu_read_file(p, NULL);
    unlink(p);
    snprintf(p, sizeof p, "%s/e", dir);
    r.err = tu_read_file(p, NULL);
    unlink(p);
    rmdir(dir);
    free(dir);
    free(cmd);
    if (!r.out) r.out = strdup("");
    if (!r.err) r.err = strdup("");
    return r;
}

tu_run tu_cohmod(const char *args)
{
    return tu_cohmod_in(NULL, args);
}

tu_run tu_cohmod_in(const char *cwd, const char *args)
{
    const char *bin = getenv("COHMOD_BIN");
    ck_assert_msg(bin != NULL, "COHMOD_BIN is not set (run via make test)");
    ck_assert_msg(bin[0] == '/' || !cwd, "COHMOD_BIN must be absolute");
    size_t len = strlen(bin) + strlen(args) + (cwd ? strlen(cwd) : 0) + 16;
    char *line = malloc(len);
    ck_assert_ptr_nonnull(line);
    snprintf(line, len, "%s%s%s%s %s", cwd ? "cd '" : "", cwd ? cwd : "",
             cwd ? "' && " : "", bin, args);
    tu_run r = run_shell(line);
    free(line);
    return r;
}

tu_run tu_shf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    ck_assert(n >= 0);
    char *line = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(line);
    va_start(ap, fmt);
    vsnprintf(line, (size_t)n + 1, fmt, ap);
    va_end(ap);
    tu_run r = run_shell(line);
    free(line);
    return r;
}

tu_run tu_cohmod_tty(const char *args)
{
    tu_run r = {-1, NULL, NULL};
    const char *bin = getenv("COHMOD_BIN");
    ck_assert_msg(bin != NULL, "COHMOD_BIN is not set (run via make test)");
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    ck_assert_int_ge(master, 0);
    ck_assert_int_eq(grantpt(master), 0);
    ck_assert_int_eq(unlockpt(master), 0);
    const char *slave = ptsname(master);
    ck_assert_ptr_nonnull(slave);
    char *dir = tu_tmpdir(), out[4200], cmd[8192];
    snprintf(out, sizeof out, "%s/o", dir);
    snprintf(cmd, sizeof cmd, "%s %s >%s", bin, args, out);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int fd = open(slave, O_RDWR | O_NOCTTY);
        if (fd < 0 || dup2(fd, STDERR_FILENO) < 0) _exit(127);
        close(master);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    size_t cap = 1 << 16, n = 0;
    char *err = malloc(cap);
    ck_assert_ptr_nonnull(err);
    for (;;) { /* until the child's end closes the terminal (EIO) */
        if (n + 4096 > cap) {
            cap *= 2;
            err = realloc(err, cap);
            ck_assert_ptr_nonnull(err);
        }
        ssize_t got = read(master, err + n, 4096);
        if (got > 0) {
            n += (size_t)got;
            continue;
        }
        if (got < 0 && errno == EINTR) continue;
        break;
    }
    err[n] = '\0';
    close(master);
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    if (WIFEXITED(st)) r.status = WEXITSTATUS(st);
    r.out = tu_read_file(out, NULL);
    unlink(out);
    rmdir(dir);
    free(dir);
    r.err = err;
    if (!r.out) r.out = strdup("");
    return r;
}

tu_run tu_cohmodf(const char *fmt, ...)
{
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    return tu_cohmod(args);
}

double tu_num(const cm_table *t, size_t row, const char *col)
{
    size_t c;
    double v;
    cm_err err = {0};
    ck_assert_msg(cm_table_col_require(t, col, &c, &err) == CM_OK, "%s",
                  err.msg);
    ck_assert_msg(cm_table_get_double(t, row, c, &v, &err) == CM_OK, "%s",
                  err.msg);
    return v;
}

cm_table *tu_read_table(const char *dir, const char *name)
{
    char *p = dir ? tu_path_in(dir, name) : NULL;
    cm_table *t = NULL;
    cm_err err = {0};
    ck_assert_msg(cm_table_read_file(p ? p : name, &t, &err) == CM_OK, "%s",
                  err.msg);
    free(p);
    return t;
}

const char *tu_cell(const cm_table *t, size_t row, const char *col)
{
    long c = cm_table_col_find(t, col);
    ck_assert_msg(c >= 0, "%s: no column '%s'", cm_table_name(t), col);
    return cm_table_cell(t, row, (size_t)c);
}

void tu_run_free(tu_run *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

size_t tu_count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

int tu_close(double a, double b, double tol)
{
    if (a == b) return 1;
    if (isnan(a) || isnan(b)) return 0;
    double scale = fmax(fabs(a), fabs(b));
    if (scale < 1e-300) return 1;
    return fabs(a - b) <= tol * scale;
}

char *tu_path_in(const char *dir, const char *name)
{
    size_t len = strlen(dir) + strlen(name) + 2;
    char *p = malloc(len);
    ck_assert_ptr_nonnull(p);
    snprintf(p, len, "%s/%s", dir, name);
    return p;
}

size_t tu_dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

void tu_rm_tree(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char *p = tu_path_in(path, e->d_name);
        if (unlink(p) != 0) tu_rm_tree(p);
        free(p);
    }
    if (d) closedir(d);
    rmdir(path);
}

/* log of the unnormalised probability of n in system: the product of
 * birth/death ratios, at most c servers busy. */
long double tu_ref_logw(unsigned long n, unsigned long c,
                            unsigned long sources, long double rho)
{
    long double l = (long double)n * logl(rho);
    if (n <= c) l -= lgammal((long double)n + 1);
    else
        l -= lgammal((long double)c + 1) +
             (long double)(n - c) * logl((long double)c);
    if (sources)
        l += lgammal((long double)sources + 1) -
             lgammal((long double)(sources - n) + 1);
    return l;
}

void tu_ref_pmf(unsigned long c, unsigned long K, unsigned long sources,
                long double rho, long double *p)
{
    long double mx = -INFINITY, s = 0;
    for (unsigned long n = 0; n <= K; n++) {
        p[n] = tu_ref_logw(n, c, sources, rho);
        if (p[n] > mx) mx = p[n];
    }
    for (unsigned long n = 0; n <= K; n++) s += p[n] = expl(p[n] - mx);
    for (unsigned long n = 0; n <= K; n++) p[n] /= s;
}

void tu_expect_rejected(const char *args, const char *needle)
{
    tu_run r = tu_cohmod(args);
    ck_assert_msg(r.status == 2, "%s: exit %d", args, r.status);
    ck_assert_msg(strstr(r.err, needle) != NULL, "%s: %s", args, r.err);
    ck_assert_uint_eq(tu_count_lines(r.err), 1);
    tu_run_free(&r);
}

char *tu_build_dir(void)
{
    const char *bin = getenv("COHMOD_BIN");
    ck_assert_msg(bin != NULL, "COHMOD_BIN is not set (run via make test)");
    char *dir = strdup(bin);
    ck_assert_ptr_nonnull(dir);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else strcpy(dir, ".");
    return dir;
}

/* ---- the simulator on a hand-written program ------------------------------ */

static void sim_run(const cm_params *prm, const char *protocol,
                    const cm_workload_profile *wl, cm_warp_source src,
                    const cm_observer *obs, int profile, tu_sim *out)
{
    memset(out, 0, sizeof *out);
    const cm_protocol *proto = cm_protocol_find(protocol);
    ck_assert_msg(proto != NULL, "no protocol %s", protocol);
    cm_err err = {0};
    cm_stats *stats = cm_stats_new();
    ck_assert_ptr_nonnull(stats);
    cm_profile_rec *rec = NULL;
    if (profile)
        ck_assert_msg(cm_profile_rec_new(prm, proto, &rec, &err) == CM_OK,
                      "%s", err.msg);
    ck_assert_msg(!(profile && obs), "one observer per run");
    cm_gpu_run_config cfg = {.params = prm,
                             .workload = wl,
                             .protocol = proto,
                             .source = src,
                             .observer = rec ? cm_profile_rec_observer(rec)
                                             : obs};
    cm_gpu_result res;
    ck_assert_msg(cm_gpu_run(&cfg, stats, &res, &err) == CM_OK, "%s run: %s",
                  protocol, err.msg);
    out->cycles = res.cycles;
    out->instructions = res.instructions;
    out->finished = res.finished;
    if (rec) {
        cm_table *t = NULL;
        ck_assert_msg(cm_profile_rec_table(rec, stats, res.cycles, &t, &err) ==
                          CM_OK,
                      "%s", err.msg);
        ck_assert_msg(cm_profile_from_table(t, &out->prof, &err) == CM_OK,
                      "%s", err.msg);
        cm_table_free(t);
        cm_profile_rec_free(rec);
    }
    ck_assert_int_eq(cm_stats_rows(stats, &out->rows, &out->n, &err), CM_OK);
    out->stats = stats;
}

void tu_sim_run(const cm_params *prm, const char *protocol,
                cm_warp_source src, const cm_observer *obs, int profile,
                tu_sim *out)
{
    sim_run(prm, protocol, NULL, src, obs, profile, out);
}

void tu_sim_run_workload(const cm_params *prm, const char *protocol,
                         const char *workload, int profile, tu_sim *out)
{
    const cm_workload_profile *wl = cm_workload_builtin(workload);
    ck_assert_msg(wl != NULL, "no workload %s", workload);
    sim_run(prm, protocol, wl, (cm_warp_source){0}, NULL, profile, out);
}

void tu_sim_free(tu_sim *s)
{
    free(s->rows);
    cm_stats_free(s->stats);
    cm_profile_free(s->prof);
    memset(s, 0, sizeof *s);
}

double tu_sim_stat(const tu_sim *s, const char *metric)
{
    const cm_stat_row *r = cm_stats_find(s->rows, s->n, metric, "all");
    ck_assert_msg(r != NULL, "no statistic %s", metric);
    return r->value;
}
