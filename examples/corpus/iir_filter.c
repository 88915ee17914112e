/* iir_filter: Deriche-style recursive smoothing of each row: a causal pass left to right
 * and an anti-causal pass right to left, summed.
 * corpus: kernel=iir_smooth args="40 120" params="h=40,w=120" */
#include <stdio.h>
#include <stdlib.h>

#ifndef H
#define H 64
#endif
#ifndef W
#define W 256
#endif

void iir_smooth(int h, int w, const float *in, float *causal, float *anti, float *out)
{
    const float a0 = 0.25f, a1 = 0.2f, b1 = 0.6f, b2 = -0.1f;
    for (int i = 0; i < h; i++) {
        float ym1 = 0.0f, ym2 = 0.0f, xm1 = 0.0f;
        for (int j = 0; j < w; j++) {
            causal[i * w + j] = a0 * in[i * w + j] + a1 * xm1 + b1 * ym1 + b2 * ym2;
            xm1 = in[i * w + j];
            ym2 = ym1;
            ym1 = causal[i * w + j];
        }
        float yp1 = 0.0f, yp2 = 0.0f, xp1 = 0.0f;
        for (int j = w - 1; j >= 0; j--) {
            anti[i * w + j] = a1 * xp1 + b1 * yp1 + b2 * yp2;
            xp1 = in[i * w + j];
            yp2 = yp1;
            yp1 = anti[i * w + j];
        }
        for (int j = 0; j < w; j++)
            out[i * w + j] = causal[i * w + j] + anti[i * w + j];
    }
}

int main(int argc, char **argv)
{
    int h = argc > 1 ? atoi(argv[1]) : H;
    int w = argc > 2 ? atoi(argv[2]) : W;
    float *in = malloc(sizeof(float) * h * w), *c = malloc(sizeof(float) * h * w);
    float *a = malloc(sizeof(float) * h * w), *out = malloc(sizeof(float) * h * w);
    for (int i = 0; i < h; i++)
        for (int j = 0; j < w; j++)
            in[i * w + j] = (float)((313 * i + 991 * j) % 65536) / 65535.0f;
    iir_smooth(h, w, in, c, a, out);
    printf("%.6f\n", out[w + 1]);
    free(in); free(c); free(a); free(out);
    return 0;
}
