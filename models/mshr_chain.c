/* mshr_chain.c - the MSHR model's chain at a latency T: levels j (load
 * instructions in flight) by the LD/ST unit's phase (takes instructions,
 * waits for MSHRs, for a way, a store waits for MSHRs, open with the pool
 * just filled), a level-dependent QBD solved exactly by linear level
 * reduction with 5 x 5 blocks, O(N).  The transitions are stated in the
 * header of mshr.c.  Solved ~8-12 times a point (mshr_fixed.c), so the
 * blocks' zeros are used: a level is its 21 rates that can be nonzero
 * (level_rates), not three 5 x 5 blocks; an instruction enters a level
 * only in phases 0 and 4, so R_j = -U_{j-1} M_j^{-1} needs two rows of
 * M_j's inverse, and R_j has two or three nonzero rows; and those rows
 * come by blocks, phases {0, 1} (the rows R_{j+1} fills) against {2, 3,
 * 4} (I_j's alone, known before the level above is solved), so what
 * waits on the level above is a 2 x 2 solve.  M_j's rows are a
 * generator's (diagonally dominant), so no block needs pivoting. */
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

/* One level's rates, the blocks' only entries that can be nonzero: up
 * (to j + 1), within and down (to j - 1), named by phase pair. */
typedef struct level_rates {
    double u00, u14, u20;
    double i01, i02, i03, i14, i20, i34, i40, i41, i43;
    double d00, d11, d22, d33, d34, d40;
} level_rates;

/* Level j's rates. */
static void level_rates_at(const sm_net *n, unsigned long j, double T,
                           level_rates *r)
{
    memset(r, 0, sizeof *r);
    int replay = n->in->full_policy == CM_MSHR_REPLAY;
    double a = n->lam[n->N - j], pil = (1 - n->w) * n->pia;
    if (j < n->N) {
        double fm = n->fm[j], fl = n->fl[j];
        r->u00 = a * pil * fm * fl;
        if (!replay) {
            r->i01 = a * pil * (1 - fm);
            r->i02 = a * pil * fm * (1 - fl);
        }
    }
    if (!replay) r->i03 = a * n->w * (1 - n->fs[j]);

    if (j == 0) {
        /* the instruction waits for its own first requests */
        if (n->N > 0) {
            r->u14 = 1 / T;
            r->u20 = 1 / T;
        }
        r->i34 = 1 / T;
    } else {
        /* Open, the j instructions return at rate j / T.  Blocked, the
         * unit waits for the first of their replies: with round trips of
         * T and ages uniform over it (an arrival at a random moment), the
         * least residual is T / (j + 1), not the T / j memoryless
         * returns would give. */
        double dep = (double)j / T, depb = (double)(j + 1) / T;
        r->d00 = dep;
        /* Released by returning requests, a load joins the level above;
         * by a returning instruction, it takes its place.  Either way it
         * took each entry as it freed, and the pool is full again (phase
         * 4). */
        unblock u = unblock_rates(n, j, T);
        r->u14 = j < n->N ? u.u1_req : 0;
        r->i14 = u.u1 - r->u14;
        r->i34 = u.u3_in;
        r->d34 = u.u3 - u.u3_in;
        r->d11 = depb * (1 - n->em[j]);
        /* A full set frees a way when one of the instructions holding it
         * returns: a return lets the waiting load in with the chance e_L
         * that the set had room one instruction earlier. */
        r->i20 = depb * n->el[j];
        r->d22 = depb * (1 - n->el[j]);
        r->d33 = depb * (1 - n->es[j]);
        r->d40 = dep;
    }
    /* Let in, the refused instruction took each entry as it freed
     * (sim/sm.c retries the line every cycle a reply frees one): the pool
     * is full until the next request returns.  A load that allocates, or
     * a store, arriving meanwhile is refused at once. */
    if (!replay) {
        r->i41 = j < n->N ? a * pil : 0;
        r->i43 = a * n->w;
    }
    r->i40 = (double)n->E / T;
}

/* A level's within block and down block as 5 x 5 matrices (each entry
 * written, none zeroed first: the chain's hot loop runs through them). */
static void within_block(const level_rates *r, mat4 in)
{
    const mat4 b = {{0, r->i01, r->i02, r->i03, 0},
                    {0, 0, 0, 0, r->i14},
                    {r->i20, 0, 0, 0, 0},
                    {0, 0, 0, 0, r->i34},
                    {r->i40, r->i41, 0, r->i43, 0}};
    memcpy(in, b, sizeof b);
}

