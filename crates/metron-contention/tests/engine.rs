//! The event-driven simulator against a plain cycle-by-cycle reference written from the
//! definition (module doc of `sim`): every cycle, each free bank grants one of the requests
//! waiting for it by the arbitration rule. Random small streams, every policy.

use metron_contention::sim::{
    run_parallel, run_parallel_buffered, simulate_buffered, simulate_with, Access, Arbitration,
    Cache, Config, Mapping, Sequential, Stream, Timing,
};
use rand_chacha::rand_core::{RngCore, SeedableRng};

/// A core's private direct-mapped cache, written out plainly: set -> line held.
struct RefCache {
    held: std::collections::HashMap<u64, u64>,
    lines: u64,
    line_bytes: u64,
}

/// From time `t`, core `k` works through its accesses from `next[k]`: gaps, read hits (no
/// bank), up to its next bank request. Returns that request's arrival, or None with the
/// finish time in `out`.
#[allow(clippy::too_many_arguments)]
fn walk(
    config: &Config,
    s: &Stream,
    next: &mut usize,
    cache: &mut Option<RefCache>,
    mut t: u64,
    finish: &mut u64,
) -> Option<u64> {
    while let Some(a) = s.accesses.get(*next) {
        t += a.gap as u64;
        if let (false, Some(c)) = (a.write, cache.as_mut()) {
            let line = a.addr / c.line_bytes;
            let hit = c.held.insert(line % c.lines, line) == Some(line);
            if hit {
                t += config.timing.cache.unwrap().hit_cycles as u64;
                *next += 1;
                continue;
            }
        }
        return Some(t);
    }
    *finish = t + s.tail;
    None
}

/// Random cases per differential test: `n` in `cargo test`, more with
/// `CONTENTION_DIFF_CASES=N` (e.g. 100000 on a quiet machine, release build).
fn cases(n: usize) -> usize {
    std::env::var("CONTENTION_DIFF_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(n)
}

/// A random stream of up to `len` accesses over `addrs` words, gaps below `gap`, `writes` in
/// 12 of them writes, and a tail of 0-2 cycles.
fn random_stream(
    rng: &mut rand_chacha::ChaCha8Rng,
    len: u32,
    gap: u32,
    addrs: u64,
    writes: u32,
) -> Stream {
    Stream {
        accesses: (0..rng.next_u32() % len)
            .map(|_| Access {
                gap: rng.next_u32() % gap,
                addr: 8 * (rng.next_u64() % addrs),
                write: rng.next_u32() % 12 < writes,
            })
            .collect(),
        tail: (rng.next_u32() % 3) as u64,
    }
}

fn reference(config: &Config, streams: &[Stream]) -> Vec<(u64, u64, u64)> {
    let c = streams.len();
    let lat = config.latency as u64;
    let banks = config.banks as u64;
    let bank = |a: u64| ((a / 8) % banks) as usize;
    let mut caches: Vec<Option<RefCache>> = (0..c)
        .map(|_| {
            config.timing.cache.map(|cc| RefCache {
                held: Default::default(),
                lines: cc.lines as u64,
                line_bytes: cc.line_bytes as u64,
            })
        })
        .collect();
    // per core: next access index, arrival time of the pending request (None: finished)
    let mut next = vec![0usize; c];
    let mut out = vec![(0u64, 0u64, 0u64); c];
    let mut arrival: Vec<Option<u64>> = (0..c)
        .map(|k| {
            walk(
                config,
                &streams[k],
                &mut next[k],
                &mut caches[k],
                0,
                &mut out[k].0,
            )
        })
        .collect();
    let mut busy = vec![0u64; banks as usize];
    let mut last = vec![usize::MAX; banks as usize];
    let mut t = 0u64;
    while arrival.iter().any(Option::is_some) {
        for b in 0..banks as usize {
            if busy[b] > t {
                continue;
            }
            let waiting: Vec<usize> = (0..c)
                .filter(|&k| {
                    arrival[k].is_some_and(|a| a <= t)
                        && bank(streams[k].accesses[next[k]].addr) == b
                })
                .collect();
            if waiting.is_empty() {
                continue;
            }
            let rr = |k: usize| {
                let start = last[b].wrapping_add(1) % c;
                (k + c - start) % c
            };
            let w = match config.arbitration {
                Arbitration::FixedPriority => waiting[0],
                Arbitration::RoundRobin => *waiting.iter().min_by_key(|&&k| rr(k)).unwrap(),
                Arbitration::Fifo => *waiting
                    .iter()
                    .min_by_key(|&&k| (arrival[k].unwrap(), rr(k)))
                    .unwrap(),
            };
            last[b] = w;
            let waited = t - arrival[w].unwrap();
            out[w].2 += waited;
            if waited > 0 || waiting.len() > 1 {
                out[w].1 += 1;
            }
            busy[b] = t + lat;
            next[w] += 1;
            let done = t + lat + config.timing.extra_latency as u64;
            arrival[w] = walk(
                config,
                &streams[w],
                &mut next[w],
                &mut caches[w],
                done,
                &mut out[w].0,
            );
        }
        t += 1;
    }
    out
}

#[test]
fn event_engine_equals_the_cycle_loop() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(13);
    for case in 0..cases(600) {
        // Mostly few cores (collisions are likely), some up to 16.
        let cores = 1 + (rng.next_u32() % if case % 4 == 0 { 16 } else { 6 }) as usize;
        let banks = 1 + rng.next_u32() % 4;
        let arbitration = [
            Arbitration::RoundRobin,
            Arbitration::FixedPriority,
            Arbitration::Fifo,
        ][case % 3];
        let config = Config {
            banks,
            mapping: Mapping::Interleaved { unit: 8 },
            latency: 1 + rng.next_u32() % 3,
            arbitration,
            timing: Timing {
                extra_latency: rng.next_u32() % 3,
                // Every other case with a tiny private cache (2 or 4 lines of 16 bytes), so
                // that hits, misses and write-throughs all occur.
                cache: (case % 2 == 1).then(|| Cache {
                    lines: 2 << (rng.next_u32() % 2),
                    line_bytes: 16,
                    hit_cycles: rng.next_u32() % 3,
                }),
            },
        };
        let streams: Vec<Stream> = (0..cores)
            .map(|_| random_stream(&mut rng, 12, 4, 8, 3))
            .collect();
        assert_eq!(
            run_parallel(&config, &streams),
            reference(&config, &streams),
            "case {case}: {config:?} {streams:?}"
        );
    }
}

