//! Recording performance event profiles with `perf_event_open` (000 §3.3, App. B.1.3).
//!
//! The sampling event leads a group with `sample_period` = the threshold; the other events
//! are members read together on every overflow (`PERF_SAMPLE_READ` with `PERF_FORMAT_GROUP`).
//! Members are created *enabled* and only the leader is switched (by `enable_on_exec` for a
//! command, by an ioctl in-process): members created disabled and enabled through the leader
//! were seen to start counting late, which makes the first samples short.
//!
//! Counters are inherited by the command's threads and children; since Linux 6.12 a sample
//! of an inherited group reads that thread's own counters (`PERF_SAMPLE_TID` says whose), so
//! the combined trace sums the latest values of every thread, and `--per-thread` writes one
//! trace per thread instead.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use metron_measure::counters::CounterSet;
use metron_measure::runner::{run_once_attaching, Exit, OutputPolicy};
use perf_event::data::Record as PerfRecord;
use perf_event::{Clock, Counter, ReadFormat, SampleFlag, Sampler};
use serde::{Deserialize, Serialize};

use crate::events::{unsupported, EventError, EventSpec};
use crate::trace::{Trace, TraceName};
use crate::{PepError, Result};

/// What to sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupSpec {
    pub sample: EventSpec,
    pub threshold: u64,
    pub members: Vec<EventSpec>,
    /// Record the instruction address of each sample (the `address` column).
    pub address: bool,
    /// Follow threads and child processes.
    pub inherit: bool,
}

impl GroupSpec {
    /// Column names: the sampling event, then the members.
    pub fn event_names(&self) -> Vec<String> {
        std::iter::once(&self.sample)
            .chain(&self.members)
            .map(|e| e.name.clone())
            .collect()
    }
}

/// Whom the counters observe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// The calling thread (in-process profiling from Octave), enabled by an ioctl.
    Myself,
    /// A child stopped before its exec, enabled at the exec.
    Child(libc::pid_t),
}

/// One counter group on one CPU: the leader's ring buffer and the members.
pub(crate) struct OpenGroup {
    pub(crate) leader: Sampler,
    /// Kept open: closing a member takes it out of the group.
    _members: Vec<Counter>,
    /// perf's ids of the leader and the members, in column order.
    ids: Vec<u64>,
}

/// The group on every CPU. The kernel refuses to map the ring buffer of an inherited
/// per-task event that follows its task on any CPU, so, as `perf record` does, there is one
/// group per CPU, each with its own buffer.
pub(crate) struct OpenGroups {
    pub(crate) groups: Vec<OpenGroup>,
}

/// Opens the group (with kernel counting where permitted, else user space only).
pub(crate) fn open_groups(spec: &GroupSpec, target: Target) -> Result<OpenGroups, EventError> {
    let cpus = online_cpus();
    let open = |kernel| -> Result<OpenGroups, EventError> {
        let groups = cpus
            .iter()
            .map(|&cpu| open_group_with(spec, target, kernel, cpu))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(OpenGroups { groups })
    };
    open(true).or_else(|_| open(false))
}

fn online_cpus() -> Vec<usize> {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    (0..n.max(1) as usize).collect()
}

fn open_group_with(
    spec: &GroupSpec,
    target: Target,
    kernel: bool,
    cpu: usize,
) -> Result<OpenGroup, EventError> {
    let place = |b: &mut perf_event::Builder<'static>| {
        match target {
            Target::Myself => b.observe_self(),
            Target::Child(pid) => b.observe_pid(pid),
        };
        // Sample times on CLOCK_MONOTONIC, which a program can read to mark its own phases
        // (every member of a group must use the leader's clock).
        b.one_cpu(cpu)
            .clockid(Clock::MONOTONIC)
            .inherit(spec.inherit)
            .read_format(ReadFormat::GROUP | ReadFormat::ID);
    };
    let mut lb = spec.sample.builder(kernel);
    place(&mut lb);
    // TID: since Linux 6.12 an inherited group may be sampled with PERF_SAMPLE_READ only if
    // the sample says whose counters it read.
    let mut flags = SampleFlag::READ | SampleFlag::TID | SampleFlag::TIME;
    if spec.address {
        flags |= SampleFlag::IP;
    }
    lb.sample_period(spec.threshold)
        .sample(flags)
        .enabled(false)
        .enable_on_exec(matches!(target, Target::Child(_)));
    let mut leader = lb.build().map_err(|e| unsupported(&spec.sample, &e))?;
    let mut members = Vec::new();
    for m in &spec.members {
        let mut b = m.builder(kernel);
        place(&mut b);
        b.enabled(true);
        members.push(
            b.build_with_group(&mut leader)
                .map_err(|e| unsupported(m, &e))?,
        );
    }
    let mut ids = vec![leader.id()];
    ids.extend(members.iter().map(|c| c.id()));
    let leader = leader
        .sampled(1 << 18)
        .map_err(|e| unsupported(&spec.sample, &e))?;
    Ok(OpenGroup {
        leader,
        _members: members,
        ids,
    })
}

