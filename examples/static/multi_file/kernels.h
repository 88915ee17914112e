/* Kernels of a 1-D Jacobi smoother, each in its own translation unit as in a solver library. */
#ifndef KERNELS_H
#define KERNELS_H
void residual(int n, const double *u, const double *f, double *r);
void axpy(int n, double alpha, const double *x, double *y);
double dot(int n, const double *x, const double *y);
#endif
