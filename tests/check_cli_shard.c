/* check_cli_shard.c - runs split with --shard I/N and put back with
 * `cohmod merge`: for N = 1, 3 and 7 the merged files are byte for byte
 * those of one whole run (a sweep of the MSHR model, with one row per
 * point and with the variable-length occupancy distribution; a
 * validation); a missing, unfinished, duplicated or foreign shard is an
 * error naming it, with nothing merged; a killed validation resumed with
 * --resume gives the whole run's files and reuses what it had finished;
 * and the GNU parallel line of docs/cluster.md runs here with -j2.  (The
 * study's shards are checked against its whole run in check_cli_study.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testutil.h"

/* A validation of the MSHR model small enough for many runs. */
#define VAL "validate mshr --grid mshrs=4,8,16 --grid warps=2,4 " \
            "--workloads kmn,bfs --set sim.max_cycles=20000 --quiet"

/* dir/a and dir/b hold the same files, byte for byte. */
static void expect_same_tree(const char *dir, const char *a, const char *b)
{
    tu_run r = tu_shf("diff -r %s/%s %s/%s", dir, a, dir, b);
    ck_assert_msg(r.status == 0, "%s and %s differ:\n%s%s", a, b, r.out,
                  r.err);
    tu_run_free(&r);
}

static void run_ok(const char *what, tu_run r)
{
    ck_assert_msg(r.status == 0, "%s: exit %d: %s", what, r.status, r.err);
    tu_run_free(&r);
}

/* Runs `cohmod <args> --shard i/n --out <dir>/s<i>[/<file>]` for every
 * shard, then merges them into <dir>/m<n>. */
static void shard_and_merge(const char *dir, const char *args,
                            const char *file, int n)
{
    char merge[8192];
    int k = snprintf(merge, sizeof merge, "merge");
    for (int i = 1; i <= n; i++) {
        char out[4200];
        snprintf(out, sizeof out, "%s/s%d%s%s", dir, i, file ? "/" : "",
                 file ? file : "");
        run_ok(args, tu_cohmodf("%s --shard %d/%d --out %s", args, i, n, out));
        /* in reverse order: merge goes by the manifests, not the list */
        k += snprintf(merge + k, sizeof merge - (size_t)k, " %s/s%d", dir,
                      n + 1 - i);
    }
    run_ok("merge", tu_cohmodf("%s --out %s/m%d", merge, dir, n));
}

START_TEST(test_sweep_shards_merge)
{
    static const char *const sweeps[] = {
        "model mshr --sweep l1.mshrs=8:64:8 --sweep wl.mem_rate=0.01,0.02,0.04",
        "model mshr --pmf --sweep l1.mshrs=4:40:6 --sweep sched.active_warps=8,48"};
    static const int shards[] = {1, 3, 7};
    for (size_t s = 0; s < 2; s++) {
        char *dir = tu_tmpdir();
        run_ok("whole", tu_shf("mkdir %s/whole && %s %s --out "
                               "%s/whole/mshr.csv", dir, getenv("COHMOD_BIN"),
                               sweeps[s], dir));
        for (size_t k = 0; k < 3; k++) {
            shard_and_merge(dir, sweeps[s], "mshr.csv", shards[k]);
            char merged[32];
            snprintf(merged, sizeof merged, "m%d", shards[k]);
            expect_same_tree(dir, "whole", merged);
            /* a shard holds its slice only */
            if (shards[k] == 7) {
                char *a = tu_path_in(dir, "s1/mshr.csv");
                char *w = tu_path_in(dir, "whole/mshr.csv");
                char *ta = tu_read_file(a, NULL), *tw = tu_read_file(w, NULL);
                ck_assert(tu_count_lines(ta) > 1);
                ck_assert(tu_count_lines(ta) < tu_count_lines(tw) / 3);
                free(ta);
                free(tw);
                free(a);
                free(w);
            }
        }
        tu_rm_tree(dir);
        free(dir);
    }
    /* a shard needs a sweep to split and a file to write */
    tu_expect_rejected("model mshr --shard 1/2 --out /tmp/x.csv",
                       "give at least one");
    tu_expect_rejected("model mshr --sweep l1.mshrs=8,16 --shard 1/2",
                       "--shard needs --out");
    tu_expect_rejected("model mshr --sweep l1.mshrs=8,16 --shard 3/2 "
                       "--out /tmp/x.csv", "--shard '3/2'");
    tu_expect_rejected("model mshr --sweep l1.mshrs=8,16 --shard 0/2 "
                       "--out /tmp/x.csv", "--shard '0/2'");
}
END_TEST

