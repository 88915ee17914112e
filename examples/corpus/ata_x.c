/* ata_x: y = A^T (A x) through a temporary, arrays as fixed-size parameters, bounds passed
 * down from main (the static kernel is cloned with its constants at -O2).
 * corpus: kernel=ata_x args="" params="m=38,n=42" cflags="-DM=38 -DN=42" */
#include <stdio.h>
#include <stdlib.h>

#ifndef M
#define M 390
#endif
#ifndef N
#define N 410
#endif

static void init_array(int m, int n, double A[M][N], double x[N])
{
    double fn = (double)n;
    for (int i = 0; i < n; i++)
        x[i] = 1 + (i / fn);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            A[i][j] = (double)((i + j) % n) / (5 * m);
}

static void ata_x(int m, int n, double A[M][N], double x[N], double y[N], double tmp[M])
{
    int i, j;
    for (i = 0; i < n; i++)
        y[i] = 0;
    for (i = 0; i < m; i++) {
        tmp[i] = 0.0;
        for (j = 0; j < n; j++)
            tmp[i] = tmp[i] + A[i][j] * x[j];
        for (j = 0; j < n; j++)
            y[j] = y[j] + A[i][j] * tmp[i];
    }
}

int main(void)
{
    int m = M, n = N;
    double (*A)[M][N] = malloc(sizeof(double[M][N]));
    double (*x)[N] = malloc(sizeof(double[N]));
    double (*y)[N] = malloc(sizeof(double[N]));
    double (*tmp)[M] = malloc(sizeof(double[M]));
    init_array(m, n, *A, *x);
    ata_x(m, n, *A, *x, *y, *tmp);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += (*y)[i];
    printf("%.6f\n", s);
    free(A); free(x); free(y); free(tmp);
    return 0;
}
