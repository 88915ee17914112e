/* STREAM-like kernels (copy, scale, add, triad), written for metron's static examples.
 * Size: the macro STREAM_ARRAY_SIZE, overridable at run time by argv[1]. */
#include <stdio.h>
#include <stdlib.h>

#ifndef STREAM_ARRAY_SIZE
#define STREAM_ARRAY_SIZE 20000
#endif

void copy(double *c, const double *a, int n) {
    for (int j = 0; j < n; j++)
        c[j] = a[j];
}

void scale(double *b, const double *c, double s, int n) {
    for (int j = 0; j < n; j++)
        b[j] = s * c[j];
}

void add(double *c, const double *a, const double *b, int n) {
    for (int j = 0; j < n; j++)
        c[j] = a[j] + b[j];
}

void triad(double *a, const double *b, const double *c, double s, int n) {
    for (int j = 0; j < n; j++)
        a[j] = b[j] + s * c[j];
}

int main(int argc, char **argv) {
    #pragma @Annotation {br_prob: 1}
    int n = argc > 1 ? atoi(argv[1]) : STREAM_ARRAY_SIZE;
    double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n),
           *c = malloc(sizeof(double) * n);
    for (int j = 0; j < n; j++) {
        a[j] = 1.0;
        b[j] = 2.0;
        c[j] = 0.0;
    }
    copy(c, a, n);
    scale(b, c, 3.0, n);
    add(c, a, b, n);
    triad(a, b, c, 3.0, n);
    printf("%f\n", a[n / 2]);
    free(a);
    free(b);
    free(c);
    return 0;
}
