/* cmd_litmus.c - `cohmod litmus`: run the litmus tests of sim/litmus.h on
 * every protocol of sim/protocol.h under random timing, and count how
 * often each shows its weak outcome and whether the protocol's consistency
 * model forbids it.  A forbidden outcome is a protocol bug: it is warned
 * about with the seed that replays it (--replay). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "data/table.h"
#include "sim/litmus.h"

static void usage(FILE *f)
{
    fputs("Usage: cohmod litmus [--protocol P|all] [--test T|all] [--runs N] "
          "[--seed S]\n"
          "                     [--jitter J] [--strict] [--quiet] "
          "[--outcomes F.csv] [--out F.csv]\n"
          "       cohmod litmus --protocol P --test T --replay SEED\n\n"
          "Runs each litmus test N times on each coherence protocol, every "
          "run on a fresh\nmachine with random timing (up to litmus.jitter "
          "cycles on every message,\nthread start and issue), and writes "
          "one row per test and protocol:\n"
          "  test,protocol,model,forbids,runs,unfinished,forbidden,weak,"
          "allowed_weak,\n"
          "  first_forbidden_run,first_forbidden_seed,first_weak_seed,"
          "outcomes\n"
          "model is the protocol's consistency model (none, rcpc, rcsc), "
          "forbids 1 when it\nforbids the test's weak outcome, weak the runs "
          "showing that outcome, forbidden\nthose of them it forbids, "
          "outcomes the distinct outcomes seen.  A run seed\nreplays one run "
          "(--replay).  Each (test, protocol) with forbidden or unfinished\n"
          "runs gets a warning on stderr; the exit status stays 0 unless "
          "--strict.\n\n"
          "Tests: mp mp+fences sb sb+fences lb iriw corr cowr coww corw "
          "(sim/litmus.h\nexplains each).  Protocols: no-l1 no-coh wt mesi "
          "gpu-vi gpu-vini tcsuo tcs tcsoo\ntcw tcw-fixed.\n\n"
          "  --protocol P      one protocol, or all (default)\n"
          "  --test T          one test, or all (default)\n"
          "  --runs N          runs per test and protocol (default 1000)\n"
          "  --seed S          seed of the batch (sim.seed)\n"
          "  --jitter J        shorthand for --set litmus.jitter=J\n"
          "  --strict          exit 1 when a forbidden outcome or an "
          "unfinished run appears\n"
          "  --outcomes F.csv  also write test,protocol,outcome,count,weak,"
          "forbidden:\n"
          "                    every distinct outcome (registers r0.., then "
          "final x, y;\n"
          "                    a value t.k is thread t's k-th store, 0 the "
          "initial value)\n"
          "  --replay SEED     run once with this run seed (a "
          "first_*_seed) and write\n"
          "                    test,protocol,model,seed,finished,weak,"
          "forbidden,outcome\n"
          "  --quiet           no progress bar\n",
          f);
    cli_print_common_help(f);
}

enum {
    OPT_PROTOCOL = CLI_OPT_FIRST_FREE,
    OPT_TEST,
    OPT_RUNS,
    OPT_SEED,
    OPT_JITTER,
    OPT_STRICT,
    OPT_QUIET,
    OPT_OUTCOMES,
    OPT_REPLAY
};

typedef struct litmus_opts {
    cli_ctx *ctx;
    const char *protocol, *test, *runs, *outcomes, *replay;
    int strict, quiet;
} litmus_opts;

static int own_option(int opt, const char *arg, void *u)
{
    litmus_opts *o = u;
    switch (opt) {
    case OPT_PROTOCOL:
        o->protocol = arg;
        return 0;
    case OPT_TEST:
        o->test = arg;
        return 0;
    case OPT_RUNS:
        o->runs = arg;
        return 0;
    case OPT_SEED:
        return cli_alias_set(o->ctx, "sim.seed", arg);
    case OPT_JITTER:
        return cli_alias_set(o->ctx, "litmus.jitter", arg);
    case OPT_STRICT:
        o->strict = 1;
        return 0;
    case OPT_QUIET:
        o->quiet = 1;
        return 0;
    case OPT_OUTCOMES:
        o->outcomes = arg;
        return 0;
    case OPT_REPLAY:
        o->replay = arg;
        return 0;
    default:
        return CM_EINPUT;
    }
}

/* A whole number in [lo, hi]; 0 or the exit status after reporting. */
static int parse_count(cli_ctx *ctx, const char *opt, const char *text,
                       uint64_t lo, uint64_t hi, uint64_t *v)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(text, &end, 10);
    if (end == text || *end || errno || text[0] == '-' || x < lo || x > hi)
        return cli_usage_error(ctx, "--%s '%s': expected a whole number in "
                               "%" PRIu64 "..%" PRIu64, opt, text, lo, hi);
    *v = x;
    return 0;
}

