/* check_atomic.c - outputs that appear whole or not at all
 * (data/atomic.h): batches that rename together or not at all, the
 * signal-time removal of every temporary, stale temporaries of dead
 * processes, and the checks made before the work. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "data/atomic.h"
#include "tests/testutil.h"

static size_t temporaries(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -c cohmod-tmp", dir);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    unsigned long n = 0;
    ck_assert_int_eq(fscanf(p, "%lu", &n), 1);
    pclose(p);
    return n;
}

static int exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* The batch tests' directory and its two targets ta.csv and tb.csv. */
static char *bdir, *ta, *tb;

static void batch_setup(void)
{
    bdir = tu_tmpdir();
    ta = tu_path_in(bdir, "ta.csv");
    tb = tu_path_in(bdir, "tb.csv");
}

static void batch_teardown(void)
{
    tu_rm_tree(bdir);
    free(ta);
    free(tb);
    free(bdir);
}

START_TEST(test_batch_commits_all_or_none)
{
    free(tu_write_file(bdir, "tb.csv", "old\n"));
    cm_err err = {0};
    /* aborted: nothing new appears and the old tb.csv is intact */
    ck_assert_int_eq(cm_atomic_batch_begin(&err), CM_OK);
    ck_assert_int_eq(cm_atomic_batch_begin(&err), CM_EINTERNAL);
    ck_assert_int_eq(cm_atomic_write(ta, "1\n", 2, &err), CM_OK);
    ck_assert_int_eq(cm_atomic_write(tb, "2\n", 2, &err), CM_OK);
    ck_assert(!exists(ta));
    ck_assert_uint_eq(temporaries(bdir), 2);
    cm_atomic_batch_abort();
    ck_assert(!exists(ta));
    ck_assert_uint_eq(temporaries(bdir), 0);
    char *text = tu_read_file(tb, NULL);
    ck_assert_str_eq(text, "old\n");
    free(text);
    /* committed: both, and ta target written twice ends with the later */
    ck_assert_int_eq(cm_atomic_batch_begin(&err), CM_OK);
    ck_assert_int_eq(cm_atomic_write(ta, "1\n", 2, &err), CM_OK);
    ck_assert_int_eq(cm_atomic_write(tb, "2\n", 2, &err), CM_OK);
    ck_assert_int_eq(cm_atomic_write(ta, "3\n", 2, &err), CM_OK);
    ck_assert_int_eq(cm_atomic_batch_commit(&err), CM_OK);
    text = tu_read_file(ta, NULL);
    ck_assert_str_eq(text, "3\n");
    free(text);
    text = tu_read_file(tb, NULL);
    ck_assert_str_eq(text, "2\n");
    free(text);
    ck_assert_uint_eq(temporaries(bdir), 0);
    /* outside ta batch ta commit renames at once */
    ck_assert_int_eq(cm_atomic_write(ta, "4\n", 2, &err), CM_OK);
    text = tu_read_file(ta, NULL);
    ck_assert_str_eq(text, "4\n");
    free(text);
}
END_TEST

START_TEST(test_batch_rename_failure_removes_the_rest)
{
    cm_err err = {0};
    ck_assert_int_eq(cm_atomic_batch_begin(&err), CM_OK);
    ck_assert_int_eq(cm_atomic_write(ta, "1\n", 2, &err), CM_OK);
    ck_assert_int_eq(cm_atomic_write(tb, "2\n", 2, &err), CM_OK);
    ck_assert_int_eq(mkdir(ta, 0777), 0); /* ta directory now blocks ta.csv */
    ck_assert_int_eq(cm_atomic_batch_commit(&err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "cannot rename into place"));
    ck_assert(!exists(tb));
    ck_assert_uint_eq(temporaries(bdir), 0);
}
END_TEST

START_TEST(test_remove_all_takes_open_and_pending)
{
    cm_err err = {0};
    ck_assert_int_eq(cm_atomic_batch_begin(&err), CM_OK);
    ck_assert_int_eq(cm_atomic_write(ta, "1\n", 2, &err), CM_OK); /* pending */
    cm_atomic_file af;
    ck_assert_int_eq(cm_atomic_open(&af, tb, &err), CM_OK); /* open */
    fputs("half", af.f);
    ck_assert_uint_eq(temporaries(bdir), 2);
    cm_atomic_remove_all(); /* what the SIGTERM handler does */
    ck_assert_uint_eq(temporaries(bdir), 0);
    cm_atomic_abort(&af);
    cm_atomic_batch_abort();
    ck_assert_uint_eq(tu_dir_entries(bdir), 0);
}
END_TEST

