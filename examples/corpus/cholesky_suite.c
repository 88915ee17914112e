/* cholesky_suite: in-place Cholesky factorisation (lower triangle, row by row, a square
 * root per diagonal entry) of a positive definite matrix built as B B^T, then a forward
 * and a backward triangular solve; a suite-style program (suite/benchutil.c).
 * corpus: kernel=kernel_cholesky args="" params="n=40" sources="suite/benchutil.c" cflags="-Isuite -DMINI" */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "benchutil.h"
#include "cholesky_suite.h"

static void init_array(int n, DATA_TYPE BU_2D(A, N, N, n, n), DATA_TYPE BU_1D(b, N, n))
{
    int i, j, k;
    for (i = 0; i < n; i++) {
        for (j = 0; j <= i; j++)
            A[i][j] = (DATA_TYPE)(-j % n) / n + 1;
        for (j = i + 1; j < n; j++)
            A[i][j] = 0;
        A[i][i] = 1;
        b[i] = (DATA_TYPE)(i + 1) / n;
    }
    /* Make it positive definite: A = A A^T, through a scratch matrix. */
    BU_2D_ARRAY(B, DATA_TYPE, N, N, n, n);
    for (i = 0; i < n; ++i)
        for (j = 0; j < n; ++j)
            for (k = 0; k < n; ++k)
                (*B)[i][j] += A[i][k] * A[j][k];
    for (i = 0; i < n; ++i)
        for (j = 0; j < n; ++j)
            A[i][j] = (*B)[i][j];
    BU_FREE(B);
}

static void print_array(int n, DATA_TYPE BU_1D(x, N, n))
{
    int i;
    for (i = 0; i < n; i++) {
        if (i % 20 == 0)
            fprintf(stderr, "\n");
        fprintf(stderr, DATA_PRINTF_MODIFIER, x[i]);
    }
    fprintf(stderr, "\n");
}

static void kernel_cholesky(int n, DATA_TYPE BU_2D(A, N, N, n, n), DATA_TYPE BU_1D(b, N, n),
                            DATA_TYPE BU_1D(x, N, n), DATA_TYPE BU_1D(y, N, n))
{
    int i, j, k;

#pragma scop
    for (i = 0; i < _N_; i++) {
        /* j < i */
        for (j = 0; j < i; j++) {
            for (k = 0; k < j; k++)
                A[i][j] -= A[i][k] * A[j][k];
            A[i][j] /= A[j][j];
        }
        /* i == j */
        for (k = 0; k < i; k++)
            A[i][i] -= A[i][k] * A[i][k];
        A[i][i] = SQRT_FUN(A[i][i]);
    }
    for (i = 0; i < _N_; i++) {
        y[i] = b[i];
        for (j = 0; j < i; j++)
            y[i] -= A[i][j] * y[j];
        y[i] = y[i] / A[i][i];
    }
    for (i = _N_ - 1; i >= 0; i--) {
        x[i] = y[i];
        for (j = i + 1; j < _N_; j++)
            x[i] -= A[j][i] * x[j];
        x[i] = x[i] / A[i][i];
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = N;
    BU_2D_ARRAY(A, DATA_TYPE, N, N, n, n);
    BU_1D_ARRAY(b, DATA_TYPE, N, n);
    BU_1D_ARRAY(x, DATA_TYPE, N, n);
    BU_1D_ARRAY(y, DATA_TYPE, N, n);

    init_array(n, BU_ARRAY(A), BU_ARRAY(b));

    bu_timer_start();
    kernel_cholesky(n, BU_ARRAY(A), BU_ARRAY(b), BU_ARRAY(x), BU_ARRAY(y));
    bu_timer_stop();

    bu_prevent_dce(print_array(n, BU_ARRAY(x)));

    BU_FREE(A);
    BU_FREE(b);
    BU_FREE(x);
    BU_FREE(y);
    return 0;
}
