#include <stdlib.h>
double dot(const double *x, const double *y, int n);
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100;
  double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  for (int i = 0; i < n; i++) { x[i] = i; y[i] = 2.0; }
  double s = dot(x, y, n);
  free(x); free(y);
  return s < 0;
}
