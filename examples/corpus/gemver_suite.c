/* gemver_suite: two rank-1 updates of a matrix, then a transposed and a plain
 * matrix-vector product with a vector update between them; a suite-style program (sizes
 * from a dataset macro in a header, arrays from suite/benchutil.c).
 * corpus: kernel=kernel_gemver args="" params="n=120" sources="suite/benchutil.c" cflags="-Isuite -DSMALL" */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "benchutil.h"
#include "gemver_suite.h"

static void init_array(int n, DATA_TYPE *alpha, DATA_TYPE *beta, DATA_TYPE BU_2D(A, N, N, n, n),
                       DATA_TYPE BU_1D(u1, N, n), DATA_TYPE BU_1D(v1, N, n),
                       DATA_TYPE BU_1D(u2, N, n), DATA_TYPE BU_1D(v2, N, n),
                       DATA_TYPE BU_1D(w, N, n), DATA_TYPE BU_1D(x, N, n),
                       DATA_TYPE BU_1D(y, N, n), DATA_TYPE BU_1D(z, N, n))
{
    int i, j;
    DATA_TYPE fn = (DATA_TYPE)n;

    *alpha = 1.5;
    *beta = 1.2;
    for (i = 0; i < n; i++) {
        u1[i] = i;
        u2[i] = ((i + 1) / fn) / 2.0;
        v1[i] = ((i + 1) / fn) / 4.0;
        v2[i] = ((i + 1) / fn) / 6.0;
        y[i] = ((i + 1) / fn) / 8.0;
        z[i] = ((i + 1) / fn) / 9.0;
        x[i] = 0.0;
        w[i] = 0.0;
        for (j = 0; j < n; j++)
            A[i][j] = (DATA_TYPE)(i * j % n) / n;
    }
}

static void print_array(int n, DATA_TYPE BU_1D(w, N, n))
{
    int i;
    for (i = 0; i < n; i++) {
        if (i % 20 == 0)
            fprintf(stderr, "\n");
        fprintf(stderr, DATA_PRINTF_MODIFIER, w[i]);
    }
    fprintf(stderr, "\n");
}

static void kernel_gemver(int n, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE BU_2D(A, N, N, n, n),
                          DATA_TYPE BU_1D(u1, N, n), DATA_TYPE BU_1D(v1, N, n),
                          DATA_TYPE BU_1D(u2, N, n), DATA_TYPE BU_1D(v2, N, n),
                          DATA_TYPE BU_1D(w, N, n), DATA_TYPE BU_1D(x, N, n),
                          DATA_TYPE BU_1D(y, N, n), DATA_TYPE BU_1D(z, N, n))
{
    int i, j;

#pragma scop
    for (i = 0; i < _N_; i++)
        for (j = 0; j < _N_; j++)
            A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];

    for (i = 0; i < _N_; i++)
        for (j = 0; j < _N_; j++)
            x[i] = x[i] + beta * A[j][i] * y[j];

    for (i = 0; i < _N_; i++)
        x[i] = x[i] + z[i];

    for (i = 0; i < _N_; i++)
        for (j = 0; j < _N_; j++)
            w[i] = w[i] + alpha * A[i][j] * x[j];
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = N;
    DATA_TYPE alpha, beta;
    BU_2D_ARRAY(A, DATA_TYPE, N, N, n, n);
    BU_1D_ARRAY(u1, DATA_TYPE, N, n);
    BU_1D_ARRAY(v1, DATA_TYPE, N, n);
    BU_1D_ARRAY(u2, DATA_TYPE, N, n);
    BU_1D_ARRAY(v2, DATA_TYPE, N, n);
    BU_1D_ARRAY(w, DATA_TYPE, N, n);
    BU_1D_ARRAY(x, DATA_TYPE, N, n);
    BU_1D_ARRAY(y, DATA_TYPE, N, n);
    BU_1D_ARRAY(z, DATA_TYPE, N, n);

    init_array(n, &alpha, &beta, BU_ARRAY(A), BU_ARRAY(u1), BU_ARRAY(v1), BU_ARRAY(u2),
               BU_ARRAY(v2), BU_ARRAY(w), BU_ARRAY(x), BU_ARRAY(y), BU_ARRAY(z));

    bu_timer_start();
    kernel_gemver(n, alpha, beta, BU_ARRAY(A), BU_ARRAY(u1), BU_ARRAY(v1), BU_ARRAY(u2),
                  BU_ARRAY(v2), BU_ARRAY(w), BU_ARRAY(x), BU_ARRAY(y), BU_ARRAY(z));
    bu_timer_stop();

    bu_prevent_dce(print_array(n, BU_ARRAY(w)));

    BU_FREE(A);
    BU_FREE(u1);
    BU_FREE(v1);
    BU_FREE(u2);
    BU_FREE(v2);
    BU_FREE(w);
    BU_FREE(x);
    BU_FREE(y);
    BU_FREE(z);
    return 0;
}
