/* fuzz_params.c - the parameter registry's inputs: --config files (a
 * preset name, a machine CSV, the calib.csv that fit writes), --set values
 * and --sweep specs with the grid they make; and the statistics files that
 * fit reads as calibration samples (--samples, with the parameter dump
 * beside it). */
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "data/params.h"
#include "data/sweep.h"
#include "models/mshr_fit.h"
#include "data/statrows.h"

int fuzz_config(const uint8_t *data, size_t size)
{
    cm_params p;
    cm_err err = {0};
    char *path = fuzz_write("config.csv", data, size);
    if (path) {
        cm_params_init(&p);
        if (cm_params_load(&p, path, &err) == CM_OK)
            (void)cm_params_validate(&p, &err);
        free(path);
    }
    /* the same bytes as a --config word: a preset's name or a path */
    char *word = fuzz_text(data, size < 256 ? size : 256);
    if (word && strchr(word, '/') == NULL) { /* no reading of odd paths */
        cm_params_init(&p);
        (void)cm_params_load(&p, word, &err);
    }
    free(word);
    return 0;
}

#define MAX_SWEEPS 4
#define MAX_POINTS 2000 /* grid points visited per input */

/* One line per option: "S:spec" is a --sweep, anything else a --set.  The
 * sweeps then form a grid, walked for a while with every point validated
 * as the model commands do. */
int fuzz_setsweep(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text) return 0;
    cm_params p;
    cm_params_init(&p);
    cm_sweep sw[MAX_SWEEPS];
    size_t nsw = 0;
    cm_err err = {0};
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        if (!strncmp(line, "S:", 2)) {
            if (nsw < MAX_SWEEPS &&
                cm_sweep_parse(line + 2, &sw[nsw], &err) == CM_OK)
                nsw++;
        } else {
            (void)cm_params_assign(&p, line, &err);
        }
    }
    (void)cm_params_validate(&p, &err);
    cm_grid g;
    if (cm_grid_init(&g, sw, nsw, &err) == CM_OK) {
        cm_params q = p;
        for (size_t n = 0; n < MAX_POINTS && cm_grid_next(&g, &q); n++)
            (void)cm_params_validate(&q, &err);
        cm_grid_free(&g);
    }
    for (size_t i = 0; i < nsw; i++) cm_sweep_free(&sw[i]);
    free(text);
    return 0;
}

/* stats.csv, then "\n--\n", then its stats.params.csv: read as fit reads a
 * sample (the machine from the dump, the run's statistics, one
 * observation of the MSHR model). */
int fuzz_calib(const uint8_t *data, size_t size)
{
    size_t tail;
    size_t head = fuzz_split(data, size, "\n--\n", &tail);
    char *stats = fuzz_write("stats.csv", data, head);
    char *dump = fuzz_write("stats.params.csv", data + tail, size - tail);
    cm_params machine, knobs;
    cm_params_init(&machine);
    cm_params_init(&knobs);
    cm_err err = {0};
    cm_stat_row *rows = NULL;
    size_t n = 0;
    if (stats && dump && cm_params_load(&machine, dump, &err) == CM_OK &&
        cm_stats_read_rows(stats, &rows, &n, &err) == CM_OK) {
        cm_mshr_obs obs;
        (void)cm_mshr_obs_from_rows(&machine, &knobs, rows, n, stats, &obs,
                                    &err);
    }
    free(rows);
    free(stats);
    free(dump);
    return 0;
}
