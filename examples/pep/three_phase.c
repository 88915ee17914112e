/* A program with three phases, for `metron pep`: its execution regions must be found on a
 * machine without a PMU, from software events only (cpu-clock sampling, page-faults member).
 *
 *   1. allocate: map fresh memory and touch every page (a page fault per 4 KiB, little else)
 *   2. compute:  floating-point work on a small array in cache (no page faults)
 *   3. copy:     copy an array into freshly mapped memory (a page fault per 4 KiB copied,
 *                plus the copying itself: fewer faults per unit of CPU time than phase 1)
 *
 * Usage: three_phase [SCALE [BOUNDARIES]]   (SCALE 1 runs about 0.4 s of CPU time)
 *
 * With BOUNDARIES, CLOCK_MONOTONIC (ns) at the end of phases 1, 2 and 3 is written there: the
 * ground truth that metron's regions are checked against (its samples carry the same clock).
 * The third lets a check leave out the exit, whose unmapping takes a load-dependent time.
 * Not the process CPU time: in a VM, cpu-clock also counts the host's time spent faulting
 * guest memory in, which the scheduler's CPU time leaves out as steal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

enum { PAGE = 4096, CHUNK = 16 << 20 };

static void *map(size_t bytes) {
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    return p;
}

/* Phase 1: touch `chunks` fresh 16 MiB mappings page by page. */
static unsigned long allocate(int chunks) {
    unsigned long sum = 0;
    for (int c = 0; c < chunks; c++) {
        volatile char *p = map(CHUNK);
        for (size_t i = 0; i < CHUNK; i += PAGE) p[i] = (char)i;
        sum += p[PAGE];
        munmap((void *)p, CHUNK);
    }
    return sum;
}

/* Phase 2: a recurrence on 512 doubles, repeated. */
static double compute(long rounds) {
    static double a[512];
    for (int i = 0; i < 512; i++) a[i] = i * 1e-3;
    for (long r = 0; r < rounds; r++)
        for (int i = 0; i < 512; i++) a[i] = a[i] * 0.999999 + 1e-7 * (double)(i & 7);
    double s = 0;
    for (int i = 0; i < 512; i++) s += a[i];
    return s;
}

/* Phase 3: copy a resident 16 MiB array into `chunks` fresh mappings, element by element
 * with a stride-2 gather (as an array slice `b(1:2:end)` copies). */
static double copy(int chunks) {
    size_t n = CHUNK / sizeof(double);
    double *src = malloc(2 * CHUNK);
    if (!src) exit(1);
    for (size_t i = 0; i < 2 * n; i++) src[i] = (double)i;
    double s = 0;
    for (int c = 0; c < chunks; c++) {
        double *dst = map(CHUNK);
        for (size_t i = 0; i < n; i++) dst[i] = src[2 * i];
        s += dst[n - 1];
        munmap(dst, CHUNK);
    }
    free(src);
    return s;
}

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv) {
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    if (scale <= 0) scale = 1.0;
    unsigned long a = allocate((int)(40 * scale) + 1);
    long long end1 = now_ns();
    double b = compute((long)(600000 * scale) + 1);
    long long end2 = now_ns();
    double c = copy((int)(12 * scale) + 1);
    long long end3 = now_ns();
    if (argc > 2) {
        FILE *f = fopen(argv[2], "w");
        if (!f) {
            perror(argv[2]);
            return 1;
        }
        fprintf(f, "%lld %lld %lld\n", end1, end2, end3);
        fclose(f);
    }
    /* The results are printed so that no phase is optimised away. */
    printf("%lu %.6f %.1f\n", a, b, c);
    return 0;
}
