/* mm3_suite: G = (A B)(C D) through two temporaries, seven matrices of five sizes (the last
 * arrays past the sixth integer argument, on the stack); a suite-style program
 * (suite/benchutil.c).
 * corpus: kernel=kernel_mm3 args="" params="ni=16,nj=18,nk=20,nl=22,nm=24" sources="suite/benchutil.c" cflags="-Isuite -DMINI" */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "benchutil.h"
#include "mm3_suite.h"

static void init_array(int ni, int nj, int nk, int nl, int nm, DATA_TYPE BU_2D(A, NI, NK, ni, nk),
                       DATA_TYPE BU_2D(B, NK, NJ, nk, nj), DATA_TYPE BU_2D(C, NJ, NM, nj, nm),
                       DATA_TYPE BU_2D(D, NM, NL, nm, nl))
{
    int i, j;
    for (i = 0; i < ni; i++)
        for (j = 0; j < nk; j++)
            A[i][j] = (DATA_TYPE)((i * j + 1) % ni) / (5 * ni);
    for (i = 0; i < nk; i++)
        for (j = 0; j < nj; j++)
            B[i][j] = (DATA_TYPE)((i * (j + 1) + 2) % nj) / (5 * nj);
    for (i = 0; i < nj; i++)
        for (j = 0; j < nm; j++)
            C[i][j] = (DATA_TYPE)(i * (j + 3) % nl) / (5 * nl);
    for (i = 0; i < nm; i++)
        for (j = 0; j < nl; j++)
            D[i][j] = (DATA_TYPE)((i * (j + 2) + 2) % nk) / (5 * nk);
}

static void print_array(int ni, int nl, DATA_TYPE BU_2D(G, NI, NL, ni, nl))
{
    int i, j;
    for (i = 0; i < ni; i++)
        for (j = 0; j < nl; j++) {
            if ((i * ni + j) % 20 == 0)
                fprintf(stderr, "\n");
            fprintf(stderr, DATA_PRINTF_MODIFIER, G[i][j]);
        }
    fprintf(stderr, "\n");
}

static void kernel_mm3(int ni, int nj, int nk, int nl, int nm, DATA_TYPE BU_2D(E, NI, NJ, ni, nj),
                       DATA_TYPE BU_2D(A, NI, NK, ni, nk), DATA_TYPE BU_2D(B, NK, NJ, nk, nj),
                       DATA_TYPE BU_2D(F, NJ, NL, nj, nl), DATA_TYPE BU_2D(C, NJ, NM, nj, nm),
                       DATA_TYPE BU_2D(D, NM, NL, nm, nl), DATA_TYPE BU_2D(G, NI, NL, ni, nl))
{
    int i, j, k;

#pragma scop
    /* E := A*B */
    for (i = 0; i < _NI_; i++)
        for (j = 0; j < _NJ_; j++) {
            E[i][j] = SCALAR_VAL(0.0);
            for (k = 0; k < _NK_; ++k)
                E[i][j] += A[i][k] * B[k][j];
        }
    /* F := C*D */
    for (i = 0; i < _NJ_; i++)
        for (j = 0; j < _NL_; j++) {
            F[i][j] = SCALAR_VAL(0.0);
            for (k = 0; k < _NM_; ++k)
                F[i][j] += C[i][k] * D[k][j];
        }
    /* G := E*F */
    for (i = 0; i < _NI_; i++)
        for (j = 0; j < _NL_; j++) {
            G[i][j] = SCALAR_VAL(0.0);
            for (k = 0; k < _NJ_; ++k)
                G[i][j] += E[i][k] * F[k][j];
        }
#pragma endscop
}

int main(int argc, char **argv)
{
    int ni = NI;
    int nj = NJ;
    int nk = NK;
    int nl = NL;
    int nm = NM;
    BU_2D_ARRAY(E, DATA_TYPE, NI, NJ, ni, nj);
    BU_2D_ARRAY(A, DATA_TYPE, NI, NK, ni, nk);
    BU_2D_ARRAY(B, DATA_TYPE, NK, NJ, nk, nj);
    BU_2D_ARRAY(F, DATA_TYPE, NJ, NL, nj, nl);
    BU_2D_ARRAY(C, DATA_TYPE, NJ, NM, nj, nm);
    BU_2D_ARRAY(D, DATA_TYPE, NM, NL, nm, nl);
    BU_2D_ARRAY(G, DATA_TYPE, NI, NL, ni, nl);

    init_array(ni, nj, nk, nl, nm, BU_ARRAY(A), BU_ARRAY(B), BU_ARRAY(C), BU_ARRAY(D));

    bu_timer_start();
    kernel_mm3(ni, nj, nk, nl, nm, BU_ARRAY(E), BU_ARRAY(A), BU_ARRAY(B), BU_ARRAY(F), BU_ARRAY(C),
               BU_ARRAY(D), BU_ARRAY(G));
    bu_timer_stop();

    bu_prevent_dce(print_array(ni, nl, BU_ARRAY(G)));

    BU_FREE(E);
    BU_FREE(A);
    BU_FREE(B);
    BU_FREE(F);
    BU_FREE(C);
    BU_FREE(D);
    BU_FREE(G);
    return 0;
}
