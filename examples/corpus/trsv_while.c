/* trsv_while: upper-triangular back substitution written with while loops, as older codes do.
 * corpus: kernel=trsv_while args="70" params="n=70" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 120
#endif

void trsv_while(int n, const double *u, double *x)
{
    int i = n - 1;
    while (i >= 0) {
        double s = x[i];
        int j = i + 1;
        while (j < n) {
            s -= u[i * n + j] * x[j];
            j++;
        }
        x[i] = s / u[i * n + i];
        i--;
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    double *u = malloc(sizeof(double) * n * n), *x = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) {
        x[i] = 1.0 + i % 3;
        for (int j = 0; j < n; j++)
            u[i * n + j] = i == j ? 2.0 + i % 5 : 0.01 * ((i + j) % 7);
    }
    trsv_while(n, u, x);
    printf("%.6f\n", x[0]);
    free(u); free(x);
    return 0;
}
