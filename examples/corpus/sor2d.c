/* sor2d: successive over-relaxation for the Poisson equation with a red-black split:
 * stride-2 inner loops whose start depends on the row parity.
 * corpus: kernel=sor_redblack args="60 4" params="n=60,iters=4" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 128
#endif
#ifndef ITERS
#define ITERS 10
#endif

void sor_redblack(int n, int iters, double omega, const double *f, double *u)
{
    for (int it = 0; it < iters; it++)
        for (int colour = 0; colour < 2; colour++)
            for (int i = 1; i < n - 1; i++)
                for (int j = 1 + (i + colour) % 2; j < n - 1; j += 2) {
                    double r = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1]
                                       + u[i * n + j + 1] - f[i * n + j]) - u[i * n + j];
                    u[i * n + j] += omega * r;
                }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    int iters = argc > 2 ? atoi(argv[2]) : ITERS;
    double *u = calloc((size_t)n * n, sizeof(double)), *f = malloc(sizeof(double) * n * n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            f[i * n + j] = ((i * 7 + j * 3) % 13) / 13.0;
    sor_redblack(n, iters, 1.5, f, u);
    printf("%.6f\n", u[(n / 2) * n + n / 2]);
    free(u); free(f);
    return 0;
}
