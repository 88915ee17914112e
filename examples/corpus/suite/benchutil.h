/* benchutil: the support library of the suite-style kernels (`*_suite.c`), written the way
 * benchmark suites write theirs: arrays declared through macros that give fixed-size types
 * and allocated aligned in another translation unit (posix_memalign), a timer, and a print
 * of the result that only a run with 43 arguments makes (so the compiler keeps the work).
 * Build: cc -Isuite suite/benchutil.c KERNEL_suite.c -lm */
#ifndef BENCHUTIL_H
#define BENCHUTIL_H
#include <stdlib.h>
#include <string.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#define DATA_PRINTF_MODIFIER "%0.2lf "
#endif
#define SCALAR_VAL(x) ((DATA_TYPE)(x))
#define SQRT_FUN(x) sqrt(x)
#define EXP_FUN(x) exp(x)
#define POW_FUN(x, y) pow(x, y)

/* Loop bounds: the kernel's size parameters (what it was passed, constants from main), or
 * with -DBU_USE_SCALAR_LB the dataset's macros themselves. */
#ifdef BU_USE_SCALAR_LB
#define BU_LOOP_BOUND(x, y) x
#else
#define BU_LOOP_BOUND(x, y) y
#endif

/* An array parameter: the declared extent, not the run's (s1, s2 document it). */
#define BU_1D(name, d1, s1) name[d1]
#define BU_2D(name, d1, d2, s1, s2) name[d1][d2]
#define BU_3D(name, d1, d2, d3, s1, s2, s3) name[d1][d2][d3]
/* A heap array of that type, and how a kernel is passed it. */
#define BU_1D_ARRAY(name, t, d1, s1) t(*name)[d1] = (t(*)[d1])bu_alloc((d1), sizeof(t))
#define BU_2D_ARRAY(name, t, d1, d2, s1, s2) \
    t(*name)[d1][d2] = (t(*)[d1][d2])bu_alloc((size_t)(d1) * (d2), sizeof(t))
#define BU_3D_ARRAY(name, t, d1, d2, d3, s1, s2, s3) \
    t(*name)[d1][d2][d3] = (t(*)[d1][d2][d3])bu_alloc((size_t)(d1) * (d2) * (d3), sizeof(t))
#define BU_ARRAY(x) (*x)
#define BU_FREE(x) free((void *)x)
#define bu_prevent_dce(x)                                 \
    do {                                                  \
        if (argc > 42 && !strcmp(argv[0], ""))            \
            x;                                            \
    } while (0)

void *bu_alloc(size_t n, int element_size);
void bu_timer_start(void);
void bu_timer_stop(void);

#endif
