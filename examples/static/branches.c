/* Branches (004 §III.C.3): affine `if` (Listing 4), modulo `if`/else (Listing 5) in loops, an
 * `if` outside loops and `?:`s (guarded, main), with the size as a run-time argument. */
#include <stdio.h>
#include <stdlib.h>

double affine_if(double *x, int n) {
    double s = 0.0;
    for (int i = 1; i <= n; i++)
        for (int j = i + 1; j <= n + 2; j++)
            if (j > i + 4) {
                s += x[i] * x[j];
                x[j] = s;
            }
    return s;
}

double modulo_if(double *x, int n) {
    double s = 0.0, t = 1.0;
    for (int i = 1; i <= n; i++)
        for (int j = i + 1; j <= n + 2; j++)
            if (j % 4 != 0) {
                s += x[j];
                x[j] = s;
            } else {
                t *= x[i];
                x[i] = t;
            }
    return s + t;
}

/* An `if` outside any loop on a parameter (counted 1 or 0 by the parameter's value) and a
 * `?:` in a loop body (its arms share a line; DWARF columns tell them apart). */
double guarded(double *x, int n) {
    double s = 0.0;
    if (n > 200) {
        s = x[0] * 2.0;
        x[1] = s;
    } else {
        s = x[1] + 1.0;
    }
    for (int i = 0; i < n; i++)
        s += i > n - 10 ? x[i] : 0.5 * x[i];
    return s;
}

int main(int argc, char **argv) {
    /* Run with an argument: the `?:` on argc takes its then arm (argc is run-time input). */
#pragma @Annotation {br_prob: 1}
    int n = argc > 1 ? atoi(argv[1]) : 100;
    double *x = malloc(sizeof(double) * (n + 3));
    for (int i = 0; i < n + 3; i++)
        x[i] = 1.0 / (i + 1);
    double a = affine_if(x, n);
    double m = modulo_if(x, n);
    double g = guarded(x, n);
    printf("%f %f %f\n", a, m, g);
    free(x);
    return 0;
}
