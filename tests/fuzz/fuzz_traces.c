/* fuzz_traces.c - the trace readers: each format read as itself and by
 * detection, and an Accel-Sim kernel list with the kernel files it names.
 * Readers take paths, so the bytes go to a file first. */
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>

#include "data/trace.h"

/* Every access of the trace at path, read as fmt; a cap keeps a trace that
 * repeats itself cheaply (an Accel-Sim stride) from eating the time. */
static void drain(const char *path, cm_trace_format fmt, uint32_t line)
{
    cm_trace_opts o = {fmt, line};
    cm_trace *t = NULL;
    cm_err err = {0};
    if (cm_trace_open(path, &o, &t, &err) != CM_OK) return;
    cm_access a;
    for (size_t n = 0; n < 100000 && cm_trace_next(t, &a, &err) == 1; n++) {
    }
    (void)cm_trace_get_format(t);
    (void)cm_trace_bytes_read(t);
    cm_trace_close(t);
}

static int one_format(const uint8_t *data, size_t size, const char *name,
                      cm_trace_format fmt)
{
    char *path = fuzz_write(name, data, size);
    if (!path) return 0;
    drain(path, fmt, 0);
    drain(path, CM_TRACE_AUTO, 0);
    free(path);
    return 0;
}

int fuzz_lackey(const uint8_t *data, size_t size)
{
    return one_format(data, size, "t.lackey", CM_TRACE_LACKEY);
}

int fuzz_din(const uint8_t *data, size_t size)
{
    return one_format(data, size, "t.din", CM_TRACE_DIN);
}

int fuzz_tracecsv(const uint8_t *data, size_t size)
{
    return one_format(data, size, "t.csv", CM_TRACE_CSV);
}

/* The first byte picks the coalescing granule (4 B to 64 KB, and the
 * default), the rest is the .traceg. */
int fuzz_accel(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    uint32_t line = data[0] % 16 == 15 ? 0 : 4u << (data[0] % 15);
    char *path = fuzz_write("kernel-1.traceg", data + 1, size - 1);
    if (!path) return 0;
    drain(path, CM_TRACE_ACCEL, line);
    free(path);
    return 0;
}

/* kernelslist.g, then "\n--\n", then the text of kernel-1.traceg (which
 * the list may name, as it may name missing or odd files). */
int fuzz_kernellist(const uint8_t *data, size_t size)
{
    size_t tail;
    size_t head = fuzz_split(data, size, "\n--\n", &tail);
    char *kernel = fuzz_write("kernel-1.traceg", data + tail, size - tail);
    char *list = fuzz_write("kernelslist.g", data, head);
    if (kernel && list) {
        drain(list, CM_TRACE_ACCEL, 0);
        drain(list, CM_TRACE_AUTO, 0);
    }
    free(kernel);
    free(list);
    return 0;
}
