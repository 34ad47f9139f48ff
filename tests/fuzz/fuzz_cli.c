/* fuzz_cli.c - the command line itself, run in-process: argv from the
 * input, files under the target's own directory (fuzz_dir, the working
 * directory while a command runs).
 *
 * Input: one argument a line (argv[1], argv[2], ...) up to the first empty
 * line; the bytes after it are written as in.csv, in.lackey, in.din,
 * in.traceg and kernelslist.g for the arguments to name.  cohmod_main is
 * cli/main.c's main, compiled under that name (Makefile).
 *
 * The fuzzer is after parsing and validation, not after long runs, so
 * inputs that would start one are cut short or skipped:
 *   - sim, study, validate and litmus get `--out /proc/cohmod-fuzz/x`
 *     appended: the output check fails before any simulation (or, when
 *     the input has its own --out, the repeated option does);
 *   - inputs with a number beyond 1e5 (suffixes K, M, G counted) or a
 *     lo:hi:step range of more than 50 values are skipped;
 *   - model.lifetime_states is set small, after the input's own --set.
 *
 * Beyond crashes, leaks and undefined behaviour, an exit status of 1 is a
 * finding (abort): whatever argv and files the fuzzer makes are the
 * user's input, which is exit 0 or 2 (issue 25, item 5), so a 1 is
 * either bad input reported as an internal failure or a real one.  The
 * one honest 1 an argv can ask for, a device that fails a write
 * (/dev/full), is kept out: inputs naming /dev/ are skipped. */
#include "tests/fuzz/fuzz.h"

#include <ctype.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cohmod_main(int argc, char **argv);

#define MAX_ARGS 24
#define MAX_WORD 200

/* The value of the number starting at s, with a binary suffix. */
static double number_at(const char *s, const char **end)
{
    char *e;
    double v = strtod(s, &e);
    if (*e && strchr("kK", *e)) v *= 1024, e++;
    else if (*e && strchr("mM", *e)) v *= 1048576, e++;
    else if (*e && strchr("gG", *e)) v *= 1073741824, e++;
    *end = e == s ? s + 1 : e;
    return v;
}

/* Whether a word asks for long work: a big finite number, or a range
 * lo:hi:step of many values. */
static int too_big(const char *w)
{
    double prev[2] = {NAN, NAN};
    for (const char *s = w; *s;) {
        int start = isdigit((unsigned char)*s) &&
                    (s == w || !(isalnum((unsigned char)s[-1]) ||
                                 s[-1] == '_' || s[-1] == '.'));
        if (!start) {
            s++;
            continue;
        }
        const char *e;
        double v = number_at(s, &e);
        if (isfinite(v) && fabs(v) > 1e5) return 1;
        /* the third of a:b:c, a step */
        if (s - w >= 2 && s[-1] == ':' && isfinite(prev[0]) &&
            isfinite(prev[1]) && v > 0 && (prev[1] - prev[0]) / v > 50)
            return 1;
        prev[0] = prev[1];
        prev[1] = *e == ':' ? v : NAN;
        if (*e != ':') prev[0] = NAN;
        s = e;
    }
    return 0;
}

int fuzz_cli(const uint8_t *data, size_t size)
{
    static const char *const slow[] = {"sim", "study", "validate", "litmus"};
    char *text = fuzz_text(data, size);
    if (!text) return 0;
    char *argv[MAX_ARGS + 8];
    int argc = 0;
    argv[argc++] = "cohmod";
    /* the arguments, up to an empty line; the body is what follows it */
    const uint8_t *body = data + size;
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        if (!*line) {
            if (next) body = data + (next - text);
            break;
        }
        if (argc == MAX_ARGS + 1 || strlen(line) > MAX_WORD ||
            too_big(line) || strstr(line, "/dev/"))
            goto done;
        argv[argc++] = line;
    }
    size_t nbody = (size_t)(data + size - body);
    const char *dir = fuzz_dir();
    int back = open(".", O_RDONLY | O_DIRECTORY); /* the caller's cwd */
    if (back < 0) goto done;
    if (chdir(dir) != 0) {
        close(back);
        goto done;
    }
    static const char *const names[] = {"in.csv", "in.lackey", "in.din",
                                        "in.traceg", "kernelslist.g"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        free(fuzz_write(names[i], body, nbody));
    for (size_t i = 0; argc > 1 && i < sizeof slow / sizeof *slow; i++)
        if (!strcmp(argv[1], slow[i])) {
            argv[argc++] = "--out";
            argv[argc++] = "/proc/cohmod-fuzz/x";
        }
    argv[argc++] = "--set";
    argv[argc++] = "model.lifetime_states=200";
    argv[argc] = NULL;
    if (cohmod_main(argc, argv) == 1) abort(); /* see above */
    if (fchdir(back) != 0) abort(); /* cannot happen: it was open */
    close(back);
    fuzz_remove_dir(); /* what the command wrote goes before the next input */
done:
    free(text);
    return 0;
}
