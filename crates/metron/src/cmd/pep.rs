//! `metron pep`: performance event profiles (000 Ch. 3): record sampled counter groups into
//! the mPAPI trace format, list the events this machine has, and find execution regions.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use metron_measure::runner::OutputPolicy;
use metron_pep::changepoint::PeltConfig;
use metron_pep::events::{list_events, parse_event};
use metron_pep::execution_region::{
    close_gaps, parse_predicate, proxy_cost, regions, Predicate, Region,
};
use metron_pep::instruction_block::{block_starts, SpikeConfig};
use metron_pep::profile::ProfileGroup;
use metron_pep::record::{record, GroupSpec, RecordOptions, Recording};
use metron_pep::summary::{region_rates, summarise, TraceSummary};
use metron_pep::trace::{read_file, write_file, Trace, TraceName};
use metron_pep::PepError;

use crate::error::{CliError, CliResult};
use crate::GlobalOpts;

#[derive(Args, Debug)]
pub struct PepArgs {
    #[command(subcommand)]
    pub command: PepCommand,
}

#[derive(Subcommand, Debug)]
pub enum PepCommand {
    /// Run CMD with a sampled counter group and write its trace (000 Listing 3.2).
    #[command(after_help = "Examples:\n  \
        metron pep record --sample cpu-clock:1000000 -e page-faults,task-clock -o run.trace -- ./prog\n  \
        metron pep record --sample instructions:100000 -e cycles,cache-misses -o run.trace -- ./prog   (with a PMU)")]
    Record(RecordArgs),
    /// The events this machine can count (says so when there is no PMU).
    Events,
    /// Per trace: samples, totals, jitter of the sampling time (Eq. 3.1) and PELT segments.
    Show(ShowArgs),
    /// Execution regions: a predicate (000 §3.4), Eq. 3.2's data copy, instruction-block
    /// starts (§4.3) or change-point segments.
    #[command(
        after_help = "Predicates: EV (its Δ per sample), rate(EV) = Δ(EV)/Δ(T), ratio(A, B),\n\
        compared with > >= < <= == or `~ X +- TOL`; before_first(EV), from_first(EV); && || ! ( ).\n\
        Examples:\n  \
        metron pep regions run.trace --predicate 'page-faults == 0'\n  \
        metron pep regions run.trace --data-copy MEM_INST_RETIRED:ALL_LOADS,MEM_INST_RETIRED:ALL_STORES\n  \
        metron pep regions run.trace --predicate 'before_first(FP_ARITH_INST_RETIRED:SCALAR_DOUBLE)' --elements 1000000"
    )]
    Regions(RegionsArgs),
    /// The long-format CSV of 000 App. C.3 (trace_id, time, event, value, delta).
    Csv(CsvArgs),
    /// Align groups measured in separate runs into one (000 §3.4's λ): trace k of every file
    /// becomes trace k of OUT, on the first file's sampling times.
    Align(AlignArgs),
}

#[derive(Args, Debug)]
pub struct AlignArgs {
    /// Trace files of the same program, each with other member events.
    #[arg(required = true, num_args = 2..)]
    pub files: Vec<PathBuf>,
    #[arg(long, short = 'o')]
    pub output: PathBuf,
    /// Scale each run's time axis to the first run's length first (for cycles or cpu-clock);
    /// default: the runs share a deterministic sampling event (retired instructions).
    #[arg(long)]
    pub stretch: bool,
}

#[derive(Args, Debug)]
pub struct RecordArgs {
    /// The sampling event and its threshold, EVENT:THRESHOLD.
    #[arg(long, value_name = "EVENT:THRESHOLD")]
    pub sample: String,
    /// Member events, comma-separated (generic, software, or raw rNNNN).
    #[arg(long, short = 'e', value_delimiter = ',')]
    pub events: Vec<String>,
    /// The trace file to write.
    #[arg(long, short = 'o')]
    pub output: PathBuf,
    /// Record the instruction address of each sample (an `address` column).
    #[arg(long)]
    pub address: bool,
    /// One trace per thread instead of one combined trace.
    #[arg(long)]
    pub per_thread: bool,
    /// Do not follow threads and child processes.
    #[arg(long)]
    pub no_inherit: bool,
    /// Skip the counting-mode run that measures the observer effect (000 §3.3.2).
    #[arg(long)]
    pub no_observer_check: bool,
    /// The trace name's benchmark field [default: the program's file name].
    #[arg(long)]
    pub benchmark: Option<String>,
    /// The trace name's version field.
    #[arg(long, default_value = "default")]
    pub label: String,
    /// The trace name's N field (data size).
    #[arg(long, default_value = "0")]
    pub n: String,
    /// Show the program's output.
    #[arg(long)]
    pub show_output: bool,
    /// The command.
    #[arg(last = true, required = true)]
    pub command: Vec<String>,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    pub file: PathBuf,
    /// The sampling threshold t̂ asked for (default: the median interval).
    #[arg(long)]
    pub threshold: Option<u64>,
    #[command(flatten)]
    pub pelt: PeltArgs,
}