/// One sample as the kernel wrote it.
#[derive(Debug, Clone)]
pub(crate) struct RawSample {
    time: u64,
    tid: u32,
    cpu: usize,
    values: Vec<u64>,
    ip: u64,
}

/// Samples read so far from every CPU's buffer.
#[derive(Debug, Default)]
pub(crate) struct Collector {
    pub(crate) samples: Vec<RawSample>,
    pub(crate) lost: u64,
}

impl Collector {
    fn take(&mut self, rec: &perf_event::Record<'_>, cpu: usize, ids: &[u64]) {
        match rec.parse_record() {
            Ok(PerfRecord::Sample(s)) => {
                let Some(group) = s.values() else { return };
                let values: Option<Vec<u64>> = ids
                    .iter()
                    .map(|&id| group.get_by_id(id).map(|e| e.value()))
                    .collect();
                let Some(values) = values else { return };
                self.samples.push(RawSample {
                    time: s.time().unwrap_or(0),
                    tid: s.tid().unwrap_or(0),
                    cpu,
                    values,
                    ip: s.ip().unwrap_or(0),
                });
            }
            Ok(PerfRecord::Lost(l)) => self.lost += l.lost,
            _ => {}
        }
    }

    fn drain(&mut self, groups: &mut OpenGroups) -> bool {
        let mut got = false;
        for (cpu, g) in groups.groups.iter_mut().enumerate() {
            while let Some(rec) = g.leader.next_record() {
                self.take(&rec, cpu, &g.ids);
                got = true;
            }
        }
        got
    }

    /// Rows in time order: each sample updates its thread's (per CPU) cumulative values;
    /// the combined row is the sum over all of them. Per-thread rows sum over CPUs only.
    pub(crate) fn rows(&self) -> Rows {
        let mut samples = self.samples.clone();
        samples.sort_by_key(|s| s.time);
        let width = samples.first().map_or(0, |s| s.values.len());
        let mut latest: BTreeMap<(u32, usize), Vec<u64>> = BTreeMap::new();
        let mut rows = Rows::default();
        for s in &samples {
            latest.insert((s.tid, s.cpu), s.values.clone());
            let sum = |keep: &dyn Fn(u32) -> bool| {
                let mut sum = vec![0u64; width];
                for (_, v) in latest.iter().filter(|((t, _), _)| keep(*t)) {
                    for (a, b) in sum.iter_mut().zip(v) {
                        *a += b;
                    }
                }
                sum
            };
            rows.combined.push((sum(&|_| true), s.ip));
            rows.clock_ns.push(s.time);
            rows.per_thread
                .entry(s.tid)
                .or_default()
                .push((sum(&|t| t == s.tid), s.ip));
        }
        rows
    }
}

/// Trace rows (cumulative values and the sampled address).
#[derive(Debug, Default)]
pub(crate) struct Rows {
    pub(crate) combined: Vec<(Vec<u64>, u64)>,
    pub(crate) clock_ns: Vec<u64>,
    pub(crate) per_thread: BTreeMap<u32, Vec<(Vec<u64>, u64)>>,
}

/// A thread that empties the ring buffers while the program runs.
pub(crate) struct Drain {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<(Collector, OpenGroups)>>,
}

