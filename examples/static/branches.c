/* Branches inside loops (004 §III.C.3): an affine `if` (Listing 4's shape) and a modulo `if`
 * with an else arm (Listing 5's shape), with the size as a run-time argument. */
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

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100;
    double *x = malloc(sizeof(double) * (n + 3));
    for (int i = 0; i < n + 3; i++)
        x[i] = 1.0 / (i + 1);
    double a = affine_if(x, n);
    double m = modulo_if(x, n);
    printf("%f %f\n", a, m);
    free(x);
    return 0;
}
