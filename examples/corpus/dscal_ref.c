/* dscal_ref: x = a x in the style of the reference BLAS translated to C: a clean-up loop of
 * n % 5 iterations, then a loop unrolled by five from there.
 * corpus: kernel=dscal_ref args="1003" params="n=1003" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 4001
#endif

void dscal_ref(int n, double da, double *dx)
{
    int i, m;
    if (n <= 0)
        return;
    m = n % 5;
    if (m != 0) {
        for (i = 0; i < m; i++)
            dx[i] = da * dx[i];
        if (n < 5)
            return;
    }
    for (i = m; i < n; i += 5) {
        dx[i] = da * dx[i];
        dx[i + 1] = da * dx[i + 1];
        dx[i + 2] = da * dx[i + 2];
        dx[i + 3] = da * dx[i + 3];
        dx[i + 4] = da * dx[i + 4];
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    double *x = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++)
        x[i] = 1.0 + i % 9;
    dscal_ref(n, 0.5, x);
    printf("%.6f\n", x[n / 2]);
    free(x);
    return 0;
}