impl Drain {
    pub(crate) fn start(mut groups: OpenGroups) -> Drain {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let handle = std::thread::spawn(move || {
            let mut c = Collector::default();
            loop {
                let stopping = flag.load(Ordering::Acquire);
                let got = c.drain(&mut groups);
                if stopping {
                    break;
                }
                if !got {
                    std::thread::sleep(Duration::from_millis(5));
                }
            }
            (c, groups)
        });
        Drain {
            stop,
            handle: Some(handle),
        }
    }

    /// Stops after reading what is left in the buffers.
    pub(crate) fn finish(mut self) -> Result<(Collector, OpenGroups)> {
        self.stop.store(true, Ordering::Release);
        match self.handle.take().map(JoinHandle::join) {
            Some(Ok(r)) => Ok(r),
            _ => Err(PepError::Record("the sample reader thread failed".into())),
        }
    }
}

impl Drop for Drain {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
    }
}

impl OpenGroups {
    /// The group's current cumulative values in column order, summed over CPUs (counting
    /// mode: V per event; inherited counts of finished children included).
    pub(crate) fn totals(&mut self) -> Vec<u64> {
        let width = self.groups.first().map_or(0, |g| g.ids.len());
        let mut sum = vec![0u64; width];
        for g in &mut self.groups {
            let Ok(data) = g.leader.as_counter_mut().read_group() else {
                continue;
            };
            let by_id: BTreeMap<u64, u64> = data.iter().map(|e| (e.id(), e.value())).collect();
            for (s, id) in sum.iter_mut().zip(&g.ids) {
                *s += by_id.get(id).copied().unwrap_or(0);
            }
        }
        sum
    }
}

/// How to record.
#[derive(Debug, Clone)]
pub struct RecordOptions {
    pub group: GroupSpec,
    /// One trace per thread instead of one combined trace.
    pub per_thread: bool,
    pub name: TraceName,
    pub output: OutputPolicy,
    /// Also run the command once in counting mode to measure the observer effect.
    pub observer_check: bool,
}

/// One event's total: counting mode V against the sum of the sampled profile ΣM (000 §3.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventTotal {
    pub event: String,
    /// At the end of the sampled run (includes what followed the last sample).
    pub sampled_run: u64,
    /// Of the separate counting-mode run, when there was one.
    pub counting_run: Option<u64>,
}

/// The slowdown that sampling causes (000 §3.3.2, Fig. 3.5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObserverEffect {
    /// CPU time (user + system) of the counting-mode run and of the sampled run.
    pub counting_cpu_s: f64,
    pub sampled_cpu_s: f64,
    pub counting_wall_s: f64,
    pub sampled_wall_s: f64,
    /// sampled / counting − 1 in CPU time.
    pub slowdown: f64,
    /// The 20% limit of 000 §3.3.2 was exceeded.
    pub warning: Option<String>,
}

/// The result of `metron pep record`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recording {
    pub traces: Vec<Trace>,
    pub exit_status: i32,
    pub wall_s: f64,
    pub cpu_s: f64,
    pub samples: usize,
    pub threads: usize,
    /// Samples the kernel dropped because the ring buffer was full.
    pub lost: u64,
    pub totals: Vec<EventTotal>,
    pub observer: Option<ObserverEffect>,
    /// CLOCK_MONOTONIC (ns) of each row of the combined trace; the trace format has no
    /// column for it.
    pub clock_ns: Vec<u64>,
}

/// The 20% limit of 000 §3.3.2.
pub const OBSERVER_LIMIT: f64 = 0.20;

/// Records `argv` (000 §3.3.3's trace_register/tic/toc, for a whole command).
pub fn record(argv: &[String], opts: &RecordOptions) -> Result<Recording> {
    // Open the group once on metron itself: a bad event fails here, before the command runs.
    drop(open_groups(&opts.group, Target::Myself)?);
    let (outcome, drain) =
        run_once_attaching(argv, &[], opts.output, &CounterSet::none(), |pid| {
            open_groups(&opts.group, Target::Child(pid)).map(Drain::start)
        })?;
    let (collector, mut groups) = drain?.finish()?;
    let sampled_totals = groups.totals();
    drop(groups);
    let rows = collector.rows();
    let names = opts.group.event_names();
    let counting = if opts.observer_check {
        Some(counting_run(argv, opts)?)
    } else {
        None
    };
    let cpu_s = (outcome.user + outcome.sys).as_secs_f64();
    let wall_s = outcome.wall.as_secs_f64();
    let observer = counting.as_ref().map(|(c_cpu, c_wall, _)| {
        observer_effect(*c_cpu, cpu_s, *c_wall, wall_s, opts.group.threshold)
    });
    let totals = names
        .iter()
        .enumerate()
        .map(|(i, e)| EventTotal {
            event: e.clone(),
            sampled_run: sampled_totals[i],
            counting_run: counting.as_ref().map(|(_, _, v)| v[i]),
        })
        .collect();
    Ok(Recording {
        traces: traces_of(&rows, opts),
        exit_status: match outcome.exit {
            Exit::Code(c) => c,
            Exit::Signal(s) => 128 + s,
        },
        wall_s,
        cpu_s,
        samples: rows.combined.len(),
        threads: rows.per_thread.len(),
        lost: collector.lost,
        totals,
        observer,
        clock_ns: rows.clock_ns,
    })
}

