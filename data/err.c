/* err.c - see err.h. */
#include "data/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

cm_status cm_err_set(cm_err *err, cm_status code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

cm_status cm_err_at(cm_err *err, cm_status code, const char *file,
                    unsigned long line, unsigned long col, const char *fmt, ...)
{
    if (err) {
        int n = snprintf(err->msg, sizeof err->msg, "%s:%lu:%lu: ",
                         file ? file : "<input>", line, col);
        if (n < 0) n = 0;
        if ((size_t)n < sizeof err->msg) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err->msg + n, sizeof err->msg - (size_t)n, fmt, ap);
            va_end(ap);
        }
        err->code = code;
    }
    return code;
}

void cm_err_prefix(cm_err *err, const char *context)
{
    if (!err || !context) return;
    char tmp[CM_ERR_MSG_MAX];
    memcpy(tmp, err->msg, sizeof tmp);
    int n = snprintf(err->msg, sizeof err->msg, "%s: ", context);
    if (n >= 0 && (size_t)n < sizeof err->msg)
        snprintf(err->msg + n, sizeof err->msg - (size_t)n, "%.*s",
                 (int)(sizeof err->msg - (size_t)n - 1), tmp);
}

void cm_err_clear(cm_err *err)
{
    if (err) {
        err->code = CM_OK;
        err->msg[0] = '\0';
    }
}
