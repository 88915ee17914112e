/*
 * metron_probe.h -- region timers with call-context trees (metron-probe, C ABI).
 *
 * Link with -lmetron_probe (shared: libmetron_probe.so; static: libmetron_probe.a plus
 * -lpthread -ldl -lm -lgcc_s). Built by `cargo build --release -p metron-probe`.
 *
 *   metron_probe_init();                       // optional: reads METRON_* and writes at exit
 *   { METRON_REGION("solve"); ... }            // by name, to the end of the scope (GCC/clang C, C++)
 *   METRON_ENTER("sweep"); ... METRON_EXIT("sweep");                  // by name, any C compiler
 *   uint32_t id = metron_probe_register("sweep");                     // once
 *   metron_probe_enter_id(id); ... metron_probe_exit_id(id);          // by id
 *   metron_probe_enter("solve"); ... metron_probe_exit("solve");      // by name, looked up per call
 *   metron_probe_finalize();                   // optional: write now instead of at exit
 *
 * The macros cache the region's id in a static at each call site, so after the first call a
 * by-name region costs what the by-id calls cost (docs/probe-overhead.md). Their name must be a
 * string literal. metron_probe_enter/exit with a name look it up at every call (a per-thread
 * cache keyed by the string's address, confirmed by its bytes).
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

/* Enter / exit a region by name (a per-thread lookup by the string's address, confirmed by
 * its bytes; no lock after the first use). The macros below are cheaper still. */
void metron_probe_enter(const char *name);
void metron_probe_exit(const char *name);

/* Register a name once; enter/exit by the returned id cost a clock read and a few stores. */
uint32_t metron_probe_register(const char *name);
void metron_probe_enter_id(uint32_t id);
void metron_probe_exit_id(uint32_t id);

/* Switch the call-context tree on (default) or off at run time; flat timers keep running. */
void metron_probe_set_call_tree(int on);

#define METRON_PROBE_CAT2(a, b) a##b
#define METRON_PROBE_CAT(a, b) METRON_PROBE_CAT2(a, b)

/* The id behind a call site's static slot (0: not registered yet, else id + 1). Registering
 * twice from two threads is harmless: a name always gets the same id. */
static inline uint32_t metron_probe_site_id_(uint32_t *slot, const char *name) {
#if defined(__GNUC__)
    uint32_t v = __atomic_load_n(slot, __ATOMIC_RELAXED);
    if (__builtin_expect(v == 0, 0)) {
        v = metron_probe_register(name) + 1;
        __atomic_store_n(slot, v, __ATOMIC_RELAXED);
    }
#else
    uint32_t v = *(volatile uint32_t *)slot;
    if (v == 0) {
        v = metron_probe_register(name) + 1;
        *(volatile uint32_t *)slot = v;
    }
#endif
    return v - 1;
}

/* METRON_ENTER("name"); ... METRON_EXIT("name"); by name at the cost of the by-id calls.
 * ("" name "" makes anything but a string literal a compile error.) */
#define METRON_ENTER(name)                                                                 \
    do {                                                                                   \
        static uint32_t metron_site_ = 0;                                                  \
        metron_probe_enter_id(metron_probe_site_id_(&metron_site_, "" name ""));           \
    } while (0)
#define METRON_EXIT(name)                                                                  \
    do {                                                                                   \
        static uint32_t metron_site_ = 0;                                                  \
        metron_probe_exit_id(metron_probe_site_id_(&metron_site_, "" name ""));            \
    } while (0)

#if !defined(__cplusplus) && defined(__GNUC__)
static inline uint32_t metron_probe_region_begin_(uint32_t *slot, const char *name) {
    uint32_t id = metron_probe_site_id_(slot, name);
    metron_probe_enter_id(id);
    return id;
}
static inline void metron_probe_region_end_(const uint32_t *id) { metron_probe_exit_id(*id); }
/* METRON_REGION("name"); times the rest of the scope (GCC/clang cleanup attribute); the id
 * is cached in a static at the call site. */
#define METRON_REGION(name)                                                                \
    static uint32_t METRON_PROBE_CAT(metron_site_, __LINE__) = 0;                          \
    __attribute__((cleanup(metron_probe_region_end_))) const uint32_t                      \
        METRON_PROBE_CAT(metron_region_, __LINE__) =                                       \
            metron_probe_region_begin_(&METRON_PROBE_CAT(metron_site_, __LINE__), "" name "")
#endif

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

/* METRON_REGION("name"); times the rest of the scope; the id is registered once (static). */
#define METRON_REGION(name)                                                                \
    static const uint32_t METRON_PROBE_CAT(metron_region_id_, __LINE__) =                  \
        metron_probe_register(name);                                                       \
    metron::Region METRON_PROBE_CAT(metron_region_, __LINE__)(                             \
        METRON_PROBE_CAT(metron_region_id_, __LINE__))
#endif /* __cplusplus */

#endif /* METRON_PROBE_H */
