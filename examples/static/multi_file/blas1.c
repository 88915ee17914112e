#include "kernels.h"

void axpy(int n, double alpha, const double *x, double *y) {
  for (int i = 0; i < n; i++)
    y[i] += alpha * x[i];
}

double dot(int n, const double *x, const double *y) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * y[i];
  return s;
}