#[derive(Args, Debug, Clone, Copy)]
pub struct PeltArgs {
    /// PELT penalty per change point [default: 3·d·ln n on robustly scaled rates].
    #[arg(long)]
    pub penalty: Option<f64>,
    /// Minimum segment length in samples.
    #[arg(long, default_value_t = 3)]
    pub min_size: usize,
}

impl PeltArgs {
    fn config(self) -> PeltConfig {
        PeltConfig {
            penalty: self.penalty,
            min_size: self.min_size,
        }
    }
}

#[derive(Args, Debug)]
pub struct RegionsArgs {
    pub file: PathBuf,
    /// A region predicate φ (see below).
    #[arg(long, conflicts_with_all = ["data_copy", "blocks"])]
    pub predicate: Option<String>,
    /// Eq. 3.2's data-copy region on LOADS,STORES.
    #[arg(long, value_name = "LOADS,STORES", conflicts_with = "blocks")]
    pub data_copy: Option<String>,
    /// Tolerance of loads/stores ≈ 1 for --data-copy.
    #[arg(long, default_value_t = 0.1)]
    pub tol: f64,
    /// Instruction-block starts from spikes of this code-fetch-miss event (000 §4.3).
    #[arg(long, value_name = "EVENT")]
    pub blocks: Option<String>,
    /// Drop regions shorter than this many samples.
    #[arg(long, default_value_t = 1)]
    pub min_samples: usize,
    /// Close gaps of up to this many samples where the predicate fails inside a region.
    #[arg(long, default_value_t = 0)]
    pub max_gap: usize,
    /// Elements a region processes: prints its proxy-profile cost (000 §3.5).
    #[arg(long)]
    pub elements: Option<f64>,
    /// Only this trace (1-based); default all.
    #[arg(long)]
    pub trace: Option<usize>,
    #[command(flatten)]
    pub pelt: PeltArgs,
}

#[derive(Args, Debug)]
pub struct CsvArgs {
    pub file: PathBuf,
    /// Write here instead of stdout.
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
}

fn input(e: PepError) -> CliError {
    match e {
        PepError::Record(_) => CliError::failure(e),
        _ => CliError::input(e),
    }
}

pub fn run(args: PepArgs, g: &GlobalOpts) -> CliResult {
    match args.command {
        PepCommand::Record(a) => run_record(a, g),
        PepCommand::Events => run_events(g),
        PepCommand::Show(a) => run_show(a, g),
        PepCommand::Regions(a) => run_regions(a, g),
        PepCommand::Csv(a) => run_csv(a),
        PepCommand::Align(a) => run_align(a),
    }
}

fn json<T: serde::Serialize>(v: &T) -> CliResult {
    println!(
        "{}",
        serde_json::to_string_pretty(v).map_err(CliError::failure)?
    );
    Ok(())
}

fn group_spec(a: &RecordArgs) -> CliResult<GroupSpec> {
    let (event, threshold) = a.sample.rsplit_once(':').ok_or_else(|| {
        CliError::input(format!(
            "--sample `{}`: expected EVENT:THRESHOLD, e.g. cpu-clock:1000000",
            a.sample
        ))
    })?;
    let threshold: u64 = threshold.parse().ok().filter(|&t| t > 0).ok_or_else(|| {
        CliError::input(format!(
            "--sample `{}`: the threshold `{threshold}` is not a positive integer",
            a.sample
        ))
    })?;
    let parse = |e: &str| parse_event(e).map_err(CliError::input);
    Ok(GroupSpec {
        sample: parse(event)?,
        threshold,
        members: a
            .events
            .iter()
            .map(|e| parse(e))
            .collect::<CliResult<_>>()?,
        address: a.address,
        inherit: !a.no_inherit,
    })
}

