/* ludcmp_pb: LU without pivoting in place, then forward and backward substitution (down
 * counting), scalar accumulators, fixed-size array parameters.
 * corpus: kernel=ludcmp_pb args="" params="n=36" cflags="-DN=36" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 400
#endif

static void init_array(int n, double A[N][N], double b[N], double x[N], double y[N])
{
    double fn = (double)n;
    for (int i = 0; i < n; i++) {
        x[i] = 0;
        y[i] = 0;
        b[i] = (i + 1) / fn / 2.0 + 4;
    }
    for (int i = 0; i < n; i++) {
        for (int j = 0; j <= i; j++)
            A[i][j] = (double)(-j % n) / n + 1;
        for (int j = i + 1; j < n; j++)
            A[i][j] = 0;
        A[i][i] = 1;
    }
    /* make A positive definite-ish without a second array */
    for (int i = 0; i < n; i++)
        A[i][i] += n;
}

static void ludcmp_pb(int n, double A[N][N], double b[N], double x[N], double y[N])
{
    int i, j, k;
    double w;
    for (i = 0; i < n; i++) {
        for (j = 0; j < i; j++) {
            w = A[i][j];
            for (k = 0; k < j; k++)
                w -= A[i][k] * A[k][j];
            A[i][j] = w / A[j][j];
        }
        for (j = i; j < n; j++) {
            w = A[i][j];
            for (k = 0; k < i; k++)
                w -= A[i][k] * A[k][j];
            A[i][j] = w;
        }
    }
    for (i = 0; i < n; i++) {
        w = b[i];
        for (j = 0; j < i; j++)
            w -= A[i][j] * y[j];
        y[i] = w;
    }
    for (i = n - 1; i >= 0; i--) {
        w = y[i];
        for (j = i + 1; j < n; j++)
            w -= A[i][j] * x[j];
        x[i] = w / A[i][i];
    }
}

int main(void)
{
    int n = N;
    double (*A)[N][N] = malloc(sizeof(double[N][N]));
    double (*b)[N] = malloc(sizeof(double[N]));
    double (*x)[N] = malloc(sizeof(double[N]));
    double (*y)[N] = malloc(sizeof(double[N]));
    init_array(n, *A, *b, *x, *y);
    ludcmp_pb(n, *A, *b, *x, *y);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += (*x)[i];
    printf("%.6f\n", s);
    free(A); free(b); free(x); free(y);
    return 0;
}
