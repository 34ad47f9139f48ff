/* number.h - numbers read from text, one way everywhere.
 *
 * strtod alone says "not a number" for 1e-320 and 1e999 alike, or returns
 * inf or a subnormal silently.  cm_number_read takes the whole text (blanks
 * around it allowed) and tells apart what is wrong with it, so messages can
 * say "'1e-320' underflows" rather than "is not a number". */
#ifndef CM_NUMBER_H
#define CM_NUMBER_H

typedef enum cm_num_status {
    CM_NUM_OK = 0,
    CM_NUM_SYNTAX,    /* not a number at all, or text after it */
    CM_NUM_NOT_FINITE, /* "inf", "nan" */
    CM_NUM_OVERFLOW,  /* beyond the largest double, e.g. 1e999 */
    CM_NUM_UNDERFLOW  /* nonzero but below the smallest normal double,
                         2.2e-308, e.g. 1e-320 (read as a subnormal or 0) */
} cm_num_status;

/* Parses text into *v (set even on underflow, to what strtod gave). */
cm_num_status cm_number_read(const char *text, double *v);

/* What is wrong, to follow the quoted text: "is not a number",
 * "is not finite", "overflows (beyond 1.8e308)", "underflows (nonzero
 * below 2.2e-308, the smallest normal double)"; "" for CM_NUM_OK. */
const char *cm_number_why(cm_num_status s);

#endif
