/* fuzzutil.c - helpers shared by the fuzz targets (see fuzz.h). */
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *fuzz_dir(void)
{
    static char dir[4096];
    if (!dir[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/cohmod-fuzz-XXXXXX",
                 base && base[0] ? base : "/tmp");
        if (!mkdtemp(dir)) {
            perror("fuzz: mkdtemp");
            abort(); /* a broken environment, not a finding */
        }
    }
    return dir;
}

char *fuzz_write(const char *name, const uint8_t *data, size_t size)
{
    const char *dir = fuzz_dir();
    size_t n = strlen(dir) + strlen(name) + 2;
    char *path = malloc(n);
    if (!path) return NULL;
    snprintf(path, n, "%s/%s", dir, name);
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
