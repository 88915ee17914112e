/* tensor_mix_suite: every fibre A[r][q][:] of a 3-D tensor multiplied by a square matrix,
 * through a scratch vector and copied back in place (a multiresolution transform's inner
 * step); a suite-style program (suite/benchutil.c).
 * corpus: kernel=kernel_tensor_mix args="" params="nr=25,nq=20,np=30" sources="suite/benchutil.c" cflags="-Isuite -DSMALL" */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "benchutil.h"
#include "tensor_mix_suite.h"

static void init_array(int nr, int nq, int np, DATA_TYPE BU_3D(A, NR, NQ, NP, nr, nq, np),
                       DATA_TYPE BU_2D(C4, NP, NP, np, np))
{
    int i, j, k;
    for (i = 0; i < nr; i++)
        for (j = 0; j < nq; j++)
            for (k = 0; k < np; k++)
                A[i][j][k] = (DATA_TYPE)((i * j + k) % np) / np;
    for (i = 0; i < np; i++)
        for (j = 0; j < np; j++)
            C4[i][j] = (DATA_TYPE)(i * j % np) / np;
}

static void print_array(int nr, int nq, int np, DATA_TYPE BU_3D(A, NR, NQ, NP, nr, nq, np))
{
    int i, j, k;
    for (i = 0; i < nr; i++)
        for (j = 0; j < nq; j++)
            for (k = 0; k < np; k++) {
                if ((i * nq * np + j * np + k) % 20 == 0)
                    fprintf(stderr, "\n");
                fprintf(stderr, DATA_PRINTF_MODIFIER, A[i][j][k]);
            }
    fprintf(stderr, "\n");
}

static void kernel_tensor_mix(int nr, int nq, int np, DATA_TYPE BU_3D(A, NR, NQ, NP, nr, nq, np),
                              DATA_TYPE BU_2D(C4, NP, NP, np, np), DATA_TYPE BU_1D(sum, NP, np))
{
    int r, q, p, s;

#pragma scop
    for (r = 0; r < _NR_; r++)
        for (q = 0; q < _NQ_; q++) {
            for (p = 0; p < _NP_; p++) {
                sum[p] = SCALAR_VAL(0.0);
                for (s = 0; s < _NP_; s++)
                    sum[p] += A[r][q][s] * C4[s][p];
            }
            for (p = 0; p < _NP_; p++)
                A[r][q][p] = sum[p];
        }
#pragma endscop
}

int main(int argc, char **argv)
{
    int nr = NR;
    int nq = NQ;
    int np = NP;
    BU_3D_ARRAY(A, DATA_TYPE, NR, NQ, NP, nr, nq, np);
    BU_1D_ARRAY(sum, DATA_TYPE, NP, np);
    BU_2D_ARRAY(C4, DATA_TYPE, NP, NP, np, np);

    init_array(nr, nq, np, BU_ARRAY(A), BU_ARRAY(C4));

    bu_timer_start();
    kernel_tensor_mix(nr, nq, np, BU_ARRAY(A), BU_ARRAY(C4), BU_ARRAY(sum));
    bu_timer_stop();

    bu_prevent_dce(print_array(nr, nq, np, BU_ARRAY(A)));

    BU_FREE(A);
    BU_FREE(sum);
    BU_FREE(C4);
    return 0;
}
