/* syr2k: C := A*B^T + B*A^T + C, lower triangle, fixed sizes from macros.
 * corpus: kernel=syr2k args="" params="" cflags="-DN=40 -DM=24" */
#include <stdio.h>

#ifndef N
#define N 60
#endif
#ifndef M
#define M 40
#endif

double C[N][N], A[N][M], B[N][M];

void syr2k(void)
{
    for (int i = 0; i < N; i++)
        for (int k = 0; k < M; k++)
            for (int j = 0; j <= i; j++)
                C[i][j] += A[j][k] * B[i][k] + B[j][k] * A[i][k];
}

int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) {
            A[i][j] = (double)((i * j + 1) % N) / N;
            B[i][j] = (double)((i * j + 2) % M) / M;
        }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            C[i][j] = (double)((i * j + 3) % N) / M;
    syr2k();
    double s = 0;
    for (int i = 0; i < N; i++)
        s += C[i][0];
    printf("%.6f\n", s);
    return 0;
}
