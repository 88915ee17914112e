/* stencil3d_suite: a 7-point heat stencil on a cube, ping-ponged between two arrays for
 * TSTEPS time steps (two sweeps per step, interior points only); a suite-style program
 * (suite/benchutil.c).
 * corpus: kernel=kernel_stencil3d args="" params="tsteps=20,n=20" sources="suite/benchutil.c" cflags="-Isuite -DSMALL" */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "benchutil.h"
#include "stencil3d_suite.h"

static void init_array(int n, DATA_TYPE BU_3D(A, N, N, N, n, n, n), DATA_TYPE BU_3D(B, N, N, N, n, n, n))
{
    int i, j, k;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            for (k = 0; k < n; k++)
                A[i][j][k] = B[i][j][k] = (DATA_TYPE)(i + j + (n - k)) * 10 / (n);
}

static void print_array(int n, DATA_TYPE BU_3D(A, N, N, N, n, n, n))
{
    int i, j, k;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            for (k = 0; k < n; k++) {
                if ((i * n * n + j * n + k) % 20 == 0)
                    fprintf(stderr, "\n");
                fprintf(stderr, DATA_PRINTF_MODIFIER, A[i][j][k]);
            }
    fprintf(stderr, "\n");
}

static void kernel_stencil3d(int tsteps, int n, DATA_TYPE BU_3D(A, N, N, N, n, n, n),
                             DATA_TYPE BU_3D(B, N, N, N, n, n, n))
{
    int t, i, j, k;

#pragma scop
    for (t = 1; t <= _TSTEPS_; t++) {
        for (i = 1; i < _N_ - 1; i++)
            for (j = 1; j < _N_ - 1; j++)
                for (k = 1; k < _N_ - 1; k++)
                    B[i][j][k] = SCALAR_VAL(0.125) * (A[i + 1][j][k] - SCALAR_VAL(2.0) * A[i][j][k] + A[i - 1][j][k])
                               + SCALAR_VAL(0.125) * (A[i][j + 1][k] - SCALAR_VAL(2.0) * A[i][j][k] + A[i][j - 1][k])
                               + SCALAR_VAL(0.125) * (A[i][j][k + 1] - SCALAR_VAL(2.0) * A[i][j][k] + A[i][j][k - 1])
                               + A[i][j][k];
        for (i = 1; i < _N_ - 1; i++)
            for (j = 1; j < _N_ - 1; j++)
                for (k = 1; k < _N_ - 1; k++)
                    A[i][j][k] = SCALAR_VAL(0.125) * (B[i + 1][j][k] - SCALAR_VAL(2.0) * B[i][j][k] + B[i - 1][j][k])
                               + SCALAR_VAL(0.125) * (B[i][j + 1][k] - SCALAR_VAL(2.0) * B[i][j][k] + B[i][j - 1][k])
                               + SCALAR_VAL(0.125) * (B[i][j][k + 1] - SCALAR_VAL(2.0) * B[i][j][k] + B[i][j][k - 1])
                               + B[i][j][k];
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = N;
    int tsteps = TSTEPS;
    BU_3D_ARRAY(A, DATA_TYPE, N, N, N, n, n, n);
    BU_3D_ARRAY(B, DATA_TYPE, N, N, N, n, n, n);

    init_array(n, BU_ARRAY(A), BU_ARRAY(B));

    bu_timer_start();
    kernel_stencil3d(tsteps, n, BU_ARRAY(A), BU_ARRAY(B));
    bu_timer_stop();

    bu_prevent_dce(print_array(n, BU_ARRAY(A)));

    BU_FREE(A);
    BU_FREE(B);
    return 0;
}