fn observer_effect(
    counting_cpu_s: f64,
    sampled_cpu_s: f64,
    counting_wall_s: f64,
    sampled_wall_s: f64,
    threshold: u64,
) -> ObserverEffect {
    let slowdown = if counting_cpu_s > 0.0 {
        sampled_cpu_s / counting_cpu_s - 1.0
    } else {
        0.0
    };
    let warning = (slowdown > OBSERVER_LIMIT).then(|| {
        format!(
            "sampling slowed the program down by {:.0}% (CPU time, against a counting-mode run), more than the {:.0}% of 000 §3.3.2: the profile is distorted; try --sample EVENT:{}",
            slowdown * 100.0,
            OBSERVER_LIMIT * 100.0,
            threshold.saturating_mul(10)
        )
    });
    ObserverEffect {
        counting_cpu_s,
        sampled_cpu_s,
        counting_wall_s,
        sampled_wall_s,
        slowdown,
        warning,
    }
}

/// One run of the same group in counting mode (no sampling): CPU time, wall time, V per event.
fn counting_run(argv: &[String], opts: &RecordOptions) -> Result<(f64, f64, Vec<u64>)> {
    // A sample period of 0 is counting mode: the same group, never sampled.
    let mut counting = opts.group.clone();
    counting.threshold = 0;
    let (outcome, group) =
        run_once_attaching(argv, &[], opts.output, &CounterSet::none(), |pid| {
            open_groups(&counting, Target::Child(pid))
        })?;
    let totals = group?.totals();
    Ok((
        (outcome.user + outcome.sys).as_secs_f64(),
        outcome.wall.as_secs_f64(),
        totals,
    ))
}

pub(crate) fn trace_of(
    name: TraceName,
    events: &[String],
    address: bool,
    rows: Vec<Vec<u64>>,
) -> Trace {
    Trace {
        name,
        events: events.to_vec(),
        extra: if address {
            vec!["address".into()]
        } else {
            Vec::new()
        },
        rows,
    }
}

fn traces_of(rows: &Rows, opts: &RecordOptions) -> Vec<Trace> {
    let events = opts.group.event_names();
    let address = opts.group.address;
    let row = |(v, ip): &(Vec<u64>, u64)| {
        let mut r = v.clone();
        if address {
            r.push(*ip);
        }
        r
    };
    let threads = rows.per_thread.len().max(1).to_string();
    if !opts.per_thread {
        let mut name = opts.name.clone();
        name.threads = threads;
        return vec![trace_of(
            name,
            &events,
            address,
            rows.combined.iter().map(row).collect(),
        )];
    }
    rows.per_thread
        .iter()
        .enumerate()
        .map(|(i, (tid, r))| {
            let mut name = opts.name.clone();
            name.threads = threads.clone();
            name.process = tid.to_string();
            name.in_process = (i + 1).to_string();
            trace_of(name, &events, address, r.iter().map(row).collect())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_than_20_percent_slowdown_warns_and_suggests_a_larger_threshold() {
        let o = observer_effect(1.0, 1.25, 1.0, 1.3, 1000);
        assert!((o.slowdown - 0.25).abs() < 1e-12);
        let w = o.warning.unwrap();
        assert!(w.contains("25%") && w.contains("EVENT:10000"), "{w}");
        assert!(observer_effect(1.0, 1.15, 1.0, 1.15, 1000)
            .warning
            .is_none());
    }
}