/// Hand-worked: each thread reads its own 4-line array 8 times. One 4-line cache per core
/// holds one array, so on its own core a thread misses 4 times and hits 28 times; two
/// threads time-sliced on one core (003 §5's sequential runs) evict each other at every
/// switch (quantum 4 = one sweep), so every read misses. In parallel they collide on the one
/// bank only during their 4 cold misses: parallel is faster than "sequential".
#[test]
fn a_private_cache_makes_parallel_faster_than_time_sliced() {
    let config = Config {
        banks: 1,
        mapping: Mapping::Interleaved { unit: 8 },
        latency: 10,
        arbitration: Arbitration::RoundRobin,
        timing: Timing {
            extra_latency: 0,
            cache: Some(Cache {
                lines: 4,
                line_bytes: 64,
                hit_cycles: 1,
            }),
        },
    };
    // Thread k's array: 4 lines at k * 256 (same cache sets for both threads).
    let sweep = |k: u64| {
        (0..32).map(move |i| Access {
            gap: 0,
            addr: k * 256 + (i % 4) * 64,
            write: false,
        })
    };
    let streams: Vec<Stream> = (0..2)
        .map(|k| Stream {
            accesses: sweep(k).collect(),
            tail: 0,
        })
        .collect();
    let r = simulate_with(&config, &streams, Sequential::SharedCore { quantum: 4 }).unwrap();
    // Time-sliced: 32 misses of 10 cycles each.
    assert_eq!(r[0].t_seq, 320);
    // Own core: 4 misses + 28 hits of 1 cycle. The 8 cold misses share the bank and
    // alternate (round robin; each core's next miss is ready the moment its last is served):
    // core 0 is served at 0, 20, 40, 60 (done 70), core 1 at 10, 30, 50, 70 (done 80).
    assert_eq!((r[0].t_par, r[1].t_par), (70 + 28, 80 + 28));
    assert!(r.iter().all(|c| c.t_par < c.t_seq));
}

