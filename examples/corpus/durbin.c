/* durbin: Levinson-Durbin recursion for a Toeplitz system; the reversed inner access
 * r[k-i-1] and the division per step.
 * corpus: kernel=durbin args="200" params="n=200" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 400
#endif

void durbin(int n, const double *r, double *y, double *z)
{
    double alpha = -r[0], beta = 1.0;
    y[0] = -r[0];
    for (int k = 1; k < n; k++) {
        beta = (1 - alpha * alpha) * beta;
        double sum = 0.0;
        for (int i = 0; i < k; i++)
            sum += r[k - i - 1] * y[i];
        alpha = -(r[k] + sum) / beta;
        for (int i = 0; i < k; i++)
            z[i] = y[i] + alpha * y[k - i - 1];
        for (int i = 0; i < k; i++)
            y[i] = z[i];
        y[k] = alpha;
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    double *r = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n), *z = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++)
        r[i] = 0.5 / (i + 2);
    durbin(n, r, y, z);
    printf("%.6f\n", y[n - 1]);
    free(r); free(y); free(z);
    return 0;
}
