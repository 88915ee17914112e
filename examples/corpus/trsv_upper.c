/* trsv_upper: back substitution U x = b, rows solved from the last one up.
 * corpus: kernel=trsv_upper args="120" params="n=120" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 200
#endif

void trsv_upper(int n, const double *u, const double *b, double *x)
{
    int i, j;
    for (i = n - 1; i >= 0; i--) {
        double s = b[i];
        for (j = i + 1; j < n; j++)
            s -= u[i * n + j] * x[j];
        x[i] = s / u[i * n + i];
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    double *u = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) {
        u[i * n + i] = 3.0;
        for (int j = i + 1; j < n; j++)
            u[i * n + j] = 0.5 / (j - i + 1);
        b[i] = (double)(i % 4);
    }
    trsv_upper(n, u, b, x);
    printf("%.6f\n", x[0]);
    free(u); free(b); free(x);
    return 0;
}
