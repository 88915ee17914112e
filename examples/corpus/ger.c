/* ger: rank-1 update A += alpha x y^T, then a second update with two vectors (rank-2).
 * corpus: kernel=ger2 args="70 50" params="m=70,n=50" */
#include <stdio.h>
#include <stdlib.h>

#ifndef M
#define M 100
#endif
#ifndef N
#define N 100
#endif

void ger2(int m, int n, double alpha, const double *u1, const double *v1,
          const double *u2, const double *v2, double *a)
{
    int i, j;
    for (i = 0; i < m; i++)
        for (j = 0; j < n; j++)
            a[i * n + j] += alpha * (u1[i] * v1[j] + u2[i] * v2[j]);
}

int main(int argc, char **argv)
{
    int m = argc > 1 ? atoi(argv[1]) : M;
    int n = argc > 2 ? atoi(argv[2]) : N;
    double *a = calloc((size_t)m * n, sizeof(double));
    double *u1 = malloc(sizeof(double) * m), *u2 = malloc(sizeof(double) * m);
    double *v1 = malloc(sizeof(double) * n), *v2 = malloc(sizeof(double) * n);
    for (int i = 0; i < m; i++) {
        u1[i] = i;
        u2[i] = (i + 1) / 2.0;
    }
    for (int j = 0; j < n; j++) {
        v1[j] = (j + 1) / 4.0;
        v2[j] = (j + 1) / 6.0;
    }
    ger2(m, n, 0.5, u1, v1, u2, v2, a);
    printf("%.6f\n", a[(m - 1) * n + n - 1]);
    free(a); free(u1); free(u2); free(v1); free(v2);
    return 0;
}
