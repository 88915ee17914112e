/* dot_unrolled: a dot product unrolled by hand into four partial sums, and the remainder
 * loop that goes on with the counter the unrolled loop left.
 * corpus: kernel=dot_unrolled args="1003" params="n=1003" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 4003
#endif

double dot_unrolled(int n, const double *x, const double *y)
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int i;
    for (i = 0; i + 3 < n; i += 4) {
        s0 += x[i] * y[i];
        s1 += x[i + 1] * y[i + 1];
        s2 += x[i + 2] * y[i + 2];
        s3 += x[i + 3] * y[i + 3];
    }
    for (; i < n; i++)
        s0 += x[i] * y[i];
    return (s0 + s1) + (s2 + s3);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) {
        x[i] = 0.5 + i % 3;
        y[i] = 1.0 - i % 5 * 0.125;
    }
    printf("%.6f\n", dot_unrolled(n, x, y));
    free(x); free(y);
    return 0;
}
