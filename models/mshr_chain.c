/* mshr_chain.c - the MSHR model's chain at a latency T: levels j (load
 * instructions in flight) by the LD/ST unit's phase (takes instructions,
 * waits for MSHRs, for a way, a store waits for MSHRs, open with the pool
 * just filled), a level-dependent QBD solved exactly by linear level
 * reduction with 5 x 5 blocks, O(N).  The transitions are stated in the
 * header of mshr.c.  Solved ~12 times a point (mshr_fixed.c), so the
 * blocks' zeros are used: an instruction enters a level only in phases 0
 * and 4, so R_j = -U_{j-1} M_j^{-1} needs two rows of M_j's inverse, and
 * R_j has two or three nonzero rows. */
#include "models/mshr_impl.h"

#include <math.h>
#include <string.h>

#define clamp01 cm_mshr_clamp01

typedef double mat4[NPH][NPH]; /* one block of the chain */

/* Rows cols[0..nc) of M^{-1}: y M = e_l, that is M^T y = e_l, by
 * Gaussian elimination with partial pivoting on [M^T | e_l ...], then
 * back substitution.  An up block has nonzero columns only at the phases
 * an instruction enters a level in (0 and 4), so R_j = -U_{j-1} M^{-1}
 * needs two rows of the inverse, not all five (a third of the work of
 * inverting).  Rows not asked for are left alone. */
static int inv_rows(const mat4 M, const int *cols, int nc, mat4 out)
{
    double m[NPH][2 * NPH];
    for (int i = 0; i < NPH; i++) {
        for (int k = 0; k < NPH; k++) m[i][k] = M[k][i];
        for (int c = 0; c < nc; c++) m[i][NPH + c] = i == cols[c];
    }
    int w = NPH + nc;
    for (int c = 0; c < NPH; c++) {
        int piv = c;
        for (int i = c + 1; i < NPH; i++)
            if (fabs(m[i][c]) > fabs(m[piv][c])) piv = i;
        if (m[piv][c] == 0) return 1;
        if (piv != c)
            for (int k = c; k < w; k++) {
                double t = m[c][k];
                m[c][k] = m[piv][k];
                m[piv][k] = t;
            }
        for (int i = c + 1; i < NPH; i++) {
            if (m[i][c] == 0) continue;
            double f = m[i][c] / m[c][c];
            for (int k = c; k < w; k++) m[i][k] -= f * m[c][k];
        }
    }
    for (int c = 0; c < nc; c++)
        for (int i = NPH; i-- > 0;) {
            double v = m[i][NPH + c];
            for (int k = i + 1; k < NPH; k++) v -= m[i][k] * out[cols[c]][k];
            out[cols[c]][i] = v / m[i][i];
        }
    return 0;
}

/* R_j = -U inv, over U's nonzero columns cols[0..nc) (the rows of inv
 * inv_rows made) and its nonzero entries: two or three of 25. */
static void r_block(const mat4 up, const mat4 inv, const int *cols, int nc,
                    mat4 R)
{
    memset(R, 0, sizeof(mat4));
    for (int i = 0; i < NPH; i++)
        for (int c = 0; c < nc; c++) {
            double u = up[i][cols[c]];
            if (u == 0) continue;
            for (int k = 0; k < NPH; k++) R[i][k] -= u * inv[cols[c]][k];
        }
}

/* M += R D, skipping R's zeros (its rows for phases no instruction
 * leaves a level from upwards are all zero). */
static void add_rd(mat4 M, const mat4 R, const mat4 D)
{
    for (int i = 0; i < NPH; i++)
        for (int l = 0; l < NPH; l++) {
            if (R[i][l] == 0) continue;
            for (int k = 0; k < NPH; k++) M[i][k] += R[i][l] * D[l][k];
        }
}


/* The rates at which a refused load (u1) and a refused store (u3) at
 * level j >= 1 are let in.  The pool is full: its E requests return at
 * E / T a cycle, and the refused instruction is in once ov of them have
 * (u1_req, u3_in: within the level's returns), or once a returning
 * instruction makes room (with the chance e that it had room one
 * instruction earlier). */
typedef struct unblock {
    double u1, u1_req, u3, u3_in;
} unblock;

