/* recursive_filter_pb: first-order causal and anti-causal recursive filters over the rows
 * and then the columns of a float image (right to left, bottom to top), summed; exp() of
 * the smoothing factor computed once; fixed-size arrays.
 * corpus: kernel=recursive_filter_pb args="" params="w=32,h=20" cflags="-DW=32 -DH=20" */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef W
#define W 720
#endif
#ifndef H
#define H 480
#endif

static void recursive_filter_pb(int w, int h, float alpha, float in[W][H], float out[W][H],
                                float y1[W][H], float y2[W][H])
{
    int i, j;
    float k = (1.0f - expf(-alpha)) * (1.0f - expf(-alpha));
    float a1 = k, a2 = k * expf(-alpha), b1 = 2.0f * expf(-alpha);
    float ym1, xm1, yp1, xp1;

    for (i = 0; i < w; i++) {
        ym1 = 0.0f;
        xm1 = 0.0f;
        for (j = 0; j < h; j++) {
            y1[i][j] = a1 * in[i][j] + a2 * xm1 + b1 * ym1;
            xm1 = in[i][j];
            ym1 = y1[i][j];
        }
    }
    for (i = 0; i < w; i++) {
        yp1 = 0.0f;
        xp1 = 0.0f;
        for (j = h - 1; j >= 0; j--) {
            y2[i][j] = a2 * xp1 + b1 * yp1;
            xp1 = in[i][j];
            yp1 = y2[i][j];
        }
    }
    for (i = 0; i < w; i++)
        for (j = 0; j < h; j++)
            out[i][j] = y1[i][j] + y2[i][j];
    for (j = 0; j < h; j++) {
        yp1 = 0.0f;
        for (i = w - 1; i >= 0; i--) {
            y2[i][j] = b1 * yp1 + a2 * out[i][j];
            yp1 = y2[i][j];
        }
    }
    for (i = 0; i < w; i++)
        for (j = 0; j < h; j++)
            out[i][j] += y2[i][j];
}

int main(void)
{
    int w = W, h = H;
    float (*in)[W][H] = malloc(sizeof(float[W][H]));
    float (*out)[W][H] = malloc(sizeof(float[W][H]));
    float (*y1)[W][H] = malloc(sizeof(float[W][H]));
    float (*y2)[W][H] = malloc(sizeof(float[W][H]));
    for (int i = 0; i < w; i++)
        for (int j = 0; j < h; j++)
            (*in)[i][j] = (float)((313 * i + 991 * j) % 65536) / 65535.0f;
    recursive_filter_pb(w, h, 0.25f, *in, *out, *y1, *y2);
    printf("%.4f\n", (double)(*out)[w / 2][h / 2]);
    free(in); free(out); free(y1); free(y2);
    return 0;
}