static void down_block(const level_rates *r, mat4 down)
{
    const mat4 b = {{r->d00, 0, 0, 0, 0},
                    {0, r->d11, 0, 0, 0},
                    {0, 0, r->d22, 0, 0},
                    {0, 0, 0, r->d33, r->d34},
                    {r->d40, 0, 0, 0, 0}};
    memcpy(down, b, sizeof b);
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

/* M_j = I_j + R_{j+1} D_{j+1} at j >= 1 (top: j = N, no R_{j+1}), its
 * diagonal set from its rows and D_j's (fix_diagonal).  Above level 1
 * R_{j+1} has rows 0 and 1 only, I_j rows 2 to 4 one to three entries,
 * and D_{j+1} six: the terms add_rd and fix_diagonal would add, in their
 * order (their other terms are zeros, which leave a sum as it is), so M_j
 * is the same to the bit at a fifth of the work. */
static void censored_block(const level_rates *r, const mat4 Rn,
                           const level_rates *dn, int top, mat4 M)
{
    within_block(r, M);
    if (!top)
        for (int i = 0; i < 2; i++) {
            M[i][0] = Rn[i][0] * dn->d00 + Rn[i][4] * dn->d40;
            M[i][1] += Rn[i][1] * dn->d11;
            M[i][2] += Rn[i][2] * dn->d22;
            M[i][3] += Rn[i][3] * dn->d33;
            M[i][4] += Rn[i][3] * dn->d34;
        }
    M[0][0] = -((((r->d00 + M[0][1]) + M[0][2]) + M[0][3]) + M[0][4]);
    M[1][1] = -((((M[1][0] + r->d11) + M[1][2]) + M[1][3]) + M[1][4]);
    M[2][2] = -(M[2][0] + r->d22);
    M[3][3] = -((r->d33 + r->d34) + M[3][4]);
    M[4][4] = -(((r->d40 + M[4][0]) + M[4][1]) + M[4][3]);
}

/* Rows 0 and 4 of M^{-1} by blocks, for M_j at j >= 1: y M = e_l with
 * y = (y_B, y_A), B = {0, 1} the rows R_{j+1} D_{j+1} fills, A = {2, 3,
 * 4} the rows of I_j alone, M_AA = M_22 and the 2 x 2 block of 3 and 4
 * (M_23, M_24, M_32 and M_42 are 0, censored_block):
 *   y_B (M_BB - M_BA Z) = e_lB - e_lA Z,  Z = M_AA^{-1} M_AB,
 *   y_A = (e_lA - y_B M_BA) M_AA^{-1}.
 * Z and M_AA's inverse do not depend on R_{j+1}: what waits on the level
 * above is a 2 x 2 Schur complement and its solve, one division, where
 * the elimination over all five waited on five in turn.  Diagonally
 * dominant rows keep every block nonsingular; 1 if one is not. */
static int inv_rows04(const mat4 M, mat4 out)
{
    double det = M[3][3] * M[4][4] - M[3][4] * M[4][3];
    if (M[2][2] == 0 || det == 0) return 1;
    double r22 = 1 / M[2][2], rdet = 1 / det;
    double z2[2], z3[2], z4[2]; /* Z's rows, by columns 0 and 1 */
    for (int c = 0; c < 2; c++) {
        z2[c] = M[2][c] * r22;
        z3[c] = (M[4][4] * M[3][c] - M[3][4] * M[4][c]) * rdet;
        z4[c] = (M[3][3] * M[4][c] - M[4][3] * M[3][c]) * rdet;
    }
    double S[2][2];
    for (int i = 0; i < 2; i++)
        for (int c = 0; c < 2; c++)
            S[i][c] = M[i][c] - (M[i][2] * z2[c] + M[i][3] * z3[c] +
                                 M[i][4] * z4[c]);
    double D = S[0][0] * S[1][1] - S[0][1] * S[1][0];
    if (D == 0) return 1;
    double rD = 1 / D;
    for (int l = 0; l < 2; l++) { /* e_0, then e_4 */
        double b0 = l ? -z4[0] : 1, b1 = l ? -z4[1] : 0;
        double y0 = (b0 * S[1][1] - b1 * S[1][0]) * rD;
        double y1 = (b1 * S[0][0] - b0 * S[0][1]) * rD;
        double v2 = -(y0 * M[0][2] + y1 * M[1][2]);
        double v3 = -(y0 * M[0][3] + y1 * M[1][3]);
        double v4 = (l ? 1 : 0) - (y0 * M[0][4] + y1 * M[1][4]);
        double *y = out[l ? NPH - 1 : 0];
        y[0] = y0;
        y[1] = y1;
        y[2] = v2 * r22;
        y[3] = (v3 * M[4][4] - v4 * M[4][3]) * rdet;
        y[4] = (v4 * M[3][3] - v3 * M[3][4]) * rdet;
    }
    return 0;
}

/* R_j = -U_{j-1} M_j^{-1} from level j - 1's up rates (rows 0, 1 and, at
 * j = 1, 2; the others stay 0), as r_block makes it. */
static void r_rows(const level_rates *u, const mat4 inv, mat4 R)
{
    for (int k = 0; k < NPH; k++) {
        R[0][k] = u->u00 != 0 ? 0 - u->u00 * inv[0][k] : 0;
        R[1][k] = u->u14 != 0 ? 0 - u->u14 * inv[NPH - 1][k] : 0;
        R[2][k] = u->u20 != 0 ? 0 - u->u20 * inv[0][k] : 0;
        R[3][k] = R[4][k] = 0;
    }
}

/* R_j, j = N..1, by linear level reduction. */
static cm_status reduce_levels(sm_net *n, double T, level_rates lv[2],
                               int *cur, cm_err *err)
{
    unsigned long N = n->N;
    mat4 *R = (mat4 *)n->R;
    /* Two slots of rates, levels j and j - 1 by turns: level j - 1's,
     * made for U_{j-1}, serve as level j - 1's on the next pass, and
     * level j's down rates are read there (as D_{j+1}) before its slot is
     * made anew. */
    *cur = 0;
    level_rates_at(n, N, T, &lv[0]);
    for (unsigned long j = N; j >= 1; j--, *cur ^= 1) {
        level_rates *other = &lv[*cur ^ 1]; /* level j + 1, then j - 1 */
        mat4 M, inv;
        censored_block(&lv[*cur], j < N ? R[j + 1] : NULL, other, j == N, M);
        level_rates_at(n, j - 1, T, other);
        int bad = inv_rows04(M, inv);
        if (bad) { /* a singular block: the pivoted elimination's say */
            static const int cols[2] = {0, NPH - 1};
            bad = inv_rows(M, cols, 2, inv);
        }
        if (bad)
            return cm_err_set(err, CM_EINTERNAL,
                              "mshr model: singular level %lu", j);
        r_rows(other, inv, R[j]);
    }
    return CM_OK;
}

/* pi_0 = [1, x_1 .. x_{NPH-1}], unnormalised, from pi_0 (I_0 + R_1 D_1)
 * = 0: columns 1.. of that system, by Gauss-Jordan with pivoting.  lv0,
 * lv1: levels 0 and 1's rates. */
static void level0_law(const level_rates *lv0, const level_rates *lv1,
                       const mat4 R1, double *pi)
{
    mat4 M, down0, down1;
    within_block(lv0, M);
    down_block(lv1, down1);
    add_rd(M, R1, down1);
    down_block(lv0, down0);
    fix_diagonal(M, down0);
    enum { U = NPH - 1 };
    double a3[U][U + 1];
    for (int c = 1; c < NPH; c++) {
        for (int i = 1; i < NPH; i++) a3[c - 1][i - 1] = M[i][c];
        a3[c - 1][U] = -M[0][c];
    }
    for (int c = 0; c < U; c++) {
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
    pi[0] = 1;
    for (int c = 0; c < U; c++)
        pi[c + 1] = a3[c][c] != 0 ? fmax(0, a3[c][U] / a3[c][c]) : 0;
}

/* pi over levels 0..N by linear level reduction:
 *   R_N = -U_{N-1} M_N^{-1},  M_N = I_N,
 *   R_j = -U_{j-1} (I_j + R_{j+1} D_{j+1})^{-1},
 *   pi_0 (I_0 + R_1 D_1) = 0,  pi_j = pi_{j-1} R_j. */
cm_status cm_mshr_chain_solve(sm_net *n, double T, cm_err *err)
{
    unsigned long N = n->N;
    mat4 *R = (mat4 *)n->R;
    level_rates lv[2];
    int cur;
    cm_status st = reduce_levels(n, T, lv, &cur, err);
    if (st) return st;
    /* level 0's rates are in slot cur, level 1's in the other (N >= 1) */
    double *pi = n->pi;
    level0_law(&lv[cur], &lv[cur ^ 1], R[1], pi);
    double total = 0;
    for (int k = 0; k < NPH; k++) total += pi[k];
    for (unsigned long j = 1; j <= N; j++) {
        double s = 0;
        for (int k = 0; k < NPH; k++) {
            double v = 0;
            for (int i = 0; i < 3; i++) /* R_j's other rows are 0 */
                v += pi[(j - 1) * NPH + i] * R[j][i][k];
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

