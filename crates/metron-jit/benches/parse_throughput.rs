//! Parse and analysis throughput on a large real PYPYLOG (issue 6, "Speed").
//!
//!     cargo bench -p metron-jit --bench parse_throughput [-- LOG] [--parse-only|--stream-only|--in-memory-only]
//!
//! The `--*-only` flags run one pass of one path, for measuring its peak RSS with `time -v`:
//! the in-memory parse, the in-memory parse plus analysis, or the two-pass streaming analysis
//! that `metron jit analyze` uses.
//!
//! Without LOG it records the corpus programs of examples/jit/corpus under pypy3 (scale 1)
//! and concatenates their logs, repeated, into target/jit-bench.log of about 200 MB. A
//! concatenation of PYPYLOGs is itself a valid PYPYLOG; loop numbers repeat across the parts,
//! which matters for the analysis's sums, not for its speed.

use std::path::{Path, PathBuf};
use std::time::Instant;

use metron_jit::cost::{analyze_graph, CostModel};
use metron_jit::fragment::build;
use metron_jit::log::parse_file;
use metron_jit::op_class::OpClassTable;
use metron_jit::pypy;
use metron_jit::stream::analyze_file;

const TARGET_BYTES: u64 = 200 << 20;

fn build_log(root: &Path) -> PathBuf {
    let out = root.join("target/jit-bench.log");
    if out
        .metadata()
        .map(|m| m.len() >= TARGET_BYTES)
        .unwrap_or(false)
    {
        return out;
    }
    let dir = root.join("examples/jit/corpus");
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("examples/jit/corpus")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    scripts.sort();
    let mut one_round = Vec::new();
    let tmp = root.join("target/jit-bench-part.log");
    for s in &scripts {
        eprintln!("recording {}", s.display());
        pypy::record(s, &["0.2".to_string()], &tmp, pypy::DEFAULT_SECTIONS)
            .unwrap_or_else(|e| panic!("{e}"));
        one_round.extend(std::fs::read(&tmp).expect("log"));
    }
    let mut all = Vec::with_capacity(TARGET_BYTES as usize + one_round.len());
    while (all.len() as u64) < TARGET_BYTES {
        all.extend_from_slice(&one_round);
    }
    std::fs::write(&out, &all).expect("write bench log");
    out
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let path = match std::env::args().skip(1).find(|a| !a.starts_with("--")) {
        Some(p) => PathBuf::from(p),
        None => build_log(&root),
    };
    let size = path.metadata().expect("log file").len() as f64 / 1e6;
    // warm the page cache so the figure is parsing, not disk
    // (in chunks, so that the peak RSS reported by `time -v` is the parser's own)
    if let Ok(mut f) = std::fs::File::open(&path) {
        let _ = std::io::copy(&mut f, &mut std::io::sink());
    }
    if std::env::args().any(|a| a == "--parse-only") {
        // one parse, for measuring the parser's peak memory with `time -v`
        let log = parse_file(&path).expect("parse");
        let ops: usize = log.traces.iter().map(|t| t.ops.len()).sum();
        println!(
            "parsed {size:.1} MB: {} traces, {ops} ops",
            log.traces.len()
        );
        return;
    }
    let classes = OpClassTable::default_table();
    if std::env::args().any(|a| a == "--stream-only") {
        let s = analyze_file(&path, &classes, &CostModel::Cmc).expect("analyze");
        println!(
            "streamed {size:.1} MB: {} traces, {} fragments, at most {} ops held",
            s.loops + s.bridges,
            s.analysis.fragments.len(),
            s.max_retained_ops
        );
        return;
    }
    if std::env::args().any(|a| a == "--in-memory-only") {
        let log = parse_file(&path).expect("parse");
        let a = analyze_graph(&log, &build(&log), &classes, &CostModel::Cmc);
        println!(
            "analysed {size:.1} MB in memory: {} traces, {} fragments",
            log.traces.len(),
            a.fragments.len()
        );
        return;
    }
    for round in 1..=3 {
        let t0 = Instant::now();
        let log = parse_file(&path).expect("parse");
        let t_parse = t0.elapsed().as_secs_f64();
        let t1 = Instant::now();
        let graph = build(&log);
        let t_graph = t1.elapsed().as_secs_f64();
        let a = analyze_graph(&log, &graph, &classes, &CostModel::Cmc);
        let t_analyze = t1.elapsed().as_secs_f64();
        let fragment_ops: usize = graph.fragments.iter().map(|f| f.end_op - f.first_op).sum();
        println!(
            "  fragments {:.2} s, costs {:.2} s, {fragment_ops} ops summed over fragments",
            t_graph,
            t_analyze - t_graph
        );
        let ops: usize = log.traces.iter().map(|t| t.ops.len()).sum();
        println!(
            "round {round}: {size:.1} MB, {} traces, {ops} ops, {} fragments: parse {:.2} s = {:.0} MB/s, \
             parse+analyze {:.2} s = {:.0} MB/s",
            log.traces.len(),
            a.fragments.len(),
            t_parse,
            size / t_parse,
            t_parse + t_analyze,
            size / (t_parse + t_analyze)
        );
        drop((log, graph, a));
        let t2 = Instant::now();
        let s = analyze_file(&path, &classes, &CostModel::Cmc).expect("analyze");
        let t_stream = t2.elapsed().as_secs_f64();
        println!(
            "round {round}: streaming analysis (2 passes) {:.2} s = {:.0} MB/s, {} fragments, \
             at most {} ops held",
            t_stream,
            size / t_stream,
            s.analysis.fragments.len(),
            s.max_retained_ops
        );
    }
}
