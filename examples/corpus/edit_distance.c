/* edit_distance: Levenshtein distance with two rolling rows and a three-way min.
 * corpus: kernel=edit_distance args="300 250" params="n=300,m=250" */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef N
#define N 600
#endif
#ifndef M
#define M 500
#endif

#define MIN(a, b) ((a) < (b) ? (a) : (b))

int edit_distance(int n, int m, const char *s, const char *t, int *prev, int *cur)
{
    for (int j = 0; j <= m; j++)
        prev[j] = j;
    for (int i = 1; i <= n; i++) {
        cur[0] = i;
        for (int j = 1; j <= m; j++) {
            int sub = prev[j - 1] + (s[i - 1] != t[j - 1]);
            cur[j] = MIN(MIN(prev[j] + 1, cur[j - 1] + 1), sub);
        }
        memcpy(prev, cur, sizeof(int) * (m + 1));
    }
    return prev[m];
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    int m = argc > 2 ? atoi(argv[2]) : M;
    char *s = malloc(n), *t = malloc(m);
    int *prev = malloc(sizeof(int) * (m + 1)), *cur = malloc(sizeof(int) * (m + 1));
    for (int i = 0; i < n; i++)
        s[i] = 'a' + (i * 13) % 7;
    for (int j = 0; j < m; j++)
        t[j] = 'a' + (j * 11) % 5;
    printf("%d\n", edit_distance(n, m, s, t, prev, cur));
    free(s); free(t); free(prev); free(cur);
    return 0;
}
