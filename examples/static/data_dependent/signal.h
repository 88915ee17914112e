/* Kernels of a small signal-conditioning pipeline (one translation unit each). */
#ifndef SIGNAL_H
#define SIGNAL_H
int clip(int n, double *x, double lo, double hi);
void magnitude(int n, const double *power, double *amplitude);
float rms_error(int n, const float *a, const float *b);
#endif
