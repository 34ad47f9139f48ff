/* fuzzutil.c - helpers shared by the fuzz targets (see fuzz.h). */
#define _XOPEN_SOURCE 700 /* nftw */
#include "tests/fuzz/fuzz.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[4096];
static int made; /* dir exists: made here and not removed since */

static int remove_entry(const char *path, const struct stat *sb, int flag,
                        struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void fuzz_remove_dir(void)
{
    if (!made) return;
    nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS); /* contents first */
    made = 0;
}

const char *fuzz_dir(void)
{
    static int registered;
    if (!made) {
        /* Every input is written to a file or two: in memory (/dev/shm)
         * when there is no TMPDIR, as disks shared with other jobs made the
         * file targets ten times slower. */
        const char *base = getenv("TMPDIR");
        if (!base || !base[0])
            base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(dir, sizeof dir, "%s/cohmod-fuzz-XXXXXX", base);
        if (!mkdtemp(dir)) {
            perror("fuzz: mkdtemp");
            abort(); /* a broken environment, not a finding */
        }
        made = 1;
        if (!registered) registered = atexit(fuzz_remove_dir) == 0;
    }
    return dir;
}

char *fuzz_write(const char *name, const uint8_t *data, size_t size)
{
    const char *d = fuzz_dir();
    size_t n = strlen(d) + strlen(name) + 2;
    char *path = malloc(n);
    if (!path) return NULL;
    snprintf(path, n, "%s/%s", d, name);
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size)) {
        if (f) fclose(f);
        free(path);
        return NULL;
    }
    if (fclose(f) != 0) {
        free(path);
        return NULL;
    }
    return path;
}

char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s) return NULL;
    if (size) memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

size_t fuzz_split(const uint8_t *data, size_t size, const char *sep,
                  size_t *tail_at)
{
    size_t k = strlen(sep);
    for (size_t i = 0; k && i + k <= size; i++)
        if (memcmp(data + i, sep, k) == 0) {
            *tail_at = i + k;
            return i;
        }
    *tail_at = size;
    return size;
}