#define MAX_PROTOCOLS 64
#define MAX_TESTS 32

/* The protocols or tests named by --protocol / --test ("all" or NULL: all
 * of them). */
static int pick_protocols(cli_ctx *ctx, const char *name,
                          const cm_protocol **out, size_t *n)
{
    *n = 0;
    if (!name || !strcmp(name, "all")) {
        for (size_t i = 0; cm_protocol_at(i) && *n < MAX_PROTOCOLS; i++)
            out[(*n)++] = cm_protocol_at(i);
        return 0;
    }
    if (!(out[0] = cm_protocol_find(name)))
        return cli_usage_error(ctx, "--protocol '%s': no such protocol",
                               name);
    *n = 1;
    return 0;
}

static int pick_tests(cli_ctx *ctx, const char *name,
                      const cm_litmus_test **out, size_t *n)
{
    *n = 0;
    if (!name || !strcmp(name, "all")) {
        for (size_t i = 0; i < cm_litmus_test_count() && *n < MAX_TESTS; i++)
            out[(*n)++] = cm_litmus_test_at(i);
        return 0;
    }
    if (!(out[0] = cm_litmus_test_find(name)))
        return cli_usage_error(ctx, "--test '%s': no such test (mp, "
                               "mp+fences, sb, sb+fences, lb, iriw, corr, "
                               "cowr, coww, corw, all)", name);
    *n = 1;
    return 0;
}

static void fmt_u64(char buf[24], uint64_t v)
{
    snprintf(buf, 24, "%" PRIu64, v);
}

static const char *const head[] = {
    "test",     "protocol", "model", "forbids", "runs", "unfinished",
    "forbidden", "weak",    "allowed_weak", "first_forbidden_run",
    "first_forbidden_seed", "first_weak_seed", "outcomes"};
#define NHEAD (sizeof head / sizeof head[0])

static cm_status write_row(cm_csv_writer *w, const cm_litmus_result *r,
                           cm_err *err)
{
    char num[8][24];
    fmt_u64(num[0], r->runs);
    fmt_u64(num[1], r->unfinished);
    fmt_u64(num[2], r->forbidden);
    fmt_u64(num[3], r->weak);
    fmt_u64(num[4], r->model_forbids ? 0 : r->weak);
    fmt_u64(num[5], r->first_forbidden_run);
    fmt_u64(num[6], r->first_forbidden_seed);
    fmt_u64(num[7], r->first_weak_seed);
    char nout[24];
    fmt_u64(nout, r->nhist);
    const char *cells[NHEAD] = {
        r->test->name, (r->proto)->name,
        cm_litmus_model_name(r->model), r->model_forbids ? "1" : "0",
        num[0], num[1], num[2], num[3], num[4],
        r->forbidden ? num[5] : "", r->forbidden ? num[6] : "",
        r->weak ? num[7] : "", nout};
    return cm_csv_writer_row(w, NHEAD, cells, err);
}

static cm_status write_outcomes(cm_csv_writer *w, const cm_litmus_result *r,
                                cm_err *err)
{
    cm_status st = CM_OK;
    for (size_t i = 0; !st && i < r->nhist; i++) {
        char text[256], count[24];
        cm_litmus_outcome_format(r->test, &r->hist[i].outcome, text,
                                 sizeof text);
        fmt_u64(count, r->hist[i].count);
        int weak = r->test->weak(&r->hist[i].outcome);
        const char *cells[6] = {r->test->name,
                                (r->proto)->name, text, count,
                                weak ? "1" : "0",
                                weak && r->model_forbids ? "1" : "0"};
        st = cm_csv_writer_row(w, 6, cells, err);
    }
    return st;
}

