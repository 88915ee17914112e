/* Regions by name through the call-site-caching macros, each bracketed by the program's own
 * CLOCK_MONOTONIC reads: the profile's times can be checked against an independent clock.
 * Prints "<region> <ns measured by the program>" per region. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <time.h>

#include "metron_probe.h"

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void nap(long ms) {
    struct timespec t = {0, ms * 1000000L};
    while (nanosleep(&t, &t) != 0) {
    }
}

/* One scope-timed region: the program's clock reads enclose the probe's. */
static double scoped_nap(void) {
    double t0 = now_ns();
    {
        METRON_REGION("nap_scope");
        nap(20);
    }
    return now_ns() - t0;
}

int main(void) {
    metron_probe_init();
    double scope = 0.0, pair = 0.0;
    for (int i = 0; i < 5; i++) {
        scope += scoped_nap();
    }
    for (int i = 0; i < 5; i++) {
        double t0 = now_ns();
        METRON_ENTER("nap_pair");
        nap(10);
        METRON_EXIT("nap_pair");
        pair += now_ns() - t0;
    }
    printf("nap_scope %.0f\nnap_pair %.0f\n", scope, pair);
    return 0;
}
