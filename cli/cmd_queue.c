/* cmd_queue.c - `cohmod queue <model>`: the queueing solvers as a
 * calculator.  Every model prints one CSV table (stdout or --out). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "data/number.h"
#include "data/rows.h"
#include "data/table.h"
#include "solvers/queue.h"

/* The options of the models; one getopt_long table serves them all and each
 * model says which it takes. */
enum {
    Q_SERVERS,
    Q_CAPACITY,
    Q_SOURCES,
    Q_ARRIVAL,
    Q_SERVICE,
    Q_LOAD,
    Q_LPS,
    Q_SCV,
    Q_STATIONS,
    Q_POPULATION,
    Q_PMF,
    Q_NOPTS
};
#define BIT(o) (1u << (o))
#define WHOLE_MAX 1e8 /* counts: servers, places, sources, customers */
#define HELP_INDENT "                       " /* under the option texts */

static const struct {
    const char *name, *metavar, *help;
} qopt[Q_NOPTS] = {
    [Q_SERVERS] = {"servers", "C", "servers c"},
    [Q_CAPACITY] = {"capacity", "K", "places in all (K >= c), in service too"},
    [Q_SOURCES] = {"sources", "N", "finite population of sources"},
    [Q_ARRIVAL] = {"arrival", "L", "arrival rate lambda (mmckn: of each idle "
                                   "source)"},
    [Q_SERVICE] = {"service", "M",
                   "service rate mu per server (md1, mg1: mean time s)"},
    [Q_LOAD] = {"load", "A", "offered load a = lambda/mu in Erlangs; with "
                            "two of\n" HELP_INDENT "--arrival, --service, "
                            "--load the third follows,\n" HELP_INDENT
                            "and --load alone sets the service rate to 1 "
                            "(times\n" HELP_INDENT "in mean service times)"},
    [Q_LPS] = {"load-per-source", "B",
               "offered load of one idle source, lambda/mu"},
    [Q_SCV] = {"scv", "C2",
               "squared coefficient of variation of service (default 1)"},
    [Q_STATIONS] = {"stations", "FILE.csv",
                    "CSV with columns name,type,demand: type is\n" HELP_INDENT
                    "queue or delay, demand the service demand per\n"
                    HELP_INDENT "cycle (visits x time)"},
    [Q_POPULATION] = {"population", "N", "customers in the closed network"},
    [Q_PMF] = {"pmf", NULL, "print the distribution of the number present\n"
                            HELP_INDENT "(n,p,cdf) instead of the figures"},
};

typedef struct qargs {
    const char *text[Q_NOPTS]; /* as given, NULL when absent */
    double v[Q_NOPTS];         /* parsed */
    const cm_row_sink *sink;   /* --pmf: the rows are streamed here */
} qargs;

typedef cm_status (*qsolve_fn)(const qargs *q, cm_table **t, cm_err *err);

/* How a model takes its traffic.  The standard references state M/M/c,
 * M/M/c/K and M/G/1 in the offered load alone, so these take any two of
 * arrival, service and load (service a rate, or for M/D/1 and M/G/1 a
 * time), and the load alone with a service rate of 1: times then come out
 * in mean service times. */
typedef enum rates_kind { RATES_NONE = 0, RATES_MU, RATES_TIME } rates_kind;

typedef struct qmodel {
    const char *name, *summary, *about;
    unsigned allowed, required, whole; /* BIT() sets */
    qsolve_fn solve;
    rates_kind rates;
    int load_opt; /* Q_LOAD, or Q_LPS for a per-source load */
} qmodel;

/* ---- output tables ---------------------------------------------------- */

static cm_status oom(cm_err *err)
{
    return cm_err_set(err, CM_EINTERNAL, "out of memory");
}

/* A table of `ncols` columns, or an error. */
static cm_status new_table(size_t ncols, const char *const *names,
                           cm_table **t, cm_err *err)
{
    *t = cm_table_new(ncols, names);
    return *t ? CM_OK : oom(err);
}

/* Appends a row of numbers; a NAN cell is written empty. */
static cm_status append_numbers(cm_table *t, size_t n, const double *vals,
                                cm_err *err)
{
    char buf[32][32];
    const char *cells[32];
    if (n > 32) return cm_err_set(err, CM_EINTERNAL, "row too wide");
    for (size_t i = 0; i < n; i++) {
        buf[i][0] = '\0';
        if (!isnan(vals[i])) cm_fmt_double(buf[i], vals[i]);
        cells[i] = buf[i];
    }
    return cm_table_append(t, cells, err);
}