fn run_record(a: RecordArgs, g: &GlobalOpts) -> CliResult {
    let group = group_spec(&a)?;
    let program = Path::new(&a.command[0]).file_name().map_or_else(
        || a.command[0].clone(),
        |f| f.to_string_lossy().into_owned(),
    );
    let opts = RecordOptions {
        group,
        per_thread: a.per_thread,
        name: TraceName {
            env: "metron".into(),
            threads: "1".into(),
            process: "1".into(),
            benchmark: a.benchmark.clone().unwrap_or(program),
            version: a.label.clone(),
            n: a.n.clone(),
            in_process: "1".into(),
        },
        output: if a.show_output {
            OutputPolicy::Inherit
        } else {
            OutputPolicy::Discard
        },
        observer_check: !a.no_observer_check,
    };
    let spinner = crate::progress::bar(0, g.quiet || g.json);
    spinner.set_message(format!("recording {}", a.command.join(" ")));
    let rec = record(&a.command, &opts).map_err(input);
    spinner.finish_and_clear();
    let rec = rec?;
    write_file(&a.output, &rec.traces).map_err(input)?;
    if g.json {
        json(&rec)?;
    } else {
        print_recording(&rec, &a.output, opts.group.threshold, g.quiet);
    }
    if rec.exit_status != 0 {
        return Err(CliError::failure(format!(
            "`{}` exited with status {} (the trace was written)",
            a.command.join(" "),
            rec.exit_status
        )));
    }
    Ok(())
}

fn print_recording(rec: &Recording, out: &Path, threshold: u64, quiet: bool) {
    println!(
        "{}: {} trace(s), {} samples from {} thread(s); {:.3} s wall, {:.3} s CPU{}",
        out.display(),
        rec.traces.len(),
        rec.samples,
        rec.threads,
        rec.wall_s,
        rec.cpu_s,
        if rec.lost > 0 {
            format!("; {} samples LOST (ring buffer full)", rec.lost)
        } else {
            String::new()
        }
    );
    println!(
        "{:<28} {:>16} {:>16} {:>16}",
        "event", "ΣM (profile)", "V (end of run)", "V (counting run)"
    );
    let last = rec.traces.first().and_then(|t| t.rows.last());
    for (i, t) in rec.totals.iter().enumerate() {
        let profile = last.map_or(0, |r| r[i]);
        let counting = t.counting_run.map_or("-".into(), |v| v.to_string());
        println!(
            "{:<28} {:>16} {:>16} {:>16}",
            t.event, profile, t.sampled_run, counting
        );
    }
    if let Some(o) = &rec.observer {
        println!(
            "observer effect (000 §3.3.2): CPU time {:.3} s sampled vs {:.3} s counting: {:+.1}%",
            o.sampled_cpu_s,
            o.counting_cpu_s,
            o.slowdown * 100.0
        );
        if let Some(w) = &o.warning {
            eprintln!("metron: warning: {w}");
        }
    }
    if !quiet {
        for t in &rec.traces {
            print_summary(&summarise(t, Some(threshold), PeltConfig::default()));
        }
    }
}

fn run_events(g: &GlobalOpts) -> CliResult {
    let list = list_events();
    if g.json {
        return json(&list);
    }
    if !list.pmu {
        println!(
            "No hardware PMU: this machine (a virtual machine without a virtual PMU, or a kernel without perf support for its CPU) cannot count hardware events. Only software events work: sample on cpu-clock with members such as page-faults and task-clock."
        );
    }
    if let Some(p) = list.perf_event_paranoid {
        println!("perf_event_paranoid = {p}");
    }
    println!("{:<26} {:<9} {:<5} reason", "event", "kind", "ok");
    for e in &list.events {
        println!(
            "{:<26} {:<9} {:<5} {}",
            e.name,
            e.kind,
            if e.supported { "yes" } else { "no" },
            e.reason.as_deref().unwrap_or("")
        );
    }
    println!("also: raw codes rNNNN (hex, PERF_TYPE_RAW) where the PMU has them");
    if metron_pep::libpfm::available() {
        println!("also: PMU-specific names through libpfm4 (e.g. MEM_INST_RETIRED:ALL_LOADS), where the PMU has them");
    } else {
        println!("PMU-specific names need libpfm4: apt-get install -y libpfm4");
    }
    Ok(())
}

