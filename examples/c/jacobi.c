/*
 * A 1-D Jacobi solver instrumented with metron-probe, plus the recursion test of
 * Kravchuk 2015, Listing 2.25. Its region counts follow from its structure:
 *   main 1; setup 1; solve 1; sweep ITER; halo ITER; residual ITER/10;
 *   fib_timer1 = fib_timer2 = internal calls of fib(FIB_N) as tree entries,
 *   flat: fib_timer1 = internal calls, fib_timer2 = 1 (outermost activation only).
 * Usage: jacobi [N ITER FIB_N]   (defaults 4096 200 12)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "metron_probe.h"

static uint32_t sweep_id, halo_id, timer1_id, timer2_id;

static double heavy(int n) {
    volatile double s = 0.0;
    for (int i = 0; i < n; i++) s += sqrt((double)i);
    return s;
}

/* Kravchuk 2015, Listing 2.25: timer2 is an inclusive recursion. */
static int fib(int x) {
    if (x == 1 || x == 0) return 1;
    metron_probe_enter_id(timer1_id);
    int tt = (int)heavy(40) & 1;
    metron_probe_exit_id(timer1_id);
    metron_probe_enter_id(timer2_id);
    tt += fib(x - 1) + fib(x - 2);
    metron_probe_exit_id(timer2_id);
    return tt;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 4096;
    int iter = argc > 2 ? atoi(argv[2]) : 200;
    int fib_n = argc > 3 ? atoi(argv[3]) : 12;
    if (n < 3 || iter < 1 || fib_n < 0) {
        fprintf(stderr, "usage: jacobi [N>=3 ITER>=1 FIB_N>=0]\n");
        return 2;
    }
    metron_probe_init();
    sweep_id = metron_probe_register("sweep");
    halo_id = metron_probe_register("halo");
    timer1_id = metron_probe_register("fib_timer1");
    timer2_id = metron_probe_register("fib_timer2");

    metron_probe_enter("main");
    metron_probe_enter("setup");
    double *u = calloc((size_t)n, sizeof *u), *v = calloc((size_t)n, sizeof *v);
    if (!u || !v) return 1;
    u[0] = v[0] = 1.0;
    metron_probe_exit("setup");

    metron_probe_enter("solve");
    double res = 0.0;
    for (int k = 0; k < iter; k++) {
        metron_probe_enter_id(sweep_id);
        for (int i = 1; i < n - 1; i++) v[i] = 0.5 * (u[i - 1] + u[i + 1]);
        metron_probe_exit_id(sweep_id);
        metron_probe_enter_id(halo_id);
        v[n - 1] = v[n - 2];
        double *t = u; u = v; v = t;
        metron_probe_exit_id(halo_id);
        if (k % 10 == 0) {
            metron_probe_enter("residual");
            res = 0.0;
            for (int i = 1; i < n - 1; i++) res += fabs(u[i] - v[i]);
            metron_probe_exit("residual");
        }
    }
    metron_probe_exit("solve");

    int f = fib(fib_n);
    metron_probe_exit("main");
    printf("residual %.6g fib %d\n", res, f);
    free(u);
    free(v);
    return 0; /* the profile is written at exit */
}