static cm_status one_row(size_t n, const char *const *names,
                         const double *vals, cm_table **t, cm_err *err)
{
    cm_status rc = new_table(n, names, t, err);
    return rc ? rc : append_numbers(*t, n, vals, err);
}

#define NMETRICS 9
#define MAX_INPUTS 8

/* The model's inputs, then every cm_queue_metrics figure. */
static cm_status metrics_table(size_t nin, const char *const *in_names,
                               const double *in_vals,
                               const cm_queue_metrics *m, cm_table **t,
                               cm_err *err)
{
    static const char *const mnames[NMETRICS] = {
        "p_block",   "p_wait", "throughput", "mean_n",   "mean_q",
        "mean_busy", "util",   "mean_resp",  "mean_wait"};
    const double mvals[NMETRICS] = {m->p_block,   m->p_wait,    m->throughput,
                                    m->mean_n,    m->mean_q,    m->mean_busy,
                                    m->util,      m->mean_resp, m->mean_wait};
    const char *names[MAX_INPUTS + NMETRICS];
    double vals[MAX_INPUTS + NMETRICS];
    for (size_t i = 0; i < nin; i++) {
        names[i] = in_names[i];
        vals[i] = in_vals[i];
    }
    for (size_t i = 0; i < NMETRICS; i++) {
        names[nin + i] = mnames[i];
        vals[nin + i] = mvals[i];
    }
    return one_row(nin + NMETRICS, names, vals, t, err);
}

/* The distribution's rows go out as they are computed (K may be 1e8). */
typedef struct pmf_out {
    const cm_row_sink *sink;
    double cdf;
} pmf_out;

static cm_status pmf_row(unsigned long n, double p, void *arg, cm_err *err)
{
    pmf_out *o = arg;
    o->cdf += p;
    char b[3][32];
    snprintf(b[0], 32, "%lu", n);
    cm_fmt_double(b[1], p);
    cm_fmt_double(b[2], fmin(o->cdf, 1.0));
    const char *cells[] = {b[0], b[1], b[2]};
    return cm_row_put(o->sink, 3, cells, err);
}

/* ---- the models ------------------------------------------------------- */

static unsigned long whole(const qargs *q, int o)
{
    return (unsigned long)q->v[o];
}

static cm_status solve_erlang_b(const qargs *q, cm_table **t, cm_err *err)
{
    double c = q->v[Q_SERVERS], a = q->v[Q_LOAD], b;
    /* The recursion is exact and O(c); past a million servers the
     * incomplete-gamma form is as accurate and O(1). */
    cm_status rc = c == floor(c) && c <= 1e6
                       ? cm_erlang_b((unsigned long)c, a, &b, err)
                       : cm_erlang_b_real(c, a, &b, err);
    if (rc) return rc;
    static const char *const names[] = {"servers",      "load",
                                        "blocking",     "carried_load",
                                        "lost_load",    "util"};
    const double vals[] = {c, a, b, a * (1 - b), a * b,
                           c > 0 ? a * (1 - b) / c : NAN};
    return one_row(6, names, vals, t, err);
}

static cm_status solve_erlang_c(const qargs *q, cm_table **t, cm_err *err)
{
    unsigned long c = whole(q, Q_SERVERS);
    double lambda = q->v[Q_ARRIVAL], mu = q->v[Q_SERVICE];
    cm_queue_metrics m;
    cm_status rc = cm_erlang_c(c, lambda, mu, NULL, &m, err);
    if (rc) return rc;
    static const char *const names[] = {"servers", "arrival", "service",
                                        "load"};
    const double vals[] = {(double)c, lambda, mu, lambda / mu};
    return metrics_table(4, names, vals, &m, t, err);
}