START_TEST(test_validate_shards_merge)
{
    char *dir = tu_tmpdir();
    run_ok("whole", tu_cohmodf(VAL " --out %s/whole", dir));
    static const int shards[] = {1, 3, 7};
    for (size_t k = 0; k < 3; k++) {
        shard_and_merge(dir, VAL, NULL, shards[k]);
        char merged[32];
        snprintf(merged, sizeof merged, "m%d", shards[k]);
        expect_same_tree(dir, "whole", merged);
        for (int i = 1; i <= shards[k]; i++) { /* fresh shards next time */
            char sub[4200];
            snprintf(sub, sizeof sub, "%s/s%d", dir, i);
            tu_rm_tree(sub);
        }
    }
    /* --finish on a whole run's directory rewrites the same files */
    run_ok("finish", tu_cohmodf(VAL " --out %s/whole --finish", dir));
    expect_same_tree(dir, "whole", "m3");
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

/* A design's point list shards and resumes as a grid's does: the points
 * are drawn before any runs, the same in every shard. */
#define VAL_DESIGN "validate mshr --design lhs:20 --workloads kmn,bfs " \
                   "--set sim.max_cycles=5000 --seed 7 --quiet"

START_TEST(test_design_shards_merge_and_resume)
{
    char *dir = tu_tmpdir();
    run_ok("whole", tu_cohmodf(VAL_DESIGN " --out %s/whole", dir));
    shard_and_merge(dir, VAL_DESIGN, NULL, 3);
    expect_same_tree(dir, "whole", "m3");
    tu_run r = tu_shf("cp -r %s/whole %s/killed && cd %s/killed && "
                      "rm -f points.csv validity.csv runs/03.stats.csv "
                      "runs/17.stats.csv && "
                      "sed -i 's/status,complete/status,running/' run.csv",
                      dir, dir, dir);
    ck_assert_int_eq(r.status, 0);
    tu_run_free(&r);
    run_ok("resume", tu_cohmodf(VAL_DESIGN " --out %s/killed --resume", dir));
    expect_same_tree(dir, "whole", "killed");
    /* another seed is another run */
    char args[8192];
    snprintf(args, sizeof args, "validate mshr --design lhs:20 --workloads "
             "kmn,bfs --set sim.max_cycles=5000 --seed 8 --quiet --out "
             "%s/killed --resume", dir);
    tu_expect_rejected(args, "is of another run");
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

/* The one error line of `cohmod merge` names every shard at fault, and
 * merges nothing. */
START_TEST(test_merge_names_bad_shards)
{
    char *dir = tu_tmpdir(), args[8192], out[4200];
    for (int i = 1; i <= 3; i++)
        run_ok("shard", tu_cohmodf(VAL " --shard %d/3 --out %s/s%d", i, dir,
                                   i));
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(args, sizeof args, "merge %s/s1 %s/s3 --out %s", dir, dir, out);
    tu_expect_rejected(args, "shard 2/3 is missing");
    /* a shard killed midway: its manifest still says running */
    tu_run r = tu_shf("sed -i 's/status,complete/status,running/' "
                      "%s/s2/run.csv", dir);
    tu_run_free(&r);
    snprintf(args, sizeof args, "merge %s/s1 %s/s2 %s/s3 --out %s", dir, dir,
             dir, out);
    char want[4200];
    snprintf(want, sizeof want, "shard 2/3 in %s/s2 did not finish", dir);
    tu_expect_rejected(args, want);
    /* both at once, in one line */
    snprintf(args, sizeof args, "merge %s/s2 %s/s3 --out %s", dir, dir, out);
    tu_expect_rejected(args, "did not finish (run it again with --resume); "
                             "shard 1/3 is missing");
    run_ok("resume", tu_cohmodf(VAL " --shard 2/3 --out %s/s2 --resume", dir));
    /* the same shard twice, a shard of another run, a directory that is
     * no shard, a whole run */
    snprintf(args, sizeof args, "merge %s/s1 %s/s1 %s/s2 %s/s3 --out %s", dir,
             dir, dir, dir, out);
    tu_expect_rejected(args, "both hold shard 1/3");
    run_ok("other", tu_cohmodf(VAL " --set sim.seed=9 --shard 1/3 --out "
                               "%s/other", dir));
    snprintf(args, sizeof args, "merge %s/other %s/s2 %s/s3 --out %s", dir,
             dir, dir, out);
    tu_expect_rejected(args, "shards of different runs");
    snprintf(args, sizeof args, "merge %s --out %s", dir, out);
    tu_expect_rejected(args, "no run.csv");
    run_ok("whole", tu_cohmodf(VAL " --out %s/whole", dir));
    snprintf(args, sizeof args, "merge %s/whole --out %s", dir, out);
    tu_expect_rejected(args, "not a shard");
    r = tu_shf("test -e %s", out);
    ck_assert_msg(r.status != 0, "a failed merge made %s", out);
    tu_run_free(&r);
    /* merging into one of the shards */
    snprintf(args, sizeof args, "merge %s/s1 %s/s2 %s/s3 --out %s/s1", dir,
             dir, dir, dir);
    tu_expect_rejected(args, "is one of the shards");
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

/* A validation killed after some points: its directory holds those
 * points' files (each written whole), maybe a temporary, and a manifest
 * that says running.  --resume finishes it into the whole run's files,
 * and it keeps the points it had: one swapped for another point's file
 * shows in the results. */
START_TEST(test_resume_killed_validation)
{
    char *dir = tu_tmpdir();
    run_ok("whole", tu_cohmodf(VAL " --out %s/whole", dir));
    tu_run r = tu_shf(
        "cp -r %s/whole %s/killed && cd %s/killed && "
        "rm -f points.csv summary.csv calib.csv params.csv *.png "
        "runs/05.stats.csv runs/08.stats.csv runs/11.stats.csv && "
        "echo partial > runs/08.stats.csv.tmp.Ab12Cd && "
        "sed -i 's/status,complete/status,running/' run.csv", dir, dir, dir);
    ck_assert_int_eq(r.status, 0);
    tu_run_free(&r);
    run_ok("resume", tu_cohmodf(VAL " --out %s/killed --resume", dir));
    expect_same_tree(dir, "whole", "killed");
    /* what was there is used, not run again */
    r = tu_shf("cp %s/killed/runs/01.stats.csv %s/killed/runs/00.stats.csv",
               dir, dir);
    tu_run_free(&r);
    run_ok("resume", tu_cohmodf(VAL " --out %s/killed --resume", dir));
    r = tu_shf("cmp -s %s/whole/points.csv %s/killed/points.csv", dir, dir);
    ck_assert_msg(r.status != 0, "--resume ran a finished point again");
    tu_run_free(&r);
    /* without --resume the run starts over */
    run_ok("again", tu_cohmodf(VAL " --out %s/killed", dir));
    expect_same_tree(dir, "whole", "killed");
    /* --resume into another run's directory */
    char args[8192];
    snprintf(args, sizeof args, "validate mshr --grid mshrs=4,8 --grid "
             "warps=2,4 --workloads kmn,bfs --set sim.max_cycles=20000 "
             "--quiet --out %s/killed --resume", dir);
    tu_expect_rejected(args, "is of another run");
    snprintf(args, sizeof args, VAL " --out %s/killed --finish --shard 1/2",
             dir);
    tu_expect_rejected(args, "--finish and --shard");
    snprintf(args, sizeof args, VAL " --out %s/none --finish", dir);
    tu_expect_rejected(args, "no simulations");
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

/* docs/cluster.md's GNU parallel line, run here with -j2 on a small
 * validation in place of the study: the docs show what is tested. */
START_TEST(test_gnu_parallel_line)
{
    tu_run doc = tu_shf("grep -m1 '^ *parallel -j2 cohmod study ' "
                        "docs/cluster.md | sed 's/^ *//'");
    ck_assert_msg(doc.status == 0 && doc.out[0], "docs/cluster.md: no "
                  "parallel line");
    char *nl = strchr(doc.out, '\n');
    if (nl) *nl = '\0';
    /* cohmod study -> $COHMOD_BIN validate ...; cohmod merge likewise */
    const char *bin = getenv("COHMOD_BIN");
    char line[8192], val[4400];
    snprintf(val, sizeof val, "%s " VAL, bin);
    const char *study = strstr(doc.out, "cohmod study");
    const char *merge = strstr(doc.out, "cohmod merge");
    ck_assert(study && merge && merge > study);
    snprintf(line, sizeof line, "%.*s%s%.*s%s merge%s",
             (int)(study - doc.out), doc.out, val,
             (int)(merge - study - 12), study + 12, bin, merge + 12);
    char *dir = tu_tmpdir();
    tu_run r = tu_shf("cd %s && %s", dir, line);
    ck_assert_msg(r.status == 0, "%s: %s%s", line, r.out, r.err);
    tu_run_free(&r);
    run_ok("whole", tu_cohmodf(VAL " --out %s/whole", dir));
    expect_same_tree(dir, "whole", "out/study");
    tu_run_free(&doc);
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

Suite *suite_cli_shard(void)
{
    Suite *s = suite_create("cli_shard");
    TCase *tc = tcase_create("shard");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_sweep_shards_merge);
    tcase_add_test(tc, test_validate_shards_merge);
    tcase_add_test(tc, test_design_shards_merge_and_resume);
    tcase_add_test(tc, test_merge_names_bad_shards);
    tcase_add_test(tc, test_resume_killed_validation);
    tcase_add_test(tc, test_gnu_parallel_line);
    suite_add_tcase(s, tc);
    return s;
}
