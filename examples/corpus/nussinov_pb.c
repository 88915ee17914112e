/* nussinov_pb: RNA folding table filled bottom-up (i down from n-1), max of neighbours,
 * a pairing test on the data and a split point k; fixed-size arrays, sizes from main.
 * corpus: kernel=nussinov_pb args="" params="n=40" cflags="-DN=40" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 500
#endif

#define max_score(s1, s2) ((s1 >= s2) ? s1 : s2)
#define match(b1, b2) (((b1) + (b2)) == 3 ? 1 : 0)

static void init_array(int n, char seq[N], int table[N][N])
{
    for (int i = 0; i < n; i++)
        seq[i] = (char)((i + 1) % 4);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            table[i][j] = 0;
}

static void nussinov_pb(int n, char seq[N], int table[N][N])
{
    int i, j, k;
    for (i = n - 1; i >= 0; i--) {
        for (j = i + 1; j < n; j++) {
            if (j - 1 >= 0)
                table[i][j] = max_score(table[i][j], table[i][j - 1]);
            if (i + 1 < n)
                table[i][j] = max_score(table[i][j], table[i + 1][j]);
            if (j - 1 >= 0 && i + 1 < n) {
                if (i < j - 1)
                    table[i][j] = max_score(table[i][j], table[i + 1][j - 1] + match(seq[i], seq[j]));
                else
                    table[i][j] = max_score(table[i][j], table[i + 1][j - 1]);
            }
            for (k = i + 1; k < j; k++)
                table[i][j] = max_score(table[i][j], table[i][k] + table[k + 1][j]);
        }
    }
}

int main(void)
{
    int n = N;
    char (*seq)[N] = malloc(sizeof(char[N]));
    int (*table)[N][N] = malloc(sizeof(int[N][N]));
    init_array(n, *seq, *table);
    nussinov_pb(n, *seq, *table);
    printf("%d\n", (*table)[0][n - 1]);
    free(seq); free(table);
    return 0;
}
