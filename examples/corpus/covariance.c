/* covariance: sample covariance (divided by n-1) of m variables, symmetric fill.
 * corpus: kernel=covariance args="60 30" params="n=60,m=30" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 100
#endif
#ifndef M
#define M 80
#endif

void covariance(int n, int m, double *data, double *mean, double *cov)
{
    int i, j, k;
    for (j = 0; j < m; j++) {
        mean[j] = 0.0;
        for (i = 0; i < n; i++)
            mean[j] += data[i * m + j];
        mean[j] /= n;
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            data[i * m + j] -= mean[j];
    for (i = 0; i < m; i++)
        for (j = i; j < m; j++) {
            double c = 0.0;
            for (k = 0; k < n; k++)
                c += data[k * m + i] * data[k * m + j];
            c /= n - 1.0;
            cov[i * m + j] = c;
            cov[j * m + i] = c;
        }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    int m = argc > 2 ? atoi(argv[2]) : M;
    double *data = malloc(sizeof(double) * n * m), *cov = malloc(sizeof(double) * m * m);
    double *mean = malloc(sizeof(double) * m);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            data[i * m + j] = (double)(i * (j + 1) % 23) / 7.0;
    covariance(n, m, data, mean, cov);
    printf("%.6f\n", cov[m + 1]);
    free(data); free(cov); free(mean);
    return 0;
}