fn load(file: &Path) -> CliResult<Vec<Trace>> {
    read_file(file).map_err(input)
}

fn run_show(a: ShowArgs, g: &GlobalOpts) -> CliResult {
    let traces = load(&a.file)?;
    let summaries: Vec<TraceSummary> = traces
        .iter()
        .map(|t| summarise(t, a.threshold, a.pelt.config()))
        .collect();
    if g.json {
        return json(&summaries);
    }
    for s in &summaries {
        print_summary(s);
    }
    Ok(())
}

fn print_summary(s: &TraceSummary) {
    let n = &s.name;
    println!(
        "\ntrace {}:{}:{}:{}:{}:{}:{}  sampled on {}, {} samples",
        n.env,
        n.threads,
        n.process,
        n.benchmark,
        n.version,
        n.n,
        n.in_process,
        s.sampling_event,
        s.samples
    );
    if let Some(j) = &s.jitter {
        println!(
            "  Δ(T): t̂ = {:.0}{}, first {}, mean {:.1} ± {:.1}, range {}..{}, mean |Δ(T) − t̂|/t̂ = {:.3}%, {:.0}% within 1% (Eq. 3.1)",
            j.threshold,
            if j.threshold_given { "" } else { " (median)" },
            j.first,
            j.mean,
            j.std_dev,
            j.min,
            j.max,
            j.mean_rel_error * 100.0,
            j.within_1pct * 100.0
        );
    }
    println!(
        "  {} segments by {} (penalty {:.1}):",
        s.segments.len(),
        s.segmentation.method,
        s.segmentation.penalty
    );
    print_regions_table(&s.events, s.segments.iter().map(|r| (&r.region, &r.rates)));
}

fn print_regions_table<'a>(
    events: &[String],
    rows: impl Iterator<Item = (&'a Region, &'a Vec<f64>)>,
) {
    let mut head = format!(
        "  {:>8} {:>8} {:>14} {:>14}",
        "samples", "first", "start", "end"
    );
    for e in events {
        head.push_str(&format!(" {:>18}", format!("rate {e}")));
    }
    println!("{head}");
    for (r, rates) in rows {
        let mut line = format!(
            "  {:>8} {:>8} {:>14} {:>14}",
            r.samples(),
            r.first_sample + 1,
            r.start_time,
            r.end_time
        );
        for v in rates {
            line.push_str(&format!(" {:>18.6}", v));
        }
        println!("{line}");
    }
}

#[derive(serde::Serialize)]
struct TraceRegions {
    trace: usize,
    name: TraceName,
    what: String,
    regions: Vec<Region>,
    rates: Vec<Vec<f64>>,
    costs: Vec<Option<f64>>,
}

fn run_regions(a: RegionsArgs, g: &GlobalOpts) -> CliResult {
    let traces = load(&a.file)?;
    if let Some(k) = a.trace.filter(|&k| k == 0 || k > traces.len()) {
        return Err(CliError::input(format!(
            "--trace {k}: {} holds traces 1..{}",
            a.file.display(),
            traces.len()
        )));
    }
    let predicate: Option<Predicate> = match (&a.predicate, &a.data_copy) {
        (Some(p), _) => Some(parse_predicate(p).map_err(input)?),
        (None, Some(dc)) => {
            let (l, s) = dc.split_once(',').ok_or_else(|| {
                CliError::input(format!("--data-copy `{dc}`: expected LOADS,STORES"))
            })?;
            Some(Predicate::data_copy(l.trim(), s.trim(), a.tol))
        }
        _ => None,
    };
    let mut out = Vec::new();
    for (i, t) in traces.iter().enumerate() {
        if a.trace.is_some_and(|k| k != i + 1) {
            continue;
        }
        let group = ProfileGroup::from_trace(t);
        let (what, found) = find_regions(&a, &group, predicate.as_ref())?;
        let rates = found.iter().map(|r| region_rates(&group, r)).collect();
        let costs = found
            .iter()
            .map(|r| {
                a.elements
                    .and_then(|e| proxy_cost(r, e))
                    .map(|c| c.per_element)
            })
            .collect();
        out.push(TraceRegions {
            trace: i + 1,
            name: t.name.clone(),
            what,
            regions: found,
            rates,
            costs,
        });
    }
    if g.json {
        return json(&out);
    }
    for (tr, t) in out.iter().zip(
        traces
            .iter()
            .enumerate()
            .filter(|(i, _)| a.trace.is_none_or(|k| k == i + 1)),
    ) {
        println!(
            "\ntrace {} ({}:{}): {} region(s) where {}",
            tr.trace,
            tr.name.benchmark,
            tr.name.version,
            tr.regions.len(),
            tr.what
        );
        print_regions_table(&t.1.events[1..], tr.regions.iter().zip(&tr.rates));
        for (r, c) in tr.regions.iter().zip(&tr.costs) {
            if let Some(c) = c {
                println!(
                    "  proxy-profile cost of samples {}..{}: {} {} / {} elements = {:.3} per element",
                    r.first_sample + 1,
                    r.last_sample + 1,
                    r.length(),
                    t.1.events[0],
                    a.elements.unwrap_or(0.0),
                    c
                );
            }
        }
    }
    Ok(())
}

