/* check_install.c - `make install PREFIX=...` into a temporary prefix:
 * every promised file is there, each public header compiles alone with
 * only the prefix on the include path, examples/embed.c builds from a
 * directory away from the source tree with nothing but
 * `pkg-config --cflags --libs cohmod` and computes what it should, and
 * `make uninstall` leaves no file behind.  The Makefile's test target
 * builds everything install copies first and passes its BUILD and SAN in
 * COHMOD_MAKE_ARGS, so the test compiles nothing of the library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testutil.h"

/* make, without the outer make's jobserver, on this build tree. */
static tu_run make_in(const char *target, const char *prefix)
{
    const char *args = getenv("COHMOD_MAKE_ARGS");
    return tu_shf("env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s %s %s "
                  "PREFIX=%s", args ? args : "", target, prefix);
}

/* The value after "key=" on the line starting with `line`. */
static const char *field(const char *out, const char *line, const char *key)
{
    const char *l = strstr(out, line);
    ck_assert_msg(l != NULL, "no line '%s' in:\n%s", line, out);
    const char *end = strchr(l, '\n');
    const char *k = strstr(l, key);
    ck_assert_msg(k && (!end || k < end), "%s: no %s", line, key);
    return k + strlen(key);
}

START_TEST(test_install_embed_uninstall)
{
    char *prefix = tu_tmpdir(), *work = tu_tmpdir();
    tu_run r = make_in("install", prefix);
    ck_assert_msg(r.status == 0, "make install: %s%s", r.out, r.err);
    tu_run_free(&r);
    static const char *const files[] = {
        "bin/cohmod", "lib/libcohmod.a", "lib/libcohmod.so",
        "lib/pkgconfig/cohmod.pc", "include/cohmod/cohmod.h",
        "include/cohmod/models/mshr.h", "include/cohmod/data/params.def",
        "share/man/man1/cohmod.1",
        "share/bash-completion/completions/cohmod",
        "share/cohmod/configs/tc2013.csv", "share/cohmod/traces/sort.lackey"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        r = tu_shf("test -s %s/%s", prefix, files[i]);
        ck_assert_msg(r.status == 0, "%s not installed", files[i]);
        tu_run_free(&r);
    }
    r = tu_shf("%s/bin/cohmod --version", prefix);
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "cohmod "));
    tu_run_free(&r);
    r = tu_shf("MANWIDTH=200 man -l %s/share/man/man1/cohmod.1", prefix);
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "cohmod study"));
    tu_run_free(&r);

    /* Each installed header on its own, and no quoted include left that
     * would reach for the source tree. */
    r = tu_shf("cd %s/include && for h in $(find cohmod -name '*.h'); do "
               "printf '#include <%%s>\\nint main(void) { return 0; }\\n' $h "
               "| cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -I. -x c - "
               "|| echo \"FAIL $h\"; done; grep -rl '^#include \"' cohmod",
               prefix);
    ck_assert_msg(strstr(r.out, "FAIL") == NULL && r.out[0] == '\0',
                  "headers: %s%s", r.out, r.err);
    tu_run_free(&r);

    /* The example, built away from the source tree with pkg-config
     * alone, and run against the installed shared library. */
    r = tu_shf("cp examples/embed.c %s/ && cd %s && "
               "PKG_CONFIG_PATH=%s/lib/pkgconfig && export PKG_CONFIG_PATH "
               "&& cc -std=c11 -Wall -Wextra -Werror embed.c "
               "$(pkg-config --cflags --libs cohmod) -o embed && "
               "LD_LIBRARY_PATH=%s/lib ./embed",
               work, work, prefix, prefix);
    ck_assert_msg(r.status == 0, "embed: %s%s", r.out, r.err);
    /* MSHRs: P(full) falls as the file grows, occupancy within it */
    static const char *const sizes[] = {"8", "16", "32", "64", "128"};
    double last = 2;
    for (size_t i = 0; i < 5; i++) {
        char line[64];
        snprintf(line, sizeof line, "mshr mshrs=%s ", sizes[i]);
        double pf = strtod(field(r.out, line, "p_full="), NULL);
        double occ = strtod(field(r.out, line, "occupancy="), NULL);
        ck_assert(pf >= 0 && pf <= last);
        ck_assert(occ > 0 && occ <= atof(sizes[i]));
        last = pf;
    }
    ck_assert(last < 0.01); /* 128 MSHRs are rarely all busy */
    /* a loop over 1000 lines, 10 times: exact LRU misses everything at
     * 999 lines and only the cold tenth at 1000 */
    ck_assert_double_eq(strtod(field(r.out, "reuse none", "(999)="), NULL), 1);
    ck_assert_double_eq(strtod(field(r.out, "reuse none", "(1000)="), NULL),
                        0.1);
    double sampled = strtod(field(r.out, "reuse shards:0.1", "(1000)="), NULL);
    ck_assert(sampled > 0.05 && sampled < 0.2);
    tu_run_free(&r);

    r = make_in("uninstall", prefix);
    ck_assert_msg(r.status == 0, "make uninstall: %s", r.err);
    tu_run_free(&r);
    r = tu_shf("find %s ! -type d", prefix);
    ck_assert_msg(r.out[0] == '\0', "left behind:\n%s", r.out);
    tu_run_free(&r);
    tu_rm_tree(prefix);
    tu_rm_tree(work);
    free(prefix);
    free(work);
}
END_TEST

Suite *suite_install(void)
{
    Suite *s = suite_create("install");
    TCase *tc = tcase_create("install");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_install_embed_uninstall);
    suite_add_tcase(s, tc);
    return s;
}
