/* backward_diff: first-order recursive filter run right to left, y[i] = x[i] + c*y[i+1],
 * over several channels; the channel loop steps by 1, the sample loop by -1.
 * corpus: kernel=backward_filter args="8 1000" params="channels=8,len=1000" */
#include <stdio.h>
#include <stdlib.h>

#ifndef CH
#define CH 4
#endif
#ifndef LEN
#define LEN 4096
#endif

void backward_filter(int channels, int len, double c, const double *x, double *y)
{
    for (int ch = 0; ch < channels; ch++) {
        const double *xc = x + (size_t)ch * len;
        double *yc = y + (size_t)ch * len;
        yc[len - 1] = xc[len - 1];
        for (int i = len - 2; i >= 0; i--)
            yc[i] = xc[i] + c * yc[i + 1];
    }
}

int main(int argc, char **argv)
{
    int channels = argc > 1 ? atoi(argv[1]) : CH;
    int len = argc > 2 ? atoi(argv[2]) : LEN;
    double *x = malloc(sizeof(double) * channels * len), *y = malloc(sizeof(double) * channels * len);
    for (int i = 0; i < channels * len; i++)
        x[i] = (i % 17) * 0.0625;
    backward_filter(channels, len, 0.9, x, y);
    printf("%.6f\n", y[0]);
    free(x); free(y);
    return 0;
}
