/* check_cli_plot.c - `cohmod plot` end to end: a real CSV to a real figure,
 * and the error contract (one line on stderr, exit 2, no file written). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/testutil.h"

/* Each test (forked by Check) gets a fresh directory holding data.csv,
 * emptied and removed after it. */
static char *dir;

static void setup(void)
{
    dir = tu_tmpdir();
    free(tu_write_file(dir, "data.csv",
                       "l1.mshrs,load,mean_occupancy,latency_eff,lo,hi\n"
                       "8,1,2,300,1.5,2.5\n"
                       "8,2,4,320,3.5,4.5\n"
                       "8,4,7,400,6.5,7.5\n"
                       "32,1,2.5,290,2,3\n"
                       "32,2,5,300,4.5,5.5\n"
                       "32,4,12,350,11,13\n"));
    free(tu_write_file(dir, "bad.csv", "load,y\n1,2\n2,fast\n"));
    free(tu_write_file(dir, "zero.csv", "a,b\n1,1\n0,2\n"));
}

static void teardown(void)
{
    tu_rm_tree(dir);
    free(dir);
}

#define NFIXED 3 /* files setup() writes */

/* Runs `cohmod plot ARGS`, where every "%s" in ARGS is the directory. */
static tu_run plot(const char *args)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "plot ");
    snprintf(cmd + 5, sizeof cmd - 5, args, dir, dir, dir);
    return tu_cohmod(cmd);
}

/* `cohmod plot ARGS` failed the CLI way: exit 2, one line on stderr naming
 * the command and containing `needle` ("%s" is the directory), nothing on
 * stdout, no file written. */
static void fails(const char *args, const char *needle)
{
    char want[4200];
    snprintf(want, sizeof want, needle, dir);
    tu_run r = plot(args);
    ck_assert_msg(r.status == 2, "%s: exit %d, stderr: %s", args, r.status,
                  r.err);
    ck_assert_msg(tu_count_lines(r.err) == 1, "%s: stderr: %s", args, r.err);
    ck_assert_msg(strncmp(r.err, "cohmod plot: ", 13) == 0, "%s", r.err);
    ck_assert_msg(strstr(r.err, want) != NULL, "'%s' not in: %s", want,
                  r.err);
    ck_assert_str_eq(r.out, "");
    ck_assert_uint_eq(tu_dir_entries(dir), NFIXED);
    tu_run_free(&r);
}

/* `cohmod plot ARGS` succeeded silently and wrote `name` with `magic`. */
static void draws(const char *args, const char *name, const char *magic)
{
    tu_run r = plot(args);
    ck_assert_msg(r.status == 0, "%s: exit %d: %s", args, r.status, r.err);
    ck_assert_str_eq(r.err, "");
    ck_assert_str_eq(r.out, "");
    tu_run_free(&r);
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    size_t len = 0;
    char *data = tu_read_file(p, &len);
    ck_assert_msg(data != NULL, "%s not written", name);
    ck_assert_uint_gt(len, 1000);
    ck_assert_msg(memcmp(data, magic, strlen(magic)) == 0, "%s: bad magic",
                  name);
    free(data);
}

START_TEST(test_cli_draws)
{
    draws("%s/data.csv --x load --y mean_occupancy --by l1.mshrs --errlo lo "
          "--errhi hi --logx --title 'MSHR occupancy' --out %s/fig.png",
          "fig.png", "\x89PNG\r\n\x1a\n");
    draws("%s/data.csv --x load --y mean_occupancy,latency_eff --style lines "
          "--out %s/a.svg",
          "a.svg", "<?xml");
    draws("%s/data.csv --x load --y mean_occupancy --by l1.mshrs --style "
          "points --logy --out %s/b.pdf",
          "b.pdf", "%PDF-");
    draws("--out %s/c.PNG --y latency_eff --y mean_occupancy %s/data.csv "
          "--by l1.mshrs --x load --config li2014",
          "c.PNG", "\x89PNG");
    ck_assert_uint_eq(tu_dir_entries(dir), NFIXED + 4); /* and no temporaries */
}
END_TEST

START_TEST(test_cli_input_errors)
{
    fails("%s/data.csv --x load --y nope --out %s/f.png",
          "%s/data.csv:1:1: missing column 'nope'");
    fails("%s/data.csv --x nope --y lo --out %s/f.png",
          "%s/data.csv:1:1: missing column 'nope'");
    fails("%s/data.csv --x load --y lo --by nope --out %s/f.png",
          "%s/data.csv:1:1: missing column 'nope'");
    fails("%s/bad.csv --x load --y y --out %s/f.png",
          "%s/bad.csv:3:3: column 'y': expected a number, got 'fast'");
    fails("%s/zero.csv --x a --y b --logx --out %s/f.png",
          "%s/zero.csv:3:1: column 'a': a log axis needs positive values");
    fails("%s/missing.csv --x load --y y --out %s/f.png",
          "%s/missing.csv");
    fails("%s/data.csv --x load --y lo --out %s/nodir/f.png",
          "%s/nodir/f.png: cannot create");
    fails("%s/data.csv --x load --y lo --out %s/f.jpg",
          "%s/f.jpg: unknown figure format; use .png, .svg or .pdf");
}
END_TEST

START_TEST(test_cli_usage_errors)
{
    fails("%s/data.csv --y lo --out %s/f.png", "--x COL is required");
    fails("%s/data.csv --x load --out %s/f.png", "--y COL is required");
    fails("%s/data.csv --x load --y lo", "--out");
    fails("%s/data.csv --x load --y lo --out ''", "--out");
    fails("%s/data.csv --x load --y lo --style dots --out %s/f.png",
          "--style 'dots'");
    fails("%s/data.csv --x load --y lo --errlo lo --out %s/f.png",
          "--errlo and --errhi go together");
    fails("%s/data.csv --x load --y lo,hi --errlo lo --errhi hi --out "
          "%s/f.png",
          "exactly one --y");
    fails("%s/data.csv --x load --y lo, --out %s/f.png", "empty column name");
    fails("%s/data.csv --x load --y lo --bogus --out %s/f.png",
          "unknown option '--bogus'");
    fails("%s/data.csv --x load --y lo --out %s/f.png --x",
          "option '--x' needs a value");
    fails("%s/data.csv --x load --y lo --set no.such=1 --out %s/f.png",
          "no.such");
    fails("--x load --y lo --out %s/f.png", "no CSV file given");
    fails("%s/data.csv extra --x load --y lo --out %s/f.png",
          "unexpected argument 'extra'");
}
END_TEST

START_TEST(test_cli_help)
{
    tu_run r = tu_cohmod("plot --help");
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.err, "");
    static const char *const words[] = {
        "Usage: cohmod plot", "--x COL", "--y COL", "--by COL", "--logx",
        "--logy", "--errlo", "--errhi", "--title", "--style", "linespoints",
        ".png", ".svg", ".pdf", "--config", "(entries)"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        ck_assert_msg(strstr(r.out, words[i]) != NULL, "help lacks %s",
                      words[i]);
    tu_run_free(&r);
}
END_TEST

Suite *suite_cli_plot(void)
{
    Suite *s = suite_create("cli_plot");
    TCase *tc = tcase_create("cli_plot");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120); /* rendering under sanitizers is slow */
    tcase_add_test(tc, test_cli_draws);
    tcase_add_test(tc, test_cli_input_errors);
    tcase_add_test(tc, test_cli_usage_errors);
    tcase_add_test(tc, test_cli_help);
    suite_add_tcase(s, tc);
    return s;
}
