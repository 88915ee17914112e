/* blur3x3: float 3x3 box blur of the interior of a grey image, borders copied.
 * corpus: kernel=blur3x3 args="120 160" params="h=120,w=160" */
#include <stdio.h>
#include <stdlib.h>

#ifndef H
#define H 240
#endif
#ifndef W
#define W 320
#endif

void blur3x3(int h, int w, const float *in, float *out)
{
    for (int x = 0; x < w; x++) {
        out[x] = in[x];
        out[(h - 1) * w + x] = in[(h - 1) * w + x];
    }
    for (int y = 1; y < h - 1; y++) {
        out[y * w] = in[y * w];
        for (int x = 1; x < w - 1; x++) {
            float s = 0.0f;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++)
                    s += in[(y + dy) * w + x + dx];
            out[y * w + x] = s * (1.0f / 9.0f);
        }
        out[y * w + w - 1] = in[y * w + w - 1];
    }
}

int main(int argc, char **argv)
{
    int h = argc > 1 ? atoi(argv[1]) : H;
    int w = argc > 2 ? atoi(argv[2]) : W;
    float *in = malloc(sizeof(float) * h * w), *out = malloc(sizeof(float) * h * w);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            in[y * w + x] = (float)((x * y) & 255);
    blur3x3(h, w, in, out);
    printf("%.3f\n", out[(h / 2) * w + w / 2]);
    free(in); free(out);
    return 0;
}