/* One line per (test, protocol) that needs the lead's attention. */
static void warn(const cli_ctx *ctx, const cm_litmus_result *r)
{
    const char *tn = r->test->name, *pn = (r->proto)->name;
    if (r->forbidden || r->unfinished) cli_bar_end(NULL, 0);
    if (r->forbidden)
        fprintf(stderr,
                "cohmod %s: warning: %s on %s (%s) showed the forbidden "
                "outcome in %" PRIu64 " of %" PRIu64 " runs; first at run %"
                PRIu64 ": --test %s --protocol %s --replay %" PRIu64 "\n",
                ctx->command, tn, pn, cm_litmus_model_name(r->model),
                r->forbidden, r->runs, r->first_forbidden_run, tn, pn,
                r->first_forbidden_seed);
    if (r->unfinished)
        fprintf(stderr,
                "cohmod %s: warning: %s on %s: %" PRIu64 " of %" PRIu64
                " runs did not finish within %u cycles\n",
                ctx->command, tn, pn, r->unfinished, r->runs,
                CM_LITMUS_MAX_CYCLES);
}

static int replay(cli_ctx *ctx, const cm_litmus_test *t,
                  const cm_protocol *p, uint64_t seed)
{
    cm_err err = {0};
    cm_litmus_outcome o;
    int finished;
    uint32_t jitter = (uint32_t)ctx->params.litmus_jitter;
    cm_status st = cm_litmus_run_once(t, p, &ctx->params, seed, jitter, &o,
                                      &finished, &err);
    if (st) return cli_fail(ctx, &err);
    char text[256], sd[24];
    cm_litmus_outcome_format(t, &o, text, sizeof text);
    fmt_u64(sd, seed);
    cm_consistency m = p->consistency;
    int weak = finished && t->weak(&o);
    static const char *const rhead[] = {"test", "protocol", "model", "seed",
                                        "finished", "weak", "forbidden",
                                        "outcome"};
    const char *cells[8] = {t->name, (p)->name,
                            cm_litmus_model_name(m), sd,
                            finished ? "1" : "0", weak ? "1" : "0",
                            weak && cm_litmus_forbids(t, m) ? "1" : "0",
                            text};
    cm_csv_writer *w = NULL;
    st = cm_csv_writer_open(ctx->out, &w, &err);
    if (!st) st = cm_csv_writer_row(w, 8, rhead, &err);
    if (!st) st = cm_csv_writer_row(w, 8, cells, &err);
    if (!st) st = cm_csv_writer_commit(w, &err);
    else if (w) cm_csv_writer_abort(w);
    return st ? cli_fail(ctx, &err) : cli_write_param_dump(ctx, ctx->out);
}

/* Runs per call between progress reports. */
#define CHUNK 64

