/* downsample: 2x2 average pooling of a float image (stride-2 loops), output h/2 x w/2.
 * corpus: kernel=downsample2 args="128 96" params="h=128,w=96" */
#include <stdio.h>
#include <stdlib.h>

#ifndef H
#define H 256
#endif
#ifndef W
#define W 256
#endif

void downsample2(int h, int w, const float *in, float *out)
{
    for (int y = 0; y + 1 < h; y += 2)
        for (int x = 0; x + 1 < w; x += 2)
            out[(y / 2) * (w / 2) + x / 2] =
                0.25f * (in[y * w + x] + in[y * w + x + 1] + in[(y + 1) * w + x] + in[(y + 1) * w + x + 1]);
}

int main(int argc, char **argv)
{
    int h = argc > 1 ? atoi(argv[1]) : H;
    int w = argc > 2 ? atoi(argv[2]) : W;
    float *in = malloc(sizeof(float) * h * w), *out = malloc(sizeof(float) * (h / 2) * (w / 2));
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            in[y * w + x] = (float)((x + y) % 17);
    downsample2(h, w, in, out);
    printf("%.3f\n", out[(h / 4) * (w / 2) + w / 4]);
    free(in); free(out);
    return 0;
}
