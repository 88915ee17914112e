/* fdtd2d: 2-D finite-difference time domain (ey, ex, hz updates) with a source row.
 * corpus: kernel=fdtd2d args="10 40 50" params="tmax=10,nx=40,ny=50" */
#include <stdio.h>
#include <stdlib.h>

#ifndef TMAX
#define TMAX 20
#endif
#ifndef NX
#define NX 60
#endif
#ifndef NY
#define NY 80
#endif

void fdtd2d(int tmax, int nx, int ny, double *ex, double *ey, double *hz, const double *fict)
{
    for (int t = 0; t < tmax; t++) {
        for (int j = 0; j < ny; j++)
            ey[j] = fict[t];
        for (int i = 1; i < nx; i++)
            for (int j = 0; j < ny; j++)
                ey[i * ny + j] -= 0.5 * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
        for (int i = 0; i < nx; i++)
            for (int j = 1; j < ny; j++)
                ex[i * ny + j] -= 0.5 * (hz[i * ny + j] - hz[i * ny + j - 1]);
        for (int i = 0; i < nx - 1; i++)
            for (int j = 0; j < ny - 1; j++)
                hz[i * ny + j] -= 0.7 * (ex[i * ny + j + 1] - ex[i * ny + j]
                                         + ey[(i + 1) * ny + j] - ey[i * ny + j]);
    }
}

int main(int argc, char **argv)
{
    int tmax = argc > 1 ? atoi(argv[1]) : TMAX;
    int nx = argc > 2 ? atoi(argv[2]) : NX;
    int ny = argc > 3 ? atoi(argv[3]) : NY;
    double *ex = malloc(sizeof(double) * nx * ny), *ey = malloc(sizeof(double) * nx * ny);
    double *hz = malloc(sizeof(double) * nx * ny), *fict = malloc(sizeof(double) * tmax);
    for (int t = 0; t < tmax; t++)
        fict[t] = t;
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++) {
            ex[i * ny + j] = ((double)i * (j + 1)) / nx;
            ey[i * ny + j] = ((double)i * (j + 2)) / ny;
            hz[i * ny + j] = ((double)i * (j + 3)) / nx;
        }
    fdtd2d(tmax, nx, ny, ex, ey, hz, fict);
    printf("%.6f\n", hz[ny + 1]);
    free(ex); free(ey); free(hz); free(fict);
    return 0;
}
