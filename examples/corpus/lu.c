/* lu: in-place Doolittle LU factorisation without pivoting (right-looking, kij order).
 * corpus: kernel=lu args="60" params="n=60" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 100
#endif

void lu(int n, double *a)
{
    for (int k = 0; k < n; k++) {
        double pivot = a[k * n + k];
        for (int i = k + 1; i < n; i++)
            a[i * n + k] /= pivot;
        for (int i = k + 1; i < n; i++) {
            double lik = a[i * n + k];
            for (int j = k + 1; j < n; j++)
                a[i * n + j] -= lik * a[k * n + j];
        }
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    double *a = malloc(sizeof(double) * n * n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            a[i * n + j] = (i == j) ? n + 1.0 : 1.0 / (1 + i + j);
    lu(n, a);
    printf("%.6f\n", a[n * n - 1]);
    free(a);
    return 0;
}