/// Hand-worked: two cores, one bank busy L cycles, then E cycles of round trip; each core
/// makes n back-to-back requests (gap 0), round-robin.
///
/// If E < L: the bank never idles. Core 0 is served at 0, 2L, 4L, ... and core 1 at L, 3L, ...;
/// core 0's request i >= 1 arrives at (2i-1)L + E and waits L - E, core 1's first waits L
/// and the others L - E. Core 0 finishes at (2n-1)L + E, core 1 at 2nL + E; every access of
/// both is a conflict.
/// If E >= L: after the first collision the cores are out of phase for good: core 0 is
/// served every L + E cycles from 0, core 1 from L. Core 0 finishes at n(L+E), core 1 at
/// L + n(L+E); one conflict each (the first), core 1 stalls L cycles.
#[test]
fn two_cores_one_bank_hand_worked() {
    for l in 1..=5u64 {
        for e in 0..=6u64 {
            for n in 1..=4u64 {
                let config = Config {
                    banks: 1,
                    mapping: Mapping::Interleaved { unit: 8 },
                    latency: l as u32,
                    arbitration: Arbitration::RoundRobin,
                    timing: Timing {
                        extra_latency: e as u32,
                        cache: None,
                    },
                };
                let stream = Stream {
                    accesses: vec![
                        Access {
                            gap: 0,
                            addr: 0,
                            write: false
                        };
                        n as usize
                    ],
                    tail: 0,
                };
                let got = run_parallel(&config, &[stream.clone(), stream]);
                let want = if e < l {
                    [
                        ((2 * n - 1) * l + e, n, (n - 1) * (l - e)),
                        (2 * n * l + e, n, l + (n - 1) * (l - e)),
                    ]
                } else {
                    [(n * (l + e), 1, 0), (l + n * (l + e), 1, l)]
                };
                assert_eq!(got, want, "L = {l}, E = {e}, n = {n}");
            }
        }
    }
}

/// Posted writes, written from the definition (`run_sources_buffered`): cycle by cycle,
/// each core a plain state machine with its FIFO of requests (bank, issue time).
#[derive(Clone, Copy, PartialEq)]
enum Wait {
    Nothing,
    Read,
    Write(usize, u64),
}

struct RefCore {
    pos: usize,
    fifo: std::collections::VecDeque<(usize, u64)>,
    head: Option<u64>,
    wait: Wait,
    end: Option<u64>,
    finish: u64,
}

/// Core `k` computes from `t` until it blocks or runs out.
fn run_core(config: &Config, depth: usize, s: &Stream, c: &mut RefCore, mut t: u64) {
    let banks = config.banks as u64;
    while let Some(a) = s.accesses.get(c.pos) {
        c.pos += 1;
        t += a.gap as u64;
        let b = ((a.addr / 8) % banks) as usize;
        if a.write && c.fifo.len() == depth {
            c.wait = Wait::Write(b, t);
            return;
        }
        c.fifo.push_back((b, t));
        if c.fifo.len() == 1 {
            c.head = Some(t);
        }
        if !a.write {
            c.wait = Wait::Read;
            return;
        }
    }
    if c.fifo.is_empty() {
        c.finish = t + s.tail;
    } else {
        c.end = Some(t + s.tail);
    }
}

fn reference_posted(config: &Config, depth: usize, streams: &[Stream]) -> Vec<u64> {
    let n = streams.len();
    let lat = config.latency as u64;
    let mut cores: Vec<RefCore> = (0..n)
        .map(|_| RefCore {
            pos: 0,
            fifo: Default::default(),
            head: None,
            wait: Wait::Nothing,
            end: None,
            finish: 0,
        })
        .collect();
    for (k, c) in cores.iter_mut().enumerate() {
        run_core(config, depth, &streams[k], c, 0);
    }
    let mut busy = vec![0u64; config.banks as usize];
    let mut last = vec![usize::MAX; config.banks as usize];
    let mut t = 0u64;
    while cores.iter().any(|c| c.head.is_some()) {
        for b in 0..busy.len() {
            if busy[b] > t {
                continue;
            }
            let waiting: Vec<usize> = (0..n)
                .filter(|&k| cores[k].head.is_some_and(|h| h <= t) && cores[k].fifo[0].0 == b)
                .collect();
            if waiting.is_empty() {
                continue;
            }
            let start = last[b].wrapping_add(1) % n;
            let w = *waiting
                .iter()
                .min_by_key(|&&k| (k + n - start) % n)
                .unwrap();
            last[b] = w;
            busy[b] = t + lat;
            let done = t + lat + config.timing.extra_latency as u64;
            let c = &mut cores[w];
            c.fifo.pop_front();
            c.head = c.fifo.front().map(|&(_, issue)| issue.max(done));
            match std::mem::replace(&mut c.wait, Wait::Nothing) {
                Wait::Read if c.fifo.is_empty() => run_core(config, depth, &streams[w], c, done),
                Wait::Read => c.wait = Wait::Read,
                Wait::Write(wb, wt) => {
                    let wt = wt.max(done);
                    c.fifo.push_back((wb, wt));
                    if c.fifo.len() == 1 {
                        c.head = Some(wt);
                    }
                    run_core(config, depth, &streams[w], c, wt);
                }
                Wait::Nothing => {
                    if let (None, Some(end)) = (c.head, c.end) {
                        c.finish = end.max(done);
                    }
                }
            }
        }
        t += 1;
    }
    cores.iter().map(|c| c.finish).collect()
}

