/* metron_trace_start(sample, threshold, events, file [, name]): sample the group led by
 * `sample` every `threshold` events with `events` as members; metron_trace_stop appends the
 * trace to `file` (mPAPI_trace_register + mPAPI_tic, 000 App. B.1.3). */
#include "metron_mex.h"

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    (void)nlhs;
    (void)plhs;
    if (nrhs < 4 || nrhs > 5 || !mxIsChar(prhs[0]) || !mxIsNumeric(prhs[1]) || !mxIsChar(prhs[3]))
        mexErrMsgIdAndTxt("metron:args", "usage: metron_trace_start(sample, threshold, events, file [, name])");
    double threshold = mxGetScalar(prhs[1]);
    if (!(threshold >= 1)) mexErrMsgIdAndTxt("metron:args", "metron_trace_start: the threshold must be a positive integer");
    char *sample = mxArrayToString(prhs[0]);
    char *events = metron_event_list(prhs[2], "events");
    char *file = mxArrayToString(prhs[3]);
    char *name = nrhs == 5 && mxIsChar(prhs[4]) ? mxArrayToString(prhs[4]) : NULL;
    int r = metron_pep_trace_start(sample, (uint64_t)threshold, events, file, name ? name : "trace");
    mxFree(sample);
    mxFree(events);
    mxFree(file);
    if (name) mxFree(name);
    if (r != 0) metron_fail();
}
