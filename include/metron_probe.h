/*
 * metron_probe.h -- region timers with call-context trees (metron-probe, C ABI).
 *
 * Link with -lmetron_probe (shared: libmetron_probe.so; static: libmetron_probe.a plus
 * -lpthread -ldl -lm -lgcc_s). Built by `cargo build --release -p metron-probe`.
 *
 *   metron_probe_init();                       // optional: reads METRON_* and writes at exit
 *   metron_probe_enter("solve"); ... metron_probe_exit("solve");      // by name
 *   uint32_t id = metron_probe_register("sweep");                     // once
 *   metron_probe_enter_id(id); ... metron_probe_exit_id(id);          // fast path
 *   metron_probe_finalize();                   // optional: write now instead of at exit
 *
 * Semantics (Kravchuk 2015, Ch. 2): nested and looped regions each have their own timer; an
 * inclusive recursion times only its outermost activation and counts outermost entries; an exit
 * without an entry is counted as an error of that region. Regions still open when the profile is
 * written are closed and flagged. Every function may be called from any thread; each thread
 * records on its own, and threads are merged when the profile is written (join them first).
 * The functions are not async-signal-safe: do not call them from signal handlers.
 *
 * Environment: METRON_PROFILE_DIR (output directory, default "."), METRON_RANK /
 * OMPI_COMM_WORLD_RANK / PMI_RANK / SLURM_PROCID (rank -> file metron-rank<R>.json),
 * METRON_CLOCK=tsc|monotonic|monotonic_raw, METRON_CALL_TREE=0, METRON_TIMELINE=<events per
 * thread> (Chrome trace <stem>.trace.json), METRON_FORMATS=csv,folded.
 */
#ifndef METRON_PROBE_H
#define METRON_PROBE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Configure from the environment, choose the clock, write the profile at exit. 0 on success. */
int metron_probe_init(void);
/* Write the profile now and not again at exit. 0 on success, -1 if it could not be written
 * (one message on stderr; the program is never stopped). */
int metron_probe_finalize(void);
/* Write the profile now; it is written again at exit or finalize. */
int metron_probe_flush(void);

/* Enter / exit a region by name (a per-thread lookup; no lock after the first use). */
void metron_probe_enter(const char *name);
void metron_probe_exit(const char *name);

/* Register a name once; enter/exit by the returned id cost a clock read and a few stores. */
uint32_t metron_probe_register(const char *name);
void metron_probe_enter_id(uint32_t id);
void metron_probe_exit_id(uint32_t id);

/* Switch the call-context tree on (default) or off at run time; flat timers keep running. */
void metron_probe_set_call_tree(int on);

#ifdef __cplusplus
} /* extern "C" */

namespace metron {
/* RAII region: exits on scope end, also when an exception unwinds through it. */
class Region {
public:
    explicit Region(uint32_t id) : id_(id) { metron_probe_enter_id(id_); }
    explicit Region(const char *name) : id_(metron_probe_register(name)) { metron_probe_enter_id(id_); }
    ~Region() { metron_probe_exit_id(id_); }
    Region(const Region &) = delete;
    Region &operator=(const Region &) = delete;
private:
    uint32_t id_;
};
} /* namespace metron */

#define METRON_PROBE_CAT2(a, b) a##b
#define METRON_PROBE_CAT(a, b) METRON_PROBE_CAT2(a, b)
/* METRON_REGION("name"); times the rest of the scope; the id is registered once (static). */
#define METRON_REGION(name)                                                                \
    static const uint32_t METRON_PROBE_CAT(metron_region_id_, __LINE__) =                  \
        metron_probe_register(name);                                                       \
    metron::Region METRON_PROBE_CAT(metron_region_, __LINE__)(                             \
        METRON_PROBE_CAT(metron_region_id_, __LINE__))
#endif /* __cplusplus */

#endif /* METRON_PROBE_H */
