/* cholesky: A = L L^T in place (lower), with sqrt on the diagonal, fixed size from a macro.
 * corpus: kernel=cholesky args="" params="" cflags="-DN=80" */
#include <math.h>
#include <stdio.h>

#ifndef N
#define N 120
#endif

static double A[N][N];

void cholesky(void)
{
    int i, j, k;
    for (i = 0; i < N; i++) {
        for (j = 0; j < i; j++) {
            for (k = 0; k < j; k++)
                A[i][j] -= A[i][k] * A[j][k];
            A[i][j] /= A[j][j];
        }
        for (k = 0; k < i; k++)
            A[i][i] -= A[i][k] * A[i][k];
        A[i][i] = sqrt(A[i][i]);
    }
}

int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            A[i][j] = (i == j) ? 2.0 * N : 1.0 / (2 + i + j);
    cholesky();
    printf("%.6f\n", A[N - 1][N - 1]);
    return 0;
}
