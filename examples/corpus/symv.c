/* symv: y = A x for symmetric A stored in its lower triangle only.
 * corpus: kernel=symv args="90" params="n=90" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 120
#endif

void symv(int n, const double *a, const double *x, double *y)
{
    for (int i = 0; i < n; i++)
        y[i] = 0.0;
    for (int i = 0; i < n; i++) {
        double t = 0.0;
        for (int j = 0; j < i; j++) {
            y[j] += a[i * n + j] * x[i];
            t += a[i * n + j] * x[j];
        }
        y[i] += t + a[i * n + i] * x[i];
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    double *a = malloc(sizeof(double) * n * n), *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) {
        x[i] = 1.0 - 0.01 * i;
        for (int j = 0; j <= i; j++)
            a[i * n + j] = 1.0 / (i + j + 1);
    }
    symv(n, a, x, y);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += y[i];
    printf("%.6f\n", s);
    free(a); free(x); free(y);
    return 0;
}
