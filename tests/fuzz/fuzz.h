/* fuzz.h - cohmod's fuzz targets, one per input surface.
 *
 * Each tests/fuzz/fuzz_<name>.c defines `int fuzz_<name>(const uint8_t *,
 * size_t)`: it feeds the bytes to one reader or parser the way the CLI
 * would, and returns 0 whatever the verdict (errors are values; a crash,
 * a leak or undefined behaviour is the finding).  The same functions run
 * twice:
 *   - under libFuzzer (tests/fuzz/libfuzzer.c, `make fuzz`), built with
 *     clang -fsanitize=fuzzer,address,undefined, growing a corpus under
 *     build-fuzz/;
 *   - in `make test` and `make check-asan` (tests/check_fuzz_corpus.c),
 *     over the committed seeds (tests/fuzz/corpus/<name>/) and every past
 *     finding (tests/fuzz/regress/<name>/), so a finding stays fixed.
 * tests/fuzz/cohmod.dict holds the formats' keywords. */
#ifndef CM_FUZZ_H
#define CM_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#define FUZZ_TARGETS(X)                                                     \
    X(table)      /* CSV tables, whole and streamed (data/table.h) */       \
    X(lackey)     /* valgrind lackey traces */                              \
    X(din)        /* Dinero traces */                                       \
    X(tracecsv)   /* CSV traces */                                          \
    X(accel)      /* one Accel-Sim .traceg */                               \
    X(kernellist) /* kernelslist.g with its .traceg files */                \
    X(config)     /* --config files, calib.csv included */                  \
    X(setsweep)   /* --set values and --sweep specs */                      \
    X(workload)   /* workload profiles (sim --workload FILE) */             \
    X(profile)    /* timing profiles of the lifetime/recall models */       \
    X(calib)      /* the statistics files fit reads (--samples) */          \
    X(cli)        /* the command line itself, in-process */

#define FUZZ_DECLARE(n) int fuzz_##n(const uint8_t *data, size_t size);
FUZZ_TARGETS(FUZZ_DECLARE)
#undef FUZZ_DECLARE

/* ---- helpers (tests/fuzz/fuzzutil.c) ---------------------------------- */

/* A directory of this process's own under $TMPDIR (or /dev/shm), made on
 * first use and removed at exit or by fuzz_remove_dir (the next call makes
 * a new one); the files in it are overwritten by every input. */
const char *fuzz_dir(void);
void fuzz_remove_dir(void);

/* Writes size bytes to <dir>/name and returns its path (malloc'd), or
 * NULL when the file cannot be written (the target then skips). */
char *fuzz_write(const char *name, const uint8_t *data, size_t size);

/* The bytes as a NUL-terminated string (malloc'd; NUL bytes inside stay,
 * so C string functions see a prefix). */
char *fuzz_text(const uint8_t *data, size_t size);

/* Splits data at the first occurrence of sep: the head's and the tail's
 * lengths (tail empty, *tail_at = size, when sep does not occur). */
size_t fuzz_split(const uint8_t *data, size_t size, const char *sep,
                  size_t *tail_at);

#endif
