/* gamma_clamp: brightness/contrast on an RGB float image, clamped to [0,1] with ?:.
 * corpus: kernel=gamma_clamp args="100 120" params="h=100,w=120" */
#include <stdio.h>
#include <stdlib.h>

#ifndef H
#define H 200
#endif
#ifndef W
#define W 300
#endif

void gamma_clamp(int h, int w, float gain, float bias, float *rgb)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < 3; c++) {
                float v = gain * rgb[(y * w + x) * 3 + c] + bias;
                v = v < 0.0f ? 0.0f : v;
                rgb[(y * w + x) * 3 + c] = v > 1.0f ? 1.0f : v;
            }
}

int main(int argc, char **argv)
{
    int h = argc > 1 ? atoi(argv[1]) : H;
    int w = argc > 2 ? atoi(argv[2]) : W;
    float *rgb = malloc(sizeof(float) * h * w * 3);
    for (int i = 0; i < h * w * 3; i++)
        rgb[i] = (float)(i % 101) / 100.0f;
    gamma_clamp(h, w, 1.4f, -0.1f, rgb);
    printf("%.4f\n", rgb[3 * w + 1]);
    free(rgb);
    return 0;
}
