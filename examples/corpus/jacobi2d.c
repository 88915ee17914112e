/* jacobi2d: 5-point Jacobi on a fixed N x N grid, T time steps, sizes from macros.
 * corpus: kernel=jacobi2d args="" params="" cflags="-DN=40 -DT=10" */
#include <stdio.h>

#ifndef N
#define N 100
#endif
#ifndef T
#define T 20
#endif

static double A[N][N], B[N][N];

void jacobi2d(void)
{
    int t, i, j;
    for (t = 1; t <= T; t++) {
        for (i = 1; i < N - 1; i++)
            for (j = 1; j < N - 1; j++)
                B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i + 1][j] + A[i - 1][j]);
        for (i = 1; i < N - 1; i++)
            for (j = 1; j < N - 1; j++)
                A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][j + 1] + B[i + 1][j] + B[i - 1][j]);
    }
}

int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            A[i][j] = ((double)i * (j + 2) + 2) / N;
            B[i][j] = ((double)i * (j + 3) + 3) / N;
        }
    jacobi2d();
    printf("%.6f\n", A[N / 2][N / 2]);
    return 0;
}
