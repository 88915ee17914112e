/* Loop kernels without data-dependent control flow: static access counts must equal the
 * dynamic counts exactly (metron memory validate). Usage: kernels KERNEL N */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 128
double G[MAXN][MAXN];
double H[MAXN][MAXN];
double total;

void matmul(int n, double *A, double *B, double *C) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int k = 0; k < n; k++)
        s += A[i * n + k] * B[k * n + j];
      C[i * n + j] = s;
    }
}

/* Five-point stencil on the interior of G into H, then copy back. */
void stencil(int n) {
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < n - 1; j++)
      H[i][j] = 0.2 * (G[i][j] + G[i - 1][j] + G[i + 1][j] + G[i][j - 1] + G[i][j + 1]);
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < n - 1; j++)
      G[i][j] = H[i][j];
}

/* Lower and strictly upper triangles. */
void triangular(int n, double *x) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++)
      G[i][j] = x[j] * 2.0;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      total += G[i][j];
}

static double dot(const double *x, const double *y, int m) {
  double s = 0;
  for (int k = 0; k < m; k++)
    s += x[k] * y[k];
  return s;
}

/* A kernel calling a helper in a loop, with a trip count depending on the loop variable. */
void calls(int n, double *x, double *y) {
  for (int i = 0; i < n; i++)
    y[i] = dot(x, y, i + 1);
}

/* Data-dependent branch: only bounded by the branch policy. */
void branchy(int n, double *x) {
  for (int i = 0; i < n; i++) {
    if (x[i] > 0.5)
      G[0][i] = x[i] * x[i] + G[1][i];
    else
      total += 1.0;
  }
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s matmul|stencil|triangular|calls|branchy N\n", argv[0]);
    return 2;
  }
  int n = atoi(argv[2]);
  if (n < 0 || n > MAXN) {
    fprintf(stderr, "N must be in 0..%d\n", MAXN);
    return 2;
  }
  double *a = calloc((size_t)n * n + 1, sizeof(double));
  double *b = calloc((size_t)n * n + 1, sizeof(double));
  double *c = calloc((size_t)n * n + 1, sizeof(double));
  for (int i = 0; i < n * n; i++) {
    a[i] = (double)(i % 7) / 7.0;
    b[i] = (double)(i % 5) / 5.0;
  }
  if (!strcmp(argv[1], "matmul")) matmul(n, a, b, c);
  else if (!strcmp(argv[1], "stencil")) stencil(n);
  else if (!strcmp(argv[1], "triangular")) triangular(n, a);
  else if (!strcmp(argv[1], "calls")) calls(n, a, b);
  else if (!strcmp(argv[1], "branchy")) branchy(n, a);
  else { fprintf(stderr, "unknown kernel %s\n", argv[1]); return 2; }
  printf("%g %g\n", c[0] + total, G[1][1]);
  free(a); free(b); free(c);
  return 0;
}
