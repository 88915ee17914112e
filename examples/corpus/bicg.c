/* bicg: the two matrix-vector products of BiCGStab, s = A^T r and q = A p, in one sweep.
 * corpus: kernel=bicg args="80 60" params="m=80,n=60" */
#include <stdio.h>
#include <stdlib.h>

#ifndef M
#define M 200
#endif
#ifndef N
#define N 150
#endif

void bicg(int m, int n, const double *a, double *s, double *q, const double *p, const double *r)
{
    for (int j = 0; j < n; j++)
        s[j] = 0.0;
    for (int i = 0; i < m; i++) {
        q[i] = 0.0;
        for (int j = 0; j < n; j++) {
            s[j] = s[j] + r[i] * a[i * n + j];
            q[i] = q[i] + a[i * n + j] * p[j];
        }
    }
}

int main(int argc, char **argv)
{
    int m = argc > 1 ? atoi(argv[1]) : M;
    int n = argc > 2 ? atoi(argv[2]) : N;
    double *a = malloc(sizeof(double) * m * n), *s = malloc(sizeof(double) * n), *q = malloc(sizeof(double) * m);
    double *p = malloc(sizeof(double) * n), *r = malloc(sizeof(double) * m);
    for (int j = 0; j < n; j++)
        p[j] = (double)(j % n) / n;
    for (int i = 0; i < m; i++) {
        r[i] = (double)(i % m) / m;
        for (int j = 0; j < n; j++)
            a[i * n + j] = (double)(i * (j + 1) % m) / m;
    }
    bicg(m, n, a, s, q, p, r);
    printf("%.6f %.6f\n", s[n - 1], q[m - 1]);
    free(a); free(s); free(q); free(p); free(r);
    return 0;
}
