#include "kernels.h"

/* r = f - A u for the 1-D Laplacian with zero Dirichlet boundaries. */
void residual(int n, const double *u, const double *f, double *r) {
  r[0] = f[0] - (2 * u[0] - u[1]);
  for (int i = 1; i < n - 1; i++)
    r[i] = f[i] - (2 * u[i] - u[i - 1] - u[i + 1]);
  r[n - 1] = f[n - 1] - (2 * u[n - 1] - u[n - 2]);
}
