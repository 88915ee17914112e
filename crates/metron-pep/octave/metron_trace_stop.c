/* n = metron_trace_stop(): stop sampling and append the trace to its file; n samples
 * (mPAPI_toc, 000 App. B.1.3). */
#include "metron_mex.h"

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    (void)nlhs;
    (void)prhs;
    if (nrhs != 0) mexErrMsgIdAndTxt("metron:args", "usage: n = metron_trace_stop()");
    int n = metron_pep_trace_stop();
    if (n < 0) metron_fail();
    plhs[0] = mxCreateDoubleScalar((double)n);
}
