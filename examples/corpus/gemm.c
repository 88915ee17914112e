/* gemm: C = alpha*A*B + beta*C, row-major, sizes at run time.
 * corpus: kernel=gemm args="40 32 24" params="ni=40,nj=32,nk=24" */
#include <stdio.h>
#include <stdlib.h>

#ifndef NI
#define NI 64
#endif
#ifndef NJ
#define NJ 64
#endif
#ifndef NK
#define NK 64
#endif

void gemm(int ni, int nj, int nk, double alpha, double beta,
          double *c, const double *a, const double *b)
{
    for (int i = 0; i < ni; i++) {
        for (int j = 0; j < nj; j++)
            c[i * nj + j] *= beta;
        for (int k = 0; k < nk; k++) {
            double aik = alpha * a[i * nk + k];
            for (int j = 0; j < nj; j++)
                c[i * nj + j] += aik * b[k * nj + j];
        }
    }
}

int main(int argc, char **argv)
{
    int ni = NI, nj = NJ, nk = NK;
    if (argc > 3) {
        ni = atoi(argv[1]);
        nj = atoi(argv[2]);
        nk = atoi(argv[3]);
    }
    double *a = malloc(sizeof(double) * ni * nk);
    double *b = malloc(sizeof(double) * nk * nj);
    double *c = malloc(sizeof(double) * ni * nj);
    for (int i = 0; i < ni; i++)
        for (int k = 0; k < nk; k++)
            a[i * nk + k] = (double)((i * k + 1) % ni) / ni;
    for (int k = 0; k < nk; k++)
        for (int j = 0; j < nj; j++)
            b[k * nj + j] = (double)(k * (j + 1) % nj) / nj;
    for (int i = 0; i < ni; i++)
        for (int j = 0; j < nj; j++)
            c[i * nj + j] = (double)(i * j % 7) / 7.0;
    gemm(ni, nj, nk, 1.5, 1.2, c, a, b);
    double s = 0;
    for (int i = 0; i < ni; i++)
        s += c[i * nj + i % nj];
    printf("%.6f\n", s);
    free(a); free(b); free(c);
    return 0;
}
