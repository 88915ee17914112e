/* gram_schmidt_pb: modified Gram-Schmidt QR, a column norm through sqrt, division by it, and
 * the projections of the later columns; fixed-size arrays.
 * corpus: kernel=gram_schmidt_pb args="" params="m=24,n=20" cflags="-DM=24 -DN=20" */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef M
#define M 200
#endif
#ifndef N
#define N 240
#endif

static void gram_schmidt_pb(int m, int n, double A[M][N], double R[N][N], double Q[M][N])
{
    int i, j, k;
    double nrm;
    for (k = 0; k < n; k++) {
        nrm = 0.0;
        for (i = 0; i < m; i++)
            nrm += A[i][k] * A[i][k];
        R[k][k] = sqrt(nrm);
        for (i = 0; i < m; i++)
            Q[i][k] = A[i][k] / R[k][k];
        for (j = k + 1; j < n; j++) {
            R[k][j] = 0.0;
            for (i = 0; i < m; i++)
                R[k][j] += Q[i][k] * A[i][j];
            for (i = 0; i < m; i++)
                A[i][j] = A[i][j] - Q[i][k] * R[k][j];
        }
    }
}

int main(void)
{
    int m = M, n = N;
    double (*A)[M][N] = malloc(sizeof(double[M][N]));
    double (*R)[N][N] = malloc(sizeof(double[N][N]));
    double (*Q)[M][N] = malloc(sizeof(double[M][N]));
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            (*A)[i][j] = (((double)((i * j) % m) / m) * 100) + 10 + (i == j) * 100.0;
    gram_schmidt_pb(m, n, *A, *R, *Q);
    printf("%.6f\n", (*R)[n - 1][n - 1]);
    free(A); free(R); free(Q);
    return 0;
}
