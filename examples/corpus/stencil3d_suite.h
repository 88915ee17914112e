#ifndef STENCIL3D_SUITE_H
#define STENCIL3D_SUITE_H
#if !defined(MINI) && !defined(SMALL) && !defined(MEDIUM) && !defined(LARGE)
#define MEDIUM
#endif
#ifdef MINI
#define TSTEPS 5
#define N 10
#endif
#ifdef SMALL
#define TSTEPS 20
#define N 20
#endif
#ifdef MEDIUM
#define TSTEPS 100
#define N 40
#endif
#ifdef LARGE
#define TSTEPS 500
#define N 120
#endif
#define _TSTEPS_ BU_LOOP_BOUND(TSTEPS, tsteps)
#define _N_ BU_LOOP_BOUND(N, n)
#endif
