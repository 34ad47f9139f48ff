/* reusegen.h - synthetic line-address streams for the reuse-distance tests
 * and benchmark: a seeded splitmix64 generator, so every run sees the same
 * stream, and a mix of Zipf-like reuse over a working set with streaming
 * (never re-used) lines, the shape of a GPU kernel that sweeps its input
 * while re-using a table. */
#ifndef CM_REUSEGEN_H
#define CM_REUSEGEN_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

static inline uint64_t rg_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static inline double rg_unit(uint64_t *state)
{
    return (double)(rg_next(state) >> 11) * 0x1p-53;
}

/* Rank in [0, lines) with P(rank) ~ (rank+1)^-s (Zipf-like), by inverting
 * the continuous power law on [1, lines+1). */
static inline uint64_t rg_zipf(uint64_t *state, uint64_t lines, double s)
{
    double u = rg_unit(state), top = (double)lines + 1, x;
    if (fabs(s - 1) < 1e-9)
        x = exp(u * log(top));
    else
        x = pow(1 + u * (pow(top, 1 - s) - 1), 1 / (1 - s));
    uint64_t r = (uint64_t)x;
    return r >= 1 && r <= lines ? r - 1 : 0;
}

/* n accesses: with probability `stream` a line never seen before, else a
 * line of a working set of `lines` chosen by rg_zipf with exponent `skew`,
 * scattered over the address
 * space (an odd multiplier is a bijection) so no engine sees neat
 * sequences. */
static inline void rg_fill_mixed(uint64_t *out, size_t n, uint64_t lines,
                                 double skew, double stream, uint64_t seed)
{
    uint64_t state = seed, fresh = 0;
    for (size_t i = 0; i < n; i++) {
        if (rg_unit(&state) < stream)
            out[i] = (1ull << 62) | fresh++;
        else
            out[i] = rg_zipf(&state, lines, skew) * 0xD6E8FEB86659FD93ull;
    }
}

#endif
