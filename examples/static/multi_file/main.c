#include <stdio.h>
#include <stdlib.h>

#include "kernels.h"

/* Usage: smoother N SWEEPS */
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 200;
  int sweeps = argc > 2 ? atoi(argv[2]) : 5;
  double *u = calloc(n, sizeof *u);
  double *r = calloc(n, sizeof *r);
  double *f = malloc(n * sizeof *f);
  for (int i = 0; i < n; i++)
    f[i] = 1.0 / (i + 1);
  double norm = 0;
  for (int s = 0; s < sweeps; s++) {
    residual(n, u, f, r);
    axpy(n, 0.4, r, u);
    norm = dot(n, r, r);
  }
  printf("%g\n", norm);
  free(u);
  free(r);
  free(f);
  return 0;
}
