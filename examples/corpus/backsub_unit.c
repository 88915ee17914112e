/* backsub_unit: unit upper back substitution with the last row known; j runs n-2 .. 0
 * and the inner update runs right to left (a down-counting nest).
 * corpus: kernel=backsub_unit args="150" params="n=150" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 256
#endif

void backsub_unit(int n, const double *u, double *x)
{
    int i, j;
    for (j = n - 2; j >= 0; j--)
        for (i = n - 1; i > j; i--)
            x[j] -= u[j * n + i] * x[i];
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    double *u = malloc(sizeof(double) * n * n), *x = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) {
        x[i] = 1.0 + i % 5;
        for (int j = i + 1; j < n; j++)
            u[i * n + j] = 1.0 / (n + j - i);
    }
    backsub_unit(n, u, x);
    printf("%.6f\n", x[0]);
    free(u); free(x);
    return 0;
}
