/* mgs: modified Gram-Schmidt QR of an m x n matrix (columns), with sqrt and division.
 * corpus: kernel=mgs args="60 40" params="m=60,n=40" */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef M
#define M 80
#endif
#ifndef N
#define N 60
#endif

void mgs(int m, int n, double *a, double *r, double *q)
{
    for (int k = 0; k < n; k++) {
        double nrm = 0.0;
        for (int i = 0; i < m; i++)
            nrm += a[i * n + k] * a[i * n + k];
        r[k * n + k] = sqrt(nrm);
        for (int i = 0; i < m; i++)
            q[i * n + k] = a[i * n + k] / r[k * n + k];
        for (int j = k + 1; j < n; j++) {
            r[k * n + j] = 0.0;
            for (int i = 0; i < m; i++)
                r[k * n + j] += q[i * n + k] * a[i * n + j];
            for (int i = 0; i < m; i++)
                a[i * n + j] -= q[i * n + k] * r[k * n + j];
        }
    }
}

int main(int argc, char **argv)
{
    int m = argc > 1 ? atoi(argv[1]) : M;
    int n = argc > 2 ? atoi(argv[2]) : N;
    double *a = malloc(sizeof(double) * m * n), *r = calloc((size_t)n * n, sizeof(double));
    double *q = malloc(sizeof(double) * m * n);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            a[i * n + j] = (i == j ? 10.0 : 0.0) + (double)((i * j) % m) / m + 1.0;
    mgs(m, n, a, r, q);
    printf("%.6f\n", r[n * n - 1]);
    free(a); free(r); free(q);
    return 0;
}
