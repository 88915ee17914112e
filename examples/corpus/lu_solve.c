/* lu_solve: forward then backward substitution with a packed LU matrix (unit L).
 * corpus: kernel=lu_solve args="140" params="n=140" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 200
#endif

void lu_solve(int n, const double *lu, const double *b, double *y, double *x)
{
    int i, j;
    for (i = 0; i < n; i++) {
        y[i] = b[i];
        for (j = 0; j < i; j++)
            y[i] -= lu[i * n + j] * y[j];
    }
    for (i = n - 1; i >= 0; i--) {
        x[i] = y[i];
        for (j = i + 1; j < n; j++)
            x[i] -= lu[i * n + j] * x[j];
        x[i] /= lu[i * n + i];
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    double *lu = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n);
    double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) {
        b[i] = i % 7;
        for (int j = 0; j < n; j++)
            lu[i * n + j] = (i == j) ? 2.0 : 0.25 / (1 + abs(i - j));
    }
    lu_solve(n, lu, b, y, x);
    printf("%.6f\n", x[0] + x[n / 2]);
    free(lu); free(b); free(x); free(y);
    return 0;
}
