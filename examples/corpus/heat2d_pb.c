/* heat2d_pb: two-array 2-D Jacobi heat step, time loop t = 1..tsteps, fixed-size arrays.
 * corpus: kernel=heat2d_pb args="" params="tsteps=6,n=30" cflags="-DTSTEPS=6 -DN=30" */
#include <stdio.h>
#include <stdlib.h>

#ifndef TSTEPS
#define TSTEPS 100
#endif
#ifndef N
#define N 250
#endif

static void init_array(int n, double A[N][N], double B[N][N])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            A[i][j] = B[i][j] = (double)(i * (j + 2) + 2) / n;
}

static void heat2d_pb(int tsteps, int n, double A[N][N], double B[N][N])
{
    int t, i, j;
    for (t = 1; t <= tsteps; t++) {
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][1 + j] + A[1 + i][j] + A[i - 1][j]);
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][1 + j] + B[1 + i][j] + B[i - 1][j]);
    }
}

int main(void)
{
    int n = N, tsteps = TSTEPS;
    double (*A)[N][N] = malloc(sizeof(double[N][N]));
    double (*B)[N][N] = malloc(sizeof(double[N][N]));
    init_array(n, *A, *B);
    heat2d_pb(tsteps, n, *A, *B);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += (*A)[i][i];
    printf("%.6f\n", s);
    free(A); free(B);
    return 0;
}
