//! CPU time of each phase of `metron jit analyze` on one log (development aid):
//!
//!     cargo run --release -p metron-jit --example phase_times -- LOG
//!
//! Prints user and system CPU seconds (from /proc/self/stat) of the first pass alone, the
//! second pass's reading alone, and the whole two-pass analysis.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;
use std::time::{Duration, Instant};

use metron_jit::cost::CostModel;
use metron_jit::log::{read_traces, ReadMode};
use metron_jit::op_class::OpClassTable;
use metron_jit::stream::analyze_file;

fn cpu() -> (f64, f64) {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<f64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    (
        f.get(11).copied().unwrap_or(0.0) / 100.0,
        f.get(12).copied().unwrap_or(0.0) / 100.0,
    )
}

fn timed(label: &str, f: impl FnOnce()) {
    let (u0, s0) = cpu();
    f();
    let (u1, s1) = cpu();
    println!("{label:30} user {:.2} s  sys {:.2} s", u1 - u0, s1 - s0);
}

fn main() {
    let path = std::env::args().nth(1).expect("LOG");
    let path = Path::new(&path);
    let open = || BufReader::new(File::open(path).expect("open"));
    timed("first pass (skeletons)", || {
        read_traces(open(), path, ReadMode::Headers, |_, _, _| {}).expect("read");
    });
    timed("second pass, reading only", || {
        read_traces(open(), path, ReadMode::Full, |_, _, _| {}).expect("read");
    });
    let classes = OpClassTable::default_table();
    timed("whole analysis (both passes)", || {
        analyze_file(path, &classes, &CostModel::Cmc).expect("analyze");
    });
    if std::env::var_os("SPLIT").is_some() {
        timed("fragments only (both passes)", || split(path, false));
        timed("fragments and costs (both passes)", || split(path, true));
    }
}

/// This thread's CPU time so far (`/proc/thread-self/schedstat`, nanoseconds): the parts
/// below are short and the machine is shared, so wall clocks inside callbacks mislead.
fn thread_cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    let ns = stat.split_whitespace().next().and_then(|x| x.parse().ok());
    Duration::from_nanos(ns.unwrap_or(0))
}

/// A stopwatch of this thread's CPU time.
struct Cpu(Duration);

impl Cpu {
    fn now() -> Self {
        Cpu(thread_cpu())
    }

    fn elapsed(&self) -> Duration {
        thread_cpu().saturating_sub(self.0)
    }
}

/// The second pass split into its parts: wall time inside the callbacks (a CPU clock read per
/// trace would cost more than the parts), CPU time of the one-off steps.
fn split(path: &Path, with_costs: bool) {
    use metron_jit::cost::CostAccumulator;
    use metron_jit::fragment::{CounterFacts, FragmentBuilder};
    use metron_jit::lifetime::LifetimeBuilder;
    let open = || BufReader::new(File::open(path).expect("open"));
    let classes = OpClassTable::default_table();
    let model = CostModel::Cmc;
    let mut lifetimes = LifetimeBuilder::new();
    let mut t_life = Duration::ZERO;
    let headers = read_traces(open(), path, ReadMode::Headers, |t, _, _| {
        let i = Instant::now();
        lifetimes.add(&t);
        t_life += i.elapsed();
    })
    .expect("read");
    let i = Cpu::now();
    let counters = headers.counters.as_ref();
    let lt = lifetimes.finish(counters);
    println!("lifetimes: add {:?}, finish {:?}", t_life, i.elapsed());
    let mut builder = FragmentBuilder::new(lt, CounterFacts::of(counters));
    let mut acc = CostAccumulator::new(&classes, &model);
    let (mut t_frag, mut t_cost) = (Duration::ZERO, Duration::ZERO);
    let mut index = 0;
    let log = read_traces(open(), path, ReadMode::Full, |trace, names, sources| {
        let i = Instant::now();
        let tf = builder.trace(index, &trace);
        t_frag += i.elapsed();
        let i = Instant::now();
        if with_costs {
            acc.add_trace(&trace, &tf.fragments, tf.entry_source, names, sources);
        }
        t_cost += i.elapsed();
        index += 1;
    })
    .expect("read");
    let i = Cpu::now();
    let a = acc.finish(true, builder.finish(), &log.sources);
    println!(
        "fragments {:?}, cost accumulator {:?}, finish {:?} ({} fragments)",
        t_frag,
        t_cost,
        i.elapsed(),
        a.fragments.len()
    );
}
