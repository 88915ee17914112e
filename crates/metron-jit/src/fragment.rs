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

use serde::Serialize;

use crate::lifetime::{self, CounterUse, Lifetimes};
use crate::log::{Counters, JitLog};
use crate::trace::{numbered, FxMap, Marker, Op, SourceId, Trace, TraceKind};

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
        // `format!("{} to {}")` without the formatter: one per fragment of a large log
        let mut s = String::with_capacity(self.start_name.len() + 4 + self.end_name.len());
        s.push_str(&self.start_name);
        s.push_str(" to ");
        s.push_str(&self.end_name);
        s
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
    /// How the counters were matched to traces; `None` without counters.
    pub counter_use: Option<CounterUse>,
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

/// What fragments need to know of the counters before the first trace.
#[derive(Debug, Clone, Copy, Default)]
pub struct CounterFacts {
    /// The log has a `jit-backend-counts` section.
    pub present: bool,
    /// ... and it is complete.
    pub complete: bool,
}

impl CounterFacts {
    pub fn of(counters: Option<&Counters>) -> Self {
        CounterFacts {
            present: counters.is_some(),
            complete: counters.is_some_and(|c| c.complete),
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
    source: Option<SourceId>,
}

/// Cuts traces into fragments one trace at a time, in log order (001 §3.1), and gives them
/// frequencies (001 §3.2) from each trace's own counters ([`Lifetimes`]). It keeps only names
/// of labels and of guards with bridges, so its memory grows with the number of fragments,
/// not of operations.
///
/// Nodes are named in order of appearance; a label or guard number that a freed loop handed
/// on to a later trace gets a new name there. A guard without a bridge is never named in a
/// fragment, so it is only counted. A bridge whose guard is in no earlier trace is named
/// `b0x...` and has no entry source.
pub struct FragmentBuilder {
    lifetimes: Lifetimes,
    counters: CounterFacts,
    /// token → (name, the trace that defines the label)
    labels: FxMap<u64, (String, usize)>,
    label_count: usize,
    guards: FxMap<(u64, u32), BridgedGuard>,
    guard_count: usize,
    jump_count: usize,
    frequency_warnings: Vec<String>,
}

impl FragmentBuilder {
    pub fn new(lifetimes: Lifetimes, counters: CounterFacts) -> Self {
        FragmentBuilder {
            lifetimes,
            counters,
            labels: FxMap::default(),
            label_count: 0,
            guards: FxMap::default(),
            guard_count: 0,
            jump_count: 0,
            frequency_warnings: Vec::new(),
        }
    }

    pub fn has_counters(&self) -> bool {
        self.counters.present
    }

    pub fn counter_use(&self) -> Option<CounterUse> {
        self.counters
            .present
            .then(|| self.lifetimes.counter_use.clone())
    }

    /// The name of label `t`; `defining` is the trace that holds the `label` op, if this is it.
    fn label_name(&mut self, t: u64, defining: Option<usize>) -> String {
        if let Some((name, owner)) = self.labels.get(&t) {
            if defining.is_none_or(|d| d == *owner) {
                return name.clone();
            }
        }
        self.label_count += 1;
        let name = numbered("l", self.label_count as u64, 10);
        self.labels
            .insert(t, (name.clone(), defining.unwrap_or(usize::MAX)));
        name
    }

    /// Names the guard at `op` of trace `index` and, when it has a bridge, returns its name.
    fn guard_name(&mut self, g: u64, index: usize, op: &Op) -> Option<String> {
        let key = (g, index as u32);
        if self.lifetimes.bridge(g, index).is_none() {
            self.guard_count += 1;
            return None;
        }
        if let Some(first) = self.guards.get(&key) {
            // the same descr twice in one trace: one bridge, one name
            return Some(first.name.clone());
        }
        self.guard_count += 1;
        let name = numbered("g", self.guard_count as u64, 10);
        self.guards.insert(
            key,
            BridgedGuard {
                name: name.clone(),
                source: op.source,
            },
        );
        Some(name)
    }

    /// The fragments of `trace`, the `index`-th of the log, with their frequencies.
    pub fn trace(&mut self, index: usize, trace: &Trace) -> TraceFragments {
        let owner = self.lifetimes.owner.get(index).copied().flatten();
        let (entry_name, entry_source) = match trace.kind {
            TraceKind::Loop { number } => (numbered("e", number, 10), None),
            TraceKind::Bridge { guard } => match owner.and_then(|o| self.guards.get(&(guard, o))) {
                Some(g) => (format!("b{}", &g.name[1..]), g.source),
                None => (format!("b0x{guard:x}"), None),
            },
        };
        let mut fragments = Vec::new();
        let mut start = Some((FragmentStart::Entry, entry_name, 0usize));
        for (oi, op) in trace.ops.iter().enumerate() {
            let end = match op.marker {
                Marker::Label(t) => {
                    Some((FragmentEnd::Label(t), self.label_name(t, Some(index)), oi))
                }
                Marker::Guard(g) => self
                    .guard_name(g, index, op)
                    .map(|name| (FragmentEnd::Guard(g), name, oi + 1)),
                Marker::Jump(t) => {
                    self.jump_count += 1;
                    Some((
                        FragmentEnd::Jump(t),
                        numbered("j", self.jump_count as u64, 10),
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
                Marker::Label(t) => {
                    start = Some((FragmentStart::Label(t), self.label_name(t, Some(index)), oi))
                }
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
        if self.counters.present {
            let ctx = FrequencyContext {
                lifetimes: &self.lifetimes,
                index,
                trace,
            };
            ctx.assign(&mut fragments, &mut self.frequency_warnings);
        }
        TraceFragments {
            fragments,
            entry_source,
        }
    }

    /// The warnings about the whole log, once every trace has been seen.
    pub fn finish(self) -> Vec<String> {
        let mut warnings = Vec::new();
        if !self.counters.present {
            return warnings;
        }
        if !self.counters.complete {
            warnings.push(
                "jit-backend-counts is incomplete (the log is truncated): missing counters leave \
                 their fragments out of Γ"
                    .to_string(),
            );
        }
        let u = &self.lifetimes.counter_use;
        if u.by_position {
            if u.used < u.total {
                warnings.push(format!(
                    "{} of {} counters belong to no trace in the log (their traces' sections are \
                     missing): left out of Γ",
                    u.total - u.used,
                    u.total
                ));
            }
            if u.unmatched_traces > 0 {
                warnings.push(format!(
                    "{} traces have no counters at their place in jit-backend-counts: their \
                     fragments are left out of Γ",
                    u.unmatched_traces
                ));
            }
        } else if u.total > 0 {
            warnings.push(format!(
                "jit-backend-counts is not in the order of the traces: counters matched by \
                 number{}",
                if u.reused_numbers > 0 {
                    format!(
                        ", and {} numbers name several counters (freed loops' numbers reused): \
                         their counts are added together",
                        u.reused_numbers
                    )
                } else {
                    String::new()
                }
            ));
        }
        warnings.extend(self.frequency_warnings);
        warnings
    }
}

/// Builds the fragments of `log` and, when it has counters, their frequencies (001 §3.2).
pub fn build(log: &JitLog) -> TraceGraph {
    let lifetimes = lifetime::of_traces(&log.traces, log.counters.as_ref());
    let mut builder = FragmentBuilder::new(lifetimes, CounterFacts::of(log.counters.as_ref()));
    let mut fragments = Vec::new();
    let mut entry_source = Vec::with_capacity(log.traces.len());
    for (ti, trace) in log.traces.iter().enumerate() {
        let tf = builder.trace(ti, trace);
        fragments.extend(tf.fragments);
        entry_source.push(tf.entry_source);
    }
    let has_counters = builder.has_counters();
    let counter_use = builder.counter_use();
    TraceGraph {
        fragments,
        has_counters,
        warnings: builder.finish(),
        entry_source,
        counter_use,
    }
}

/// One trace's view of the counters.
struct FrequencyContext<'a> {
    lifetimes: &'a Lifetimes,
    index: usize,
    trace: &'a Trace,
}

impl FrequencyContext<'_> {
    /// The count of the start node of fragments beginning at op `first_op`.
    fn start_count(&self, start: FragmentStart, first_op: usize) -> Option<u64> {
        let counts = self.lifetimes.counts.get(self.index)?;
        match start {
            FragmentStart::Entry => counts.entry,
            FragmentStart::Label(_) => {
                let ordinal = self.trace.ops[..first_op]
                    .iter()
                    .filter(|o| matches!(o.marker, Marker::Label(_)))
                    .count();
                counts.labels.get(ordinal).copied().flatten()
            }
        }
    }

    /// The paper's two rules (001 §3.2), applied per start node of the trace.
    fn assign(&self, fragments: &mut [Fragment], warnings: &mut Vec<String>) {
        // fragments come in order of their end; a start's fragments share `first_op`
        let mut firsts: Vec<usize> = fragments.iter().map(|f| f.first_op).collect();
        firsts.sort_unstable();
        firsts.dedup();
        for first_op in firsts {
            let members: Vec<usize> = (0..fragments.len())
                .filter(|&i| fragments[i].first_op == first_op)
                .collect();
            let first = &fragments[members[0]];
            let start_count = self.start_count(first.start, first_op);
            let start_name = first.start_name.clone();
            if start_count.is_none() {
                warnings.push(format!(
                    "no counter for {start_name} ({}): its fragments are left out of Γ",
                    self.trace.label()
                ));
            }
            // Rule 1: a fragment ending at a guard takes the count of the guard's bridge.
            let mut shorter: u64 = 0;
            for &i in &members {
                if let FragmentEnd::Guard(g) = fragments[i].end {
                    let n = self.lifetimes.bridge_count(g, self.index);
                    if n.is_none() {
                        warnings.push(format!(
                            "no counter for the bridge of guard {} (0x{g:x}): fragment {} is left out of Γ",
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
}
