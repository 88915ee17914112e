/* covariance_pb: column means, centring, then the upper triangle of the covariance with its
 * mirror; float_n from the size, fixed-size arrays.
 * corpus: kernel=covariance_pb args="" params="m=28,n=32" cflags="-DM=28 -DN=32" */
#include <stdio.h>
#include <stdlib.h>

#ifndef M
#define M 240
#endif
#ifndef N
#define N 260
#endif

static void init_array(int m, int n, double *float_n, double data[N][M])
{
    *float_n = (double)n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            data[i][j] = ((double)i * j) / M;
}

static void covariance_pb(int m, int n, double float_n, double data[N][M], double cov[M][M],
                          double mean[M])
{
    int i, j, k;
    for (j = 0; j < m; j++) {
        mean[j] = 0.0;
        for (i = 0; i < n; i++)
            mean[j] += data[i][j];
        mean[j] /= float_n;
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            data[i][j] -= mean[j];
    for (i = 0; i < m; i++)
        for (j = i; j < m; j++) {
            cov[i][j] = 0.0;
            for (k = 0; k < n; k++)
                cov[i][j] += data[k][i] * data[k][j];
            cov[i][j] /= (float_n - 1.0);
            cov[j][i] = cov[i][j];
        }
}

int main(void)
{
    int m = M, n = N;
    double float_n;
    double (*data)[N][M] = malloc(sizeof(double[N][M]));
    double (*cov)[M][M] = malloc(sizeof(double[M][M]));
    double (*mean)[M] = malloc(sizeof(double[M]));
    init_array(m, n, &float_n, *data);
    covariance_pb(m, n, float_n, *data, *cov, *mean);
    double s = 0;
    for (int i = 0; i < m; i++)
        s += (*cov)[i][m - 1 - i];
    printf("%.6f\n", s);
    free(data); free(cov); free(mean);
    return 0;
}
