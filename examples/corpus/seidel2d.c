/* seidel2d: in-place 9-point Gauss-Seidel sweeps over an n x n grid, time loop t = 1..T.
 * corpus: kernel=seidel2d args="40 6" params="n=40,tsteps=6" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 100
#endif
#ifndef T
#define T 10
#endif

void seidel2d(int tsteps, int n, double *a)
{
    for (int t = 1; t <= tsteps; t++)
        for (int i = 1; i <= n - 2; i++)
            for (int j = 1; j <= n - 2; j++)
                a[i * n + j] = (a[(i - 1) * n + j - 1] + a[(i - 1) * n + j] + a[(i - 1) * n + j + 1]
                                + a[i * n + j - 1] + a[i * n + j] + a[i * n + j + 1]
                                + a[(i + 1) * n + j - 1] + a[(i + 1) * n + j] + a[(i + 1) * n + j + 1]) / 9.0;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    int tsteps = argc > 2 ? atoi(argv[2]) : T;
    double *a = malloc(sizeof(double) * n * n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            a[i * n + j] = ((double)i * (j + 2) + 2) / n;
    seidel2d(tsteps, n, a);
    printf("%.6f\n", a[(n / 2) * n + n / 2]);
    free(a);
    return 0;
}