static unblock unblock_rates(const sm_net *n, unsigned long j, double T)
{
    unblock u;
    double depb = (double)(j + 1) / T, nu = (double)n->E / T;
    u.u1_req = nu / n->ovm[j];
    u.u1 = u.u1_req + depb * n->em[j];
    u.u3_in = nu / n->ovs[j];
    u.u3 = u.u3_in + depb * n->es[j];
    return u;
}

/* Blocks of level j: up (to j+1), within, down (to j-1). */
static void level_blocks(const sm_net *n, unsigned long j, double T,
                         mat4 up, mat4 in, mat4 down)
{
    memset(up, 0, sizeof(mat4));
    memset(in, 0, sizeof(mat4));
    memset(down, 0, sizeof(mat4));
    int replay = n->in->full_policy == CM_MSHR_REPLAY;
    double a = n->lam[n->N - j], pil = (1 - n->w) * n->pia;
    if (j < n->N) {
        double fm = n->fm[j], fl = n->fl[j];
        up[0][0] = replay ? a * pil * fm * fl : a * pil * fm * fl;
        if (!replay) {
            in[0][1] = a * pil * (1 - fm);
            in[0][2] = a * pil * fm * (1 - fl);
        }
    }
    if (!replay) in[0][3] = a * n->w * (1 - n->fs[j]);

    if (j == 0) {
        /* the instruction waits for its own first requests */
        if (n->N > 0) {
            up[1][4] = 1 / T;
            up[2][0] = 1 / T;
        }
        in[3][4] = 1 / T;
    } else {
        /* Open, the j instructions return at rate j / T.  Blocked, the
         * unit waits for the first of their replies: with round trips of
         * T and ages uniform over it (an arrival at a random moment), the
         * least residual is T / (j + 1), not the T / j memoryless
         * returns would give. */
        double dep = (double)j / T, depb = (double)(j + 1) / T;
        double em = n->em[j], el = n->el[j], es = n->es[j];
        down[0][0] = dep;
        {
            /* Released by returning requests, a load joins the level
             * above; by a returning instruction, it takes its place.
             * Either way it took each entry as it freed, and the pool is
             * full again (phase 4). */
            unblock u = unblock_rates(n, j, T);
            double up1 = j < n->N ? u.u1_req : 0;
            up[1][4] = up1;
            in[1][4] = u.u1 - up1;
            in[3][4] = u.u3_in;
            down[3][4] = u.u3 - u.u3_in;
        }
        down[1][1] = depb * (1 - em);
        /* A full set frees a way when one of the instructions holding
         * it returns: a return lets the waiting load in with the chance
         * e_L that the set had room one instruction earlier. */
        in[2][0] = depb * el;
        down[2][2] = depb * (1 - el);
        down[3][3] = depb * (1 - es);
        down[4][0] = dep;
    }
    /* Let in, the refused instruction took each entry as it freed
     * (sim/sm.c retries the line every cycle a reply frees one): the pool
     * is full until the next request returns.  A load that allocates, or
     * a store, arriving meanwhile is refused at once. */
    if (!replay) {
        in[4][1] = j < n->N ? a * pil : 0;
        in[4][3] = a * n->w;
    }
    in[4][0] = (double)n->E / T;
    /* in's diagonal is left 0: the solve sets each censored block's
     * diagonal from its rows (fix_diagonal) */
}

/* M_j is the level-j block of the chain censored to levels 0..j, so its
 * rows and those of the down block D_j sum to zero.  Its diagonal is set
 * from that (Grassmann-Taksar-Heyman): adding R_{j+1} D_{j+1}, which
 * returns the rate of the up moves, to the diagonal of I_j, which
 * subtracts it, cancels every digit when the up rate dwarfs the rest
 * (a loaded core far below the top level), and the law came out with
 * negative, clipped, levels.  Every off-diagonal term is >= 0: no
 * cancellation is left. */
static void fix_diagonal(mat4 M, const mat4 down)
{
    for (int i = 0; i < NPH; i++) {
        double out = 0;
        for (int k = 0; k < NPH; k++) {
            out += down[i][k];
            if (k != i) out += M[i][k];
        }
        M[i][i] = -out;
    }
}

/* pi over levels 0..N by linear level reduction:
 *   R_N = -U_{N-1} M_N^{-1},  M_N = I_N,
 *   R_j = -U_{j-1} (I_j + R_{j+1} D_{j+1})^{-1},
 *   pi_0 (I_0 + R_1 D_1) = 0,  pi_j = pi_{j-1} R_j. */
