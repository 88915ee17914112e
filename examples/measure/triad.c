/* STREAM-style triad a[i] = b[i] + s * c[i], the kernel metron's demo measures.
 * Usage: triad N [REPS]   (N doubles per array, REPS sweeps over them)
 * Prints a checksum so that the compiler cannot drop the work. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s N [REPS]\n", argv[0]);
        return 2;
    }
    long n = strtol(argv[1], NULL, 10);
    long reps = argc > 2 ? strtol(argv[2], NULL, 10) : 10;
    if (n <= 0 || reps <= 0) {
        fprintf(stderr, "%s: N and REPS must be positive\n", argv[0]);
        return 2;
    }
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    if (!a || !b || !c) {
        fprintf(stderr, "%s: out of memory for N=%ld\n", argv[0], n);
        return 1;
    }
    for (long i = 0; i < n; i++) {
        a[i] = 0.0;
        b[i] = (double)i;
        c[i] = 1.0 / (double)(i + 1);
    }
    const double s = 3.0;
    for (long r = 0; r < reps; r++)
        for (long i = 0; i < n; i++)
            a[i] = b[i] + s * c[i];
    double sum = 0.0;
    for (long i = 0; i < n; i++)
        sum += a[i];
    printf("%.6e\n", sum);
    free(a);
    free(b);
    free(c);
    return 0;
}