fn find_regions(
    a: &RegionsArgs,
    group: &ProfileGroup,
    predicate: Option<&Predicate>,
) -> CliResult<(String, Vec<Region>)> {
    if let Some(p) = predicate {
        let mask = close_gaps(&p.evaluate(group).map_err(input)?, a.max_gap);
        return Ok((format!("{p}"), regions(group, &mask, a.min_samples)));
    }
    if let Some(ev) = &a.blocks {
        let starts = block_starts(group, ev, SpikeConfig::default()).map_err(input)?;
        // A block lasts from its spike to the next block's.
        let mut found = Vec::new();
        for (k, s) in starts.iter().enumerate() {
            let last = starts.get(k + 1).map_or(group.len(), |n| n.sample) - 1;
            found.push(Region {
                first_sample: s.sample,
                last_sample: last,
                start_time: s.time,
                end_time: group.times[last],
            });
        }
        return Ok((
            format!("an instruction block starts at a spike of {ev} (000 §4.3)"),
            found,
        ));
    }
    let seg = metron_pep::changepoint::segment(group, &[], a.pelt.config());
    Ok((
        format!("{} (penalty {:.1})", seg.method, seg.penalty),
        seg.segments,
    ))
}

fn run_csv(a: CsvArgs) -> CliResult {
    let traces = load(&a.file)?;
    let text = metron_pep::csv::to_long_csv(&traces);
    match &a.output {
        Some(p) => {
            std::fs::write(p, text).map_err(|e| CliError::input(format!("{}: {e}", p.display())))
        }
        None => {
            print!("{text}");
            Ok(())
        }
    }
}

fn run_align(a: AlignArgs) -> CliResult {
    use metron_pep::align::{align, Alignment};
    let files = a
        .files
        .iter()
        .map(|f| load(f))
        .collect::<CliResult<Vec<_>>>()?;
    let n = files[0].len();
    if let Some((f, t)) = a.files.iter().zip(&files).find(|(_, t)| t.len() != n) {
        return Err(CliError::input(format!(
            "{} holds {} traces, {} holds {n}: align needs the same number in every file",
            f.display(),
            t.len(),
            a.files[0].display()
        )));
    }
    let how = if a.stretch {
        Alignment::Stretch
    } else {
        Alignment::SharedCount
    };
    let mut out = Vec::new();
    for k in 0..n {
        let groups: Vec<ProfileGroup> = files
            .iter()
            .map(|f| ProfileGroup::from_trace(&f[k]))
            .collect();
        let g = align(&groups, how).map_err(input)?;
        let rows = (0..g.len())
            .map(|i| {
                std::iter::once(g.times[i])
                    .chain(g.measures.iter().map(|m| m[i]))
                    .collect()
            })
            .collect();
        out.push(Trace {
            name: files[0][k].name.clone(),
            events: std::iter::once(g.time_event.clone())
                .chain(g.events.iter().cloned())
                .collect(),
            extra: Vec::new(),
            rows,
        });
    }
    write_file(&a.output, &out).map_err(input)
}
