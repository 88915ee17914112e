/* heat3d: 7-point heat equation on an n^3 grid (run-time n), time loop t = 1..T.
 * corpus: kernel=heat3d args="16 5" params="n=16,tsteps=5" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 24
#endif
#ifndef T
#define T 10
#endif

#define IDX(i, j, k) (((i) * n + (j)) * n + (k))

void heat3d(int tsteps, int n, double *a, double *b)
{
    for (int t = 1; t <= tsteps; t++) {
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                for (int k = 1; k < n - 1; k++)
                    b[IDX(i, j, k)] = a[IDX(i, j, k)]
                        + 0.125 * (a[IDX(i + 1, j, k)] - 2.0 * a[IDX(i, j, k)] + a[IDX(i - 1, j, k)])
                        + 0.125 * (a[IDX(i, j + 1, k)] - 2.0 * a[IDX(i, j, k)] + a[IDX(i, j - 1, k)])
                        + 0.125 * (a[IDX(i, j, k + 1)] - 2.0 * a[IDX(i, j, k)] + a[IDX(i, j, k - 1)]);
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                for (int k = 1; k < n - 1; k++)
                    a[IDX(i, j, k)] = b[IDX(i, j, k)];
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    int tsteps = argc > 2 ? atoi(argv[2]) : T;
    double *a = malloc(sizeof(double) * n * n * n), *b = malloc(sizeof(double) * n * n * n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++)
                a[IDX(i, j, k)] = b[IDX(i, j, k)] = (double)(i + j + (n - k)) * 10 / n;
    heat3d(tsteps, n, a, b);
    printf("%.6f\n", a[IDX(n / 2, n / 2, n / 2)]);
    free(a); free(b);
    return 0;
}
