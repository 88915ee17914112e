/* gemv: y = A x with fixed-size arrays (sizes from macros only).
 * corpus: kernel=gemv args="" params="" cflags="-DN=96" */
#include <stdio.h>

#ifndef N
#define N 128
#endif

static double A[N][N], x[N], y[N];

void gemv(void)
{
    int i, j;
    for (i = 0; i < N; i++) {
        double t = 0.0;
        for (j = 0; j < N; j++)
            t += A[i][j] * x[j];
        y[i] = t;
    }
}

int main(void)
{
    for (int i = 0; i < N; i++) {
        x[i] = 1.0 / (i + 1);
        for (int j = 0; j < N; j++)
            A[i][j] = (double)((i + 2 * j) % 11) - 5.0;
    }
    gemv();
    double s = 0;
    for (int i = 0; i < N; i++)
        s += y[i];
    printf("%.6f\n", s);
    return 0;
}
