/* pair_products_do: sum of products of neighbouring pairs, a do-while loop stepping by two
 * (its body runs once even when n < 3).
 * corpus: kernel=pair_products args="301" params="n=301" */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 1001
#endif

double pair_products(int n, const double *a)
{
    double s = 0.0;
    int k;
    k = 0;
    do {
        s += a[k] * a[k + 1];
        k += 2;
    } while (k < n - 1);
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    double *a = malloc(sizeof(double) * (n + 2));
    for (int i = 0; i < n + 2; i++)
        a[i] = 0.5 + i % 4;
    printf("%.6f\n", pair_products(n, a));
    free(a);
    return 0;
}
