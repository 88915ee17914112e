/* threshold: binarise a float image against a level computed from its mean; the count of
 * pixels above the level depends on the data.
 * corpus: kernel=threshold args="100 150" params="h=100,w=150" */
#include <stdio.h>
#include <stdlib.h>

#ifndef H
#define H 240
#endif
#ifndef W
#define W 320
#endif

int threshold(int h, int w, const float *in, unsigned char *out)
{
    float mean = 0.0f;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            mean += in[y * w + x];
    mean /= (float)(h * w);
    int above = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            if (in[y * w + x] > 1.1f * mean) {
                out[y * w + x] = 255;
                above++;
            } else {
                out[y * w + x] = 0;
            }
        }
    return above;
}

int main(int argc, char **argv)
{
    int h = argc > 1 ? atoi(argv[1]) : H;
    int w = argc > 2 ? atoi(argv[2]) : W;
    float *in = malloc(sizeof(float) * h * w);
    unsigned char *out = malloc(h * w);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            in[y * w + x] = (float)((x * 7 + y * 13) % 64);
    printf("%d\n", threshold(h, w, in, out));
    free(in); free(out);
    return 0;
}
