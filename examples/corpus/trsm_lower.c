/* trsm_lower: solve L X = B for nrhs right-hand sides, unit lower L, columns of B in place.
 * corpus: kernel=trsm_lower args="60 8" params="n=60,nrhs=8" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 100
#endif
#ifndef NRHS
#define NRHS 4
#endif

void trsm_lower(int n, int nrhs, const double *l, double *b)
{
    for (int r = 0; r < nrhs; r++)
        for (int i = 1; i < n; i++) {
            double s = b[r * n + i];
            for (int j = 0; j < i; j++)
                s -= l[i * n + j] * b[r * n + j];
            b[r * n + i] = s;
        }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    int nrhs = argc > 2 ? atoi(argv[2]) : NRHS;
    double *l = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * nrhs);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            l[i * n + j] = 0.01 * ((i + j) % 9);
    for (int r = 0; r < nrhs; r++)
        for (int i = 0; i < n; i++)
            b[r * n + i] = r + 1.0;
    trsm_lower(n, nrhs, l, b);
    printf("%.6f\n", b[nrhs * n - 1]);
    free(l); free(b);
    return 0;
}
