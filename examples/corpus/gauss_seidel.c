/* gauss_seidel: Gauss-Seidel sweeps for a tridiagonal system, forward then backward
 * (symmetric GS), in place; the backward sweep counts down.
 * corpus: kernel=sgs_sweep args="500 8" params="n=500,sweeps=8" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 1000
#endif
#ifndef SWEEPS
#define SWEEPS 10
#endif

void sgs_sweep(int n, int sweeps, const double *f, double *u)
{
    for (int s = 1; s <= sweeps; s++) {
        for (int i = 1; i < n - 1; i++)
            u[i] = 0.5 * (f[i] + u[i - 1] + u[i + 1]);
        for (int i = n - 2; i >= 1; i--)
            u[i] = 0.5 * (f[i] + u[i - 1] + u[i + 1]);
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    int sweeps = argc > 2 ? atoi(argv[2]) : SWEEPS;
    double *f = malloc(sizeof(double) * n), *u = calloc(n, sizeof(double));
    for (int i = 0; i < n; i++)
        f[i] = 1.0 / n;
    sgs_sweep(n, sweeps, f, u);
    printf("%.6f\n", u[n / 2]);
    free(f); free(u);
    return 0;
}
