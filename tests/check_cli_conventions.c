/* check_cli_conventions.c - what users expect of any command-line tool:
 * --version, -h, `cohmod help CMD` (the same text as CMD --help), a
 * manual page built from those texts (so every command's usage and
 * options appear in it), and bash completion of commands, options,
 * parameter names and choices, presets, workloads and protocols, which
 * asks the binary for every list (scripts/cohmod.bash). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testutil.h"

/* The binary's answer to --complete WHAT as one malloc'd string. */
static char *complete(const char *what)
{
    tu_run r = tu_cohmodf("--complete %s", what);
    ck_assert_msg(r.status == 0, "--complete %s: %s", what, r.err);
    char *out = r.out;
    r.out = NULL;
    tu_run_free(&r);
    return out;
}

/* Calls f on each line of text (modified in place). */
#define EACH_LINE(text, w)                                              \
    for (char *save_ = NULL, *w = strtok_r(text, "\n", &save_); w;      \
         w = strtok_r(NULL, "\n", &save_))

START_TEST(test_version_and_help)
{
    tu_run r = tu_cohmod("--version");
    ck_assert_int_eq(r.status, 0);
    ck_assert_msg(strncmp(r.out, "cohmod ", 7) == 0 &&
                      strchr("0123456789", r.out[7]),
                  "--version: '%s'", r.out);
    ck_assert_uint_eq(tu_count_lines(r.out), 1);
    tu_run_free(&r);
    tu_run a = tu_cohmod("-h"), b = tu_cohmod("--help"), c = tu_cohmod("help");
    ck_assert_int_eq(a.status, 0);
    ck_assert_str_eq(a.out, b.out);
    ck_assert_str_eq(a.out, c.out);
    ck_assert_ptr_nonnull(strstr(a.out, "cohmod help <command>"));
    tu_run_free(&a);
    tu_run_free(&b);
    tu_run_free(&c);
    /* help CMD is CMD --help, for every command and a model's own */
    char *cmds = complete("commands");
    size_t n = 0;
    EACH_LINE(cmds, cmd)
    {
        if (!strcmp(cmd, "help")) continue;
        tu_run h = tu_cohmodf("help %s", cmd);
        tu_run o = tu_cohmodf("%s --help", cmd);
        ck_assert_msg(h.status == 0 && o.status == 0, "help %s: %d %s", cmd,
                      h.status, h.err);
        ck_assert_msg(strstr(h.out, "Usage: cohmod") != NULL, "help %s", cmd);
        ck_assert_str_eq(h.out, o.out);
        tu_run_free(&h);
        tu_run_free(&o);
        n++;
    }
    ck_assert_uint_ge(n, 12);
    free(cmds);
    a = tu_cohmod("help model recall");
    b = tu_cohmod("model recall --help");
    ck_assert_int_eq(a.status, 0);
    ck_assert_ptr_nonnull(strstr(a.out, "Usage: cohmod model recall"));
    ck_assert_str_eq(a.out, b.out);
    tu_run_free(&a);
    tu_run_free(&b);
    tu_expect_rejected("help frobnicate", "unknown command 'frobnicate'");
    tu_expect_rejected("--complete nonsense", "--complete");
}
END_TEST

/* The manual page carries every command's usage line and every option
 * each command takes, as the binary lists them. */
