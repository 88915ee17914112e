/* triangular_solve_pb: forward substitution L x = b with the dot product in a scalar,
 * diagonal division, fixed-size arrays.
 * corpus: kernel=triangular_solve_pb args="" params="n=50" cflags="-DN=50" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 2000
#endif

static void init_array(int n, double L[N][N], double x[N], double b[N])
{
    for (int i = 0; i < n; i++) {
        x[i] = -999;
        b[i] = i;
        for (int j = 0; j <= i; j++)
            L[i][j] = (double)(i + n - j + 1) * 2 / n;
    }
}

static void triangular_solve_pb(int n, double L[N][N], double x[N], double b[N])
{
    int i, j;
    for (i = 0; i < n; i++) {
        x[i] = b[i];
        for (j = 0; j < i; j++)
            x[i] -= L[i][j] * x[j];
        x[i] = x[i] / L[i][i];
    }
}

int main(void)
{
    int n = N;
    double (*L)[N][N] = malloc(sizeof(double[N][N]));
    double (*x)[N] = malloc(sizeof(double[N]));
    double (*b)[N] = malloc(sizeof(double[N]));
    init_array(n, *L, *x, *b);
    triangular_solve_pb(n, *L, *x, *b);
    printf("%.6f\n", (*x)[n - 1]);
    free(L); free(x); free(b);
    return 0;
}
