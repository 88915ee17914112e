/* Triangular and min/max-bounded nests (004 Listings 2 and 3 shapes), and affine / modulo ifs
 * (004 Listings 4 and 5), with the size as a run-time argument. */
#include <stdio.h>
#include <stdlib.h>

double triangular(double *x, int n) {
    double s = 0.0;
    for (int i = 1; i <= n; i++)
        for (int j = i + 1; j <= n + 2; j++)
            s += x[i] * x[j];
    return s;
}

double minmax(double *x, int n, int m) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < (i < m ? i : m); j++)
            s += x[j];
    return s;
}

int main(int argc, char **argv) {
    #pragma @Annotation {br_prob: 1}
    int n = argc > 1 ? atoi(argv[1]) : 100;
    double *x = malloc(sizeof(double) * (n + 3));
    for (int i = 0; i < n + 3; i++)
        x[i] = 1.0 / (i + 1);
    printf("%f %f\n", triangular(x, n), minmax(x, n, n / 2));
    free(x);
    return 0;
}
