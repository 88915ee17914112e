//! The whole analysis of a PYPYLOG in memory bounded by its largest trace, not by its size.
//!
//! Two passes over the file. The first reads only each trace's skeleton (header, labels,
//! guards) and the counters: 001 §3.2 needs every bridge and counter before it can cut the
//! first trace (a guard ends a fragment only if it has a bridge, and the counters come last
//! in the log), and [`crate::lifetime`] needs the skeletons to give each trace its own
//! counters when freed loops' numbers are reused. The second reads
//! each trace in full, cuts it into fragments, prices them and drops its operations before
//! reading the next one. What stays are the per-fragment and per-trace summaries, the
//! counters and the name and source tables.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use crate::cost::{Analysis, CostAccumulator, CostModel};
use crate::error::JitError;
use crate::fragment::{CounterFacts, FragmentBuilder};
use crate::lifetime::LifetimeBuilder;
use crate::log::{read_traces, JitLog, ReadMode};
use crate::op_class::OpClassTable;
use crate::trace::{Trace, TraceKind};

/// The result of [`analyze_file`]: the analysis, and the log without its traces.
#[derive(Debug, Clone)]
pub struct StreamedAnalysis {
    /// Counters, summary, parse warnings and sizes; `traces` is empty.
    pub log: JitLog,
    pub analysis: Analysis,
    pub loops: usize,
    pub bridges: usize,
    /// The most trace operations held at once over both passes: the largest trace's.
    pub max_retained_ops: usize,
}

/// Analyses the PYPYLOG at `path` in two streaming passes (see the module comment).
pub fn analyze_file(
    path: &Path,
    classes: &OpClassTable,
    model: &CostModel,
) -> Result<StreamedAnalysis, JitError> {
    let open = || {
        File::open(path)
            .map(|f| BufReader::with_capacity(1 << 16, f))
            .map_err(|source| JitError::Io {
                path: path.to_path_buf(),
                source,
            })
    };
    analyze_stream(open, path, classes, model)
}

/// As [`analyze_file`], reading the log twice through `open` (e.g. to show progress).
pub fn analyze_stream<R, O>(
    mut open: O,
    path: &Path,
    classes: &OpClassTable,
    model: &CostModel,
) -> Result<StreamedAnalysis, JitError>
where
    R: BufRead,
    O: FnMut() -> Result<R, JitError>,
{
    let mut lifetimes = LifetimeBuilder::new();
    let headers = read_traces(open()?, path, ReadMode::Headers, |t: Trace, _, _| {
        lifetimes.add(&t)
    })?;
    let first_pass_ops = headers.max_trace_ops;
    let counters = headers.counters.as_ref();
    let mut builder = FragmentBuilder::new(lifetimes.finish(counters), CounterFacts::of(counters));
    let mut acc = CostAccumulator::new(classes, model);
    let (mut index, mut loops) = (0usize, 0usize);
    let mut log = read_traces(open()?, path, ReadMode::Full, |trace, names, sources| {
        let tf = builder.trace(index, &trace);
        acc.add_trace(&trace, &tf.fragments, tf.entry_source, names, sources);
        index += 1;
        loops += usize::from(matches!(trace.kind, TraceKind::Loop { .. }));
        // `trace` and its operations end here
    })?;
    let has_counters = builder.has_counters();
    let counter_use = builder.counter_use();
    let mut analysis = acc.finish(has_counters, builder.finish(), &log.sources);
    analysis.counter_use = counter_use;
    log.traces = Vec::new();
    Ok(StreamedAnalysis {
        max_retained_ops: log.max_trace_ops.max(first_pass_ops),
        loops,
        bridges: index - loops,
        log,
        analysis,
    })
}
