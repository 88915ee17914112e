/* cgs: classical Gram-Schmidt orthonormalisation of n vectors of length len, in place.
 * corpus: kernel=cgs args="30 200" params="n=30,len=200" */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 40
#endif
#ifndef LEN
#define LEN 256
#endif

void cgs(int n, int len, double *v, double *coef)
{
    for (int k = 0; k < n; k++) {
        double *vk = v + (size_t)k * len;
        for (int j = 0; j < k; j++) {
            double c = 0.0;
            for (int i = 0; i < len; i++)
                c += v[(size_t)j * len + i] * vk[i];
            coef[j] = c;
        }
        for (int j = 0; j < k; j++)
            for (int i = 0; i < len; i++)
                vk[i] -= coef[j] * v[(size_t)j * len + i];
        double s = 0.0;
        for (int i = 0; i < len; i++)
            s += vk[i] * vk[i];
        double inv = 1.0 / sqrt(s);
        for (int i = 0; i < len; i++)
            vk[i] *= inv;
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    int len = argc > 2 ? atoi(argv[2]) : LEN;
    double *v = malloc(sizeof(double) * n * len), *coef = malloc(sizeof(double) * n);
    for (int k = 0; k < n; k++)
        for (int i = 0; i < len; i++)
            v[k * len + i] = (i == k ? 5.0 : 0.0) + 1.0 / (1 + i + 2 * k);
    cgs(n, len, v, coef);
    printf("%.6f\n", v[n * len - 1]);
    free(v); free(coef);
    return 0;
}
