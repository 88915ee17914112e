#include "signal.h"

/* Clamps x to [lo, hi] in place and returns how many samples were clipped. */
int clip(int n, double *x, double lo, double hi)
{
    int clipped = 0;
    for (int i = 0; i < n; i++) {
        if (x[i] < lo) {
            x[i] = lo;
            clipped++;
        } else if (x[i] > hi) {
            x[i] = hi;
            clipped++;
        }
    }
    return clipped;
}
