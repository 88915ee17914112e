//! The trace graph and its fragments (001 §3.1) with their execution frequencies (001 §3.2).
//!
//! Nodes are entry points (of loops and bridges), labels, guards and jumps. A fragment runs
//! from a label to the next label, a jump, or a guard with a bridge attached, with no label in
//! between; fragments from one label overlap. Frequencies follow the paper's two rules:
//! a fragment ending at a guard takes the count of that guard's bridge; any other fragment
//! takes its label's count minus the frequencies of the shorter fragments from that label.
//!
//! Beyond the paper: operations between an entry point and the first label (a bridge's
//! opening ops, a loop's preamble loads) form *entry fragments*, counted by the `entry N` and
//! `bridge D` counters with the same two rules, so that no compiled operation goes uncosted.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::log::{Counters, JitLog};
use crate::trace::{Marker, Op, SourceId, Trace, TraceKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", content = "id", rename_all = "snake_case")]
pub enum FragmentStart {
    /// The start of a trace: a loop entry or a bridge entry.
    Entry,
    Label(u64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", content = "id", rename_all = "snake_case")]
pub enum FragmentEnd {
    Label(u64),
    /// A guard with a bridge attached.
    Guard(u64),
    Jump(Option<u64>),
    Finish,
    /// The trace ended without a jump or finish.
    TraceEnd,
}

#[derive(Debug, Clone, Serialize)]
pub struct Fragment {
    /// Index into [`JitLog::traces`].
    pub trace: usize,
    pub start: FragmentStart,
    pub end: FragmentEnd,
    /// Names in the paper's style: `l2`, `g2`, `j1`, `e1` (loop entry), `b2` (bridge of g2).
    pub start_name: String,
    pub end_name: String,
    /// Operations `ops[first_op..end_op]` of the trace. A label that starts the fragment is
    /// included; a label that ends it is not (it starts the next one).
    pub first_op: usize,
    pub end_op: usize,
    /// `None` when the counters needed are missing (the fragment is then left out of Γ).
    pub frequency: Option<u64>,
}

impl Fragment {
    pub fn name(&self) -> String {
        format!("{} to {}", self.start_name, self.end_name)
    }
}

/// Fragments of a whole log, with what could not be counted.
#[derive(Debug, Clone, Serialize)]
pub struct TraceGraph {
    pub fragments: Vec<Fragment>,
    /// False when the log has no `jit-backend-counts`: all frequencies are `None`.
    pub has_counters: bool,
    pub warnings: Vec<String>,
    /// Per trace: the source location a bridge starts from (its guard's), for attributing
    /// the bridge's ops that come before its first `debug_merge_point`.
    #[serde(skip)]
    pub entry_source: Vec<Option<SourceId>>,
}

impl TraceGraph {
    /// The source location of an operation, falling back to where its trace was entered.
    pub fn op_source(&self, log: &JitLog, trace: usize, op: usize) -> Option<SourceId> {
        log.traces
            .get(trace)
            .and_then(|t| t.ops.get(op))
            .and_then(|o| o.source)
            .or_else(|| self.entry_source.get(trace).copied().flatten())
    }
}

/// What fragments need to know about the whole log before the first trace: which guards have
/// a bridge (a bridge trace, or a `bridge D` counter) and the counters. The first pass of the
/// streaming analysis gathers it from the headers and counters alone.
#[derive(Debug, Clone, Default)]
pub struct LogFacts {
    pub bridged: HashSet<u64>,
    pub counters: Option<Counters>,
}

impl LogFacts {
    pub fn of_log(log: &JitLog) -> Self {
        let mut facts = LogFacts {
            bridged: HashSet::new(),
            counters: log.counters.clone(),
        };
        for t in &log.traces {
            facts.add_trace_kind(t.kind);
        }
        facts.add_counter_bridges();
        facts
    }

    pub fn add_trace_kind(&mut self, kind: TraceKind) {
        if let TraceKind::Bridge { guard } = kind {
            self.bridged.insert(guard);
        }
    }

    /// Call once the counters are in: their `bridge D` lines attach bridges too.
    pub fn add_counter_bridges(&mut self) {
        if let Some(c) = &self.counters {
            self.bridged.extend(c.bridges.keys().copied());
        }
    }
}

/// The fragments of one trace and where its entry's operations come from in the source.
#[derive(Debug, Clone)]
pub struct TraceFragments {
    pub fragments: Vec<Fragment>,
    /// For a bridge: the source location of the guard it leaves from.
    pub entry_source: Option<SourceId>,
}

/// A guard with a bridge, as first seen.
struct BridgedGuard {
    name: String,
    trace: String,
    source: Option<SourceId>,
}

/// Cuts traces into fragments one trace at a time, in log order (001 §3.1), and gives them
/// frequencies (001 §3.2). It keeps only names of labels and of guards with bridges, so its
/// memory grows with the number of fragments, not of operations.
///
/// Nodes are named in order of appearance. A guard without a bridge is never named in a
/// fragment, so it is only counted, not remembered: were the same guard id to occur twice
/// without a bridge (RPython never writes that), later guards' numbers would run one higher.
/// A bridge logged before its guard is named `b0x...` and has no entry source.
pub struct FragmentBuilder {
    facts: LogFacts,
    labels: HashMap<u64, String>,
    guards: HashMap<u64, BridgedGuard>,
    guard_count: usize,
    jump_count: usize,
    start_labels: HashSet<u64>,
    duplicate_warnings: Vec<String>,
    frequency_warnings: Vec<String>,
}

impl FragmentBuilder {
    pub fn new(facts: LogFacts) -> Self {
        FragmentBuilder {
            facts,
            labels: HashMap::new(),
            guards: HashMap::new(),
            guard_count: 0,
            jump_count: 0,
            start_labels: HashSet::new(),
            duplicate_warnings: Vec::new(),
            frequency_warnings: Vec::new(),
        }
    }

    pub fn has_counters(&self) -> bool {
        self.facts.counters.is_some()
    }

    fn label_name(&mut self, t: u64) -> String {
        let n = self.labels.len() + 1;
        self.labels
            .entry(t)
            .or_insert_with(|| format!("l{n}"))
            .clone()
    }

    /// Names the guard at `op` and, when it has a bridge, returns its name.
    fn guard_name(&mut self, g: u64, trace: &Trace, op: &Op) -> Option<String> {
        if !self.facts.bridged.contains(&g) {
            self.guard_count += 1;
            return None;
        }
        match self.guards.get(&g) {
            Some(first) => {
                self.duplicate_warnings.push(format!(
                    "guard 0x{g:x} appears in {} and again in {}: its bridge's count would \
                     be used twice",
                    first.trace,
                    trace.label()
                ));
                Some(first.name.clone())
            }
            None => {
                self.guard_count += 1;
                let name = format!("g{}", self.guard_count);
                self.guards.insert(
                    g,
                    BridgedGuard {
                        name: name.clone(),
                        trace: trace.label(),
                        source: op.source,
                    },
                );
                Some(name)
            }
        }
    }

    /// The fragments of `trace`, the `index`-th of the log, with their frequencies.
    pub fn trace(&mut self, index: usize, trace: &Trace) -> TraceFragments {
        let (entry_name, entry_source) = match trace.kind {
            TraceKind::Loop { number } => (format!("e{number}"), None),
            TraceKind::Bridge { guard } => match self.guards.get(&guard) {
                Some(g) => (format!("b{}", &g.name[1..]), g.source),
                None => (format!("b0x{guard:x}"), None),
            },
        };
        let mut fragments = Vec::new();
        let mut start = Some((FragmentStart::Entry, entry_name, 0usize));
        for (oi, op) in trace.ops.iter().enumerate() {
            let end = match op.marker {
                Marker::Label(t) => Some((FragmentEnd::Label(t), self.label_name(t), oi)),
                Marker::Guard(g) => self
                    .guard_name(g, trace, op)
                    .map(|name| (FragmentEnd::Guard(g), name, oi + 1)),
                Marker::Jump(t) => {
                    self.jump_count += 1;
                    Some((
                        FragmentEnd::Jump(t),
                        format!("j{}", self.jump_count),
                        oi + 1,
                    ))
                }
                Marker::Finish => Some((FragmentEnd::Finish, "finish".to_string(), oi + 1)),
                _ => None,
            };
            let Some((end, end_name, end_op)) = end else {
                continue;
            };
            if let Some((s, s_name, first)) = &start {
                let only_debug = trace.ops[*first..end_op]
                    .iter()
                    .all(|o| o.marker == Marker::DebugMergePoint);
                if !(matches!(s, FragmentStart::Entry) && only_debug) {
                    fragments.push(Fragment {
                        trace: index,
                        start: *s,
                        end,
                        start_name: s_name.clone(),
                        end_name,
                        first_op: *first,
                        end_op,
                        frequency: None,
                    });
                }
            }
            match op.marker {
                Marker::Label(t) => start = Some((FragmentStart::Label(t), self.label_name(t), oi)),
                Marker::Jump(_) | Marker::Finish => start = None,
                _ => {}
            }
        }
        if let Some((s, s_name, first)) = start {
            if first < trace.ops.len() {
                fragments.push(Fragment {
                    trace: index,
                    start: s,
                    end: FragmentEnd::TraceEnd,
                    start_name: s_name,
                    end_name: "end".to_string(),
                    first_op: first,
                    end_op: trace.ops.len(),
                    frequency: None,
                });
            }
        }
        for f in &fragments {
            if let FragmentStart::Label(t) = f.start {
                self.start_labels.insert(t);
            }
        }
        if let Some(counters) = &self.facts.counters {
            assign_frequencies(
                counters,
                trace,
                &mut fragments,
                &mut self.frequency_warnings,
            );
        }
        TraceFragments {
            fragments,
            entry_source,
        }
    }

    /// The warnings about the whole log, once every trace has been seen.
    pub fn finish(self) -> Vec<String> {
        let mut warnings = self.duplicate_warnings;
        let Some(counters) = &self.facts.counters else {
            return warnings;
        };
        if !counters.complete {
            warnings.push(
                "jit-backend-counts is incomplete (the log is truncated): missing counters leave \
                 their fragments out of Γ"
                    .to_string(),
            );
        }
        warnings.extend(self.frequency_warnings);
        let mut bridge_ids: Vec<&u64> = counters.bridges.keys().collect();
        bridge_ids.sort_unstable();
        for g in bridge_ids {
            if !self.guards.contains_key(g) {
                warnings.push(format!(
                    "counter `bridge {g}` names guard 0x{g:x}, which no trace in the log contains"
                ));
            }
        }
        let mut label_ids: Vec<&u64> = counters.labels.keys().collect();
        label_ids.sort_unstable();
        for t in label_ids {
            if !self.start_labels.contains(t) {
                warnings.push(format!(
                    "counter `TargetToken({t})` names a label that no trace in the log contains"
                ));
            }
        }
        warnings
    }
}

/// Builds the fragments of `log` and, when it has counters, their frequencies (001 §3.2).
pub fn build(log: &JitLog) -> TraceGraph {
    let mut builder = FragmentBuilder::new(LogFacts::of_log(log));
    let mut fragments = Vec::new();
    let mut entry_source = Vec::with_capacity(log.traces.len());
    for (ti, trace) in log.traces.iter().enumerate() {
        let tf = builder.trace(ti, trace);
        fragments.extend(tf.fragments);
        entry_source.push(tf.entry_source);
    }
    let has_counters = builder.has_counters();
    TraceGraph {
        fragments,
        has_counters,
        warnings: builder.finish(),
        entry_source,
    }
}

/// The paper's two rules (001 §3.2), applied per start node of one trace.
fn assign_frequencies(
    counters: &Counters,
    trace: &Trace,
    fragments: &mut [Fragment],
    warnings: &mut Vec<String>,
) {
    // fragments come in order of their end; a start's fragments share `first_op`
    let mut firsts: Vec<usize> = fragments.iter().map(|f| f.first_op).collect();
    firsts.sort_unstable();
    firsts.dedup();
    for first_op in firsts {
        let members: Vec<usize> = (0..fragments.len())
            .filter(|&i| fragments[i].first_op == first_op)
            .collect();
        let first = &fragments[members[0]];
        let start_count = match first.start {
            FragmentStart::Label(t) => counters.labels.get(&t).copied(),
            FragmentStart::Entry => match trace.kind {
                TraceKind::Loop { number } => counters.entries.get(&number).copied(),
                TraceKind::Bridge { guard } => counters.bridges.get(&guard).copied(),
            },
        };
        let start_name = first.start_name.clone();
        if start_count.is_none() {
            warnings.push(format!(
                "no counter for {start_name} ({}): its fragments are left out of Γ",
                trace.label()
            ));
        }
        // Rule 1: a fragment ending at a guard takes the count of the guard's bridge.
        let mut shorter: u64 = 0;
        for &i in &members {
            if let FragmentEnd::Guard(g) = fragments[i].end {
                let n = counters.bridges.get(&g).copied();
                if n.is_none() {
                    warnings.push(format!(
                        "no `bridge {g}` counter for guard {} (0x{g:x}): fragment {} is left out of Γ",
                        fragments[i].end_name,
                        fragments[i].name()
                    ));
                }
                shorter = shorter.saturating_add(n.unwrap_or(0));
                fragments[i].frequency = n;
            }
        }
        // Rule 2: the rest takes the start's count minus the shorter fragments' frequencies.
        let Some(n_start) = start_count else {
            continue;
        };
        for &i in &members {
            if matches!(fragments[i].end, FragmentEnd::Guard(_)) {
                continue;
            }
            let freq = n_start.checked_sub(shorter).unwrap_or_else(|| {
                warnings.push(format!(
                    "fragment {}: bridges out of it ran {shorter} times, more than its start \
                     {start_name} was reached ({n_start}); frequency set to 0",
                    fragments[i].name()
                ));
                0
            });
            fragments[i].frequency = Some(freq);
        }
    }
}
