/* lcs: longest common subsequence length by dynamic programming with max, row-major table.
 * corpus: kernel=lcs args="300 200" params="n=300,m=200" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 500
#endif
#ifndef M
#define M 400
#endif

static int max2(int a, int b) { return a > b ? a : b; }

int lcs(int n, int m, const char *x, const char *y, int *tab)
{
    for (int j = 0; j <= m; j++)
        tab[j] = 0;
    for (int i = 1; i <= n; i++) {
        tab[i * (m + 1)] = 0;
        for (int j = 1; j <= m; j++) {
            if (x[i - 1] == y[j - 1])
                tab[i * (m + 1) + j] = tab[(i - 1) * (m + 1) + j - 1] + 1;
            else
                tab[i * (m + 1) + j] = max2(tab[(i - 1) * (m + 1) + j], tab[i * (m + 1) + j - 1]);
        }
    }
    return tab[n * (m + 1) + m];
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    int m = argc > 2 ? atoi(argv[2]) : M;
    char *x = malloc(n), *y = malloc(m);
    int *tab = malloc(sizeof(int) * (n + 1) * (m + 1));
    for (int i = 0; i < n; i++)
        x[i] = "ACGT"[(i * 7 + 3) % 4];
    for (int j = 0; j < m; j++)
        y[j] = "ACGT"[(j * 5 + 1) % 4];
    printf("%d\n", lcs(n, m, x, y, tab));
    free(x); free(y); free(tab);
    return 0;
}
