/* correlation_pb: means, standard deviations with a guard against near-zero ones
 * (`stddev[j] <= eps ? 1.0 : stddev[j]`), centring and scaling, then the upper triangle of
 * the correlation matrix; sqrt; fixed-size arrays.
 * corpus: kernel=correlation_pb args="" params="m=24,n=28" cflags="-DM=24 -DN=28" */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef M
#define M 240
#endif
#ifndef N
#define N 260
#endif

static void correlation_pb(int m, int n, double float_n, double data[N][M], double corr[M][M],
                           double mean[M], double stddev[M])
{
    int i, j, k;
    double eps = 0.1;
    for (j = 0; j < m; j++) {
        mean[j] = 0.0;
        for (i = 0; i < n; i++)
            mean[j] += data[i][j];
        mean[j] /= float_n;
    }
    for (j = 0; j < m; j++) {
        stddev[j] = 0.0;
        for (i = 0; i < n; i++)
            stddev[j] += (data[i][j] - mean[j]) * (data[i][j] - mean[j]);
        stddev[j] /= float_n;
        stddev[j] = sqrt(stddev[j]);
        stddev[j] = stddev[j] <= eps ? 1.0 : stddev[j];
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++) {
            data[i][j] -= mean[j];
            data[i][j] /= sqrt(float_n) * stddev[j];
        }
    for (i = 0; i < m - 1; i++) {
        corr[i][i] = 1.0;
        for (j = i + 1; j < m; j++) {
            corr[i][j] = 0.0;
            for (k = 0; k < n; k++)
                corr[i][j] += (data[k][i] * data[k][j]);
            corr[j][i] = corr[i][j];
        }
    }
    corr[m - 1][m - 1] = 1.0;
}

int main(void)
{
    int m = M, n = N;
    double float_n = (double)N;
    double (*data)[N][M] = malloc(sizeof(double[N][M]));
    double (*corr)[M][M] = malloc(sizeof(double[M][M]));
    double (*mean)[M] = malloc(sizeof(double[M]));
    double (*stddev)[M] = malloc(sizeof(double[M]));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            (*data)[i][j] = (double)(i * j) / M + i;
    correlation_pb(m, n, float_n, *data, *corr, *mean, *stddev);
    printf("%.6f\n", (*corr)[0][m - 1]);
    free(data); free(corr); free(mean); free(stddev);
    return 0;
}
