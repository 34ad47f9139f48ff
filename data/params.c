/* params.c - the parameter registry built from params.def (see params.h). */
#include "data/params.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/number.h"
#include "data/table.h"

static const cm_param_info registry[] = {
#define CM_PARAM(id, name, type, def, min, max, unit, label, help) \
    {name, type, def, min, max, unit, NULL, label, help, offsetof(cm_params, id)},
#define CM_PARAM_ENUM(id, name, def, choices, label, help) \
    {name, CM_PT_ENUM, def, 0, 0, "", choices, label, help,               \
     offsetof(cm_params, id)},
#include "data/params.def"
#undef CM_PARAM
#undef CM_PARAM_ENUM
};

#define REGISTRY_LEN (sizeof registry / sizeof registry[0])

static const cm_param_design designs[] = {
#define CM_PARAM(id, name, type, def, min, max, unit, label, help)
#define CM_PARAM_ENUM(id, name, def, choices, label, help)
#define CM_DESIGN(id, validations, lo, hi, scale, why) \
    {offsetof(cm_params, id), validations, lo, hi, CM_DS_##scale, why},
#include "data/params.def"
#undef CM_PARAM
#undef CM_PARAM_ENUM
#undef CM_DESIGN
};

#define DESIGNS_LEN (sizeof designs / sizeof designs[0])

size_t cm_param_count(void) { return REGISTRY_LEN; }

const cm_param_info *cm_param_at(size_t i)
{
    return i < REGISTRY_LEN ? &registry[i] : NULL;
}

const cm_param_info *cm_param_find(const char *name)
{
    if (!name) return NULL;
    for (size_t i = 0; i < REGISTRY_LEN; i++)
        if (strcmp(registry[i].name, name) == 0) return &registry[i];
    return NULL;
}

double cm_param_get(const cm_params *p, const cm_param_info *pi)
{
    double v;
    memcpy(&v, (const char *)p + pi->offset, sizeof v);
    return v;
}

void cm_param_put(cm_params *p, const cm_param_info *pi, double v)
{
    memcpy((char *)p + pi->offset, &v, sizeof v);
}

void cm_params_init(cm_params *p)
{
    for (size_t i = 0; i < REGISTRY_LEN; i++)
        cm_param_put(p, &registry[i], registry[i].def);
}

/* Number of '|'-separated choices, and the index of `text` among them. */
static long enum_index(const char *choices, const char *text, size_t *count)
{
    long found = -1;
    size_t n = 0, tlen = strlen(text);
    for (const char *c = choices;; n++) {
        const char *bar = strchr(c, '|');
        size_t len = bar ? (size_t)(bar - c) : strlen(c);
        if (found < 0 && len == tlen && strncmp(c, text, len) == 0)
            found = (long)n;
        if (!bar) break;
        c = bar + 1;
    }
    if (count) *count = n + 1;
    return found;
}

static const char *enum_choice(const char *choices, long idx, size_t *len)
{
    const char *c = choices;
    for (long i = 0; i < idx; i++) {
        const char *bar = strchr(c, '|');
        if (!bar) return NULL;
        c = bar + 1;
    }
    const char *bar = strchr(c, '|');
    *len = bar ? (size_t)(bar - c) : strlen(c);
    return c;
}

static void format_range(const cm_param_info *pi, char *buf, size_t len)
{
    char lo[32], hi[32];
    switch (pi->type) {
    case CM_PT_ENUM:
        snprintf(buf, len, "one of %s", pi->choices);
        return;
    case CM_PT_BOOL:
        snprintf(buf, len, "yes or no");
        return;
    default:
        cm_param_format(pi, pi->min, lo, sizeof lo);
        cm_param_format(pi, pi->max, hi, sizeof hi);
        snprintf(buf, len, "%s %s..%s%s%s",
                 pi->type == CM_PT_INT ? "an integer in" : "a number in",
                 lo, hi, pi->unit[0] ? " " : "", pi->unit);
    }
}

cm_status cm_param_parse(const cm_param_info *pi, const char *text, double *v,
                         cm_err *err)
{
    char range[160];
    format_range(pi, range, sizeof range);
    if (pi->type == CM_PT_ENUM) {
        long idx = enum_index(pi->choices, text, NULL);
        if (idx < 0)
            return cm_err_set(err, CM_EINPUT,
                              "parameter %s: '%s' is not %s", pi->name, text,
                              range);
        *v = (double)idx;
        return CM_OK;
    }
    if (pi->type == CM_PT_BOOL) {
        if (!strcmp(text, "yes") || !strcmp(text, "true") || !strcmp(text, "1"))
            *v = 1;
        else if (!strcmp(text, "no") || !strcmp(text, "false") ||
                 !strcmp(text, "0"))
            *v = 0;
        else
            return cm_err_set(err, CM_EINPUT, "parameter %s: '%s' is not %s",
                              pi->name, text, range);
        return CM_OK;
    }
    /* Sizes in bytes take binary suffixes: 32K, 2M, 1G. */
    char buf[128];
    const char *num = text;
    int shift = 0;
    size_t n = strlen(text);
    while (n > 0 && isspace((unsigned char)text[n - 1])) n--;
    if (strcmp(pi->unit, "B") == 0 && n > 1 && n < sizeof buf &&
        strchr("kKmMgG", text[n - 1])) {
        shift = strchr("kK", text[n - 1]) ? 10 : strchr("mM", text[n - 1])
                                                     ? 20 : 30;
        memcpy(buf, text, n - 1);
        buf[n - 1] = '\0';
        num = buf;
    }
    double x = 0;
    cm_num_status ns = cm_number_read(num, &x);
    if (ns)
        return cm_err_set(err, CM_EINPUT, "parameter %s: '%s' %s; expected "
                          "%s", pi->name, text, cm_number_why(ns), range);
    x = ldexp(x, shift);
    if (pi->type == CM_PT_INT && x != floor(x))
        return cm_err_set(err, CM_EINPUT,
                          "parameter %s: '%s' is not an integer; expected %s",
                          pi->name, text, range);
    if (x < pi->min || x > pi->max)
        return cm_err_set(err, CM_EINPUT,
                          "parameter %s: %s is out of range; expected %s",
                          pi->name, text, range);
    *v = x;
    return CM_OK;
}

static cm_status unknown_param(const char *name, cm_err *err)
{
    return cm_err_set(err, CM_EINPUT,
                      "unknown parameter '%s' (see `cohmod params`)", name);
}

cm_status cm_params_set(cm_params *p, const char *name, const char *text,
                        cm_err *err)
{
    const cm_param_info *pi = cm_param_find(name);
    if (!pi) return unknown_param(name, err);
    double v;
    cm_status st = cm_param_parse(pi, text, &v, err);
    if (st == CM_OK) cm_param_put(p, pi, v);
    return st;
}

cm_status cm_params_assign(cm_params *p, const char *assignment, cm_err *err)
{
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment)
        return cm_err_set(err, CM_EINPUT,
                          "--set '%s': expected name=value", assignment);
    char name[128];
    size_t n = (size_t)(eq - assignment);
    if (n >= sizeof name) return unknown_param(assignment, err);
    memcpy(name, assignment, n);
    name[n] = '\0';
    return cm_params_set(p, name, eq + 1, err);
}

