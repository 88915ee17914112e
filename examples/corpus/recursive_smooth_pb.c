/* recursive_smooth_pb: float image, a first-order recursive filter down each column left to
 * right and right to left (down-counting), their sum, then tsteps five-point smoothing
 * sweeps; a float parameter, coefficients from expf, the output array past the sixth
 * integer argument.
 * corpus: kernel=recursive_smooth_pb args="" params="tsteps=4,w=40,h=30" cflags="-DTSTEPS=4 -DW=40 -DH=30" */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef TSTEPS
#define TSTEPS 10
#endif
#ifndef W
#define W 512
#endif
#ifndef H
#define H 384
#endif

static void recursive_smooth_pb(int tsteps, int w, int h, float alpha, float img[W][H],
                                float y1[W][H], float y2[W][H], float out[W][H])
{
    int i, j, t;
    float k = (1.0f - expf(-alpha)) * (1.0f - expf(-alpha));
    float b1 = expf(-alpha);
    float ym1, ym2, xp1;
    for (i = 0; i < w; i++) {
        ym1 = 0.0f;
        for (j = 0; j < h; j++) {
            y1[i][j] = k * img[i][j] + b1 * ym1;
            ym1 = y1[i][j];
        }
    }
    for (i = 0; i < w; i++) {
        ym2 = 0.0f;
        xp1 = 0.0f;
        for (j = h - 1; j >= 0; j--) {
            y2[i][j] = k * xp1 + b1 * ym2;
            xp1 = img[i][j];
            ym2 = y2[i][j];
        }
    }
    for (i = 0; i < w; i++)
        for (j = 0; j < h; j++)
            out[i][j] = y1[i][j] + y2[i][j];
    for (t = 1; t <= tsteps; t++)
        for (i = 1; i < w - 1; i++)
            for (j = 1; j < h - 1; j++)
                out[i][j] = 0.2f * (out[i][j] + out[i - 1][j] + out[i + 1][j] + out[i][j - 1] + out[i][j + 1]);
}

int main(void)
{
    int w = W, h = H, tsteps = TSTEPS;
    float (*img)[W][H] = malloc(sizeof(float[W][H]));
    float (*y1)[W][H] = malloc(sizeof(float[W][H]));
    float (*y2)[W][H] = malloc(sizeof(float[W][H]));
    float (*out)[W][H] = malloc(sizeof(float[W][H]));
    for (int i = 0; i < w; i++)
        for (int j = 0; j < h; j++)
            (*img)[i][j] = (float)((313 * i + 991 * j) % 65536) / 65535.0f;
    recursive_smooth_pb(tsteps, w, h, 0.25f, *img, *y1, *y2, *out);
    printf("%.4f\n", (*out)[w / 2][h / 2]);
    free(img); free(y1); free(y2); free(out);
    return 0;
}
