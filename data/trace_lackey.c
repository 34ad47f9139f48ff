/* trace_lackey.c - valgrind lackey traces (valgrind --tool=lackey
 * --trace-mem=yes).
 *
 * Lines: " L addr,size", " S addr,size", " M addr,size" (data accesses),
 * "I  addr,size" (instruction fetches: checked, then skipped), blank lines,
 * and valgrind's own lines, which start with "==pid==" or "--pid--" and are
 * skipped whatever follows.  Anything else - say the traced program's
 * output mixed into the same stream - is an error, because silently
 * dropping lines would make a damaged trace look clean.  addr is hex, size
 * decimal (1 to 2^32-1).  Parsing is by hand: this is the hot path of every
 * CPU-trace study. */
#include "data/trace_impl.h"

#define LACKEY_EXPECT "expected ' L|S|M addr,size' or 'I addr,size'"

/* "addr,size" from p to end; 1, or an error already reported. */
static int parse_addr_size(const cm_tlines *l, const char *p, const char *end,
                           uint64_t *addr, uint64_t *size, cm_err *err)
{
    int r = cm_parse_hex(&p, end, addr);
    if (r < 0) return cm_tlines_fail(l, err, "address over 64 bits"), -1;
    if (r == 0 || p == end || *p != ',') goto bad;
    p++;
    r = cm_parse_dec(&p, end, size);
    if (r < 0 || (r > 0 && (*size == 0 || *size > UINT32_MAX)))
        return cm_tlines_fail(l, err, "size must be 1 to %u", UINT32_MAX), -1;
    if (r == 0 || p != end) goto bad;
    return 1;
bad:
    cm_tlines_fail(l, err, LACKEY_EXPECT);
    return -1;
}

static int is_blank_line(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t') return 0;
    return 1;
}

static int lackey_next(void *st, cm_access *a, cm_err *err)
{
    cm_tlines *l = st;
    char *s;
    size_t n;
    uint64_t addr, size;
    for (;;) {
        int got = cm_tlines_next(l, &s, &n, err);
        if (got <= 0) return got;
        if (n >= 3 && s[0] == ' ' && s[2] == ' ' &&
            (s[1] == 'L' || s[1] == 'S' || s[1] == 'M')) {
            cm_op op = s[1] == 'L'   ? CM_OP_LOAD
                       : s[1] == 'S' ? CM_OP_STORE
                                     : CM_OP_MODIFY;
            if (parse_addr_size(l, s + 3, s + n, &addr, &size, err) < 0)
                return -1;
            *a = (cm_access){.addr = addr, .size = (uint32_t)size,
                             .op = (uint8_t)op};
            return 1;
        }
        if (n >= 2 && s[0] == 'I' && s[1] == ' ') {
            const char *p = s + 2;
            while (p < s + n && *p == ' ') p++;
            if (parse_addr_size(l, p, s + n, &addr, &size, err) < 0) return -1;
            continue;
        }
        if (n >= 2 && ((s[0] == '=' && s[1] == '=') ||
                       (s[0] == '-' && s[1] == '-')))
            continue;
        if (is_blank_line(s, n)) continue;
        return cm_tlines_fail(l, err, LACKEY_EXPECT), -1;
    }
}

const cm_trace_ops cm_trace_lackey_ops = {
    cm_trace_lines_open, lackey_next, cm_trace_lines_bytes,
    cm_trace_lines_close};
