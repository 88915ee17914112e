/* knapsack: 0/1 knapsack over one array, capacity loop running down so each item is used
 * once; item i weighs i % 7 + 1 (derived from the index, so the bound is affine per item class).
 * corpus: kernel=knapsack args="60 500" params="items=60,cap=500" memprofile="30 250" */
#include <stdio.h>
#include <stdlib.h>

#ifndef ITEMS
#define ITEMS 100
#endif
#ifndef CAP
#define CAP 1000
#endif

long knapsack(int items, int cap, const int *weight, const long *value, long *best)
{
    for (int w = 0; w <= cap; w++)
        best[w] = 0;
    for (int i = 0; i < items; i++)
        for (int w = cap; w >= weight[i]; w--) {
            long with = best[w - weight[i]] + value[i];
            if (with > best[w])
                best[w] = with;
        }
    return best[cap];
}

int main(int argc, char **argv)
{
    int items = argc > 1 ? atoi(argv[1]) : ITEMS;
    int cap = argc > 2 ? atoi(argv[2]) : CAP;
    int *weight = malloc(sizeof(int) * items);
    long *value = malloc(sizeof(long) * items), *best = malloc(sizeof(long) * (cap + 1));
    for (int i = 0; i < items; i++) {
        weight[i] = i % 7 + 1;
        value[i] = (i * 37) % 101;
    }
    printf("%ld\n", knapsack(items, cap, weight, value, best));
    free(weight); free(value); free(best);
    return 0;
}
