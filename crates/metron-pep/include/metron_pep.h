/* metron-pep's C ABI: performance event counting and sampling from inside a program, as
 * mPAPI gave MATLAB (000 App. B). Link with -lmetron_pep (target/<profile>/libmetron_pep.so).
 * Counters observe the calling thread. Every int function returns -1 on failure, with the
 * reason in metron_pep_last_error(). Events are perf names: cpu-clock, task-clock,
 * page-faults, instructions, cycles, ..., or raw codes rNNNN. */
#ifndef METRON_PEP_H
#define METRON_PEP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Counting mode: `events` comma-separated, the first leads the group. */
int metron_pep_counters_start(const char *events);
/* Stops; returns the number of events, read with the two functions below. */
int metron_pep_counters_stop(void);
const char *metron_pep_count_name(int i);
uint64_t metron_pep_count_value(int i);

/* Sampling mode (000 Listing 3.2): every `threshold` of `sample`, read the members
 * `events` (comma-separated); on stop the trace is appended to `file` under `name`. */
int metron_pep_trace_start(const char *sample, uint64_t threshold, const char *events,
                           const char *file, const char *name);
/* Stops and writes the trace; returns its number of samples. */
int metron_pep_trace_stop(void);

const char *metron_pep_last_error(void);

#ifdef __cplusplus
}
#endif
#endif
