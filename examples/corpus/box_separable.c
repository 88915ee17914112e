/* box_separable: separable (2r+1) box filter on floats, horizontal then vertical pass,
 * the window clipped at the borders with min/max bounds.
 * corpus: kernel=box_separable args="60 80 2" params="h=60,w=80,r=2" */
#include <stdio.h>
#include <stdlib.h>

#ifndef H
#define H 120
#endif
#ifndef W
#define W 160
#endif
#ifndef R
#define R 3
#endif

static inline int imax(int a, int b) { return a > b ? a : b; }
static inline int imin(int a, int b) { return a < b ? a : b; }

void box_separable(int h, int w, int r, const float *in, float *tmp, float *out)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float s = 0.0f;
            for (int k = imax(0, x - r); k <= imin(w - 1, x + r); k++)
                s += in[y * w + k];
            tmp[y * w + x] = s;
        }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float s = 0.0f;
            for (int k = imax(0, y - r); k <= imin(h - 1, y + r); k++)
                s += tmp[k * w + x];
            out[y * w + x] = s / (float)((2 * r + 1) * (2 * r + 1));
        }
}

int main(int argc, char **argv)
{
    int h = argc > 1 ? atoi(argv[1]) : H;
    int w = argc > 2 ? atoi(argv[2]) : W;
    int r = argc > 3 ? atoi(argv[3]) : R;
    float *in = malloc(sizeof(float) * h * w), *tmp = malloc(sizeof(float) * h * w);
    float *out = malloc(sizeof(float) * h * w);
    for (int i = 0; i < h * w; i++)
        in[i] = (float)(i % 255);
    box_separable(h, w, r, in, tmp, out);
    printf("%.3f\n", out[(h / 2) * w + w / 2]);
    free(in); free(tmp); free(out);
    return 0;
}
