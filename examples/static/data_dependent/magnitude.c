#include <math.h>

#include "signal.h"

/* Amplitude from a power estimate. The estimate is a difference of two noisy terms and goes
 * negative now and then; sqrt then returns NaN and sets errno, which the caller filters. */
void magnitude(int n, const double *power, double *amplitude)
{
    for (int i = 0; i < n; i++)
        amplitude[i] = sqrt(power[i]);
}

/* Root-mean-square difference of two float signals. */
float rms_error(int n, const float *a, const float *b)
{
    float s = 0.0f;
    for (int i = 0; i < n; i++) {
        float d = a[i] - b[i];
        s += d * d;
    }
    return sqrtf(s / (float)n);
}
