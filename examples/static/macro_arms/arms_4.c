/* metron static-macro-arms seed 4: nested ?: macros on uniform data. A regression case:
 * at clang -O0 a branch profile recorded at n = 2000 predicted n = 4000 4.5% off before;
 * the runs took the `MAX`'s branch on data to its constant arm 400, so the `MIN`'s compare of
 * 400 with 500 was a value they knew, and the join of the inner `MAX` was refitted to n (the
 * data takes it half the time). Values a branch on data chose are data (calibrate/run.rs).
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
        int v = CLAMP(a[i], 400, 500);
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
