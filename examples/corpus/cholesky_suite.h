#ifndef CHOLESKY_SUITE_H
#define CHOLESKY_SUITE_H
#if !defined(MINI) && !defined(SMALL) && !defined(MEDIUM) && !defined(LARGE)
#define MEDIUM
#endif
#ifdef MINI
#define N 40
#endif
#ifdef SMALL
#define N 120
#endif
#ifdef MEDIUM
#define N 400
#endif
#ifdef LARGE
#define N 2000
#endif
#define _N_ BU_LOOP_BOUND(N, n)
#endif
