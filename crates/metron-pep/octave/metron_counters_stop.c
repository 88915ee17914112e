/* s = metron_counters_stop(): stop counting; a struct with one field per event (its name
 * with '-' and ':' made '_'), the counts as doubles (mPAPI_toc, 000 App. B.1.2). */
#include <stdlib.h>
#include "metron_mex.h"

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    (void)nlhs;
    (void)prhs;
    if (nrhs != 0) mexErrMsgIdAndTxt("metron:args", "usage: s = metron_counters_stop()");
    int n = metron_pep_counters_stop();
    if (n < 0) metron_fail();
    char **names = mxCalloc(n > 0 ? n : 1, sizeof *names);
    for (int i = 0; i < n; i++) {
        const char *name = metron_pep_count_name(i);
        names[i] = mxCalloc(strlen(name) + 1, 1);
        strcpy(names[i], name);
        for (char *c = names[i]; *c; c++)
            if (*c == '-' || *c == ':' || *c == '.') *c = '_';
    }
    plhs[0] = mxCreateStructMatrix(1, 1, n, (const char **)names);
    for (int i = 0; i < n; i++)
        mxSetFieldByNumber(plhs[0], 0, i, mxCreateDoubleScalar((double)metron_pep_count_value(i)));
}
