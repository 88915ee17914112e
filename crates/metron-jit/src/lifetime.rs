//! Which counter and which bridge belong to which trace, over the lifetimes of loops.
//!
//! PyPy frees loops that have not run for a while (`loop_longevity`) and the numbers it prints
//! for labels (`TargetToken(N)`) and guards (`<Guard0xH>`) are object ids, which a freed loop
//! hands on to later ones: RPython's backend calls them "ALMOST unique". Keyed by number, the
//! counters of two different traces add up and a guard's bridge attaches to the wrong trace.
//!
//! Two facts of the backend make the matching exact without keys:
//! - `jit-backend-counts` lists one counter per compiled trace entry (`entry N` for a loop,
//!   `bridge D` for a bridge), followed by one per `label` of that trace, in the order the
//!   traces were compiled, which is the order of the `jit-log-opt-*` sections
//!   (`_register_counter` appends to `loop_run_counters`; freed loops' counters stay);
//! - a guard id is unique among live traces, so a bridge out of guard H belongs to the last
//!   trace before it that contains guard H.
//!
//! [`LifetimeBuilder`] takes each trace's skeleton (its entry, labels and guards) in log order
//! and, once the counters are in, gives every trace its own counts ([`Lifetimes`]). Counters
//! that no trace claims (a trace whose section is missing from the log) are skipped and
//! reported; a log whose counters are not in that order falls back to matching by number.

use serde::Serialize;

use crate::log::{CounterKind, CounterRecord, Counters};
use crate::trace::{FxMap, Marker, Trace, TraceKind};

/// How far ahead of the expected position a trace's counters are looked for (traces whose
/// section is missing leave gaps of a few records).
const SEARCH_WINDOW: usize = 256;

/// The counts of one trace: its entry and each of its labels, in the order of the trace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TraceCounts {
    pub entry: Option<u64>,
    pub labels: Vec<Option<u64>>,
}

/// How the counters were matched to traces.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CounterUse {
    /// Counter lines in `jit-backend-counts`.
    pub total: usize,
    /// Counter lines given to exactly one trace position.
    pub used: usize,
    /// Traces whose counters were not found at their place in the list.
    pub unmatched_traces: usize,
    /// True when counters were matched by position (exact across reused numbers); false when
    /// the log's order did not allow it and counters were matched by number.
    pub by_position: bool,
    /// Numbers that name more than one counter line (freed loops' numbers reused).
    pub reused_numbers: usize,
}

/// Per-trace counts and bridge ownership for a whole log.
#[derive(Debug, Clone, Default)]
pub struct Lifetimes {
    /// Indexed like the log's traces.
    pub counts: Vec<TraceCounts>,
    /// (guard id, trace holding the guard) → the bridge trace out of it.
    pub bridge_of: FxMap<(u64, u32), u32>,
    /// For a bridge trace: the trace its guard is in.
    pub owner: Vec<Option<u32>>,
    pub counter_use: CounterUse,
}

impl Lifetimes {
    /// The bridge attached to guard `g` of trace `trace`, if any.
    pub fn bridge(&self, g: u64, trace: usize) -> Option<usize> {
        self.bridge_of.get(&(g, trace as u32)).map(|&b| b as usize)
    }

    /// The count of the bridge attached to guard `g` of trace `trace`.
    pub fn bridge_count(&self, g: u64, trace: usize) -> Option<u64> {
        self.bridge(g, trace)
            .and_then(|b| self.counts.get(b))
            .and_then(|c| c.entry)
    }
}

/// What [`LifetimeBuilder`] needs of a trace.
struct Skeleton {
    key: (CounterKind, u64),
    labels: Vec<u64>,
}

/// Collects trace skeletons in log order (see the module comment).
#[derive(Default)]
pub struct LifetimeBuilder {
    skeletons: Vec<Skeleton>,
    last_with_guard: FxMap<u64, u32>,
    bridge_of: FxMap<(u64, u32), u32>,
    owner: Vec<Option<u32>>,
}

