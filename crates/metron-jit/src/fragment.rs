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

use crate::log::JitLog;
use crate::trace::{Marker, SourceId, TraceKind};

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

struct Names {
    labels: HashMap<u64, String>,
    guards: HashMap<u64, String>,
    jumps: HashMap<(usize, usize), String>,
}

fn name_nodes(log: &JitLog) -> Names {
    let mut names = Names {
        labels: HashMap::new(),
        guards: HashMap::new(),
        jumps: HashMap::new(),
    };
    for (ti, trace) in log.traces.iter().enumerate() {
        for (oi, op) in trace.ops.iter().enumerate() {
            match op.marker {
                Marker::Label(t) => {
                    let n = names.labels.len() + 1;
                    names.labels.entry(t).or_insert_with(|| format!("l{n}"));
                }
                Marker::Guard(g) => {
                    let n = names.guards.len() + 1;
                    names.guards.entry(g).or_insert_with(|| format!("g{n}"));
                }
                Marker::Jump(_) => {
                    let n = names.jumps.len() + 1;
                    names.jumps.insert((ti, oi), format!("j{n}"));
                }
                _ => {}
            }
        }
    }
    names
}

/// Builds the fragments of `log` and, when it has counters, their frequencies (001 §3.2).
pub fn build(log: &JitLog) -> TraceGraph {
    let names = name_nodes(log);
    let mut warnings = Vec::new();
    let mut guard_at: HashMap<u64, (usize, usize)> = HashMap::new();
    for (ti, trace) in log.traces.iter().enumerate() {
        for (oi, op) in trace.ops.iter().enumerate() {
            if let Marker::Guard(g) = op.marker {
                if let Some(&(first, _)) = guard_at.get(&g) {
                    warnings.push(format!(
                        "guard 0x{g:x} appears in {} and again in {}: its bridge's count would \
                         be used twice",
                        log.traces[first].label(),
                        trace.label()
                    ));
                } else {
                    guard_at.insert(g, (ti, oi));
                }
            }
        }
    }
    // A guard has a bridge when the log holds the bridge or a counter for it.
    let mut bridged: HashSet<u64> = log
        .traces
        .iter()
        .filter_map(|t| match t.kind {
            TraceKind::Bridge { guard } => Some(guard),
            TraceKind::Loop { .. } => None,
        })
        .collect();
    if let Some(c) = &log.counters {
        bridged.extend(c.bridges.keys().copied());
    }
    let entry_source = log
        .traces
        .iter()
        .map(|t| match t.kind {
            TraceKind::Bridge { guard } => guard_at
                .get(&guard)
                .and_then(|&(ti, oi)| log.traces[ti].ops[oi].source),
            TraceKind::Loop { .. } => None,
        })
        .collect();

    let mut fragments = Vec::new();
    for (ti, trace) in log.traces.iter().enumerate() {
        let entry_name = match trace.kind {
            TraceKind::Loop { number } => format!("e{number}"),
            TraceKind::Bridge { guard } => names
                .guards
                .get(&guard)
                .map(|g| format!("b{}", &g[1..]))
                .unwrap_or_else(|| format!("b0x{guard:x}")),
        };
        let mut start = Some((FragmentStart::Entry, entry_name, 0usize));
        for (oi, op) in trace.ops.iter().enumerate() {
            let end = match op.marker {
                Marker::Label(t) => Some((FragmentEnd::Label(t), names.labels[&t].clone(), oi)),
                Marker::Guard(g) if bridged.contains(&g) => {
                    Some((FragmentEnd::Guard(g), names.guards[&g].clone(), oi + 1))
                }
                Marker::Jump(t) => {
                    Some((FragmentEnd::Jump(t), names.jumps[&(ti, oi)].clone(), oi + 1))
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
                        trace: ti,
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
                    start = Some((FragmentStart::Label(t), names.labels[&t].clone(), oi))
                }
                Marker::Jump(_) | Marker::Finish => start = None,
                _ => {}
            }
        }
        if let Some((s, s_name, first)) = start {
            if first < trace.ops.len() {
                fragments.push(Fragment {
                    trace: ti,
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
    }

    let has_counters = log.counters.is_some();
    if has_counters {
        assign_frequencies(log, &mut fragments, &guard_at, &mut warnings);
    }
    TraceGraph {
        fragments,
        has_counters,
        warnings,
        entry_source,
    }
}

/// The paper's two rules (001 §3.2), applied per start node.
fn assign_frequencies(
    log: &JitLog,
    fragments: &mut [Fragment],
    guard_at: &HashMap<u64, (usize, usize)>,
    warnings: &mut Vec<String>,
) {
    let Some(counters) = &log.counters else {
        return;
    };
    if !counters.complete {
        warnings.push(
            "jit-backend-counts is incomplete (the log is truncated): missing counters leave \
             their fragments out of Γ"
                .to_string(),
        );
    }
    let mut groups: HashMap<(usize, usize), Vec<usize>> = HashMap::new();
    for (i, f) in fragments.iter().enumerate() {
        groups.entry((f.trace, f.first_op)).or_default().push(i);
    }
    let mut keys: Vec<_> = groups.keys().copied().collect();
    keys.sort_unstable();
    for key in keys {
        let members = &groups[&key];
        let first = &fragments[members[0]];
        let start_count = match first.start {
            FragmentStart::Label(t) => counters.labels.get(&t).copied(),
            FragmentStart::Entry => match log.traces[first.trace].kind {
                TraceKind::Loop { number } => counters.entries.get(&number).copied(),
                TraceKind::Bridge { guard } => counters.bridges.get(&guard).copied(),
            },
        };
        let start_name = first.start_name.clone();
        if start_count.is_none() {
            warnings.push(format!(
                "no counter for {start_name} ({}): its fragments are left out of Γ",
                log.traces[first.trace].label()
            ));
        }
        // Rule 1: a fragment ending at a guard takes the count of the guard's bridge.
        let mut shorter: u64 = 0;
        for &i in members {
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
        for &i in members {
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
    let mut bridge_ids: Vec<&u64> = counters.bridges.keys().collect();
    bridge_ids.sort_unstable();
    for g in bridge_ids {
        if !guard_at.contains_key(g) {
            warnings.push(format!(
                "counter `bridge {g}` names guard 0x{g:x}, which no trace in the log contains"
            ));
        }
    }
    let labels: HashSet<u64> = fragments
        .iter()
        .filter_map(|f| match f.start {
            FragmentStart::Label(t) => Some(t),
            FragmentStart::Entry => None,
        })
        .collect();
    let mut label_ids: Vec<&u64> = counters.labels.keys().collect();
    label_ids.sort_unstable();
    for t in label_ids {
        if !labels.contains(t) {
            warnings.push(format!(
                "counter `TargetToken({t})` names a label that no trace in the log contains"
            ));
        }
    }
}