static int sweep(cli_ctx *ctx, const litmus_opts *o,
                 const cm_litmus_test *const *tests, size_t ntests,
                 const cm_protocol *const *protos, size_t nprotos,
                 uint64_t runs)
{
    cm_err err = {0};
    cm_csv_writer *w = NULL, *wo = NULL;
    cm_status st = cm_csv_writer_open(ctx->out, &w, &err);
    if (!st) st = cm_csv_writer_row(w, NHEAD, head, &err);
    if (!st && o->outcomes) {
        static const char *const ohead[] = {"test",  "protocol", "outcome",
                                            "count", "weak",     "forbidden"};
        st = cm_csv_writer_open(o->outcomes, &wo, &err);
        if (!st) st = cm_csv_writer_row(wo, 6, ohead, &err);
    }
    uint64_t seed = (uint64_t)ctx->params.sim_seed;
    uint32_t jitter = (uint32_t)ctx->params.litmus_jitter;
    size_t total = ntests * nprotos * (size_t)runs, done = 0;
    int failed = 0, alarms = 0;
    for (size_t ti = 0; !st && ti < ntests; ti++)
        for (size_t pi = 0; !st && pi < nprotos; pi++) {
            cm_litmus_result r;
            cm_litmus_result_init(&r, tests[ti], protos[pi]);
            cm_status rs = CM_OK;
            for (uint64_t first = 0; !rs && first < runs; first += CHUNK) {
                uint64_t n = runs - first < CHUNK ? runs - first : CHUNK;
                rs = cm_litmus_run_range(&r, &ctx->params, first, n, seed,
                                         jitter, &err);
                done += (size_t)n;
                if (!o->quiet) cli_progress(done, total, NULL);
            }
            if (rs) { /* a simulator error: report it, go on with the rest */
                done += (size_t)(runs - r.runs);
                cli_fail(ctx, &err);
                failed = 1;
            } else {
                st = write_row(w, &r, &err);
                if (!st && wo) st = write_outcomes(wo, &r, &err);
                warn(ctx, &r);
                alarms |= r.forbidden || r.unfinished;
            }
            cm_litmus_result_free(&r);
        }
    if (!st && wo) st = cm_csv_writer_commit(wo, &err), wo = NULL;
    if (!st) st = cm_csv_writer_commit(w, &err), w = NULL;
    if (wo) cm_csv_writer_abort(wo);
    if (w) cm_csv_writer_abort(w);
    cli_bar_end(NULL, !st && !failed);
    if (st) return cli_fail(ctx, &err);
    int rc = cli_write_param_dump(ctx, ctx->out);
    if (rc) return rc;
    return failed ? CM_EINTERNAL : (o->strict && alarms) ? 1 : 0;
}

static int run(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"protocol", required_argument, NULL, OPT_PROTOCOL},
        {"test", required_argument, NULL, OPT_TEST},
        {"runs", required_argument, NULL, OPT_RUNS},
        {"seed", required_argument, NULL, OPT_SEED},
        {"jitter", required_argument, NULL, OPT_JITTER},
        {"strict", no_argument, NULL, OPT_STRICT},
        {"quiet", no_argument, NULL, OPT_QUIET},
        {"outcomes", required_argument, NULL, OPT_OUTCOMES},
        {"replay", required_argument, NULL, OPT_REPLAY},
        {0}};
    cli_ctx ctx;
    cli_ctx_init(&ctx, "litmus");
    litmus_opts o = {.ctx = &ctx};
    int rc = cli_parse(&ctx, argc, argv, longopts, own_option, &o, usage);
    if (rc != CLI_CONTINUE) return rc;
    if (optind < argc)
        return cli_usage_error(&ctx, "unexpected argument '%s'", argv[optind]);
    uint64_t runs = 1000, seed = 0;
    if (o.runs && (rc = parse_count(&ctx, "runs", o.runs, 1, 1000000000,
                                    &runs)))
        return rc;
    if (o.replay && (rc = parse_count(&ctx, "replay", o.replay, 0, UINT64_MAX,
                                      &seed)))
        return rc;
    const cm_protocol *protos[MAX_PROTOCOLS];
    const cm_litmus_test *tests[MAX_TESTS];
    size_t nprotos, ntests;
    if ((rc = pick_protocols(&ctx, o.protocol, protos, &nprotos)) ||
        (rc = pick_tests(&ctx, o.test, tests, &ntests)))
        return rc;
    if (o.replay && (nprotos != 1 || ntests != 1))
        return cli_usage_error(&ctx, "--replay needs one --protocol and one "
                               "--test");
    if (o.replay && (o.runs || o.outcomes))
        return cli_usage_error(&ctx, "--replay runs once: no --runs or "
                               "--outcomes");
    if ((rc = cli_ctx_resolve(&ctx))) return rc;
    if (o.replay) return replay(&ctx, tests[0], protos[0], seed);
    return sweep(&ctx, &o, tests, ntests, protos, nprotos, runs);
}

const cli_command cli_cmd_litmus = {
    "litmus", "litmus tests of the coherence protocols under random timing",
    run};
