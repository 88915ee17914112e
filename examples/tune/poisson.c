/*
 * poisson.c -- a 2D Poisson solver for metron tune (examples/tune): -lap(u) = f on the unit
 * square, u = 0 on the boundary, cell-centred grid of N x N cells, solved to a fixed relative
 * residual by a multigrid V-cycle (or, with levels = 1, by the smoother alone).
 *
 *   mpirun -np RANKS ./poisson --n 128 --levels 4 --smoother rbgs --pre 2 --post 1
 *   (OMP_NUM_THREADS threads per rank)
 *
 * Parallel for real: MPI ranks own horizontal strips of rows (halo rows exchanged with the
 * neighbours), OpenMP threads split each rank's rows. Smoothers: damped Jacobi, Gauss-Seidel
 * (lexicographic inside each thread's rows: the hybrid GS of MPI+OpenMP codes) and red-black
 * Gauss-Seidel. Inter-grid transfer: averaging restriction, piecewise-constant prolongation;
 * the coarsest grid gets 50 smoother sweeps.
 *
 * metron-probe regions: setup, solve, vcycle, smoother, residual, transfer, halo. Fitness is
 * the time of `solve` (to the residual), reduced across ranks by the project's strategy.
 * Exit code 3 when the residual is not reached in --max-cycles cycles.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metron_probe.h"

typedef struct {
    int n;      /* cells per side (global) */
    int rows;   /* rows owned by this rank */
    int row0;   /* first global row owned */
    double h;
    double *u, *f, *r, *tmp; /* (rows + 2) x (n + 2), with halo/ghost rows and columns */
} Level;

enum { JAC, GS, RBGS };
static int smoother = RBGS, rank, nranks;
static uint32_t R_SMOOTH, R_RESID, R_TRANSFER, R_HALO, R_VCYCLE;

#define AT(l, i, j) ((i) * ((l)->n + 2) + (j))

static void alloc_level(Level *l, int n, int rows, int row0) {
    size_t sz = (size_t)(rows + 2) * (n + 2);
    l->n = n;
    l->rows = rows;
    l->row0 = row0;
    l->h = 1.0 / n;
    l->u = calloc(sz, sizeof(double));
    l->f = calloc(sz, sizeof(double));
    l->r = calloc(sz, sizeof(double));
    l->tmp = calloc(sz, sizeof(double));
    if (!l->u || !l->f || !l->r || !l->tmp) {
        fprintf(stderr, "poisson: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* Ghost cells: u = 0 on the wall means the ghost is the negated inner value; halo rows come
 * from the neighbouring ranks. */
static void boundary(Level *l, double *v) {
    int n = l->n, rows = l->rows;
    metron_probe_enter_id(R_HALO);
    MPI_Request req[4];
    int k = 0;
    if (rank > 0) {
        MPI_Irecv(&v[AT(l, 0, 0)], n + 2, MPI_DOUBLE, rank - 1, 0, MPI_COMM_WORLD, &req[k++]);
        MPI_Isend(&v[AT(l, 1, 0)], n + 2, MPI_DOUBLE, rank - 1, 1, MPI_COMM_WORLD, &req[k++]);
    }
    if (rank < nranks - 1) {
        MPI_Irecv(&v[AT(l, rows + 1, 0)], n + 2, MPI_DOUBLE, rank + 1, 1, MPI_COMM_WORLD, &req[k++]);
        MPI_Isend(&v[AT(l, rows, 0)], n + 2, MPI_DOUBLE, rank + 1, 0, MPI_COMM_WORLD, &req[k++]);
    }
    MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
    if (rank == 0)
        for (int j = 0; j < n + 2; j++) v[AT(l, 0, j)] = -v[AT(l, 1, j)];
    if (rank == nranks - 1)
        for (int j = 0; j < n + 2; j++) v[AT(l, rows + 1, j)] = -v[AT(l, rows, j)];
    for (int i = 0; i < rows + 2; i++) {
        v[AT(l, i, 0)] = -v[AT(l, i, 1)];
        v[AT(l, i, n + 1)] = -v[AT(l, i, n)];
    }
    metron_probe_exit_id(R_HALO);
}

static inline double gs_point(Level *l, int i, int j) {
    double *u = l->u;
    return 0.25 * (u[AT(l, i - 1, j)] + u[AT(l, i + 1, j)] + u[AT(l, i, j - 1)] +
                   u[AT(l, i, j + 1)] + l->h * l->h * l->f[AT(l, i, j)]);
}

static void smooth(Level *l, int sweeps) {
    metron_probe_enter_id(R_SMOOTH);
    int n = l->n, rows = l->rows;
    for (int s = 0; s < sweeps; s++) {
        if (smoother == JAC) {
            boundary(l, l->u);
#pragma omp parallel for schedule(static)
            for (int i = 1; i <= rows; i++)
                for (int j = 1; j <= n; j++)
                    l->tmp[AT(l, i, j)] = 0.2 * l->u[AT(l, i, j)] + 0.8 * gs_point(l, i, j);
            double *t = l->u;
            l->u = l->tmp;
            l->tmp = t;
        } else if (smoother == GS) {
            boundary(l, l->u);
#pragma omp parallel for schedule(static)
            for (int i = 1; i <= rows; i++)
                for (int j = 1; j <= n; j++) l->u[AT(l, i, j)] = gs_point(l, i, j);
        } else {
            for (int colour = 0; colour < 2; colour++) {
                boundary(l, l->u);
#pragma omp parallel for schedule(static)
                for (int i = 1; i <= rows; i++) {
                    int gi = l->row0 + i;
                    for (int j = 1 + ((gi + 1 + colour) & 1); j <= n; j += 2)
                        l->u[AT(l, i, j)] = gs_point(l, i, j);
                }
            }
        }
    }
    metron_probe_exit_id(R_SMOOTH);
}

/* r = f - A u; returns the global sum of r^2. */
static double residual(Level *l) {
    metron_probe_enter_id(R_RESID);
    boundary(l, l->u);
    int n = l->n, rows = l->rows;
    double ih2 = 1.0 / (l->h * l->h), local = 0.0, global = 0.0;
#pragma omp parallel for reduction(+ : local) schedule(static)
    for (int i = 1; i <= rows; i++)
        for (int j = 1; j <= n; j++) {
            double *u = l->u;
            double au = ih2 * (4 * u[AT(l, i, j)] - u[AT(l, i - 1, j)] - u[AT(l, i + 1, j)] -
                               u[AT(l, i, j - 1)] - u[AT(l, i, j + 1)]);
            double r = l->f[AT(l, i, j)] - au;
            l->r[AT(l, i, j)] = r;
            local += r * r;
        }
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    metron_probe_exit_id(R_RESID);
    return global;
}

static void vcycle(Level *lv, int level, int pre, int post) {
    Level *l = &lv[level];
    if (level == 0) {
        smooth(l, 50);
        return;
    }
    Level *c = &lv[level - 1];
    smooth(l, pre);
    residual(l);
    metron_probe_enter_id(R_TRANSFER);
#pragma omp parallel for schedule(static)
    for (int i = 1; i <= c->rows; i++)
        for (int j = 1; j <= c->n; j++) {
            int fi = 2 * i - 1, fj = 2 * j - 1;
            c->f[AT(c, i, j)] = 0.25 * (l->r[AT(l, fi, fj)] + l->r[AT(l, fi + 1, fj)] +
                                        l->r[AT(l, fi, fj + 1)] + l->r[AT(l, fi + 1, fj + 1)]);
            c->u[AT(c, i, j)] = 0.0;
        }
    metron_probe_exit_id(R_TRANSFER);
    vcycle(lv, level - 1, pre, post);
    metron_probe_enter_id(R_TRANSFER);
#pragma omp parallel for schedule(static)
    for (int i = 1; i <= l->rows; i++)
        for (int j = 1; j <= l->n; j++)
            l->u[AT(l, i, j)] += c->u[AT(c, (i + 1) / 2, (j + 1) / 2)];
    metron_probe_exit_id(R_TRANSFER);
    smooth(l, post);
}

static int arg_int(int argc, char **argv, const char *name, int dflt) {
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], name)) return atoi(argv[i + 1]);
    return dflt;
}