cm_status cm_mshr_chain_solve(sm_net *n, double T, cm_err *err)
{
    unsigned long N = n->N;
    mat4 inv, M;
    mat4 *R = (mat4 *)n->R;
    /* Two slots of blocks, levels j and j - 1 by turns: level j - 1's,
     * built for U_{j-1}, serve as level j - 1's on the next pass, and
     * level j's down block is read there (as D_{j+1}) before its slot is
     * built anew (each level's blocks built once, none copied). */
    struct { mat4 up, in, down; } b[2];
    int cur = 0;
    level_blocks(n, N, T, b[0].up, b[0].in, b[0].down);
    for (unsigned long j = N; j >= 1; j--, cur ^= 1) {
        memcpy(M, b[cur].in, sizeof M);
        if (j < N) add_rd(M, R[j + 1], b[cur ^ 1].down); /* + R_{j+1} D_{j+1} */
        fix_diagonal(M, b[cur].down);
        level_blocks(n, j - 1, T, b[cur ^ 1].up, b[cur ^ 1].in, b[cur ^ 1].down);
        int cols[NPH], nc = 0; /* U_{j-1}'s nonzero columns */
        for (int l = 0; l < NPH; l++) {
            int any = 0;
            for (int i = 0; i < NPH; i++) any |= b[cur ^ 1].up[i][l] != 0;
            if (any) cols[nc++] = l;
        }
        if (inv_rows(M, cols, nc, inv))
            return cm_err_set(err, CM_EINTERNAL,
                              "mshr model: singular level %lu", j);
        r_block(b[cur ^ 1].up, inv, cols, nc, R[j]);
    }
    /* level 0's blocks are in slot cur, level 1's down block in the other */
    memcpy(M, b[cur].in, sizeof M);
    if (N >= 1) add_rd(M, R[1], b[cur ^ 1].down);
    fix_diagonal(M, b[cur].down);
    /* pi_0 = [1, x_1 .. x_{NPH-1}]: columns 1.. of pi_0 M = 0 */
    enum { U = NPH - 1 };
    double a3[U][U + 1];
    for (int c = 1; c < NPH; c++) {
        for (int i = 1; i < NPH; i++) a3[c - 1][i - 1] = M[i][c];
        a3[c - 1][U] = -M[0][c];
    }
    double x[U];
    for (int c = 0; c < U; c++) { /* Gauss-Jordan with pivoting */
        int piv = c;
        for (int i = c + 1; i < U; i++)
            if (fabs(a3[i][c]) > fabs(a3[piv][c])) piv = i;
        if (a3[piv][c] == 0) continue;
        if (piv != c)
            for (int k = 0; k <= U; k++) {
                double t = a3[c][k];
                a3[c][k] = a3[piv][k];
                a3[piv][k] = t;
            }
        for (int i = 0; i < U; i++) {
            if (i == c || a3[i][c] == 0) continue;
            double f = a3[i][c] / a3[c][c];
            for (int k = 0; k <= U; k++) a3[i][k] -= f * a3[c][k];
        }
    }
    for (int c = 0; c < U; c++)
        x[c] = a3[c][c] != 0 ? fmax(0, a3[c][U] / a3[c][c]) : 0;
    double *pi = n->pi;
    pi[0] = 1;
    for (int c = 0; c < U; c++) pi[c + 1] = x[c];
    double total = 0;
    for (int k = 0; k < NPH; k++) total += pi[k];
    for (unsigned long j = 1; j <= N; j++) {
        double s = 0;
        for (int k = 0; k < NPH; k++) {
            double v = 0;
            for (int i = 0; i < NPH; i++) v += pi[(j - 1) * NPH + i] * R[j][i][k];
            pi[j * NPH + k] = cm_mshr_pos(v);
            s += pi[j * NPH + k];
        }
        total += s;
        if (total > 1e200) { /* rescale what is there */
            for (unsigned long i = 0; i < (j + 1) * NPH; i++) pi[i] /= total;
            total = 1;
        }
    }
    if (!(total > 0) || !isfinite(total))
        return cm_err_set(err, CM_EINTERNAL, "mshr model: the chain has no "
                          "stationary law");
    for (unsigned long i = 0; i < (N + 1) * NPH; i++) pi[i] /= total;
    return CM_OK;
}

