/* adi_suite: alternating-direction implicit sweeps of a 2-D heat equation: per time step a
 * column sweep and a row sweep, each a forward elimination and a back substitution from
 * N - 2 down to 1, coefficients computed from the grid spacing; a suite-style program
 * (suite/benchutil.c).
 * corpus: kernel=kernel_adi args="" params="tsteps=4,n=20" sources="suite/benchutil.c" cflags="-Isuite -DMINI" */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "benchutil.h"
#include "adi_suite.h"

static void init_array(int n, DATA_TYPE BU_2D(u, N, N, n, n))
{
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            u[i][j] = (DATA_TYPE)(i + n - j) / n;
}

static void print_array(int n, DATA_TYPE BU_2D(u, N, N, n, n))
{
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            if ((i * n + j) % 20 == 0)
                fprintf(stderr, "\n");
            fprintf(stderr, DATA_PRINTF_MODIFIER, u[i][j]);
        }
    fprintf(stderr, "\n");
}

static void kernel_adi(int tsteps, int n, DATA_TYPE BU_2D(u, N, N, n, n), DATA_TYPE BU_2D(v, N, N, n, n),
                       DATA_TYPE BU_2D(p, N, N, n, n), DATA_TYPE BU_2D(q, N, N, n, n))
{
    int t, i, j;
    DATA_TYPE DX, DY, DT;
    DATA_TYPE B1, B2;
    DATA_TYPE mul1, mul2;
    DATA_TYPE a, b, c, d, e, f;

#pragma scop
    DX = SCALAR_VAL(1.0) / (DATA_TYPE)_N_;
    DY = SCALAR_VAL(1.0) / (DATA_TYPE)_N_;
    DT = SCALAR_VAL(1.0) / (DATA_TYPE)_TSTEPS_;
    B1 = SCALAR_VAL(2.0);
    B2 = SCALAR_VAL(1.0);
    mul1 = B1 * DT / (DX * DX);
    mul2 = B2 * DT / (DY * DY);

    a = -mul1 / SCALAR_VAL(2.0);
    b = SCALAR_VAL(1.0) + mul1;
    c = a;
    d = -mul2 / SCALAR_VAL(2.0);
    e = SCALAR_VAL(1.0) + mul2;
    f = d;

    for (t = 1; t <= _TSTEPS_; t++) {
        /* Column sweep */
        for (i = 1; i < _N_ - 1; i++) {
            v[0][i] = SCALAR_VAL(1.0);
            p[i][0] = SCALAR_VAL(0.0);
            q[i][0] = v[0][i];
            for (j = 1; j < _N_ - 1; j++) {
                p[i][j] = -c / (a * p[i][j - 1] + b);
                q[i][j] = (-d * u[j][i - 1] + (SCALAR_VAL(1.0) + SCALAR_VAL(2.0) * d) * u[j][i]
                           - f * u[j][i + 1] - a * q[i][j - 1]) / (a * p[i][j - 1] + b);
            }
            v[_N_ - 1][i] = SCALAR_VAL(1.0);
            for (j = _N_ - 2; j >= 1; j--)
                v[j][i] = p[i][j] * v[j + 1][i] + q[i][j];
        }
        /* Row sweep */
        for (i = 1; i < _N_ - 1; i++) {
            u[i][0] = SCALAR_VAL(1.0);
            p[i][0] = SCALAR_VAL(0.0);
            q[i][0] = u[i][0];
            for (j = 1; j < _N_ - 1; j++) {
                p[i][j] = -f / (d * p[i][j - 1] + e);
                q[i][j] = (-a * v[i - 1][j] + (SCALAR_VAL(1.0) + SCALAR_VAL(2.0) * a) * v[i][j]
                           - c * v[i + 1][j] - d * q[i][j - 1]) / (d * p[i][j - 1] + e);
            }
            u[i][_N_ - 1] = SCALAR_VAL(1.0);
            for (j = _N_ - 2; j >= 1; j--)
                u[i][j] = p[i][j] * u[i][j + 1] + q[i][j];
        }
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = N;
    int tsteps = TSTEPS;
    BU_2D_ARRAY(u, DATA_TYPE, N, N, n, n);
    BU_2D_ARRAY(v, DATA_TYPE, N, N, n, n);
    BU_2D_ARRAY(p, DATA_TYPE, N, N, n, n);
    BU_2D_ARRAY(q, DATA_TYPE, N, N, n, n);

    init_array(n, BU_ARRAY(u));

    bu_timer_start();
    kernel_adi(tsteps, n, BU_ARRAY(u), BU_ARRAY(v), BU_ARRAY(p), BU_ARRAY(q));
    bu_timer_stop();

    bu_prevent_dce(print_array(n, BU_ARRAY(u)));

    BU_FREE(u);
    BU_FREE(v);
    BU_FREE(p);
    BU_FREE(q);
    return 0;
}
