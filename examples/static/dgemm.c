/* DGEMM, naive and blocked, with the size as a run-time argument (multiple of BS). */
#include <stdio.h>
#include <stdlib.h>

#define BS 8

void dgemm_naive(int n, const double *a, const double *b, double *c) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++)
                c[i * n + j] += a[i * n + k] * b[k * n + j];
}

void dgemm_blocked(int n, const double *a, const double *b, double *c) {
    for (int ii = 0; ii < n; ii += BS)
        for (int kk = 0; kk < n; kk += BS)
            for (int jj = 0; jj < n; jj += BS)
                for (int i = ii; i < ii + BS; i++)
                    for (int k = kk; k < kk + BS; k++)
                        for (int j = jj; j < jj + BS; j++)
                            c[i * n + j] += a[i * n + k] * b[k * n + j];
}

int main(int argc, char **argv) {
    #pragma @Annotation {br_prob: 1}
    int n = argc > 1 ? atoi(argv[1]) : 64;
    double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n),
           *c = calloc((size_t)n * n, sizeof(double));
    for (int i = 0; i < n * n; i++) {
#pragma @Annotation {lp_cond: nn}
        a[i] = 1.0 / (i + 1);
        b[i] = 2.0;
    }
    dgemm_naive(n, a, b, c);
    dgemm_blocked(n, a, b, c);
    printf("%f\n", c[n + 1]);
    free(a);
    free(b);
    free(c);
    return 0;
}
