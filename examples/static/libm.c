/* Calls into code that is not analysed (libm's exp, libc's printf): counted as the call and
 * its set-up, flagged, and charged by a `call_cost` annotation (docs/static.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#pragma @Annotation {call_cost: exp=40}

double softplus_sum(const double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += log1p(exp(x[i]));
    return s;
}

int main(int argc, char **argv) {
    #pragma @Annotation {br_prob: 1}
    int n = argc > 1 ? atoi(argv[1]) : 100;
    double *x = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++)
        x[i] = 1.0 / (i + 1);
    printf("%f\n", softplus_sum(x, n));
    free(x);
    return 0;
}
