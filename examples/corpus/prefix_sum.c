/* prefix_sum: inclusive scan of each row, then a reverse (suffix) scan from the right.
 * corpus: kernel=prefix_suffix args="50 400" params="rows=50,len=400" */
#include <stdio.h>
#include <stdlib.h>

#ifndef ROWS
#define ROWS 100
#endif
#ifndef LEN
#define LEN 1000
#endif

void prefix_suffix(int rows, int len, const long *x, long *pre, long *suf)
{
    for (int r = 0; r < rows; r++) {
        const long *xr = x + (size_t)r * len;
        long *p = pre + (size_t)r * len, *s = suf + (size_t)r * len;
        p[0] = xr[0];
        for (int i = 1; i < len; i++)
            p[i] = p[i - 1] + xr[i];
        s[len - 1] = xr[len - 1];
        for (int i = len - 2; i >= 0; --i)
            s[i] = s[i + 1] + xr[i];
    }
}

int main(int argc, char **argv)
{
    int rows = argc > 1 ? atoi(argv[1]) : ROWS;
    int len = argc > 2 ? atoi(argv[2]) : LEN;
    long *x = malloc(sizeof(long) * rows * len), *pre = malloc(sizeof(long) * rows * len);
    long *suf = malloc(sizeof(long) * rows * len);
    for (int i = 0; i < rows * len; i++)
        x[i] = i % 9 - 4;
    prefix_suffix(rows, len, x, pre, suf);
    printf("%ld %ld\n", pre[len - 1], suf[0]);
    free(x); free(pre); free(suf);
    return 0;
}
