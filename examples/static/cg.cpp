// A small conjugate-gradient solver in the style of miniFE (004 §IV.C): templates, a matrix
// class whose operator() is the mat-vec, waxpby and dot. The matrix is the 1-D Laplacian in
// ELL format (3 entries per row, zero-padded), so every loop bound is affine. CG runs a fixed
// number of iterations (no data-dependent convergence test) so that counts are static.
#include <cstdio>
#include <cstdlib>

template <typename Scalar>
Scalar dot(int n, const Scalar *x, const Scalar *y) {
    Scalar s = 0;
    for (int i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

template <typename Scalar>
void waxpby(int n, Scalar alpha, const Scalar *x, Scalar beta, const Scalar *y, Scalar *w) {
    for (int i = 0; i < n; i++)
        w[i] = alpha * x[i] + beta * y[i];
}

template <typename Scalar>
struct matvec_ell {
    int n;
    const Scalar *values;
    const int *columns;
    void operator()(const Scalar *x, Scalar *y) const {
        for (int i = 0; i < n; i++) {
            Scalar sum = 0;
            for (int k = 0; k < 3; k++)
                sum += values[i * 3 + k] * x[columns[i * 3 + k]];
            y[i] = sum;
        }
    }
};

template <typename Scalar>
Scalar cg_solve(const matvec_ell<Scalar> &A, int n, const Scalar *b, Scalar *x, int max_iter) {
    Scalar *r = new Scalar[n], *p = new Scalar[n], *Ap = new Scalar[n];
    A(x, Ap);
    waxpby(n, Scalar(1), b, Scalar(-1), Ap, r);
    waxpby(n, Scalar(1), r, Scalar(0), r, p);
    Scalar rr = dot(n, r, r);
    for (int iter = 0; iter < max_iter; iter++) {
        A(p, Ap);
        Scalar alpha = rr / dot(n, p, Ap);
        waxpby(n, Scalar(1), x, alpha, p, x);
        waxpby(n, Scalar(1), r, -alpha, Ap, r);
        Scalar rr_new = dot(n, r, r);
        waxpby(n, Scalar(1), r, rr_new / rr, p, p);
        rr = rr_new;
    }
    delete[] r;
    delete[] p;
    delete[] Ap;
    return rr;
}

int main(int argc, char **argv) {
    #pragma @Annotation {br_prob: 1}
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    #pragma @Annotation {br_prob: 1}
    int max_iter = argc > 2 ? atoi(argv[2]) : 50;
    double *values = new double[3 * n], *b = new double[n], *x = new double[n];
    int *columns = new int[3 * n];
    for (int i = 0; i < n; i++) {
        values[3 * i] = i > 0 ? -1.0 : 0.0;
        values[3 * i + 1] = 2.0;
        values[3 * i + 2] = i + 1 < n ? -1.0 : 0.0;
        columns[3 * i] = i > 0 ? i - 1 : i;
        columns[3 * i + 1] = i;
        columns[3 * i + 2] = i + 1 < n ? i + 1 : i;
        b[i] = 1.0;
        x[i] = 0.0;
    }
    matvec_ell<double> A = {n, values, columns};
    double rr = cg_solve(A, n, b, x, max_iter);
    std::printf("%g %g\n", rr, x[n / 2]);
    delete[] values;
    delete[] columns;
    delete[] b;
    delete[] x;
    return 0;
}
