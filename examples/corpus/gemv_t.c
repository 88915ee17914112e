/* gemv_t: y = A^T x, column sweep over a row-major matrix; run-time m x n.
 * corpus: kernel=gemv_t args="50 70" params="m=50,n=70" */
#include <stdio.h>
#include <stdlib.h>

#ifndef M
#define M 100
#endif
#ifndef N
#define N 80
#endif

void gemv_t(int m, int n, const double *a, const double *x, double *y)
{
    int i, j;
    for (j = 0; j < n; j++)
        y[j] = 0.0;
    for (i = 0; i < m; i++) {
        double xi = x[i];
        for (j = 0; j < n; j++)
            y[j] += a[i * n + j] * xi;
    }
}

int main(int argc, char **argv)
{
    int m = argc > 1 ? atoi(argv[1]) : M;
    int n = argc > 2 ? atoi(argv[2]) : N;
    double *a = malloc(sizeof(double) * m * n), *x = malloc(sizeof(double) * m), *y = malloc(sizeof(double) * n);
    for (int i = 0; i < m; i++) {
        x[i] = 0.5 + i % 3;
        for (int j = 0; j < n; j++)
            a[i * n + j] = (double)((i ^ j) & 15) / 16.0;
    }
    gemv_t(m, n, a, x, y);
    double s = 0;
    for (int j = 0; j < n; j++)
        s += y[j];
    printf("%.6f\n", s);
    free(a); free(x); free(y);
    return 0;
}