/* M/M/c/K (sources 0) and M/M/c/K/N share everything but the solver. */
static cm_status solve_mmck_any(const qargs *q, int finite, cm_table **t,
                                cm_err *err)
{
    unsigned long c = whole(q, Q_SERVERS), K = whole(q, Q_CAPACITY);
    unsigned long N = finite ? whole(q, Q_SOURCES) : 0;
    double lambda = q->v[Q_ARRIVAL], mu = q->v[Q_SERVICE];
    if (q->sink) {
        static const char *const head[] = {"n", "p", "cdf"};
        pmf_out o = {q->sink, 0.0};
        cm_status rc = cm_row_put(q->sink, 3, head, err);
        if (rc) return rc;
        return finite ? cm_mmckn_pmf_each(c, K, N, lambda, mu, pmf_row, &o,
                                          err)
                      : cm_mmck_pmf_each(c, K, lambda, mu, pmf_row, &o, err);
    }
    cm_queue_metrics m;
    cm_status rc = finite ? cm_mmckn_solve(c, K, N, lambda, mu, NULL, &m, err)
                          : cm_mmck_solve(c, K, lambda, mu, NULL, &m, err);
    if (rc) return rc;
    static const char *const names[] = {"servers", "capacity", "arrival",
                                        "service", "load", "sources"};
    const double vals[] = {(double)c, (double)K, lambda, mu, lambda / mu,
                           (double)N};
    return metrics_table(finite ? 6 : 5, names, vals, &m, t, err);
}

static cm_status solve_mmck(const qargs *q, cm_table **t, cm_err *err)
{
    return solve_mmck_any(q, 0, t, err);
}

static cm_status solve_mmckn(const qargs *q, cm_table **t, cm_err *err)
{
    return solve_mmck_any(q, 1, t, err);
}

static cm_status solve_engset(const qargs *q, cm_table **t, cm_err *err)
{
    unsigned long c = whole(q, Q_SERVERS), N = whole(q, Q_SOURCES);
    double beta = q->v[Q_LPS], tc, cc;
    cm_status rc = cm_engset(c, N, beta, &tc, &cc, err);
    if (rc) return rc;
    /* Carried load from the M/M/c/c/N distribution (mu = 1). */
    cm_queue_metrics m = {0};
    if (beta > 0 && (rc = cm_mmckn_solve(c, c, N, beta, 1.0, NULL, &m, err)))
        return rc;
    static const char *const names[] = {
        "servers",        "sources",         "load_per_source",
        "time_congestion", "call_congestion", "carried_load", "util"};
    const double vals[] = {(double)c, (double)N, beta, tc, cc, m.mean_busy,
                           m.mean_busy / (double)c};
    return one_row(7, names, vals, t, err);
}

/* M/D/1 and M/G/1 from the Pollaczek-Khinchine wait wq. */
static cm_status pk_table(const qargs *q, double scv, double wq, cm_table **t,
                          cm_err *err)
{
    double lambda = q->v[Q_ARRIVAL], s = q->v[Q_SERVICE], rho = lambda * s;
    const cm_queue_metrics m = {
        .p_block = 0,     .p_wait = rho,  .throughput = lambda,
        .mean_n = lambda * (wq + s),      .mean_q = lambda * wq,
        .mean_busy = rho, .util = rho,    .mean_resp = wq + s,
        .mean_wait = wq};
    static const char *const names[] = {"arrival", "service", "scv"};
    const double vals[] = {lambda, s, scv};
    return metrics_table(3, names, vals, &m, t, err);
}

static cm_status solve_md1(const qargs *q, cm_table **t, cm_err *err)
{
    double wq;
    cm_status rc = cm_md1_wait(q->v[Q_ARRIVAL], q->v[Q_SERVICE], &wq, err);
    return rc ? rc : pk_table(q, 0.0, wq, t, err);
}

static cm_status solve_mg1(const qargs *q, cm_table **t, cm_err *err)
{
    double scv = q->text[Q_SCV] ? q->v[Q_SCV] : 1.0, wq;
    cm_status rc =
        cm_mg1_wait(q->v[Q_ARRIVAL], q->v[Q_SERVICE], scv, &wq, err);
    return rc ? rc : pk_table(q, scv, wq, t, err);
}

