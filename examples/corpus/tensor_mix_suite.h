#ifndef TENSOR_MIX_SUITE_H
#define TENSOR_MIX_SUITE_H
#if !defined(MINI) && !defined(SMALL) && !defined(MEDIUM) && !defined(LARGE)
#define MEDIUM
#endif
#ifdef MINI
#define NQ 8
#define NR 10
#define NP 12
#endif
#ifdef SMALL
#define NQ 20
#define NR 25
#define NP 30
#endif
#ifdef MEDIUM
#define NQ 40
#define NR 50
#define NP 60
#endif
#ifdef LARGE
#define NQ 140
#define NR 150
#define NP 160
#endif
#define _NQ_ BU_LOOP_BOUND(NQ, nq)
#define _NR_ BU_LOOP_BOUND(NR, nr)
#define _NP_ BU_LOOP_BOUND(NP, np)
#endif
