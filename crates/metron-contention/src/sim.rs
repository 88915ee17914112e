//! A deterministic cycle-level simulator of C cores sharing B memory banks: the stand-in for
//! the Kalray MPPA cluster of 003 Ch. 1 and 5.
//!
//! Each core runs a stream of accesses, each preceded by `gap` compute cycles. A bank serves
//! one request at a time for `latency` cycles; a core waits for its request to be served
//! (in-order cores, one outstanding request). When several requests wait for a free bank,
//! the arbitration picks one. Time is advanced from grant to grant rather than cycle by
//! cycle, which gives the same schedule as a cycle loop (every grant happens at the first
//! cycle the bank is free and a request is there) at a cost independent of the gaps.
//!
//! A *conflict* (003 §1.1) is an access that had to wait, or that was served while another
//! request for the same bank was already waiting: both parties of a collision count it, as
//! model 3's p_c = Σ p_k p_i does.

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::ContentionError;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mapping {
    /// Consecutive `word` bytes go to consecutive banks.
    Interleaved { unit: u64 },
    /// Bank i holds `[i * size, (i+1) * size)` (addresses wrap modulo B * size).
    Blocked { size: u64 },
}

impl Mapping {
    #[inline]
    pub fn bank(&self, addr: u64, banks: u32) -> u32 {
        match *self {
            Mapping::Interleaved { unit } => ((addr / unit.max(1)) % banks as u64) as u32,
            Mapping::Blocked { size } => ((addr / size.max(1)) % banks as u64) as u32,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Arbitration {
    RoundRobin,
    /// Lower core index wins.
    FixedPriority,
    /// Earliest request first; ties round-robin.
    Fifo,
}

impl std::str::FromStr for Arbitration {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "round-robin" | "rr" => Ok(Arbitration::RoundRobin),
            "fixed-priority" | "fixed" => Ok(Arbitration::FixedPriority),
            "fifo" => Ok(Arbitration::Fifo),
            _ => Err(format!(
                "expected round-robin, fixed-priority or fifo, found `{s}`"
            )),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Config {
    pub banks: u32,
    pub mapping: Mapping,
    /// Cycles a bank is busy per access (>= 1).
    pub latency: u32,
    pub arbitration: Arbitration,
}

impl Config {
    pub fn validate(&self) -> Result<(), ContentionError> {
        if self.banks == 0 || self.latency == 0 {
            return Err(ContentionError::Invalid(
                "banks and latency must be at least 1".into(),
            ));
        }
        Ok(())
    }
}

/// One access of a core's stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// Compute cycles before the request is issued.
    pub gap: u32,
    pub addr: u64,
    pub write: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Stream {
    pub accesses: Vec<Access>,
    /// Compute cycles after the last access.
    pub tail: u64,
}

impl Stream {
    pub fn compute_cycles(&self) -> u64 {
        self.accesses.iter().map(|a| a.gap as u64).sum::<u64>() + self.tail
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CoreResult {
    pub accesses: u64,
    /// Finishing time running alone.
    pub t_seq: u64,
    /// Finishing time co-running.
    pub t_par: u64,
    pub conflicts: u64,
    pub stall_cycles: u64,
}

/// Address-to-bank function with the divisions replaced by shifts for powers of two (the
/// common case; a 64-bit division per access would dominate the simulator's time).
#[derive(Clone, Copy)]
struct BankMap {
    mapping: Mapping,
    banks: u64,
    shift: Option<u32>,
    mask: Option<u64>,
}

impl BankMap {
    fn new(mapping: Mapping, banks: u32) -> BankMap {
        let unit = match mapping {
            Mapping::Interleaved { unit } => unit.max(1),
            Mapping::Blocked { size } => size.max(1),
        };
        let banks = banks as u64;
        BankMap {
            mapping,
            banks,
            shift: unit.is_power_of_two().then(|| unit.trailing_zeros()),
            mask: banks.is_power_of_two().then(|| banks - 1),
        }
    }
    #[inline(always)]
    fn bank(&self, addr: u64) -> usize {
        match (self.shift, self.mask) {
            (Some(s), Some(m)) => ((addr >> s) & m) as usize,
            _ => self.mapping.bank(addr, self.banks as u32) as usize,
        }
    }
}

#[derive(Clone, Copy)]
struct Core {
    /// When the current request reaches its bank; `u64::MAX` once the stream is done.
    arrival: u64,
    bank: usize,
    next: usize,
}

/// Runs all streams together; returns per core (finish time, conflicts, stall cycles).
pub fn run_parallel(config: &Config, streams: &[Stream]) -> Vec<(u64, u64, u64)> {
    let c = streams.len();
    let lat = config.latency as u64;
    let map = BankMap::new(config.mapping, config.banks);
    let mut cores: Vec<Core> = Vec::with_capacity(c);
    let mut finish = vec![0u64; c];
    let mut conflicts = vec![0u64; c];
    let mut stall = vec![0u64; c];
    let mut busy = vec![0u64; config.banks as usize];
    let mut last = vec![usize::MAX; config.banks as usize];
    let mut live = 0;
    for (k, s) in streams.iter().enumerate() {
        match s.accesses.first() {
            Some(a) => {
                cores.push(Core {
                    arrival: a.gap as u64,
                    bank: map.bank(a.addr),
                    next: 1,
                });
                live += 1;
            }
            None => {
                cores.push(Core {
                    arrival: u64::MAX,
                    bank: 0,
                    next: 0,
                });
                finish[k] = s.tail;
            }
        }
    }
    let fifo = config.arbitration == Arbitration::Fifo;
    let fixed = config.arbitration == Arbitration::FixedPriority;
    while live > 0 {
        // The next grant: the earliest time any waiting request can be served.
        let mut g = u64::MAX;
        let mut bi = 0usize;
        for core in &cores {
            if core.arrival != u64::MAX {
                let t = core.arrival.max(busy[core.bank]);
                if t < g {
                    g = t;
                    bi = core.bank;
                }
            }
        }
        let mut waiting = 0;
        let mut w = usize::MAX;
        let start = if fixed || last[bi] == usize::MAX {
            0
        } else {
            last[bi] + 1
        };
        for off in 0..c {
            let mut k = start + off;
            if k >= c {
                k -= c;
            }
            let core = &cores[k];
            if core.bank != bi || core.arrival > g {
                continue;
            }
            waiting += 1;
            if w == usize::MAX || (fifo && core.arrival < cores[w].arrival) {
                w = k;
            }
        }
        last[bi] = w;
        let core = &mut cores[w];
        let waited = g - core.arrival;
        stall[w] += waited;
        if waited > 0 || waiting > 1 {
            conflicts[w] += 1;
        }
        let done = g + lat;
        busy[bi] = done;
        match streams[w].accesses.get(core.next) {
            Some(a) => {
                core.arrival = done + a.gap as u64;
                core.bank = map.bank(a.addr);
                core.next += 1;
            }
            None => {
                core.arrival = u64::MAX;
                finish[w] = done + streams[w].tail;
                live -= 1;
            }
        }
    }
    (0..c)
        .map(|k| (finish[k], conflicts[k], stall[k]))
        .collect()
}

/// t_seq (each stream alone) and t_par (all together), with conflicts and stalls per core.
pub fn simulate(config: &Config, streams: &[Stream]) -> Result<Vec<CoreResult>, ContentionError> {
    config.validate()?;
    let par = run_parallel(config, streams);
    Ok(streams
        .iter()
        .zip(par)
        .map(|(s, (t_par, conflicts, stall))| {
            let alone = run_parallel(config, std::slice::from_ref(s));
            CoreResult {
                accesses: s.accesses.len() as u64,
                t_seq: alone[0].0,
                t_par,
                conflicts,
                stall_cycles: stall,
            }
        })
        .collect())
}

/// Where synthetic accesses go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AddressPattern {
    /// Uniformly random 8-byte words in `[base, base + bytes)`.
    Uniform { base: u64, bytes: u64 },
    /// `base, base + stride, ...`
    Sequential { base: u64, stride: u64 },
}

fn uniform01(rng: &mut ChaCha8Rng) -> f64 {
    // 53 random bits -> [0, 1)
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// Compute cycles before the next access when every cycle issues one with probability `p`.
fn geometric_gap(rng: &mut ChaCha8Rng, p: f64) -> u32 {
    if p >= 1.0 {
        return 0;
    }
    let u = 1.0 - uniform01(rng); // (0, 1]
    (u.ln() / (1.0 - p).ln()).floor().min(u32::MAX as f64) as u32
}

fn address(rng: &mut ChaCha8Rng, pattern: AddressPattern, i: u64) -> u64 {
    match pattern {
        AddressPattern::Uniform { base, bytes } => base + (rng.next_u64() % (bytes / 8).max(1)) * 8,
        AddressPattern::Sequential { base, stride } => base + i * stride,
    }
}

/// Bernoulli traffic: in each compute cycle an access starts with probability `p`, so
/// p = N / (compute cycles) as model 3 assumes (003 §4.2).
pub fn bernoulli_stream(n: usize, p: f64, pattern: AddressPattern, seed: u64) -> Stream {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let accesses = (0..n as u64)
        .map(|i| Access {
            gap: geometric_gap(&mut rng, p),
            addr: address(&mut rng, pattern, i),
            write: rng.next_u32() & 1 == 1,
        })
        .collect();
    Stream { accesses, tail: 0 }
}

/// Bursty / phased traffic: phases of `phase` accesses alternate between probabilities
/// `p_high` and `p_low` (the thesis's future-work question of accesses over time).
pub fn phased_stream(
    n: usize,
    p_high: f64,
    p_low: f64,
    phase: usize,
    pattern: AddressPattern,
    seed: u64,
) -> Stream {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let accesses = (0..n as u64)
        .map(|i| {
            let p = if (i as usize / phase.max(1)) % 2 == 0 {
                p_high
            } else {
                p_low
            };
            Access {
                gap: geometric_gap(&mut rng, p),
                addr: address(&mut rng, pattern, i),
                write: false,
            }
        })
        .collect();
    Stream { accesses, tail: 0 }
}

/// A stream from recorded addresses (`metron memory trace`), with `gap` compute cycles
/// before each access.
pub fn recorded_stream(records: impl IntoIterator<Item = (u64, bool)>, gap: u32) -> Stream {
    Stream {
        accesses: records
            .into_iter()
            .map(|(addr, write)| Access { gap, addr, write })
            .collect(),
        tail: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(banks: u32, latency: u32, arbitration: Arbitration) -> Config {
        Config {
            banks,
            mapping: Mapping::Interleaved { unit: 8 },
            latency,
            arbitration,
        }
    }

    fn s(list: &[(u32, u64)]) -> Stream {
        Stream {
            accesses: list
                .iter()
                .map(|&(gap, addr)| Access {
                    gap,
                    addr,
                    write: false,
                })
                .collect(),
            tail: 0,
        }
    }

    /// Hand-traced schedules: two cores hit bank 0 at cycle 0 with latency 2.
    #[test]
    fn hand_traced_collision() {
        let streams = [s(&[(0, 0), (3, 0)]), s(&[(0, 16), (3, 16)])]; // 2 banks: 16 -> bank 0
        let r = simulate(&cfg(2, 2, Arbitration::FixedPriority), &streams).unwrap();
        // core 0: granted 0, done 2, next arrives 5 -> done 7. core 1: waits to 2, done 4,
        // next arrives 7, granted 7, done 9.
        assert_eq!(
            (r[0].t_seq, r[0].t_par, r[0].stall_cycles, r[0].conflicts),
            (7, 7, 0, 1)
        );
        assert_eq!(
            (r[1].t_seq, r[1].t_par, r[1].stall_cycles, r[1].conflicts),
            (7, 9, 2, 1)
        );
        // Different banks: no interaction.
        let streams = [s(&[(0, 0), (3, 0)]), s(&[(0, 8), (3, 8)])];
        let r = simulate(&cfg(2, 2, Arbitration::FixedPriority), &streams).unwrap();
        assert_eq!(r[1].t_par, r[1].t_seq);
        assert_eq!(r[1].conflicts, 0);
    }

    #[test]
    fn arbitration_policies_differ_as_defined() {
        // Three cores request bank 0 at cycle 0, again and again.
        let streams: Vec<Stream> = (0..3).map(|_| s(&[(0, 0); 4])).collect();
        let fixed = simulate(&cfg(1, 1, Arbitration::FixedPriority), &streams).unwrap();
        // Core 0 always wins: it never stalls; core 2 waits for everyone.
        assert_eq!(fixed[0].stall_cycles, 0);
        assert!(fixed[2].stall_cycles > fixed[1].stall_cycles);
        let rr = simulate(&cfg(1, 1, Arbitration::RoundRobin), &streams).unwrap();
        let total: u64 = rr.iter().map(|r| r.t_par).max().unwrap();
        assert_eq!(total, 12); // 12 accesses, one per cycle, bank never idle
        let spread =
            rr.iter().map(|r| r.t_par).max().unwrap() - rr.iter().map(|r| r.t_par).min().unwrap();
        assert!(spread <= 2, "round robin is fair: {rr:?}");
        // FIFO: a request that has waited longer goes first.
        let streams = [s(&[(0, 0), (0, 0)]), s(&[(1, 0)]), s(&[(0, 0)])];
        let f = simulate(&cfg(1, 3, Arbitration::Fifo), &streams).unwrap();
        // t=0: cores 0 and 2 request; 0 wins (tie, rr). t=1: core 1 arrives. t=3: core 2
        // (arrived 0) beats core 1 (arrived 1) and core 0 (arrived 3).
        assert_eq!(f[2].t_par, 6);
        assert_eq!(f[1].t_par, 9);
    }

    #[test]
    fn mapping() {
        let word = Mapping::Interleaved { unit: 8 };
        assert_eq!(
            (word.bank(0, 16), word.bank(8, 16), word.bank(128, 16)),
            (0, 1, 0)
        );
        let line = Mapping::Interleaved { unit: 64 };
        assert_eq!((line.bank(63, 4), line.bank(64, 4)), (0, 1));
        let blocked = Mapping::Blocked { size: 1 << 20 };
        assert_eq!((blocked.bank(5, 4), blocked.bank(3 << 20, 4)), (0, 3));
    }

    #[test]
    fn deterministic_and_rate_as_requested() {
        let a = bernoulli_stream(
            20_000,
            0.05,
            AddressPattern::Uniform {
                base: 0,
                bytes: 1 << 16,
            },
            7,
        );
        let b = bernoulli_stream(
            20_000,
            0.05,
            AddressPattern::Uniform {
                base: 0,
                bytes: 1 << 16,
            },
            7,
        );
        assert_eq!(a.accesses, b.accesses);
        // Mean geometric gap (failures before success) is (1-p)/p = 19.
        let mean = a.compute_cycles() as f64 / 20_000.0;
        assert!((mean - 19.0).abs() < 0.6, "{mean}");
    }
}
