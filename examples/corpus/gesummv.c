/* gesummv: y = alpha A x + beta B x, two matrices read in the same row sweep.
 * corpus: kernel=gesummv args="150" params="n=150" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 250
#endif

void gesummv(int n, double alpha, double beta, const double *a, const double *b,
             double *tmp, const double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        tmp[i] = 0.0;
        y[i] = 0.0;
        for (int j = 0; j < n; j++) {
            tmp[i] = a[i * n + j] * x[j] + tmp[i];
            y[i] = b[i * n + j] * x[j] + y[i];
        }
        y[i] = alpha * tmp[i] + beta * y[i];
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n);
    double *tmp = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) {
        x[i] = (double)(i % n) / n;
        for (int j = 0; j < n; j++) {
            a[i * n + j] = (double)((i * j + 1) % n) / n;
            b[i * n + j] = (double)((i * j + 2) % n) / n;
        }
    }
    gesummv(n, 1.5, 1.2, a, b, tmp, x, y);
    printf("%.6f\n", y[n - 1]);
    free(a); free(b); free(tmp); free(x); free(y);
    return 0;
}