/* Reads the stations file; errors carry file:line:col. */
static cm_status read_stations(const char *path, cm_table **in,
                               cm_mva_station **st, cm_err *err)
{
    size_t cn, ct, cd;
    cm_status rc = cm_table_read_file(path, in, err);
    if (!rc) rc = cm_table_col_require(*in, "name", &cn, err);
    if (!rc) rc = cm_table_col_require(*in, "type", &ct, err);
    if (!rc) rc = cm_table_col_require(*in, "demand", &cd, err);
    if (rc) return rc;
    size_t n = cm_table_nrows(*in);
    if (n == 0)
        return cm_err_at(err, CM_EINPUT, cm_table_name(*in), 2, 1,
                         "no stations: expected one row per station");
    if (!(*st = calloc(n, sizeof **st))) return oom(err);
    for (size_t r = 0; r < n; r++) {
        const char *type = cm_table_cell(*in, r, ct);
        unsigned long line, col;
        (*st)[r].name = cm_table_cell(*in, r, cn);
        if (!strcmp(type, "queue")) {
            (*st)[r].kind = CM_MVA_QUEUE;
        } else if (!strcmp(type, "delay")) {
            (*st)[r].kind = CM_MVA_DELAY;
        } else {
            cm_table_cell_pos(*in, r, ct, &line, &col);
            return cm_err_at(err, CM_EINPUT, cm_table_name(*in), line, col,
                             "column 'type': expected queue or delay, got "
                             "'%.40s'", type);
        }
        if ((rc = cm_table_get_double(*in, r, cd, &(*st)[r].demand, err)))
            return rc;
        if ((*st)[r].demand < 0) {
            cm_table_cell_pos(*in, r, cd, &line, &col);
            return cm_err_at(err, CM_EINPUT, cm_table_name(*in), line, col,
                             "column 'demand': expected a number >= 0, got "
                             "%g", (*st)[r].demand);
        }
    }
    return CM_OK;
}

static cm_status mva_table(const cm_mva_station *st, size_t n,
                           const cm_mva_result *res, cm_table **t,
                           cm_err *err)
{
    static const char *const names[] = {"station",      "type",
                                        "demand",       "util",
                                        "queue_len",    "residence",
                                        "throughput"};
    cm_status rc = new_table(7, names, t, err);
    double demand = 0, queue = 0;
    for (size_t k = 0; k <= n && !rc; k++) {
        char num[5][32];
        double v[5];
        if (k < n) {
            v[0] = st[k].demand;
            v[1] = res->util[k];
            v[2] = res->queue_len[k];
            v[3] = res->residence[k];
            demand += st[k].demand;
            queue += res->queue_len[k];
        } else {
            v[0] = demand, v[1] = NAN, v[2] = queue, v[3] = res->response;
        }
        v[4] = res->throughput;
        for (int i = 0; i < 5; i++) {
            num[i][0] = '\0';
            if (!isnan(v[i])) cm_fmt_double(num[i], v[i]);
        }
        const char *row[] = {
            k < n ? st[k].name : "total",
            k < n ? (st[k].kind == CM_MVA_QUEUE ? "queue" : "delay") : "",
            num[0], num[1], num[2], num[3], num[4]};
        rc = cm_table_append(*t, row, err);
    }
    return rc;
}

static cm_status solve_mva(const qargs *q, cm_table **t, cm_err *err)
{
    cm_table *in = NULL;
    cm_mva_station *st = NULL;
    double *arrays = NULL;
    cm_status rc = read_stations(q->text[Q_STATIONS], &in, &st, err);
    size_t n = cm_table_nrows(in);
    if (!rc && !(arrays = malloc(3 * n * sizeof *arrays))) rc = oom(err);
    if (!rc) {
        cm_mva_result res = {0, 0, arrays, arrays + n, arrays + 2 * n};
        rc = cm_mva_solve(st, n, whole(q, Q_POPULATION), &res, err);
        if (!rc) rc = mva_table(st, n, &res, t, err);
    }
    free(arrays);
    free(st);
    cm_table_free(in);
    return rc;
}

#define MM_RATES (BIT(Q_ARRIVAL) | BIT(Q_SERVICE))
#define MM_TRAFFIC (MM_RATES | BIT(Q_LOAD))

