/* fuzz_profiles.c - workload profiles (the CSV of `sim --workload FILE`)
 * and the timing profiles the coherence models read, through the models
 * that read them as `cohmod model lifetime|recall|directory` do. */
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>

#include "data/params.h"
#include "models/directory.h"
#include "models/lifetime.h"
#include "models/profile.h"
#include "models/profile_check.h"
#include "models/ptable.h"
#include "models/recall.h"
#include "sim/protocol.h"
#include "data/workload.h"

int fuzz_workload(const uint8_t *data, size_t size)
{
    char *path = fuzz_write("workload.csv", data, size);
    if (!path) return 0;
    cm_workload_profile w;
    cm_err err = {0};
    if (cm_workload_profile_load(path, &w, &err) == CM_OK)
        (void)cm_workload_profile_validate(&w, &err);
    free(path);
    return 0;
}

/* Every protocol's tables as the directory model reads them, exported
 * once for the process (as `model directory --protocol all` does). */
static const cm_ptable *protocol_tables(size_t *n)
{
    static cm_ptable *tables;
    static size_t ntables;
    static int ready;
    if (!ready) {
        cm_table *t = NULL;
        cm_err err = {0};
        cm_status st = cm_protocol_export_new(&t, &err);
        for (size_t i = 0; !st && i < cm_protocol_count(); i++)
            st = cm_protocol_export(cm_protocol_at(i), t, &err);
        if (!st) st = cm_ptables_read(t, &tables, &ntables, &err);
        cm_table_free(t);
        if (st) abort(); /* the built-in tables: not the input's fault */
        ready = 1;
    }
    *n = ntables;
    return tables;
}

static void run_models(const cm_profile *prof)
{
    cm_params p;
    cm_params_init(&p);
    p.model_lifetime_states = 64; /* the chain's size, not its logic */
    cm_err err = {0};
    cm_lifetime_input in;
    if (cm_lifetime_input_from_profile(prof, &p, &in, &err) == CM_OK) {
        const double lifetimes[] = {0, 400, 1e6};
        cm_table *t = NULL;
        (void)cm_lifetime_table(&in, lifetimes, 3, 1, &t, &err);
        cm_table_free(t);
    }
    for (int k = 0; k < 3; k++) {
        cm_recall_input rin;
        cm_recall_result res;
        if (cm_recall_input_from_params(&p, (cm_recall_protocol)k, prof,
                                        &rin, &err) == CM_OK)
            (void)cm_recall_solve(&rin, &res, &err);
    }
    size_t n;
    const cm_ptable *tables = protocol_tables(&n);
    for (size_t k = 0; k < n; k++) {
        cm_directory_result dr;
        (void)cm_directory_predict(&p, &tables[k], prof, &dr, &err);
    }
}

int fuzz_profile(const uint8_t *data, size_t size)
{
    char *path = fuzz_write("profile.csv", data, size);
    if (!path) return 0;
    cm_profile *prof = NULL;
    cm_err err = {0};
    /* the CLI's order: the domain check, the reader, then the models */
    if (cm_profile_check_file(path, &err) == CM_OK &&
        cm_profile_read(path, &prof, &err) == CM_OK)
        run_models(prof);
    cm_profile_free(prof);
    free(path);
    return 0;
}
