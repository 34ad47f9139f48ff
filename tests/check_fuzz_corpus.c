/* check_fuzz_corpus.c - every fuzz target (tests/fuzz/fuzz.h) over its
 * committed seeds and past findings, in the ordinary build and, through
 * `make check-asan`, under AddressSanitizer, UBSan and LeakSanitizer: a
 * finding of `make fuzz` stays fixed once its input is in
 * tests/fuzz/regress/<target>/.  The targets return 0 whatever they
 * read; what fails here is a crash, a sanitizer report or a leak. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/fuzz/fuzz.h"
#include "tests/testutil.h"

typedef int (*target_fn)(const uint8_t *data, size_t size);

#define FUZZ_ROW(n) {#n, fuzz_##n},
static const struct {
    const char *name;
    target_fn fn;
} targets[] = {FUZZ_TARGETS(FUZZ_ROW)};
#undef FUZZ_ROW
#define NTARGETS (sizeof targets / sizeof *targets)

/* Runs fn on every file of dir (run from the source root); returns how
 * many.  A missing directory counts none. */
static size_t run_dir(const char *dir, target_fn fn)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        char *path = tu_path_in(dir, de->d_name);
        struct stat sb;
        size_t len = 0;
        char *data = stat(path, &sb) == 0 && S_ISREG(sb.st_mode)
                         ? tu_read_file(path, &len)
                         : NULL;
        if (data) {
            ck_assert_int_eq(fn((const uint8_t *)data, len), 0);
            n++;
        }
        free(data);
        free(path);
    }
    closedir(d);
    return n;
}

START_TEST(test_target_over_corpus)
{
    const char *name = targets[_i].name;
    /* The CLI target's commands talk on stdout and stderr; set
     * COHMOD_FUZZ_VERBOSE to see them (and a sanitizer's report). */
    if (!strcmp(name, "cli") && !getenv("COHMOD_FUZZ_VERBOSE")) {
        int null = open("/dev/null", O_WRONLY);
        ck_assert_int_ge(null, 0);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        close(null);
    }
    char corpus[256], regress[256];
    snprintf(corpus, sizeof corpus, "tests/fuzz/corpus/%s", name);
    snprintf(regress, sizeof regress, "tests/fuzz/regress/%s", name);
    size_t seeds = run_dir(corpus, targets[_i].fn);
    ck_assert_msg(seeds > 0, "%s: no seed in %s", name, corpus);
    run_dir(regress, targets[_i].fn);
    fuzz_remove_dir(); /* the targets' scratch directory */
}
END_TEST

Suite *suite_fuzz_corpus(void)
{
    Suite *s = suite_create("fuzz_corpus");
    TCase *tc = tcase_create("corpus");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_target_over_corpus, 0, (int)NTARGETS);
    suite_add_tcase(s, tc);
    return s;
}
