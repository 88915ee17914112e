/* syrk: C := alpha*A*A^T + beta*C on the lower triangle (symmetric rank-k update).
 * corpus: kernel=syrk args="48 20" params="n=48,k=20" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 64
#endif
#ifndef K
#define K 32
#endif

void syrk(int n, int k, double alpha, double beta, double *c, const double *a)
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j <= i; j++)
            c[i * n + j] *= beta;
        for (int p = 0; p < k; p++)
            for (int j = 0; j <= i; j++)
                c[i * n + j] += alpha * a[i * k + p] * a[j * k + p];
    }
}

int main(int argc, char **argv)
{
    int n = N, k = K;
    if (argc > 2) {
        n = atoi(argv[1]);
        k = atoi(argv[2]);
    }
    double *a = malloc(sizeof(double) * n * k), *c = malloc(sizeof(double) * n * n);
    for (int i = 0; i < n; i++)
        for (int p = 0; p < k; p++)
            a[i * k + p] = (double)((i * p + 2) % n) / n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            c[i * n + j] = (double)((i + j) % 5) / 5.0;
    syrk(n, k, 1.5, 0.5, c, a);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += c[i * n + i / 2];
    printf("%.6f\n", s);
    free(a); free(c);
    return 0;
}
