/* jacobi1d: 3-point Jacobi in 1-D with a time loop t = 1..T, two buffers.
 * corpus: kernel=jacobi1d args="400 20" params="n=400,tsteps=20" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 1000
#endif
#ifndef T
#define T 50
#endif

void jacobi1d(int tsteps, int n, double *a, double *b)
{
    for (int t = 1; t <= tsteps; t++) {
        for (int i = 1; i < n - 1; i++)
            b[i] = 0.33333 * (a[i - 1] + a[i] + a[i + 1]);
        for (int i = 1; i < n - 1; i++)
            a[i] = 0.33333 * (b[i - 1] + b[i] + b[i + 1]);
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    int tsteps = argc > 2 ? atoi(argv[2]) : T;
    double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) {
        a[i] = (i + 2.0) / n;
        b[i] = (i + 3.0) / n;
    }
    jacobi1d(tsteps, n, a, b);
    printf("%.6f\n", a[n / 2]);
    free(a); free(b);
    return 0;
}
