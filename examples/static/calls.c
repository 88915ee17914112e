/* Call-site parameters (004 §III.C.5): one kernel called with different sizes. metron binds
 * the callee's `n` to each call's argument when it is affine in main's parameters (`2 * n`,
 * `100`) and names it after the call's line otherwise (`n_43` for the atoi call below).
 * Run: calls [n [k]] */
#include <stdio.h>
#include <stdlib.h>

static double a[1 << 16];

__attribute__((noinline)) void scale(double *x, int n, double s)
{
    for (int i = 0; i < n; i++)
        x[i] *= s;
}

__attribute__((noinline)) double sum_rows(const double *x, int rows, int cols)
{
    double t = 0;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            t += x[r * cols + c];
    return t;
}

/* Always inlined: its loop counts in main's terms (m = 3 * k at the call below). */
static inline __attribute__((always_inline)) void axpy(double *y, const double *x, int m, double s)
{
    for (int i = 0; i < m; i++)
        y[i] += s * x[i];
}

/* Argument `i`, or `fallback` when it is missing (run with both: `argc` is run-time input). */
__attribute__((noinline)) int argument(int argc, char **argv, int i, int fallback)
{
#pragma @Annotation {br_prob: 1}
    return i < argc ? atoi(argv[i]) : fallback;
}

int main(int argc, char **argv)
{
    int n = argument(argc, argv, 1, 1000);
    int k = argument(argc, argv, 2, 3);
    scale(a, atoi("64"), 1.0);
    scale(a, n, 2.0);
    scale(a, 2 * n, 0.5);
    scale(a, 100, 1.5);
    double t = sum_rows(a, k, n);
    axpy(a, a + 16, 3 * k, 0.25);
    printf("%f\n", t + a[0]);
    return 0;
}
