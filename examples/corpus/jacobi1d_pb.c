/* jacobi1d_pb: two-array 3-point averaging, time loop, fixed-size 1-D arrays.
 * corpus: kernel=jacobi1d_pb args="" params="tsteps=8,n=60" cflags="-DTSTEPS=8 -DN=60" */
#include <stdio.h>
#include <stdlib.h>

#ifndef TSTEPS
#define TSTEPS 500
#endif
#ifndef N
#define N 2000
#endif

static void jacobi1d_pb(int tsteps, int n, double A[N], double B[N])
{
    int t, i;
    for (t = 0; t < tsteps; t++) {
        for (i = 1; i < n - 1; i++)
            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
        for (i = 1; i < n - 1; i++)
            A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
    }
}

int main(void)
{
    int n = N, tsteps = TSTEPS;
    double (*A)[N] = malloc(sizeof(double[N]));
    double (*B)[N] = malloc(sizeof(double[N]));
    for (int i = 0; i < n; i++) {
        (*A)[i] = ((double)i + 2) / n;
        (*B)[i] = ((double)i + 3) / n;
    }
    jacobi1d_pb(tsteps, n, *A, *B);
    printf("%.6f\n", (*A)[n / 2]);
    free(A); free(B);
    return 0;
}
