/* correlation: Pearson correlation matrix of m variables over n samples; a column with a
 * tiny standard deviation is guarded (the data-dependent branch `if (sd <= eps)`).
 * corpus: kernel=correlation args="50 40" params="n=50,m=40" */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 100
#endif
#ifndef M
#define M 80
#endif

void correlation(int n, int m, double *data, double *mean, double *sd, double *corr)
{
    const double eps = 0.1;
    for (int j = 0; j < m; j++) {
        mean[j] = 0.0;
        for (int i = 0; i < n; i++)
            mean[j] += data[i * m + j];
        mean[j] /= n;
    }
    for (int j = 0; j < m; j++) {
        sd[j] = 0.0;
        for (int i = 0; i < n; i++)
            sd[j] += (data[i * m + j] - mean[j]) * (data[i * m + j] - mean[j]);
        sd[j] = sqrt(sd[j] / n);
        if (sd[j] <= eps)
            sd[j] = 1.0;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            data[i * m + j] = (data[i * m + j] - mean[j]) / (sqrt((double)n) * sd[j]);
    for (int i = 0; i < m - 1; i++) {
        corr[i * m + i] = 1.0;
        for (int j = i + 1; j < m; j++) {
            corr[i * m + j] = 0.0;
            for (int k = 0; k < n; k++)
                corr[i * m + j] += data[k * m + i] * data[k * m + j];
            corr[j * m + i] = corr[i * m + j];
        }
    }
    corr[(m - 1) * m + m - 1] = 1.0;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    int m = argc > 2 ? atoi(argv[2]) : M;
    double *data = malloc(sizeof(double) * n * m), *corr = malloc(sizeof(double) * m * m);
    double *mean = malloc(sizeof(double) * m), *sd = malloc(sizeof(double) * m);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            data[i * m + j] = (j % 3 == 0) ? 1.0 : (double)(i * j % 17) / 3.0 + i;
    correlation(n, m, data, mean, sd, corr);
    printf("%.6f\n", corr[1]);
    free(data); free(corr); free(mean); free(sd);
    return 0;
}
