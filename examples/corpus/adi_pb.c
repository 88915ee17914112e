/* adi_pb: alternating-direction implicit sweeps: per time step a forward elimination along
 * columns then a backward substitution (j from n-2 down to 1), then the same along rows;
 * scalar coefficients computed once, fixed-size arrays.
 * corpus: kernel=adi_pb args="" params="tsteps=4,n=24" cflags="-DTSTEPS=4 -DN=24" */
#include <stdio.h>
#include <stdlib.h>

#ifndef TSTEPS
#define TSTEPS 50
#endif
#ifndef N
#define N 200
#endif

static void init_array(int n, double u[N][N])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            u[i][j] = (double)(i + n - j) / n;
}

static void adi_pb(int tsteps, int n, double u[N][N], double v[N][N], double p[N][N],
                   double q[N][N])
{
    int t, i, j;
    double dx = 1.0 / (double)n, dy = 1.0 / (double)n, dt = 1.0 / (double)tsteps;
    double b1 = 2.0, b2 = 1.0;
    double mul1 = b1 * dt / (dx * dx), mul2 = b2 * dt / (dy * dy);
    double a = -mul1 / 2.0, b = 1.0 + mul1, c = a;
    double d = -mul2 / 2.0, e = 1.0 + mul2, f = d;

    for (t = 1; t <= tsteps; t++) {
        for (i = 1; i < n - 1; i++) {
            v[0][i] = 1.0;
            p[i][0] = 0.0;
            q[i][0] = v[0][i];
            for (j = 1; j < n - 1; j++) {
                p[i][j] = -c / (a * p[i][j - 1] + b);
                q[i][j] = (-d * u[j][i - 1] + (1.0 + 2.0 * d) * u[j][i] - f * u[j][i + 1]
                           - a * q[i][j - 1]) / (a * p[i][j - 1] + b);
            }
            v[n - 1][i] = 1.0;
            for (j = n - 2; j >= 1; j--)
                v[j][i] = p[i][j] * v[j + 1][i] + q[i][j];
        }
        for (i = 1; i < n - 1; i++) {
            u[i][0] = 1.0;
            p[i][0] = 0.0;
            q[i][0] = u[i][0];
            for (j = 1; j < n - 1; j++) {
                p[i][j] = -f / (d * p[i][j - 1] + e);
                q[i][j] = (-a * v[i - 1][j] + (1.0 + 2.0 * a) * v[i][j] - c * v[i + 1][j]
                           - d * q[i][j - 1]) / (d * p[i][j - 1] + e);
            }
            u[i][n - 1] = 1.0;
            for (j = n - 2; j >= 1; j--)
                u[i][j] = p[i][j] * u[i][j + 1] + q[i][j];
        }
    }
}

int main(void)
{
    int n = N, tsteps = TSTEPS;
    double (*u)[N][N] = malloc(sizeof(double[N][N]));
    double (*v)[N][N] = malloc(sizeof(double[N][N]));
    double (*p)[N][N] = malloc(sizeof(double[N][N]));
    double (*q)[N][N] = malloc(sizeof(double[N][N]));
    init_array(n, *u);
    adi_pb(tsteps, n, *u, *v, *p, *q);
    printf("%.6f\n", (*u)[n / 2][n / 2]);
    free(u); free(v); free(p); free(q);
    return 0;
}
