/* floyd_warshall: all-pairs shortest paths on a fixed-size graph, min by comparison.
 * corpus: kernel=floyd_warshall args="" params="" cflags="-DN=60" */
#include <stdio.h>

#ifndef N
#define N 100
#endif

static int path[N][N];

void floyd_warshall(void)
{
    for (int k = 0; k < N; k++)
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                path[i][j] = path[i][j] < path[i][k] + path[k][j] ? path[i][j] : path[i][k] + path[k][j];
}

int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            path[i][j] = i * j % 7 + 1;
            if ((i + j) % 13 == 0 || (i + j) % 7 == 0 || (i + j) % 11 == 0)
                path[i][j] = 999;
        }
    floyd_warshall();
    printf("%d\n", path[N - 1][0]);
    return 0;
}
