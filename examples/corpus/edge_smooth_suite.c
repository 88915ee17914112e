/* edge_smooth_suite: a second-order recursive smoothing filter over a float image: causal
 * and anti-causal passes along each row (the second right to left), summed, then along each
 * column (the second bottom to top), summed; its coefficients from expf/powf of the
 * smoothing factor; a suite-style program (suite/benchutil.c).
 * corpus: kernel=kernel_edge_smooth args="" params="w=64,h=32" sources="suite/benchutil.c" cflags="-Isuite -DMINI" */
#include <math.h>
#include <stdio.h>
#include <string.h>

#define DATA_TYPE float
#define DATA_PRINTF_MODIFIER "%0.2f "
#include "benchutil.h"
#include "edge_smooth_suite.h"
#undef EXP_FUN
#undef POW_FUN
#define EXP_FUN(x) expf(x)
#define POW_FUN(x, y) powf(x, y)

static void init_array(int w, int h, DATA_TYPE *alpha, DATA_TYPE BU_2D(img, W, H, w, h))
{
    int i, j;
    *alpha = 0.25f;
    for (i = 0; i < w; i++)
        for (j = 0; j < h; j++)
            img[i][j] = (DATA_TYPE)((313 * i + 991 * j) % 65536) / 65535.0f;
}

static void print_array(int w, int h, DATA_TYPE BU_2D(out, W, H, w, h))
{
    int i, j;
    for (i = 0; i < w; i++)
        for (j = 0; j < h; j++) {
            if ((i * h + j) % 20 == 0)
                fprintf(stderr, "\n");
            fprintf(stderr, DATA_PRINTF_MODIFIER, out[i][j]);
        }
    fprintf(stderr, "\n");
}

static void kernel_edge_smooth(int w, int h, DATA_TYPE alpha, DATA_TYPE BU_2D(img, W, H, w, h),
                               DATA_TYPE BU_2D(out, W, H, w, h), DATA_TYPE BU_2D(y1, W, H, w, h),
                               DATA_TYPE BU_2D(y2, W, H, w, h))
{
    int i, j;
    DATA_TYPE xm1, tm1, ym1, ym2, xp1, xp2, tp1, tp2, yp1, yp2;
    DATA_TYPE k, a1, a2, a3, a4, a5, a6, a7, a8, b1, b2, c1, c2;

#pragma scop
    k = (SCALAR_VAL(1.0) - EXP_FUN(-alpha)) * (SCALAR_VAL(1.0) - EXP_FUN(-alpha)) /
        (SCALAR_VAL(1.0) + SCALAR_VAL(2.0) * alpha * EXP_FUN(-alpha) - EXP_FUN(SCALAR_VAL(2.0) * alpha));
    a1 = a5 = k;
    a2 = a6 = k * EXP_FUN(-alpha) * (alpha - SCALAR_VAL(1.0));
    a3 = a7 = k * EXP_FUN(-alpha) * (alpha + SCALAR_VAL(1.0));
    a4 = a8 = -k * EXP_FUN(SCALAR_VAL(-2.0) * alpha);
    b1 = POW_FUN(SCALAR_VAL(2.0), -alpha);
    b2 = -EXP_FUN(SCALAR_VAL(-2.0) * alpha);
    c1 = c2 = 1;

    for (i = 0; i < _W_; i++) {
        ym1 = SCALAR_VAL(0.0);
        ym2 = SCALAR_VAL(0.0);
        xm1 = SCALAR_VAL(0.0);
        for (j = 0; j < _H_; j++) {
            y1[i][j] = a1 * img[i][j] + a2 * xm1 + b1 * ym1 + b2 * ym2;
            xm1 = img[i][j];
            ym2 = ym1;
            ym1 = y1[i][j];
        }
    }

    for (i = 0; i < _W_; i++) {
        yp1 = SCALAR_VAL(0.0);
        yp2 = SCALAR_VAL(0.0);
        xp1 = SCALAR_VAL(0.0);
        xp2 = SCALAR_VAL(0.0);
        for (j = _H_ - 1; j >= 0; j--) {
            y2[i][j] = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2;
            xp2 = xp1;
            xp1 = img[i][j];
            yp2 = yp1;
            yp1 = y2[i][j];
        }
    }

    for (i = 0; i < _W_; i++)
        for (j = 0; j < _H_; j++)
            out[i][j] = c1 * (y1[i][j] + y2[i][j]);

    for (j = 0; j < _H_; j++) {
        tm1 = SCALAR_VAL(0.0);
        ym1 = SCALAR_VAL(0.0);
        ym2 = SCALAR_VAL(0.0);
        for (i = 0; i < _W_; i++) {
            y1[i][j] = a5 * out[i][j] + a6 * tm1 + b1 * ym1 + b2 * ym2;
            tm1 = out[i][j];
            ym2 = ym1;
            ym1 = y1[i][j];
        }
    }

    for (j = 0; j < _H_; j++) {
        tp1 = SCALAR_VAL(0.0);
        tp2 = SCALAR_VAL(0.0);
        yp1 = SCALAR_VAL(0.0);
        yp2 = SCALAR_VAL(0.0);
        for (i = _W_ - 1; i >= 0; i--) {
            y2[i][j] = a7 * tp1 + a8 * tp2 + b1 * yp1 + b2 * yp2;
            tp2 = tp1;
            tp1 = out[i][j];
            yp2 = yp1;
            yp1 = y2[i][j];
        }
    }

    for (i = 0; i < _W_; i++)
        for (j = 0; j < _H_; j++)
            out[i][j] = c2 * (y1[i][j] + y2[i][j]);
#pragma endscop
}

int main(int argc, char **argv)
{
    int w = W;
    int h = H;
    DATA_TYPE alpha;
    BU_2D_ARRAY(img, DATA_TYPE, W, H, w, h);
    BU_2D_ARRAY(out, DATA_TYPE, W, H, w, h);
    BU_2D_ARRAY(y1, DATA_TYPE, W, H, w, h);
    BU_2D_ARRAY(y2, DATA_TYPE, W, H, w, h);

    init_array(w, h, &alpha, BU_ARRAY(img));

    bu_timer_start();
    kernel_edge_smooth(w, h, alpha, BU_ARRAY(img), BU_ARRAY(out), BU_ARRAY(y1), BU_ARRAY(y2));
    bu_timer_stop();

    bu_prevent_dce(print_array(w, h, BU_ARRAY(out)));

    BU_FREE(img);
    BU_FREE(out);
    BU_FREE(y1);
    BU_FREE(y2);
    return 0;
}