static cm_status apply_table(cm_params *p, const cm_table *t, cm_err *err)
{
    size_t cname, cval;
    cm_status st = cm_table_col_require(t, "parameter", &cname, err);
    if (st == CM_OK) st = cm_table_col_require(t, "value", &cval, err);
    if (st != CM_OK) return st;
    for (size_t r = 0; r < cm_table_nrows(t); r++) {
        const char *name = cm_table_cell(t, r, cname);
        unsigned long line, col;
        const cm_param_info *pi = cm_param_find(name);
        if (!pi) {
            cm_table_cell_pos(t, r, cname, &line, &col);
            return cm_err_at(err, CM_EINPUT, cm_table_name(t), line, col,
                             "unknown parameter '%s'", name);
        }
        double v;
        cm_err perr;
        if (cm_param_parse(pi, cm_table_cell(t, r, cval), &v, &perr) != CM_OK) {
            cm_table_cell_pos(t, r, cval, &line, &col);
            return cm_err_at(err, CM_EINPUT, cm_table_name(t), line, col, "%s",
                             perr.msg);
        }
        cm_param_put(p, pi, v);
    }
    return CM_OK;
}

cm_status cm_params_load(cm_params *p, const char *preset_or_path, cm_err *err)
{
    size_t len;
    const char *text = cm_preset_text(preset_or_path, &len);
    cm_table *t = NULL;
    cm_status st;
    if (text) {
        char name[96];
        snprintf(name, sizeof name, "preset:%s", preset_or_path);
        st = cm_table_read_buffer(name, text, len, &t, err);
    } else {
        st = cm_table_read_file(preset_or_path, &t, err);
        if (st != CM_OK && !strchr(preset_or_path, '/') &&
            !strstr(preset_or_path, ".csv")) {
            char names[256] = "";
            for (size_t i = 0; i < cm_preset_count(); i++) {
                strncat(names, i ? ", " : "", sizeof names - strlen(names) - 1);
                strncat(names, cm_preset_name(i),
                        sizeof names - strlen(names) - 1);
            }
            return cm_err_set(err, CM_EINPUT,
                              "--config '%s': no such preset (%s) or file",
                              preset_or_path, names);
        }
    }
    if (st == CM_OK) st = apply_table(p, t, err);
    cm_table_free(t);
    return st;
}

