/* validate_annotate.c - a model's results with the error estimates its
 * validations measured (validate.h cm_validate_annotate).
 *
 * Which columns carry an estimate, and in which measure, comes from the
 * validations themselves (each quantity's target and the `cohmod model`
 * column it estimates under each protocol), so a column is estimated
 * exactly when some validation measures it. */
#include <string.h>

#include "sim/protocol.h"
#include "study/validate.h"

static const cm_validate_model *const validated[] = {
    &cm_validate_mshr,   &cm_validate_reuse,
    &cm_validate_lifetime, &cm_validate_lifetime_predictor,
    &cm_validate_recall, &cm_validate_directory};

#define MAX_OUTPUTS 32

/* Whether the protocol uses the parameter: those it does not are no part
 * of the machine a validation ran. */
static int uses(const char *param, const char *protocol)
{
    const cm_protocol *p = cm_protocol_find(protocol);
    return !p || cm_protocol_uses_param(p, param);
}

/* `cohmod model lifetime`'s lifetime column is the lifetime the protocol
 * uses. */
static const char *alias(const char *column, const char *protocol)
{
    const cm_protocol *p = cm_protocol_find(protocol);
    if (strcmp(column, "lifetime") || !p) return NULL;
    return p->lifetime == CM_LIFE_STRONG ? "tc.lifetime_strong"
           : p->lifetime == CM_LIFE_WEAK ? "tc.lifetime_weak"
                                         : NULL;
}

/* The columns some validation of `model` estimates, under any protocol. */
static size_t outputs_of(const char *model, cm_validity_output *out)
{
    size_t n = 0;
    for (size_t m = 0; m < sizeof validated / sizeof *validated; m++) {
        const cm_validate_model *v = validated[m];
        if (strcmp(v->name, model) || !v->output) continue;
        for (size_t q = 0; q < v->nqty; q++)
            for (size_t i = 0; i < cm_protocol_count(); i++) {
                const char *col = v->output(q, cm_protocol_at(i)->name);
                size_t k = 0;
                while (col && k < n && strcmp(out[k].column, col)) k++;
                if (col && k == n && n < MAX_OUTPUTS)
                    out[n++] = (cm_validity_output){
                        col, v->qty[q].target == CM_VT_MARE};
            }
    }
    return n;
}

cm_status cm_validate_annotate(const cm_validity *v, const char *model,
                               const char *protocol, const cm_params *base,
                               const cm_table *t, cm_table **out, cm_err *err)
{
    cm_validity_output outs[MAX_OUTPUTS];
    size_t n = outputs_of(model, outs);
    return cm_validity_annotate(v, model, protocol, NULL, base, t, outs, n,
                                uses, alias, out, err);
}
