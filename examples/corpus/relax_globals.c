/* relax_globals: one Jacobi relaxation step whose grid sizes are global variables that main
 * sets from argv, as codes with a common "grid" module do.
 * corpus: kernel=relax args="60 45" params="nx=60,ny=45" */
#include <stdio.h>
#include <stdlib.h>

#ifndef NX
#define NX 200
#endif
#ifndef NY
#define NY 150
#endif

int nx, ny;

void relax(const double *u, double *v)
{
    for (int i = 1; i < nx - 1; i++)
        for (int j = 1; j < ny - 1; j++)
            v[i * ny + j] = 0.25 * (u[(i - 1) * ny + j] + u[(i + 1) * ny + j]
                                    + u[i * ny + j - 1] + u[i * ny + j + 1]);
}

int main(int argc, char **argv)
{
    nx = argc > 1 ? atoi(argv[1]) : NX;
    ny = argc > 2 ? atoi(argv[2]) : NY;
    double *u = malloc(sizeof(double) * nx * ny), *v = calloc((size_t)nx * ny, sizeof(double));
    for (int i = 0; i < nx * ny; i++)
        u[i] = i % 17;
    relax(u, v);
    printf("%.6f\n", v[ny + 1]);
    free(u); free(v);
    return 0;
}
