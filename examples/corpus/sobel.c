/* sobel: float gradient magnitude with sqrtf, fixed image size from macros.
 * corpus: kernel=sobel args="" params="" cflags="-DH=96 -DW=128" */
#include <math.h>
#include <stdio.h>

#ifndef H
#define H 240
#endif
#ifndef W
#define W 320
#endif

static float img[H][W], mag[H][W];

void sobel(void)
{
    for (int y = 1; y < H - 1; y++)
        for (int x = 1; x < W - 1; x++) {
            float gx = img[y - 1][x + 1] + 2.0f * img[y][x + 1] + img[y + 1][x + 1]
                     - img[y - 1][x - 1] - 2.0f * img[y][x - 1] - img[y + 1][x - 1];
            float gy = img[y + 1][x - 1] + 2.0f * img[y + 1][x] + img[y + 1][x + 1]
                     - img[y - 1][x - 1] - 2.0f * img[y - 1][x] - img[y - 1][x + 1];
            mag[y][x] = sqrtf(gx * gx + gy * gy);
        }
}

int main(void)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            img[y][x] = (float)(((x - W / 2) * (x - W / 2) + (y - H / 2) * (y - H / 2)) % 97);
    sobel();
    printf("%.3f\n", mag[H / 3][W / 3]);
    return 0;
}
