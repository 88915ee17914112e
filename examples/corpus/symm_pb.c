/* symm_pb: C := alpha*A*B + beta*C with A symmetric, stored in its lower triangle; a
 * scalar temporary per element, scalars alpha and beta, fixed-size arrays.
 * corpus: kernel=symm_pb args="" params="m=20,n=24" cflags="-DM=20 -DN=24" */
#include <stdio.h>
#include <stdlib.h>

#ifndef M
#define M 200
#endif
#ifndef N
#define N 240
#endif

static void init_array(int m, int n, double C[M][N], double A[M][M], double B[M][N])
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            C[i][j] = (double)((i + j) % 100) / m;
            B[i][j] = (double)((n + i - j) % 100) / m;
        }
    for (int i = 0; i < m; i++) {
        for (int j = 0; j <= i; j++)
            A[i][j] = (double)((i + j) % 100) / m;
        for (int j = i + 1; j < m; j++)
            A[i][j] = -999;
    }
}

static void symm_pb(int m, int n, double alpha, double beta, double C[M][N], double A[M][M],
                    double B[M][N])
{
    int i, j, k;
    double temp2;
    for (i = 0; i < m; i++)
        for (j = 0; j < n; j++) {
            temp2 = 0;
            for (k = 0; k < i; k++) {
                C[k][j] += alpha * B[i][j] * A[i][k];
                temp2 += B[k][j] * A[i][k];
            }
            C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2;
        }
}

int main(void)
{
    int m = M, n = N;
    double alpha = 1.5, beta = 1.2;
    double (*C)[M][N] = malloc(sizeof(double[M][N]));
    double (*A)[M][M] = malloc(sizeof(double[M][M]));
    double (*B)[M][N] = malloc(sizeof(double[M][N]));
    init_array(m, n, *C, *A, *B);
    symm_pb(m, n, alpha, beta, *C, *A, *B);
    printf("%.6f\n", (*C)[m - 1][n - 1]);
    free(C); free(A); free(B);
    return 0;
}
