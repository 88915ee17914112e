/* mvt: x1 += A y1 and x2 += A^T y2, fixed-size arrays from a macro.
 * corpus: kernel=mvt args="" params="" cflags="-DN=120" */
#include <stdio.h>

#ifndef N
#define N 200
#endif

static double A[N][N], x1[N], x2[N], y_1[N], y_2[N];

void mvt(void)
{
    int i, j;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            x1[i] = x1[i] + A[i][j] * y_1[j];
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            x2[i] = x2[i] + A[j][i] * y_2[j];
}

int main(void)
{
    for (int i = 0; i < N; i++) {
        x1[i] = (double)(i % N) / N;
        x2[i] = (double)((i + 1) % N) / N;
        y_1[i] = (double)((i + 3) % N) / N;
        y_2[i] = (double)((i + 4) % N) / N;
        for (int j = 0; j < N; j++)
            A[i][j] = (double)(i * j % N) / N;
    }
    mvt();
    printf("%.6f %.6f\n", x1[N - 1], x2[0]);
    return 0;
}
