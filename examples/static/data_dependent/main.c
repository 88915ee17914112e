#include <stdio.h>
#include <stdlib.h>

#include "signal.h"

/* Usage: pipeline N (N a multiple of 20: the test pattern repeats every 20 samples) */
int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2000;
    double *x = malloc(n * sizeof *x), *p = malloc(n * sizeof *p), *amp = malloc(n * sizeof *amp);
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    for (int i = 0; i < n; i++) {
        /* 3 of every 20 below -1, 2 above 1; 4 of every 20 power estimates negative. */
        int k = i % 20;
        x[i] = k < 3 ? -1.5 - k : (k < 5 ? 1.25 + k : 0.05 * (k - 10));
        p[i] = k % 5 == 0 ? -0.01 * (k + 1) : 0.5 * k;
        a[i] = (float)k;
        b[i] = (float)(k % 7);
    }
    int c = clip(n, x, -1.0, 1.0);
    magnitude(n, p, amp);
    float e = rms_error(n, a, b);
    printf("%d %.3f %.3f\n", c, amp[n / 2 + 1], e);
    free(x);
    free(p);
    free(amp);
    free(a);
    free(b);
    return 0;
}