static const qmodel models[] = {
    {"erlang-b", "M/M/c/c loss: blocking of Poisson traffic (real c too)",
     "Erlang's loss formula B(c, a): the share of Poisson traffic of load a\n"
     "lost by c servers with no waiting room.  c may be any real >= 0\n"
     "(through the incomplete gamma function).\n"
     "Columns: servers,load,blocking,carried_load,lost_load,util",
     BIT(Q_SERVERS) | BIT(Q_LOAD), BIT(Q_SERVERS) | BIT(Q_LOAD), 0,
     solve_erlang_b, RATES_NONE, 0},
    {"erlang-c", "M/M/c: probability of waiting, waits and queue lengths",
     "Erlang's delay formula C(c, a) for c servers with an infinite queue;\n"
     "needs load a = arrival/service < servers.\n"
     "Columns: servers,arrival,service,load, then the figures p_block,\n"
     "p_wait,throughput,mean_n,mean_q,mean_busy,util,mean_resp,mean_wait",
     BIT(Q_SERVERS) | MM_TRAFFIC, BIT(Q_SERVERS), BIT(Q_SERVERS),
     solve_erlang_c, RATES_MU, Q_LOAD},
    {"mmck", "M/M/c/K: c servers, K places in all, arrivals beyond K lost",
     "Poisson arrivals, c exponential servers, K >= c places counting those\n"
     "in service; an arrival finding K present is lost.\n"
     "Columns: servers,capacity,arrival,service,load and the figures\n"
     "(p_block = P(K present); times are of admitted arrivals)",
     BIT(Q_SERVERS) | BIT(Q_CAPACITY) | MM_TRAFFIC | BIT(Q_PMF),
     BIT(Q_SERVERS) | BIT(Q_CAPACITY), BIT(Q_SERVERS) | BIT(Q_CAPACITY),
     solve_mmck, RATES_MU, Q_LOAD},
    {"engset", "finite-source loss: time and call congestion",
     "Engset's formula: N sources, each offering load B while idle, to c\n"
     "servers with no waiting room (c <= N).  Time congestion is P(all c\n"
     "busy); call congestion is the share of attempts blocked.\n"
     "Columns: servers,sources,load_per_source,time_congestion,\n"
     "call_congestion,carried_load,util",
     BIT(Q_SERVERS) | BIT(Q_SOURCES) | BIT(Q_LPS),
     BIT(Q_SERVERS) | BIT(Q_SOURCES) | BIT(Q_LPS),
     BIT(Q_SERVERS) | BIT(Q_SOURCES), solve_engset, RATES_NONE, 0},
    {"mmckn", "M/M/c/K/N: finite sources (machine repairman), K places",
     "N sources, each arriving at rate `arrival` while idle; c servers,\n"
     "c <= K <= N places; an arrival finding K present is lost and its\n"
     "source goes idle again.  p_block is what an arrival sees (arrival\n"
     "theorem), not the time average.  --load-per-source B = arrival/service\n"
     "stands for either rate.\n"
     "Columns: servers,capacity,arrival,service,load,sources and the figures",
     BIT(Q_SERVERS) | BIT(Q_CAPACITY) | BIT(Q_SOURCES) | MM_RATES |
         BIT(Q_LPS) | BIT(Q_PMF),
     BIT(Q_SERVERS) | BIT(Q_CAPACITY) | BIT(Q_SOURCES),
     BIT(Q_SERVERS) | BIT(Q_CAPACITY) | BIT(Q_SOURCES), solve_mmckn, RATES_MU,
     Q_LPS},
    {"mva", "closed network by exact Mean Value Analysis",
     "Exact MVA of a closed single-class network of queueing (FCFS,\n"
     "exponential, or processor sharing) and delay stations.\n"
     "Columns: station,type,demand,util,queue_len,residence,throughput; one\n"
     "row per station, then a 'total' row (queue_len = population,\n"
     "residence = cycle response time).  For a delay station util is the\n"
     "mean number present.",
     BIT(Q_STATIONS) | BIT(Q_POPULATION), BIT(Q_STATIONS) | BIT(Q_POPULATION),
     BIT(Q_POPULATION), solve_mva, RATES_NONE, 0},
    {"md1", "M/D/1: constant service time, mean waits",
     "Pollaczek-Khinchine with constant service: --service is the service\n"
     "TIME s (not a rate), and load = arrival x service < 1.\n"
     "Columns: arrival,service,scv and the figures",
     MM_TRAFFIC, 0, 0, solve_md1, RATES_TIME, Q_LOAD},
    {"mg1", "M/G/1: general service time, mean waits (Pollaczek-Khinchine)",
     "Pollaczek-Khinchine mean value formulas: --service is the mean service\n"
     "TIME s (not a rate), --scv its squared coefficient of variation (0:\n"
     "constant, 1: exponential), and load = arrival x service < 1.\n"
     "Columns: arrival,service,scv and the figures",
     MM_TRAFFIC | BIT(Q_SCV), 0, 0, solve_mg1, RATES_TIME, Q_LOAD},
};
#define NMODELS (sizeof models / sizeof models[0])

/* ---- help and parsing ------------------------------------------------- */