static const char *arg_str(int argc, char **argv, const char *name, const char *dflt) {
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], name)) return argv[i + 1];
    return dflt;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    metron_probe_init();
    R_SMOOTH = metron_probe_register("smoother");
    R_RESID = metron_probe_register("residual");
    R_TRANSFER = metron_probe_register("transfer");
    R_HALO = metron_probe_register("halo");
    R_VCYCLE = metron_probe_register("vcycle");

    int n = arg_int(argc, argv, "--n", 128), levels = arg_int(argc, argv, "--levels", 4);
    int pre = arg_int(argc, argv, "--pre", 2), post = arg_int(argc, argv, "--post", 1);
    int max_cycles = arg_int(argc, argv, "--max-cycles", 100);
    double tol = atof(arg_str(argc, argv, "--tol", "1e-7"));
    const char *s = arg_str(argc, argv, "--smoother", "rbgs");
    smoother = !strcmp(s, "jac") ? JAC : !strcmp(s, "gs") ? GS : !strcmp(s, "rbgs") ? RBGS : -1;
    int coarse = n >> (levels - 1);
    if (smoother < 0 || levels < 1 || coarse < 2 || (coarse << (levels - 1)) != n ||
        coarse % nranks != 0) {
        if (rank == 0)
            fprintf(stderr, "poisson: bad arguments: n=%d levels=%d smoother=%s ranks=%d "
                            "(the coarsest grid must have a multiple of ranks >= 2 rows)\n",
                    n, levels, s, nranks);
        MPI_Finalize();
        return 2;
    }

    metron_probe_enter("setup");
    Level *lv = calloc(levels, sizeof(Level));
    for (int k = 0; k < levels; k++) {
        int nk = coarse << k, rows = nk / nranks;
        alloc_level(&lv[k], nk, rows, rank * rows);
    }
    Level *fine = &lv[levels - 1];
    for (int i = 1; i <= fine->rows; i++)
        for (int j = 1; j <= fine->n; j++) {
            double x = (j - 0.5) * fine->h, y = (fine->row0 + i - 0.5) * fine->h;
            fine->f[AT(fine, i, j)] = 2 * M_PI * M_PI * sin(M_PI * x) * sin(M_PI * y);
        }
    metron_probe_exit("setup");

    metron_probe_enter("solve");
    double r0 = sqrt(residual(fine)), r = r0;
    int cycles = 0;
    while (r > tol * r0 && cycles < max_cycles) {
        metron_probe_enter_id(R_VCYCLE);
        vcycle(lv, levels - 1, pre, post);
        metron_probe_exit_id(R_VCYCLE);
        r = sqrt(residual(fine));
        cycles++;
        if (!isfinite(r)) break;
    }
    metron_probe_exit("solve");

    int ok = isfinite(r) && r <= tol * r0;
    if (rank == 0)
        printf("cycles %d residual %.3e reduction %.3e %s\n", cycles, r, r / r0,
               ok ? "converged" : "NOT converged");
    metron_probe_finalize();
    MPI_Finalize();
    return ok ? 0 : 3;
}