impl LifetimeBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the next trace of the log; only its kind, labels and guards are read.
    pub fn add(&mut self, trace: &Trace) {
        let index = self.skeletons.len() as u32;
        let key = match trace.kind {
            TraceKind::Loop { number } => (CounterKind::Entry, number),
            TraceKind::Bridge { guard } => {
                let owner = self.last_with_guard.get(&guard).copied();
                if let Some(o) = owner {
                    // one bridge per guard: a second one out of the same id is a new owner's
                    self.bridge_of.entry((guard, o)).or_insert(index);
                }
                self.owner.push(owner);
                (CounterKind::Bridge, guard)
            }
        };
        if matches!(trace.kind, TraceKind::Loop { .. }) {
            self.owner.push(None);
        }
        let mut labels = Vec::new();
        for op in &trace.ops {
            match op.marker {
                Marker::Label(t) => labels.push(t),
                Marker::Guard(g) => {
                    self.last_with_guard.insert(g, index);
                }
                _ => {}
            }
        }
        self.skeletons.push(Skeleton { key, labels });
    }

    /// Matches the counters (see the module comment).
    pub fn finish(self, counters: Option<&Counters>) -> Lifetimes {
        let mut lt = Lifetimes {
            counts: Vec::new(),
            bridge_of: self.bridge_of,
            owner: self.owner,
            counter_use: CounterUse::default(),
        };
        let Some(counters) = counters else {
            lt.counts = vec![TraceCounts::default(); self.skeletons.len()];
            return lt;
        };
        let seq = &counters.sequence;
        lt.counter_use.total = seq.len();
        lt.counter_use.reused_numbers = counters.reused_numbers;
        match by_position(&self.skeletons, seq) {
            Some((counts, used, unmatched)) => {
                lt.counts = counts;
                lt.counter_use.used = used;
                lt.counter_use.unmatched_traces = unmatched;
                lt.counter_use.by_position = true;
            }
            None => {
                lt.counts = self
                    .skeletons
                    .iter()
                    .map(|s| by_number(s, counters))
                    .collect();
            }
        }
        lt
    }
}

fn matches_at(s: &Skeleton, seq: &[CounterRecord], at: usize) -> bool {
    seq.get(at)
        .is_some_and(|head| (head.kind, head.id) == s.key)
        && labels_at(s, seq, at + 1)
}

fn labels_at(s: &Skeleton, seq: &[CounterRecord], at: usize) -> bool {
    seq.len() >= at + s.labels.len()
        && s.labels
            .iter()
            .zip(&seq[at..])
            .all(|(&t, r)| r.kind == CounterKind::Label && r.id == t)
}

/// Walks traces and counters together. `None` when fewer than half the traces find their
/// counters in order (a log written by a backend that does not list them in order).
fn by_position(
    skeletons: &[Skeleton],
    seq: &[CounterRecord],
) -> Option<(Vec<TraceCounts>, usize, usize)> {
    let mut pos = 0usize;
    let mut used = 0usize;
    let mut unmatched = 0usize;
    let mut counts = Vec::with_capacity(skeletons.len());
    for s in skeletons {
        let end = (pos + SEARCH_WINDOW).min(seq.len());
        match (pos..end).find(|&at| matches_at(s, seq, at)) {
            Some(at) => {
                counts.push(TraceCounts {
                    entry: Some(seq[at].count),
                    labels: seq[at + 1..at + 1 + s.labels.len()]
                        .iter()
                        .map(|r| Some(r.count))
                        .collect(),
                });
                used += 1 + s.labels.len();
                pos = at + 1 + s.labels.len();
            }
            // the entry's counter alone is missing: the labels still follow in place
            None if !s.labels.is_empty() && labels_at(s, seq, pos) => {
                unmatched += 1;
                counts.push(TraceCounts {
                    entry: None,
                    labels: seq[pos..pos + s.labels.len()]
                        .iter()
                        .map(|r| Some(r.count))
                        .collect(),
                });
                used += s.labels.len();
                pos += s.labels.len();
            }
            None => {
                unmatched += 1;
                counts.push(TraceCounts {
                    entry: None,
                    labels: vec![None; s.labels.len()],
                });
            }
        }
    }
    (unmatched * 2 <= skeletons.len()).then_some((counts, used, unmatched))
}

fn by_number(s: &Skeleton, c: &Counters) -> TraceCounts {
    let map = match s.key.0 {
        CounterKind::Entry => &c.entries,
        CounterKind::Bridge => &c.bridges,
        CounterKind::Label => &c.labels,
    };
    TraceCounts {
        entry: map.get(&s.key.1).copied(),
        labels: s.labels.iter().map(|t| c.labels.get(t).copied()).collect(),
    }
}

/// The lifetimes of a log held in memory.
pub fn of_traces<'a>(
    traces: impl IntoIterator<Item = &'a Trace>,
    counters: Option<&Counters>,
) -> Lifetimes {
    let mut b = LifetimeBuilder::new();
    for t in traces {
        b.add(t);
    }
    b.finish(counters)
}
