/* tensor_contract: A[r][q][p] = sum_s A[r][q][s] * C4[s][p] through a row buffer, 3-D
 * fixed-size arrays.
 * corpus: kernel=tensor_contract args="" params="nr=10,nq=8,np=12" cflags="-DNR=10 -DNQ=8 -DNP=12" */
#include <stdio.h>
#include <stdlib.h>

#ifndef NR
#define NR 50
#endif
#ifndef NQ
#define NQ 40
#endif
#ifndef NP
#define NP 60
#endif

static void init_array(int nr, int nq, int np, double A[NR][NQ][NP], double C4[NP][NP])
{
    for (int i = 0; i < nr; i++)
        for (int j = 0; j < nq; j++)
            for (int k = 0; k < np; k++)
                A[i][j][k] = (double)((i * j + k) % np) / np;
    for (int i = 0; i < np; i++)
        for (int j = 0; j < np; j++)
            C4[i][j] = (double)(i * j % np) / np;
}

static void tensor_contract(int nr, int nq, int np, double A[NR][NQ][NP], double C4[NP][NP],
                            double sum[NP])
{
    int r, q, p, s;
    for (r = 0; r < nr; r++)
        for (q = 0; q < nq; q++) {
            for (p = 0; p < np; p++) {
                sum[p] = 0.0;
                for (s = 0; s < np; s++)
                    sum[p] += A[r][q][s] * C4[s][p];
            }
            for (p = 0; p < np; p++)
                A[r][q][p] = sum[p];
        }
}

int main(void)
{
    int nr = NR, nq = NQ, np = NP;
    double (*A)[NR][NQ][NP] = malloc(sizeof(double[NR][NQ][NP]));
    double (*sum)[NP] = malloc(sizeof(double[NP]));
    double (*C4)[NP][NP] = malloc(sizeof(double[NP][NP]));
    init_array(nr, nq, np, *A, *C4);
    tensor_contract(nr, nq, np, *A, *C4, *sum);
    printf("%.6f\n", (*A)[0][0][0] + (*A)[nr - 1][nq - 1][np - 1]);
    free(A); free(sum); free(C4);
    return 0;
}
