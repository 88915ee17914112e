/* Helpers shared by metron's Octave MEX functions. */
#ifndef METRON_MEX_H
#define METRON_MEX_H

#include <string.h>
#include "mex.h"
#include "metron_pep.h"

/* A char array, or a cell array of char arrays joined with commas; the caller frees it. */
static char *metron_event_list(const mxArray *a, const char *what) {
    if (mxIsChar(a)) return mxArrayToString(a);
    if (!mxIsCell(a)) mexErrMsgIdAndTxt("metron:args", "%s: expected a string or a cell array of strings", what);
    size_t n = mxGetNumberOfElements(a), len = 1;
    for (size_t i = 0; i < n; i++) {
        const mxArray *c = mxGetCell(a, i);
        if (!c || !mxIsChar(c)) mexErrMsgIdAndTxt("metron:args", "%s: element %zu is not a string", what, i + 1);
        len += mxGetNumberOfElements(c) + 1;
    }
    char *out = mxCalloc(len, 1);
    for (size_t i = 0; i < n; i++) {
        char *s = mxArrayToString(mxGetCell(a, i));
        if (i) strcat(out, ",");
        strcat(out, s);
        mxFree(s);
    }
    return out;
}

/* Octave already prefixes the message with the function's name. */
static void metron_fail(void) {
    mexErrMsgIdAndTxt("metron:pep", "%s", metron_pep_last_error());
}

#endif
