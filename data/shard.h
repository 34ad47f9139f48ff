/* shard.h - runs split over machines, and runs picked up where they
 * stopped.
 *
 * A run's points (a sweep's grid points, a validation's simulations, the
 * study's sections and simulations) are numbered in the order one whole
 * run writes them.  Shard I of N runs the contiguous slice
 * [floor((I-1) P / N), floor(I P / N)) of the P points: deterministic,
 * disjoint, and together all of them, so `cohmod merge` can put the
 * shards' outputs back into exactly the files of one whole run.
 *
 * Every run directory of a resumable command (validate, study), and every
 * shard's result of a sweep, has a manifest, run.csv (a sweep's:
 * <result>.run.csv), written when the run starts and again when it ends:
 *     key,value
 *     command,validate          the command (words: "model recall")
 *     arg,<word>                its arguments, one row each, in a
 *     ...                       canonical form, less those that change no
 *                               result (--out, --shard, --resume, --finish,
 *                               --quiet)
 *     shard,I/N                 only on a shard
 *     points,P                  points of the whole run
 *     status,running|complete
 *     rows,<file>               a sweep shard's result: its rows are its
 *                               points, merged by concatenation
 * so merge can tell which shards belong together, which are missing and
 * which did not finish, and --resume that a directory holds the same run. */
#ifndef CM_SHARD_H
#define CM_SHARD_H

#include <stddef.h>

#include "data/err.h"

typedef struct cm_shard {
    unsigned index, count; /* 1 <= index <= count; count 0: not sharded */
} cm_shard;

/* "I/N" with 1 <= I <= N <= 100000. */
cm_status cm_shard_parse(const char *text, cm_shard *s, cm_err *err);

/* The points [*first, *end) of n that shard s runs (all of them when s is
 * NULL or not sharded). */
void cm_shard_range(const cm_shard *s, size_t n, size_t *first,
                    size_t *end);

/* What a resumable run does: everything; only its shard's points (no
 * results: merge makes them); or nothing but the results, from the points
 * already in its directory (what merge runs). */
typedef enum cm_run_mode {
    CM_RUN_WHOLE = 0,
    CM_RUN_SHARD,
    CM_RUN_FINISH
} cm_run_mode;

/* A run's identity and plan, as the manifest records it. */
typedef struct cm_run_plan {
    cm_run_mode mode;
    cm_shard shard;   /* CM_RUN_SHARD: the slice */
    int resume;       /* keep the points whose output is complete */
    const char *command;
    const char *const *args;
    size_t nargs;
} cm_run_plan;

typedef struct cm_run_manifest {
    char *command;
    char **args;
    size_t nargs;
    cm_shard shard; /* count 0 on a whole run */
    size_t points;
    int complete;
    char **rows; /* result files merged by rows */
    size_t nrows;
} cm_run_manifest;

/* Writes path atomically: the plan's identity and shard, the run's points,
 * its status, and rows files (may be NULL). */
cm_status cm_run_manifest_write(const char *path, const cm_run_plan *plan,
                                size_t points, int complete,
                                const char *const *rows, size_t nrows,
                                cm_err *err);
cm_status cm_run_manifest_read(const char *path, cm_run_manifest *m,
                               cm_err *err);
void cm_run_manifest_free(cm_run_manifest *m);

/* Whether two manifests are of one run: the same command, arguments and
 * point count (shards and status aside). */
int cm_run_manifest_same_run(const cm_run_manifest *a,
                             const cm_run_manifest *b);

/* Before a resumable run writes into a directory whose manifest is at
 * path: with plan->resume, an existing manifest must be of the same run
 * and shard (CM_EINPUT saying what it holds otherwise); without, there is
 * nothing to check.  Absent is fine either way. */
cm_status cm_run_check_resume(const char *path, const cm_run_plan *plan,
                              size_t points, cm_err *err);

/* ---- merge -------------------------------------------------------------
 *
 * Puts shards back together into out (made if missing): checks that the
 * directories hold every shard I/N of one run, each complete (CM_EINPUT
 * naming every shard that is missing or did not finish, and any
 * directory that is not a shard or belongs to another run); copies every
 * file of every shard into out at the same relative path (a file two
 * shards both hold, such as the parameter dump, must be byte-identical);
 * and writes each rows file as the header and the shards' rows in shard
 * order.  Manifests and temporaries left by killed writes are not copied.
 * *m receives the run's manifest (its command and arguments: a resumable
 * run is finished by running them on out; free it).  The directories'
 * manifest is run.csv, or else their one *.run.csv. */
cm_status cm_shards_merge(const char *const *dirs, size_t n, const char *out,
                          cm_run_manifest *m, cm_err *err);

#endif
