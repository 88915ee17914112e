/* ns per enter/exit pair through the C ABI (issue 16: "C by name at <= 1.2x the floor").
 * Same method as benches/overhead.rs: each case runs N pairs inside an outer region, timed
 * with CLOCK_MONOTONIC from outside; REPS repetitions, cases interleaved round-robin; median
 * and minimum of the per-pair time; ratios to the floor, two raw TSC reads.
 * Built and run by scripts/probe-c-overhead. */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

#include "metron_probe.h"

#define REPS 31

static long n_pairs = 200000;
static uint32_t pre_id;

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

#define KEEP(x) __asm__ volatile("" : : "r"(x) : "memory")

static void floor_tsc(long n) {
    for (long i = 0; i < n; i++) {
        uint64_t a = __rdtsc();
        KEEP(a);
        uint64_t b = __rdtsc();
        KEEP(b);
    }
}

static void region_macro(long n) {
    METRON_REGION("bench.outer");
    for (long i = 0; i < n; i++) {
        METRON_REGION("bench.inner");
        KEEP(i);
    }
}

static void enter_exit_macros(long n) {
    METRON_REGION("bench.outer");
    for (long i = 0; i < n; i++) {
        METRON_ENTER("bench.inner");
        KEEP(i);
        METRON_EXIT("bench.inner");
    }
}

static void by_id(long n) {
    METRON_REGION("bench.outer");
    for (long i = 0; i < n; i++) {
        uint32_t id = pre_id;
        KEEP(id);
        metron_probe_enter_id(id);
        metron_probe_exit_id(id);
    }
}

static void by_name_lookup(long n) {
    METRON_REGION("bench.outer");
    for (long i = 0; i < n; i++) {
        metron_probe_enter("bench.inner");
        KEEP(i);
        metron_probe_exit("bench.inner");
    }
}

struct bench_case {
    const char *name;
    void (*run)(long);
    double per[REPS];
};

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc > 1) n_pairs = atol(argv[1]);
    metron_probe_init();
    pre_id = metron_probe_register("bench.inner");
    struct bench_case cases[] = {
        {"floor: 2 raw TSC reads (__rdtsc)", floor_tsc, {0}},
        {"METRON_REGION(\"name\") (C, cleanup attribute)", region_macro, {0}},
        {"METRON_ENTER/METRON_EXIT(\"name\")", enter_exit_macros, {0}},
        {"metron_probe_enter_id/exit_id (pre-registered)", by_id, {0}},
        {"metron_probe_enter/exit(\"name\") (lookup per call)", by_name_lookup, {0}},
    };
    int ncases = sizeof cases / sizeof cases[0];
    for (int c = 0; c < ncases; c++) cases[c].run(n_pairs / 10); /* warm-up */
    for (int r = 0; r < REPS; r++) {
        for (int c = 0; c < ncases; c++) {
            double t0 = now_ns();
            cases[c].run(n_pairs);
            cases[c].per[r] = (now_ns() - t0) / (double)n_pairs;
        }
    }
    printf("metron-probe C ABI overhead, %ld pairs x %d repetitions\n\n", n_pairs, REPS);
    printf("%-52s %10s %8s %14s\n", "case", "median ns", "min ns", "x floor (med)");
    double floor_med = 0.0;
    for (int c = 0; c < ncases; c++) {
        qsort(cases[c].per, REPS, sizeof(double), cmp);
        double med = cases[c].per[REPS / 2];
        if (c == 0) floor_med = med;
        printf("%-52s %10.2f %8.2f %14.2f\n", cases[c].name, med, cases[c].per[0], med / floor_med);
    }
    metron_probe_finalize();
    return 0;
}
