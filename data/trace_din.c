/* trace_din.c - Dinero "din" traces.
 *
 * One access a line: "label addr [size]", fields separated by blanks, addr
 * hex (a 0x prefix allowed), size decimal, 4 bytes when absent (Dinero's
 * word).  Labels follow Dinero III: 0 read, 1 write, 2 instruction fetch,
 * 3 escape (an access of unknown kind), 4 escape (cache flush).  Only 0 and
 * 1 become accesses; 2-4 are checked and skipped, since none is a data
 * access whose line we could place; any other label is an error.  Blank
 * lines are skipped. */
#include "data/trace_impl.h"

#define DIN_EXPECT "expected 'label hexaddr [size]' with label 0-4"
#define DIN_DEFAULT_SIZE 4

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    return p;
}

static int din_next(void *st, cm_access *a, cm_err *err)
{
    cm_tlines *l = st;
    char *s;
    size_t n;
    for (;;) {
        int got = cm_tlines_next(l, &s, &n, err);
        if (got <= 0) return got;
        const char *p = skip_blanks(s, s + n), *end = s + n;
        if (p == end) continue;
        uint64_t label = 0, addr = 0, size = DIN_DEFAULT_SIZE;
        const char *q = p;
        int r = cm_parse_dec(&q, end, &label);
        if (r == 0 || q == end || (*q != ' ' && *q != '\t')) goto bad;
        if (r < 0 || label > 4) goto bad;
        p = skip_blanks(q, end);
        if (end - p > 2 && p[0] == '0' && (p[1] | 0x20) == 'x') p += 2;
        r = cm_parse_hex(&p, end, &addr);
        if (r < 0) return cm_tlines_fail(l, err, "address over 64 bits"), -1;
        if (r == 0 || (p < end && *p != ' ' && *p != '\t')) goto bad;
        p = skip_blanks(p, end);
        if (p < end) {
            r = cm_parse_dec(&p, end, &size);
            if (r == 0) goto bad;
            if (r < 0 || size == 0 || size > UINT32_MAX)
                return cm_tlines_fail(l, err, "size must be 1 to %u",
                                      UINT32_MAX),
                       -1;
            if (skip_blanks(p, end) != end) goto bad;
        }
        if (label > 1) continue;
        *a = (cm_access){.addr = addr, .size = (uint32_t)size,
                         .op = label ? CM_OP_STORE : CM_OP_LOAD};
        return 1;
    }
bad:
    cm_tlines_fail(l, err, DIN_EXPECT);
    return -1;
}

const cm_trace_ops cm_trace_din_ops = {cm_trace_lines_open, din_next,
                                       cm_trace_lines_bytes,
                                       cm_trace_lines_close};
