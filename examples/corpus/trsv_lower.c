/* trsv_lower: forward substitution L x = b, L lower triangular with a non-unit diagonal.
 * corpus: kernel=trsv_lower args="120" params="n=120" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 200
#endif

void trsv_lower(int n, const double *l, const double *b, double *x)
{
    for (int i = 0; i < n; i++) {
        double s = b[i];
        for (int j = 0; j < i; j++)
            s -= l[i * n + j] * x[j];
        x[i] = s / l[i * n + i];
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    double *l = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < i; j++)
            l[i * n + j] = 0.1 / (i - j + 1);
        l[i * n + i] = 2.0 + i % 3;
        b[i] = 1.0;
    }
    trsv_lower(n, l, b, x);
    printf("%.6f\n", x[n - 1]);
    free(l); free(b); free(x);
    return 0;
}
