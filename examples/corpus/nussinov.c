/* nussinov: RNA folding, i from n-1 down to 0, j from i+1 up, k between; max over pairs.
 * corpus: kernel=nussinov args="80" params="n=80" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 120
#endif

#define MAX(a, b) ((a) >= (b) ? (a) : (b))
#define MATCH(b1, b2) (((b1) + (b2)) == 3 ? 1 : 0)

void nussinov(int n, const int *seq, int *table)
{
    for (int i = n - 1; i >= 0; i--) {
        for (int j = i + 1; j < n; j++) {
            if (j - 1 >= 0)
                table[i * n + j] = MAX(table[i * n + j], table[i * n + j - 1]);
            if (i + 1 < n)
                table[i * n + j] = MAX(table[i * n + j], table[(i + 1) * n + j]);
            if (j - 1 >= 0 && i + 1 < n) {
                if (i < j - 1)
                    table[i * n + j] = MAX(table[i * n + j], table[(i + 1) * n + j - 1] + MATCH(seq[i], seq[j]));
                else
                    table[i * n + j] = MAX(table[i * n + j], table[(i + 1) * n + j - 1]);
            }
            for (int k = i + 1; k < j; k++)
                table[i * n + j] = MAX(table[i * n + j], table[i * n + k] + table[(k + 1) * n + j]);
        }
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    int *seq = malloc(sizeof(int) * n), *table = calloc((size_t)n * n, sizeof(int));
    for (int i = 0; i < n; i++)
        seq[i] = (i + 1) % 4;
    nussinov(n, seq, table);
    printf("%d\n", table[n - 1]);
    free(seq); free(table);
    return 0;
}
