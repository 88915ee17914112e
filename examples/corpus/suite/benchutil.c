/* benchutil: see benchutil.h. Not a kernel (no corpus line). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchutil.h"

static double started;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void bu_timer_start(void) { started = now(); }

void bu_timer_stop(void)
{
    if (getenv("BU_TIME"))
        printf("%0.6f\n", now() - started);
}

/* n elements of element_size bytes, page-aligned and zeroed; exits when memory runs out. */
void *bu_alloc(size_t n, int element_size)
{
    void *p = NULL;
    size_t bytes = n * (size_t)element_size;
    if (posix_memalign(&p, 4096, bytes) != 0 || p == NULL) {
        fprintf(stderr, "bu_alloc: cannot allocate %zu bytes\n", bytes);
        exit(1);
    }
    memset(p, 0, bytes);
    return p;
}
