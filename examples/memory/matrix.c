/* The test program of 003 Ch. 5: every thread generates two matrices (gen) and multiplies
 * them (mul). `metron contention experiment` traces `work` for each matrix size and replays
 * the recorded accesses of T threads on the bank simulator. Usage: matrix N M P */
#include <stdio.h>
#include <stdlib.h>

/* A (n x m) and B (m x p) from a linear congruential generator. */
void gen(int n, int m, int p, double *A, double *B) {
  unsigned s = 12345u;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      s = s * 1103515245u + 12345u;
      A[i * m + j] = (double)(s >> 16) / 65536.0;
    }
  for (int i = 0; i < m; i++)
    for (int j = 0; j < p; j++) {
      s = s * 1103515245u + 12345u;
      B[i * p + j] = (double)(s >> 16) / 65536.0;
    }
}

/* C (n x p) = A B */
void mul(int n, int m, int p, const double *A, const double *B, double *C) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < p; j++) {
      double s = 0.0;
      for (int k = 0; k < m; k++)
        s += A[i * m + k] * B[k * p + j];
      C[i * p + j] = s;
    }
}

double work(int n, int m, int p) {
  double *A = malloc(sizeof(double) * (size_t)(n * m + 1));
  double *B = malloc(sizeof(double) * (size_t)(m * p + 1));
  double *C = malloc(sizeof(double) * (size_t)(n * p + 1));
  if (!A || !B || !C) return -1.0;
  gen(n, m, p, A, B);
  mul(n, m, p, A, B, C);
  double r = C[0];
  free(A);
  free(B);
  free(C);
  return r;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s N M P\n", argv[0]);
    return 2;
  }
  printf("%g\n", work(atoi(argv[1]), atoi(argv[2]), atoi(argv[3])));
  return 0;
}
