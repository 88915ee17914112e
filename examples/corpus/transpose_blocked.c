/* transpose_blocked: out-of-place transpose in b x b tiles with min() tile edges.
 * corpus: kernel=transpose_blocked args="100 70 16" params="m=100,n=70,b=16" */
#include <stdio.h>
#include <stdlib.h>

#ifndef M
#define M 300
#endif
#ifndef N
#define N 200
#endif
#ifndef B
#define B 32
#endif

#define MIN(x, y) ((x) < (y) ? (x) : (y))

void transpose_blocked(int m, int n, int b, const double *a, double *t)
{
    for (int ii = 0; ii < m; ii += b)
        for (int jj = 0; jj < n; jj += b)
            for (int i = ii; i < MIN(ii + b, m); i++)
                for (int j = jj; j < MIN(jj + b, n); j++)
                    t[j * m + i] = a[i * n + j];
}

int main(int argc, char **argv)
{
    int m = argc > 1 ? atoi(argv[1]) : M;
    int n = argc > 2 ? atoi(argv[2]) : N;
    int b = argc > 3 ? atoi(argv[3]) : B;
    double *a = malloc(sizeof(double) * m * n), *t = malloc(sizeof(double) * m * n);
    for (int i = 0; i < m * n; i++)
        a[i] = i;
    transpose_blocked(m, n, b, a, t);
    printf("%.1f\n", t[m + 3]);
    free(a); free(t);
    return 0;
}
