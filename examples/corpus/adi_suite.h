#ifndef ADI_SUITE_H
#define ADI_SUITE_H
#if !defined(MINI) && !defined(SMALL) && !defined(MEDIUM) && !defined(LARGE)
#define MEDIUM
#endif
#ifdef MINI
#define TSTEPS 4
#define N 20
#endif
#ifdef SMALL
#define TSTEPS 20
#define N 60
#endif
#ifdef MEDIUM
#define TSTEPS 100
#define N 200
#endif
#ifdef LARGE
#define TSTEPS 500
#define N 1000
#endif
#define _TSTEPS_ BU_LOOP_BOUND(TSTEPS, tsteps)
#define _N_ BU_LOOP_BOUND(N, n)
#endif
