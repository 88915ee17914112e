/* seidel_vla: in-place 9-point Gauss-Seidel sweeps over a C99 variable-length array
 * parameter (the row stride is n at run time), time loop t = 0..tsteps-1.
 * corpus: kernel=seidel_vla args="5 24" params="tsteps=5,n=24" */
#include <stdio.h>
#include <stdlib.h>

static void seidel_vla(int tsteps, int n, double A[n][n])
{
    for (int t = 0; t <= tsteps - 1; t++)
        for (int i = 1; i <= n - 2; i++)
            for (int j = 1; j <= n - 2; j++)
                A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1]
                           + A[i][j - 1] + A[i][j] + A[i][j + 1]
                           + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0;
}

int main(int argc, char **argv)
{
    int tsteps = argc > 1 ? atoi(argv[1]) : 20;
    int n = argc > 2 ? atoi(argv[2]) : 200;
    double (*A)[n] = malloc(sizeof(double) * n * n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            A[i][j] = ((double)i * (j + 2) + 2) / n;
    seidel_vla(tsteps, n, A);
    printf("%.6f\n", A[n / 2][n / 2]);
    free(A);
    return 0;
}
