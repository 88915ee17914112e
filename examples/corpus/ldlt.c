/* ldlt: A = L D L^T without square roots (left-looking), d kept in a separate vector.
 * corpus: kernel=ldlt args="70" params="n=70" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 100
#endif

void ldlt(int n, double *a, double *d, double *w)
{
    for (int j = 0; j < n; j++) {
        for (int k = 0; k < j; k++)
            w[k] = a[j * n + k] * d[k];
        double djj = a[j * n + j];
        for (int k = 0; k < j; k++)
            djj -= a[j * n + k] * w[k];
        d[j] = djj;
        for (int i = j + 1; i < n; i++) {
            double s = a[i * n + j];
            for (int k = 0; k < j; k++)
                s -= a[i * n + k] * w[k];
            a[i * n + j] = s / djj;
        }
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    double *a = malloc(sizeof(double) * n * n), *d = malloc(sizeof(double) * n), *w = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            a[i * n + j] = (i == j) ? 4.0 : 1.0 / (3 + i + j);
    ldlt(n, a, d, w);
    printf("%.6f\n", d[n - 1]);
    free(a); free(d); free(w);
    return 0;
}