START_TEST(test_man_page_follows_help)
{
    char *build = tu_build_dir();
    tu_run man = tu_shf("MANWIDTH=400 man -l %s/cohmod.1", build);
    ck_assert_msg(man.status == 0, "man: %s", man.err);
    ck_assert_ptr_nonnull(strstr(man.out, "SYNOPSIS"));
    ck_assert_ptr_nonnull(strstr(man.out, "COMMANDS"));
    char *cmds = complete("commands");
    EACH_LINE(cmds, cmd)
    {
        if (!strcmp(cmd, "help")) continue;
        tu_run h = tu_cohmodf("help %s", cmd);
        char *nl = strchr(h.out, '\n');
        if (nl) *nl = '\0';
        ck_assert_msg(strstr(man.out, h.out) != NULL,
                      "man page lacks '%s'", h.out);
        tu_run_free(&h);
        char q[128];
        snprintf(q, sizeof q, "options %s", cmd);
        char *opts = complete(q);
        EACH_LINE(opts, opt)
            ck_assert_msg(strstr(man.out, opt) != NULL,
                          "man page lacks %s's %s", cmd, opt);
        free(opts);
    }
    ck_assert_ptr_nonnull(strstr(man.out, "Usage: cohmod model lifetime"));
    free(cmds);
    tu_run_free(&man);
    free(build);
}
END_TEST

/* What completing `line` (the cursor at its end) offers, space-separated:
 * bash sources the script and calls its function as completion would. */
static char *completions(const char *line)
{
    const char *bin = getenv("COHMOD_BIN");
    tu_run r = tu_shf(
        "bash -c '. scripts/cohmod.bash; COMP_LINE=\"$1\"; "
        "COMP_POINT=${#1}; read -r -a COMP_WORDS <<<\"$1\"; "
        "COMP_WORDS[0]=%s; COMPREPLY=(); _cohmod; echo \"${COMPREPLY[*]}\"' "
        "x '%s'", bin, line);
    ck_assert_msg(r.status == 0, "%s: %s", line, r.err);
    char *out = r.out;
    r.out = NULL;
    tu_run_free(&r);
    return out;
}

static void expect_completion(const char *line, const char *want)
{
    char *got = completions(line);
    ck_assert_msg(strstr(got, want) != NULL, "'%s' offers '%s', not '%s'",
                  line, got, want);
    free(got);
}

START_TEST(test_bash_completion)
{
    expect_completion("cohmod st", "study");
    expect_completion("cohmod ", "validate");
    expect_completion("cohmod help va", "validate");
    expect_completion("cohmod study --co", "--coh-workloads");
    expect_completion("cohmod model recall --pro", "--profile --protocol");
    expect_completion("cohmod model --set l1.msh", "l1.mshrs=");
    expect_completion("cohmod sim --set sched.policy=tw", "two-level");
    expect_completion("cohmod sim --config li", "li2014");
    expect_completion("cohmod sim --workload km", "kmn");
    expect_completion("cohmod validate mshr --workloads kmn,bf", "kmn,bfs");
    expect_completion("cohmod sim --protocol gpu-vin", "gpu-vini");
    expect_completion("cohmod help model lif", "lifetime");
    expect_completion("cohmod queue erl", "erlang-b erlang-c");
    expect_completion("cohmod validate re", "reuse");
    /* the lists are the binary's: every parameter of the registry */
    char *params = complete("params");
    tu_run p = tu_cohmod("params --csv");
    ck_assert_uint_eq(tu_count_lines(params), tu_count_lines(p.out) - 1);
    tu_run_free(&p);
    size_t n = 0;
    EACH_LINE(params, name)
    {
        if (n++ % 16) continue; /* a sample keeps the test quick */
        char line[160], want[160];
        snprintf(line, sizeof line, "cohmod sim --sweep %s", name);
        snprintf(want, sizeof want, "%s=", name);
        expect_completion(line, want);
    }
    free(params);
    char *wl = complete("workloads");
    ck_assert_ptr_nonnull(strstr(wl, "kmn\n"));
    ck_assert_uint_ge(tu_count_lines(wl), 20);
    free(wl);
}
END_TEST

Suite *suite_cli_conventions(void)
{
    Suite *s = suite_create("cli_conventions");
    TCase *tc = tcase_create("conventions");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_version_and_help);
    tcase_add_test(tc, test_man_page_follows_help);
    tcase_add_test(tc, test_bash_completion);
    suite_add_tcase(s, tc);
    return s;
}
