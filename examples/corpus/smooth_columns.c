/* smooth_columns: exponential smoothing down each column, then back up (two-pass,
 * zero-phase), over a row-major image of doubles; the upward pass counts i down to 0.
 * corpus: kernel=smooth_columns args="100 64" params="rows=100,cols=64" */
#include <stdio.h>
#include <stdlib.h>

#ifndef ROWS
#define ROWS 200
#endif
#ifndef COLS
#define COLS 128
#endif

void smooth_columns(int rows, int cols, double alpha, double *img)
{
    int i, j;
    for (i = 1; i < rows; i++)
        for (j = 0; j < cols; j++)
            img[i * cols + j] = alpha * img[i * cols + j] + (1.0 - alpha) * img[(i - 1) * cols + j];
    for (i = rows - 2; i >= 0; i--)
        for (j = 0; j < cols; j++)
            img[i * cols + j] = alpha * img[i * cols + j] + (1.0 - alpha) * img[(i + 1) * cols + j];
}

int main(int argc, char **argv)
{
    int rows = argc > 1 ? atoi(argv[1]) : ROWS;
    int cols = argc > 2 ? atoi(argv[2]) : COLS;
    double *img = malloc(sizeof(double) * rows * cols);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            img[i * cols + j] = ((i * 3 + j * 5) % 31) / 31.0;
    smooth_columns(rows, cols, 0.3, img);
    printf("%.6f\n", img[0]);
    free(img);
    return 0;
}
