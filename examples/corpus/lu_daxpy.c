/* lu_daxpy: LU elimination in the style of LINPACK's dgefa, the row updates done by a daxpy
 * helper whose length n - k - 1 follows the elimination step.
 * corpus: kernel=daxpy host=lu_daxpy args="60" params="n=60" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 200
#endif
static void daxpy(int n, double a, const double *x, double *y)
{
    if (n <= 0)
        return;
    for (int i = 0; i < n; i++)
        y[i] += a * x[i];
}
void lu_daxpy(int n, double *a)
{
    for (int k = 0; k < n - 1; k++)
        for (int j = k + 1; j < n; j++)
            daxpy(n - k - 1, -a[j * n + k] / a[k * n + k], &a[k * n + k + 1], &a[j * n + k + 1]);
}
int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    double *a = malloc(sizeof(double) * n * n);
    for (int i = 0; i < n * n; i++) a[i] = 1.0 + (i * 7 % 11);
    for (int i = 0; i < n; i++) a[i * n + i] += n;
    lu_daxpy(n, a);
    printf("%f\n", a[n + 1]);
    return 0;
}
