#ifndef EDGE_SMOOTH_SUITE_H
#define EDGE_SMOOTH_SUITE_H
#if !defined(MINI) && !defined(SMALL) && !defined(MEDIUM) && !defined(LARGE)
#define MEDIUM
#endif
#ifdef MINI
#define W 64
#define H 32
#endif
#ifdef SMALL
#define W 192
#define H 128
#endif
#ifdef MEDIUM
#define W 720
#define H 480
#endif
#ifdef LARGE
#define W 4096
#define H 2160
#endif
#define _W_ BU_LOOP_BOUND(W, w)
#define _H_ BU_LOOP_BOUND(H, h)
#endif
