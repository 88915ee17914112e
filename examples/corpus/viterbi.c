/* viterbi: most likely state path of an HMM (log domain), max over predecessors,
 * then the backtrace runs from the last step down to the first.
 * corpus: kernel=viterbi args="200 12" params="steps=200,states=12" */
#include <stdio.h>
#include <stdlib.h>

#ifndef STEPS
#define STEPS 400
#endif
#ifndef STATES
#define STATES 16
#endif

void viterbi(int steps, int states, const double *trans, const double *emit,
             double *score, int *from, int *path)
{
    for (int s = 0; s < states; s++)
        score[s] = emit[s];
    for (int t = 1; t < steps; t++)
        for (int s = 0; s < states; s++) {
            double best = score[(t - 1) * states] + trans[s];
            int arg = 0;
            for (int p = 1; p < states; p++) {
                double v = score[(t - 1) * states + p] + trans[p * states + s];
                if (v > best) {
                    best = v;
                    arg = p;
                }
            }
            score[t * states + s] = best + emit[t * states + s];
            from[t * states + s] = arg;
        }
    int last = 0;
    for (int s = 1; s < states; s++)
        if (score[(steps - 1) * states + s] > score[(steps - 1) * states + last])
            last = s;
    path[steps - 1] = last;
    for (int t = steps - 1; t > 0; t--)
        path[t - 1] = from[t * states + path[t]];
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : STEPS;
    int states = argc > 2 ? atoi(argv[2]) : STATES;
    double *trans = malloc(sizeof(double) * states * states), *emit = malloc(sizeof(double) * steps * states);
    double *score = malloc(sizeof(double) * steps * states);
    int *from = malloc(sizeof(int) * steps * states), *path = malloc(sizeof(int) * steps);
    for (int p = 0; p < states; p++)
        for (int s = 0; s < states; s++)
            trans[p * states + s] = -1.0 - ((p * 3 + s * 5) % 7) * 0.25;
    for (int t = 0; t < steps; t++)
        for (int s = 0; s < states; s++)
            emit[t * states + s] = -0.5 - ((t * 11 + s * 7) % 9) * 0.125;
    viterbi(steps, states, trans, emit, score, from, path);
    printf("%d\n", path[0]);
    free(trans); free(emit); free(score); free(from); free(path);
    return 0;
}
