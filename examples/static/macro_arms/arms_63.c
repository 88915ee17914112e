/* metron static-macro-arms seed 63: nested ?: macros on uniform data. A regression case:
 * at gcc -O2 a branch profile recorded at n = 2000 predicted n = 4000 9.4% off before;
 * gcc computes `a[i] / 2` on two ways (`a[i] > 1199`, `a[i] > 701`) that meet in one block;
 * the run that takes every branch on data and the run that takes none both reach it, a mix
 * does not, so it was not taken for an arm of data and kept the model's count, n (the data
 * take it 0.3 n times). Every block between a branch on data and its join follows the data
 * (calibrate.rs, `arms_on_data`).
 * corpus: kernel=kernel args="4000" params="n=4000" */
#include <stdio.h>
#include <stdlib.h>

#define MIN(x, y) ((x) < (y) ? (x) : (y))
#define MAX(x, y) ((x) > (y) ? (x) : (y))
#define CLAMP(v, lo, hi) MIN(MAX(v, lo), hi)
#define ABS(x) ((x) < 0 ? -(x) : (x))

long kernel(int n, const int *a, const int *b, const int *c, const int *d, int *out)
{
    long s = 0;
    for (int i = 0; i < n; i++) {
        int v = (CLAMP(a[i] / 2, 350, 600) > ABS(a[i] - 450) ? (b[i] > a[i] ? b[i] - b[i] : d[i] / 2) : MAX(a[i] / 2, a[i] - c[i]));
        out[i] = v;
        s += v;
    }
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    int *r = malloc(sizeof(int) * 4 * n), *out = malloc(sizeof(int) * n);
    unsigned state = 2463534242u;
    for (int i = 0; i < 4 * n; i++) {
        state = state * 1103515245u + 12345u;
        r[i] = (int)((state >> 16) % 1000);
    }
    printf("%ld\n", kernel(n, r, r + n, r + 2 * n, r + 3 * n, out));
    free(r); free(out);
    return 0;
}