#[test]
fn posted_writes_equal_the_cycle_loop() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(17);
    for case in 0..cases(400) {
        let cores = 1 + (rng.next_u32() % if case % 4 == 0 { 16 } else { 5 }) as usize;
        let depth = 1 + rng.next_u32() % 4;
        let config = Config {
            banks: 1 + rng.next_u32() % 3,
            mapping: Mapping::Interleaved { unit: 8 },
            latency: 1 + rng.next_u32() % 4,
            arbitration: Arbitration::RoundRobin,
            timing: Timing {
                extra_latency: rng.next_u32() % 3,
                cache: None,
            },
        };
        let streams: Vec<Stream> = (0..cores)
            .map(|_| random_stream(&mut rng, 14, 5, 6, 8))
            .collect();
        let fast: Vec<u64> = run_parallel_buffered(&config, depth, &streams)
            .iter()
            .map(|r| r.0)
            .collect();
        assert_eq!(
            fast,
            reference_posted(&config, depth as usize, &streams),
            "case {case}: depth {depth} {config:?} {streams:?}"
        );
    }
}

/// Hand-worked, the mechanism of a T = 2 regime (003 Fig. 5.1): T cores each post a write
/// every g = 10 cycles (n writes, identical streams, one bank busy L = 4, buffer deeper than
/// n). Alone a core finishes at 10n + 4. While T·L <= g the bank keeps up: the writes of one
/// round are served at 10k, 10k + 4, ... and core i finishes at 10n + 4i + 4 — an increase
/// that does not grow with n. Once T·L > g the bank is saturated and serves without a break
/// from cycle 10 in round-robin order, core i's k-th write in slot T(k-1) + i: core i
/// finishes at 10 + T·L(n-1) + 4i + 4, an increase growing like n(T·L − g).
#[test]
fn posted_writes_hide_collisions_until_the_bank_saturates() {
    let config = Config {
        banks: 1,
        mapping: Mapping::Interleaved { unit: 8 },
        latency: 4,
        arbitration: Arbitration::RoundRobin,
        timing: Timing::default(),
    };
    for n in 1..=12u64 {
        let s = Stream {
            accesses: vec![
                Access {
                    gap: 10,
                    addr: 0,
                    write: true
                };
                n as usize
            ],
            tail: 0,
        };
        for t in 1..=4u64 {
            let streams = vec![s.clone(); t as usize];
            let got: Vec<u64> = run_parallel_buffered(&config, 16, &streams)
                .iter()
                .map(|r| r.0)
                .collect();
            let want: Vec<u64> = (0..t)
                .map(|i| {
                    if t * 4 <= 10 {
                        10 * n + 4 * i + 4
                    } else {
                        10 + t * 4 * (n - 1) + 4 * i + 4
                    }
                })
                .collect();
            assert_eq!(got, want, "n = {n}, T = {t}");
        }
    }
}

/// The time-sliced sequential runs (003 §5.1) step one core through the same timeline as the
/// engine: with a single thread they must give exactly the engine's time alone, for every
/// write buffer depth (0: blocking), cache and latency.
#[test]
fn time_sliced_single_thread_equals_the_engine_alone() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(23);
    for case in 0..cases(400) {
        let depth = rng.next_u32() % 4;
        let config = Config {
            banks: 1 + rng.next_u32() % 3,
            mapping: Mapping::Interleaved { unit: 8 },
            latency: 1 + rng.next_u32() % 4,
            arbitration: Arbitration::RoundRobin,
            timing: Timing {
                extra_latency: rng.next_u32() % 3,
                cache: (case % 2 == 1).then(|| Cache {
                    lines: 2,
                    line_bytes: 16,
                    hit_cycles: rng.next_u32() % 3,
                }),
            },
        };
        let stream = random_stream(&mut rng, 20, 5, 6, 8);
        let quantum = 1 + rng.next_u32() % 5;
        let sliced = simulate_buffered(
            &config,
            depth,
            std::slice::from_ref(&stream),
            Sequential::SharedCore { quantum },
        )
        .unwrap();
        let alone = run_parallel_buffered(&config, depth, std::slice::from_ref(&stream));
        assert_eq!(
            sliced[0].t_seq, alone[0].0,
            "case {case}: depth {depth} {config:?} {stream:?}"
        );
    }
}