cm_status cm_params_validate(const cm_params *p, cm_err *err)
{
    if (p->sched_active_warps > p->gpu_warps_per_sm)
        return cm_err_set(err, CM_EINPUT,
                          "parameter sched.active_warps: %.0f exceeds "
                          "gpu.warps_per_sm (%.0f)",
                          p->sched_active_warps, p->gpu_warps_per_sm);
    const double lines[] = {p->l1_line, p->l2_line};
    const char *const line_names[] = {"l1.line", "l2.line"};
    for (int i = 0; i < 2; i++) {
        int e;
        if (frexp(lines[i], &e) != 0.5) /* a power of two is 0.5 x 2^e */
            return cm_err_set(err, CM_EINPUT,
                              "parameter %s: %.0f B is not a power of two",
                              line_names[i], lines[i]);
    }
    double l1_lines = p->l1_size / p->l1_line;
    if (l1_lines != floor(l1_lines) || fmod(l1_lines, p->l1_ways) != 0)
        return cm_err_set(err, CM_EINPUT,
                          "parameter l1.size: %.0f B is not a whole number of "
                          "sets of l1.ways x l1.line", p->l1_size);
    double l2_lines = p->l2_bank_size / p->l2_line;
    if (l2_lines != floor(l2_lines) || fmod(l2_lines, p->l2_ways) != 0)
        return cm_err_set(err, CM_EINPUT,
                          "parameter l2.bank_size: %.0f B is not a whole "
                          "number of sets of l2.ways x l2.line",
                          p->l2_bank_size);
    return CM_OK;
}

void cm_param_format(const cm_param_info *pi, double v, char *buf, size_t len)
{
    if (pi->type == CM_PT_ENUM) {
        size_t n;
        const char *c = enum_choice(pi->choices, (long)v, &n);
        snprintf(buf, len, "%.*s", c ? (int)n : 1, c ? c : "?");
    } else if (pi->type == CM_PT_BOOL) {
        snprintf(buf, len, "%s", v != 0 ? "yes" : "no");
    } else if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(buf, len, "%.0f", v);
    } else {
        char tmp[32];
        cm_fmt_double(tmp, v);
        snprintf(buf, len, "%s", tmp);
    }
}

cm_status cm_params_write_dump(const cm_params *p, const char *path,
                               cm_err *err)
{
    static const char *const header[] = {"parameter", "value", "unit"};
    cm_table *t = cm_table_new(3, header);
    if (!t) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    cm_status st = CM_OK;
    for (size_t i = 0; i < REGISTRY_LEN && st == CM_OK; i++) {
        char val[64];
        cm_param_format(&registry[i], cm_param_get(p, &registry[i]), val,
                        sizeof val);
        const char *row[] = {registry[i].name, val, registry[i].unit};
        st = cm_table_append(t, row, err);
    }
    if (st == CM_OK) st = cm_table_write_file(t, path, err);
    cm_table_free(t);
    return st;
}

cm_status cm_params_fit_table(const cm_param_info *const *param,
                              const double *value, const double *stderr_,
                              const char *const *notes, size_t n,
                              cm_table **out, cm_err *err)
{
    static const char *const header[] = {"parameter", "value", "stderr",
                                         "note"};
    cm_table *t = cm_table_new(4, header);
    *out = NULL;
    if (!t) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    for (size_t k = 0; k < n; k++) {
        char v[32], se[32];
        cm_param_format(param[k], value[k], v, sizeof v);
        cm_fmt_optional(se, stderr_[k]);
        const char *cells[] = {param[k]->name, v, se,
                               notes && notes[k] ? notes[k] : ""};
        cm_status st = cm_table_append(t, cells, err);
        if (st) {
            cm_table_free(t);
            return st;
        }
    }
    *out = t;
    return CM_OK;
}

/* ---- design ranges ------------------------------------------------------ */

size_t cm_param_design_count(void) { return DESIGNS_LEN; }

const cm_param_design *cm_param_design_at(size_t i)
{
    return i < DESIGNS_LEN ? &designs[i] : NULL;
}

const cm_param_info *cm_param_design_param(const cm_param_design *d)
{
    for (size_t i = 0; i < REGISTRY_LEN; i++)
        if (registry[i].offset == d->offset) return &registry[i];
    return NULL; /* not reached: the table names registry fields */
}

int cm_param_design_for(const cm_param_design *d, const char *validation)
{
    return enum_index(d->validations, validation, NULL) >= 0;
}

double cm_param_design_value(const cm_param_design *d, double u,
                             const cm_params *machine)
{
    const cm_param_info *pi = cm_param_design_param(d);
    double lo = d->lo, hi = d->hi;
    /* the one cross-parameter cap (cm_params_validate) */
    if (d->offset == offsetof(cm_params, sched_active_warps) && machine &&
        machine->gpu_warps_per_sm < hi)
        hi = fmax(lo, machine->gpu_warps_per_sm);
    u = fmin(fmax(u, 0), nextafter(1, 0));
    int integer = pi->type != CM_PT_REAL;
    switch (d->scale) {
    case CM_DS_POW2: {
        double a = ceil(log2(lo)), b = floor(log2(hi));
        return exp2(a + floor(u * (b - a + 1)));
    }
    case CM_DS_LOG:
        if (integer) { /* integer k owns [k - 1/2, k + 1/2) of the log */
            double a = log(lo - 0.5), b = log(hi + 0.5);
            return fmin(fmax(round(exp(a + u * (b - a))), lo), hi);
        }
        return exp(log(lo) + u * (log(hi) - log(lo)));
    case CM_DS_LIN:
        return integer ? fmin(lo + floor(u * (hi - lo + 1)), hi)
                       : lo + u * (hi - lo);
    default:
        return NAN; /* INPUT: measured, not drawn */
    }
}
