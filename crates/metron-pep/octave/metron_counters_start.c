/* metron_counters_start(events): start counting events (a cell array or a comma-separated
 * string) on Octave's thread, in counting mode (mPAPI_register + mPAPI_tic, 000 App. B.1.2). */
#include "metron_mex.h"

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    (void)nlhs;
    (void)plhs;
    if (nrhs != 1) mexErrMsgIdAndTxt("metron:args", "usage: metron_counters_start(events)");
    char *events = metron_event_list(prhs[0], "events");
    int r = metron_pep_counters_start(events);
    mxFree(events);
    if (r != 0) metron_fail();
}
