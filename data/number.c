/* number.c - numbers read from text (see number.h). */
#include "data/number.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

cm_num_status cm_number_read(const char *text, double *v)
{
    const char *s = text;
    while (isspace((unsigned char)*s)) s++;
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    int range = errno == ERANGE;
    if (end == s) return CM_NUM_SYNTAX;
    while (isspace((unsigned char)*end)) end++;
    if (*end) return CM_NUM_SYNTAX;
    *v = x;
    if (isnan(x)) return CM_NUM_NOT_FINITE;
    if (isinf(x)) return range ? CM_NUM_OVERFLOW : CM_NUM_NOT_FINITE;
    /* glibc flags a subnormal result with ERANGE only when inexact; the
     * magnitude says it either way, and ERANGE on 0 is 1e-400. */
    if ((x != 0 && fabs(x) < DBL_MIN) || (x == 0 && range))
        return CM_NUM_UNDERFLOW;
    return CM_NUM_OK;
}

const char *cm_number_why(cm_num_status s)
{
    switch (s) {
    case CM_NUM_OK: return "";
    case CM_NUM_SYNTAX: return "is not a number";
    case CM_NUM_NOT_FINITE: return "is not finite";
    case CM_NUM_OVERFLOW: return "overflows (beyond 1.8e308)";
    case CM_NUM_UNDERFLOW:
        return "underflows (nonzero below 2.2e-308, the smallest normal "
               "double)";
    }
    return "is not a number";
}
