/* chain_products_pb: G = (A B)(C D) through two temporaries, five sizes and seven
 * fixed-size array parameters (the last one past the sixth integer argument, on the stack).
 * corpus: kernel=chain_products_pb args="" params="ni=14,nj=16,nk=18,nl=15,nm=17" cflags="-DNI=14 -DNJ=16 -DNK=18 -DNL=15 -DNM=17" */
#include <stdio.h>
#include <stdlib.h>

#ifndef NI
#define NI 180
#endif
#ifndef NJ
#define NJ 190
#endif
#ifndef NK
#define NK 200
#endif
#ifndef NL
#define NL 210
#endif
#ifndef NM
#define NM 220
#endif

static void fill(int rows, int cols, double X[rows][cols], int seed)
{
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            X[i][j] = (double)((i * seed + j + 1) % 17) / (5.0 * seed);
}

static void chain_products_pb(int ni, int nj, int nk, int nl, int nm,
                              double E[NI][NJ], double A[NI][NK], double B[NK][NJ],
                              double F[NJ][NL], double C[NJ][NM], double D[NM][NL],
                              double G[NI][NL])
{
    int i, j, k;
    /* E := A*B */
    for (i = 0; i < ni; i++)
        for (j = 0; j < nj; j++) {
            E[i][j] = 0.0;
            for (k = 0; k < nk; ++k)
                E[i][j] += A[i][k] * B[k][j];
        }
    /* F := C*D */
    for (i = 0; i < nj; i++)
        for (j = 0; j < nl; j++) {
            F[i][j] = 0.0;
            for (k = 0; k < nm; ++k)
                F[i][j] += C[i][k] * D[k][j];
        }
    /* G := E*F */
    for (i = 0; i < ni; i++)
        for (j = 0; j < nl; j++) {
            G[i][j] = 0.0;
            for (k = 0; k < nj; ++k)
                G[i][j] += E[i][k] * F[k][j];
        }
}

int main(void)
{
    int ni = NI, nj = NJ, nk = NK, nl = NL, nm = NM;
    double (*E)[NI][NJ] = malloc(sizeof(double[NI][NJ]));
    double (*A)[NI][NK] = malloc(sizeof(double[NI][NK]));
    double (*B)[NK][NJ] = malloc(sizeof(double[NK][NJ]));
    double (*F)[NJ][NL] = malloc(sizeof(double[NJ][NL]));
    double (*C)[NJ][NM] = malloc(sizeof(double[NJ][NM]));
    double (*D)[NM][NL] = malloc(sizeof(double[NM][NL]));
    double (*G)[NI][NL] = malloc(sizeof(double[NI][NL]));
    fill(ni, nk, *A, 3);
    fill(nk, nj, *B, 5);
    fill(nj, nm, *C, 7);
    fill(nm, nl, *D, 11);
    chain_products_pb(ni, nj, nk, nl, nm, *E, *A, *B, *F, *C, *D, *G);
    double s = 0;
    for (int i = 0; i < ni; i++)
        s += (*G)[i][i % nl];
    printf("%.6f\n", s);
    free(E); free(A); free(B); free(F); free(C); free(D); free(G);
    return 0;
}