static void usage(FILE *f)
{
    fputs("Usage: cohmod queue MODEL [options]\n"
          "       cohmod queue MODEL --help\n\n"
          "Queueing formulas as a calculator; each model prints one CSV "
          "table.\nRates are per unit time (any one unit); loads are in "
          "Erlangs.\n\nModels:\n",
          f);
    for (size_t i = 0; i < NMODELS; i++)
        fprintf(f, "  %-9s %s\n", models[i].name, models[i].summary);
    fputc('\n', f);
    cli_print_common_help(f);
}

static void model_usage(FILE *f, const qmodel *m)
{
    int indent = fprintf(f, "Usage: cohmod queue %s", m->name), col = indent;
    for (int o = 0; o < Q_NOPTS; o++) {
        if (!(m->allowed & BIT(o))) continue;
        int req = (m->required & BIT(o)) != 0;
        char word[48];
        int n = snprintf(word, sizeof word, "%s--%s%s%s%s", req ? "" : "[",
                         qopt[o].name, qopt[o].metavar ? " " : "",
                         qopt[o].metavar ? qopt[o].metavar : "",
                         req ? "" : "]");
        if (col + 1 + n > 78) col = fprintf(f, "\n%*s", indent, "") - 1;
        col += fprintf(f, " %s", word);
    }
    fprintf(f, "\n\n%s\n\nOptions:\n", m->about);
    for (int o = 0; o < Q_NOPTS; o++) {
        if (!(m->allowed & BIT(o))) continue;
        char lhs[40];
        snprintf(lhs, sizeof lhs, "--%s%s%s", qopt[o].name,
                 qopt[o].metavar ? " " : "",
                 qopt[o].metavar ? qopt[o].metavar : "");
        fprintf(f, "  %-20s %s%s\n", lhs, qopt[o].help,
                m->whole & BIT(o) ? ", a whole number" : "");
    }
    fputc('\n', f);
    cli_print_common_help(f);
}

const char *cli_queue_model_name(size_t i)
{
    return i < sizeof models / sizeof *models ? models[i].name : NULL;
}

static const qmodel *find_model(const char *name)
{
    for (size_t i = 0; i < NMODELS; i++)
        if (!strcmp(models[i].name, name)) return &models[i];
    return NULL;
}

/* Parses every given option of the model: a finite number >= 0, and a whole
 * number where the model counts something. */
static int parse_numbers(const cli_ctx *ctx, const qmodel *m, qargs *q)
{
    for (int o = 0; o < Q_NOPTS; o++) {
        const char *s = q->text[o];
        if (!s && (m->required & BIT(o)))
            return cli_usage_error(ctx, "missing --%s", qopt[o].name);
        if (s && !(m->allowed & BIT(o)))
            return cli_usage_error(ctx, "--%s does not apply to %s",
                                   qopt[o].name, m->name);
        if (!s || o == Q_PMF || o == Q_STATIONS) continue;
        double v = 0;
        int whole = (m->whole & BIT(o)) != 0;
        cm_num_status ns = cm_number_read(s, &v);
        if (ns == CM_NUM_OVERFLOW || ns == CM_NUM_UNDERFLOW)
            return cli_usage_error(ctx, "--%s: '%s' %s", qopt[o].name, s,
                                   cm_number_why(ns));
        if (ns || v < 0 || (whole && v != floor(v)))
            return cli_usage_error(ctx, "--%s: expected %s >= 0, got '%s'",
                                   qopt[o].name,
                                   whole ? "a whole number" : "a number", s);
        if (whole && v > WHOLE_MAX)
            return cli_usage_error(ctx, "--%s: %s is too large (at most %g)",
                                   qopt[o].name, s, WHOLE_MAX);
        q->v[o] = v;
    }
    return 0;
}

/* Arrival and service of a model with traffic (rates_kind) from the two of
 * arrival, service and load given, or from the load alone. */
