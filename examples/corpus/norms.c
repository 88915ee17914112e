/* norms: 1-, 2- and max-norms of vector slices, a reduction per norm; the kernel is called
 * with a constant stride, which gcc specialises into a .constprop clone.
 * corpus: kernel=norms args="3000" params="n=3000" memparams="stride=1" memcflags="-Dstatic=" */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 10000
#endif

static void norms(int n, int stride, const double *x, double *out)
{
    double s1 = 0.0, s2 = 0.0, mx = 0.0;
    for (int i = 0; i < n; i += stride) {
        double a = fabs(x[i]);
        s1 += a;
        s2 += x[i] * x[i];
        mx = a > mx ? a : mx;
    }
    out[0] = s1;
    out[1] = sqrt(s2);
    out[2] = mx;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    double *x = malloc(sizeof(double) * n), out[3], total = 0.0;
    for (int i = 0; i < n; i++)
        x[i] = ((i * 37) % 101 - 50) / 25.0;
    norms(n, 1, x, out);
    total += out[0] + out[1] + out[2];
    norms(n - 1, 1, x + 1, out);
    total += out[0] + out[1] + out[2];
    printf("%.6f\n", total);
    free(x);
    return 0;
}
