#ifndef MM3_SUITE_H
#define MM3_SUITE_H
#if !defined(MINI) && !defined(SMALL) && !defined(MEDIUM) && !defined(LARGE)
#define MEDIUM
#endif
#ifdef MINI
#define NI 16
#define NJ 18
#define NK 20
#define NL 22
#define NM 24
#endif
#ifdef SMALL
#define NI 40
#define NJ 50
#define NK 60
#define NL 70
#define NM 80
#endif
#ifdef MEDIUM
#define NI 180
#define NJ 190
#define NK 200
#define NL 210
#define NM 220
#endif
#ifdef LARGE
#define NI 800
#define NJ 900
#define NK 1000
#define NL 1100
#define NM 1200
#endif
#define _NI_ BU_LOOP_BOUND(NI, ni)
#define _NJ_ BU_LOOP_BOUND(NJ, nj)
#define _NK_ BU_LOOP_BOUND(NK, nk)
#define _NL_ BU_LOOP_BOUND(NL, nl)
#define _NM_ BU_LOOP_BOUND(NM, nm)
#endif
