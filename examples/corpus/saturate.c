/* saturate: 8-bit pixels scaled by a gain and clamped to [0, 255], and soft thresholding
 * (shrinkage) of signed coefficients; clamp bounds are constants, as image code writes them.
 * corpus: kernel=saturate args="4000" params="n=4000" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 20000
#endif

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define CLAMP(v, lo, hi) MIN(MAX(v, lo), hi)

/* Applies a gain (8.8 fixed point) and a bias; counts the pixels that saturate white. */
long saturate(int n, const unsigned char *in, unsigned char *out, int gain, int bias)
{
    long white = 0;
    for (int i = 0; i < n; i++) {
        int v = ((in[i] * gain) >> 8) + bias;
        out[i] = (unsigned char)CLAMP(v, 0, 255);
        white += out[i] == 255;
    }
    return white;
}

/* Shrinks each coefficient towards zero by t: x - t above t, x + t below -t, else 0. */
long soft_threshold(int n, const int *x, int *y, int t)
{
    long kept = 0;
    for (int i = 0; i < n; i++) {
        int v = x[i] > t ? x[i] - t : (x[i] < -t ? x[i] + t : 0);
        y[i] = v;
        kept += v != 0;
    }
    return kept;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    unsigned char *in = malloc(n), *out = malloc(n);
    int *x = malloc(sizeof(int) * n), *y = malloc(sizeof(int) * n);
    /* Inputs as benchmark suites make them: formulas of the index, every value as often. */
    for (int i = 0; i < n; i++) {
        in[i] = (unsigned char)((i * 97 + 13) % 256);
        x[i] = (i * 379 % 1000) * 2 - 1000;
    }
    printf("%ld\n", saturate(n, in, out, 300, -20));
    printf("%ld\n", soft_threshold(n, x, y, 300));
    free(in); free(out); free(x); free(y);
    return 0;
}
