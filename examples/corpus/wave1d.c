/* wave1d: leapfrog 1-D wave equation with fixed ends, three rotating buffers; the time
 * loop uses `!=` and the update loop counts down from n-2 with `!=`.
 * corpus: kernel=wave1d args="500 30" params="n=500,steps=30" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 2000
#endif
#ifndef STEPS
#define STEPS 100
#endif

void wave1d(int n, int steps, double c2, double *prev, double *cur, double *next)
{
    for (int t = 0; t != steps; t++) {
        for (int i = n - 2; i != 0; i--)
            next[i] = 2.0 * cur[i] - prev[i] + c2 * (cur[i + 1] - 2.0 * cur[i] + cur[i - 1]);
        double *tmp = prev;
        prev = cur;
        cur = next;
        next = tmp;
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    int steps = argc > 2 ? atoi(argv[2]) : STEPS;
    double *a = calloc(n, sizeof(double)), *b = calloc(n, sizeof(double)), *c = calloc(n, sizeof(double));
    for (int i = n / 3; i < n / 2; i++)
        a[i] = b[i] = 1.0;
    wave1d(n, steps, 0.25, a, b, c);
    printf("%.6f\n", a[n / 2] + b[n / 2] + c[n / 2]);
    free(a); free(b); free(c);
    return 0;
}