START_TEST(test_stale_temporaries_of_dead_processes)
{
    char *dir = tu_tmpdir();
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) _exit(0);
    ck_assert_int_eq(waitpid(child, NULL, 0), child); /* now surely gone */
    char dead[128], live[128];
    snprintf(dead, sizeof dead, "r.csv.cohmod-tmp.%ld.Ab12Cd", (long)child);
    snprintf(live, sizeof live, "r.csv.cohmod-tmp.%ld.Ab12Cd",
             (long)getppid());
    const char *keep[] = {live, "r.csv.cohmod-tmp.x.Ab12Cd",
                          "r.csv.cohmod-tmp.12.short", "r.csv.tmp.12.Ab12Cd",
                          "r.csv"};
    free(tu_write_file(dir, dead, "debris"));
    for (size_t i = 0; i < sizeof keep / sizeof *keep; i++)
        free(tu_write_file(dir, keep[i], "keep"));
    ck_assert_uint_eq(cm_atomic_remove_stale(dir), 1);
    char *p = tu_path_in(dir, dead);
    ck_assert(!exists(p));
    free(p);
    for (size_t i = 0; i < sizeof keep / sizeof *keep; i++) {
        p = tu_path_in(dir, keep[i]);
        ck_assert_msg(exists(p), "%s removed", keep[i]);
        free(p);
    }
    /* the first open in a directory sweeps it */
    free(tu_write_file(dir, dead, "debris"));
    char *out = tu_path_in(dir, "new.csv");
    cm_err err = {0};
    ck_assert_int_eq(cm_atomic_write(out, "x\n", 2, &err), CM_OK);
    p = tu_path_in(dir, dead);
    ck_assert(!exists(p));
    free(p);
    free(out);
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

/* A device is written through, and its failure is reported at commit
 * (a full disk is an I/O fault, exit 1). */
START_TEST(test_write_through_failure)
{
    cm_err err = {0};
    ck_assert_int_eq(cm_atomic_write("/dev/full", "x\n", 2, &err),
                     CM_EINTERNAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "/dev/full: cannot write"));
    ck_assert_int_eq(cm_atomic_write("/dev/null", "x\n", 2, &err), CM_OK);
}
END_TEST

START_TEST(test_output_checks)
{
    char *dir = tu_tmpdir();
    char *file = tu_write_file(dir, "f", "x");
    char path[4200];
    cm_err err = {0};
    snprintf(path, sizeof path, "%s/out.csv", dir);
    ck_assert_int_eq(cm_output_check_file(path, &err), CM_OK);
    ck_assert_int_eq(cm_output_check_file("/dev/null", &err), CM_OK);
    ck_assert_int_eq(cm_output_check_file(dir, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "it is a directory"));
    snprintf(path, sizeof path, "%s/no/out.csv", dir);
    ck_assert_int_eq(cm_output_check_file(path, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "cannot create"));
    ck_assert_int_eq(cm_output_check_file("", &err), CM_EINPUT);
    /* directories: made later by mkdir -p, so a missing tail is fine */
    snprintf(path, sizeof path, "%s/a/b/c", dir);
    ck_assert_int_eq(cm_output_check_dir(path, &err), CM_OK);
    ck_assert_int_eq(cm_output_check_dir(dir, &err), CM_OK);
    snprintf(path, sizeof path, "%s/a/b/", dir);
    ck_assert_int_eq(cm_output_check_dir(path, &err), CM_OK);
    snprintf(path, sizeof path, "%s/sub", file);
    ck_assert_int_eq(cm_output_check_dir(path, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "is not a directory"));
    ck_assert_int_eq(cm_output_check_dir("/proc/self/x", &err), CM_EINPUT);
    ck_assert_uint_eq(tu_dir_entries(dir), 1); /* the probes left nothing */
    tu_rm_tree(dir);
    free(file);
    free(dir);
}
END_TEST






Suite *suite_atomic(void)
{
    Suite *s = suite_create("atomic");
    TCase *tc = tcase_create("batch");
    tcase_add_checked_fixture(tc, batch_setup, batch_teardown);
    tcase_add_test(tc, test_batch_commits_all_or_none);
    tcase_add_test(tc, test_batch_rename_failure_removes_the_rest);
    tcase_add_test(tc, test_remove_all_takes_open_and_pending);
    suite_add_tcase(s, tc);
    tc = tcase_create("files");
    tcase_add_test(tc, test_stale_temporaries_of_dead_processes);
    tcase_add_test(tc, test_write_through_failure);
    tcase_add_test(tc, test_output_checks);
    suite_add_tcase(s, tc);
    return s;
}