static int resolve_traffic(const cli_ctx *ctx, const qmodel *m, qargs *q)
{
    if (m->rates == RATES_NONE) return 0;
    const char *load = qopt[m->load_opt].name;
    int a = q->text[Q_ARRIVAL] != NULL, s = q->text[Q_SERVICE] != NULL;
    int l = q->text[m->load_opt] != NULL;
    if (a && s && l)
        return cli_usage_error(ctx, "give two of --arrival, --service and "
                               "--%s, not all three", load);
    if (!l && !(a && s))
        return cli_usage_error(ctx, "missing --%s (or --%s)",
                               a ? "service" : s ? "arrival" : load,
                               a || s ? load : "arrival and --service");
    if (!l) return 0;
    double A = q->v[m->load_opt], *arr = &q->v[Q_ARRIVAL];
    double *svc = &q->v[Q_SERVICE];
    int time = m->rates == RATES_TIME; /* load = arrival x service time */
    if (!a && !s) { /* the references' form: one unit of service */
        *svc = 1;
        *arr = A;
    } else if (s) {
        if (time && !(*svc > 0))
            return cli_usage_error(ctx, "--service must be > 0 with --%s",
                                   load);
        *arr = time ? A / *svc : A * *svc;
    } else {
        if (!(A > 0))
            return cli_usage_error(ctx, "--%s must be > 0 with --arrival",
                                   load);
        *svc = time ? A / *arr : *arr / A;
    }
    return 0;
}

enum { OPT_Q = CLI_OPT_FIRST_FREE };

static int own_option(int opt, const char *arg, void *u)
{
    qargs *q = u;
    if (opt < OPT_Q || opt >= OPT_Q + Q_NOPTS) return CM_EINPUT;
    q->text[opt - OPT_Q] = arg ? arg : "";
    return 0;
}

/* --pmf: the chosen model's solver with the streamed sink. */
typedef struct pmf_job {
    const qmodel *m;
    qargs *q;
} pmf_job;

static cm_status stream_pmf(const cm_row_sink *sink, void *arg, cm_err *err)
{
    pmf_job *j = arg;
    j->q->sink = sink;
    return j->m->solve(j->q, NULL, err);
}

static int run(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"servers", required_argument, NULL, OPT_Q + Q_SERVERS},
        {"capacity", required_argument, NULL, OPT_Q + Q_CAPACITY},
        {"sources", required_argument, NULL, OPT_Q + Q_SOURCES},
        {"arrival", required_argument, NULL, OPT_Q + Q_ARRIVAL},
        {"service", required_argument, NULL, OPT_Q + Q_SERVICE},
        {"load", required_argument, NULL, OPT_Q + Q_LOAD},
        {"load-per-source", required_argument, NULL, OPT_Q + Q_LPS},
        {"scv", required_argument, NULL, OPT_Q + Q_SCV},
        {"stations", required_argument, NULL, OPT_Q + Q_STATIONS},
        {"population", required_argument, NULL, OPT_Q + Q_POPULATION},
        {"pmf", no_argument, NULL, OPT_Q + Q_PMF},
        {0}};
    cli_ctx ctx;
    cli_ctx_init(&ctx, "queue");
    qargs q = {{0}, {0}, NULL};
    /* --help is answered below, once the model is known. */
    int rc = cli_parse(&ctx, argc, argv, longopts, own_option, &q, NULL);
    if (rc != CLI_CONTINUE) return rc;
    if (optind >= argc) {
        if (ctx.help) {
            usage(stdout);
            return 0;
        }
        return cli_usage_error(&ctx, "which model?");
    }
    const qmodel *m = find_model(argv[optind]);
    if (!m) return cli_usage_error(&ctx, "unknown model '%s'", argv[optind]);
    char command[64];
    snprintf(command, sizeof command, "queue %s", m->name);
    ctx.command = command;
    if (ctx.help) {
        model_usage(stdout, m);
        return 0;
    }
    if (optind + 1 < argc)
        return cli_usage_error(&ctx, "unexpected argument '%s'",
                               argv[optind + 1]);
    rc = parse_numbers(&ctx, m, &q);
    if (!rc) rc = resolve_traffic(&ctx, m, &q);
    if (!rc) rc = cli_ctx_resolve(&ctx);
    if (rc) return rc;

    if (q.text[Q_PMF]) {
        pmf_job job = {m, &q};
        ctx.command = "queue"; /* solver messages name their model */
        return cli_stream_rows(&ctx, stream_pmf, &job);
    }
    cm_err err = {0};
    cm_table *t = NULL;
    if (m->solve(&q, &t, &err) == CM_OK &&
        cm_table_write_file(t, ctx.out, &err) == CM_OK) {
        rc = cli_write_param_dump(&ctx, ctx.out);
    } else {
        ctx.command = "queue"; /* solver messages name their model */
        rc = cli_fail(&ctx, &err);
    }
    cm_table_free(t);
    return rc;
}

const cli_command cli_cmd_queue = {
    "queue", "queueing formulas: Erlang B/C, M/M/c/K[/N], Engset, M/G/1, MVA",
    run};
