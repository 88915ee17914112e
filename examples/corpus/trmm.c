/* trmm: B := alpha * A^T B with A unit lower triangular (k runs below the diagonal).
 * corpus: kernel=trmm args="40 30" params="m=40,n=30" */
#include <stdio.h>
#include <stdlib.h>

#ifndef M
#define M 60
#endif
#ifndef N
#define N 50
#endif

void trmm(int m, int n, double alpha, const double *a, double *b)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            for (int k = i + 1; k < m; k++)
                b[i * n + j] += a[k * m + i] * b[k * n + j];
            b[i * n + j] = alpha * b[i * n + j];
        }
}

int main(int argc, char **argv)
{
    int m = argc > 1 ? atoi(argv[1]) : M;
    int n = argc > 2 ? atoi(argv[2]) : N;
    double *a = malloc(sizeof(double) * m * m), *b = malloc(sizeof(double) * m * n);
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < i; j++)
            a[i * m + j] = (double)((i + j) % m) / m;
        a[i * m + i] = 1.0;
        for (int j = 0; j < n; j++)
            b[i * n + j] = (double)((n + (i - j)) % n) / n;
    }
    trmm(m, n, 1.5, a, b);
    printf("%.6f\n", b[0] + b[m * n - 1]);
    free(a); free(b);
    return 0;
}
