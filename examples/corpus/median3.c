/* median3: a 3-point median filter and clamp over a noisy signal, and the widest of two
 * two-hop routes; min/max macros nested.
 * corpus: kernel=median3 args="4000" params="n=4000" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 20000
#endif

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define CLAMP(v, lo, hi) MIN(MAX(v, lo), hi)

/* Each output is the median of three neighbours, clamped to [lo, hi]. */
long median3(int n, const int *x, int *y, int lo, int hi)
{
    long sum = 0;
    for (int i = 1; i < n - 1; i++) {
        int a = x[i - 1], b = x[i], c = x[i + 1];
        int med = MAX(MIN(a, b), MIN(MAX(a, b), c));
        y[i] = CLAMP(med, lo, hi);
        sum += y[i];
    }
    return sum;
}

/* Bottleneck width of the better of two two-hop routes for each of n node pairs. */
long widest_route(int n, const int *a, const int *b, const int *c, const int *d, int *w)
{
    long total = 0;
    for (int i = 0; i < n; i++) {
        w[i] = MAX(MIN(a[i], b[i]), MIN(c[i], d[i]));
        total += w[i];
    }
    return total;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    int *x = malloc(sizeof(int) * n), *y = malloc(sizeof(int) * n);
    int *r = malloc(sizeof(int) * 4 * n);
    unsigned state = 12345;
    for (int i = 0; i < n; i++) {
        state = state * 1103515245u + 12345u;
        x[i] = (int)((state >> 16) % 1000);
    }
    for (int i = 0; i < 4 * n; i++) {
        state = state * 1103515245u + 12345u;
        r[i] = (int)((state >> 16) % 1000);
    }
    printf("%ld\n", median3(n, x, y, 100, 900));
    printf("%ld\n", widest_route(n, r, r + n, r + 2 * n, r + 3 * n, y));
    free(x); free(y); free(r);
    return 0;
}
