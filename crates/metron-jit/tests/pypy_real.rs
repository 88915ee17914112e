//! Real PyPy logs: runs `pypy3` on the example programs with
//! `PYPYLOG=jit-log-opt,jit-backend-counts,jit-summary:FILE` and checks the parser and the
//! analysis against what is independently known: the op counts the trace headers declare,
//! the loop and bridge totals of jit-summary, and the iteration counts of the programs.
//! Skips, saying why, when pypy3 is not installed.

use std::path::{Path, PathBuf};

use metron_jit::cost::{analyze, CostModel};
use metron_jit::fragment::build;
use metron_jit::log::{parse_file, JitLog};
use metron_jit::op_class::OpClassTable;
use metron_jit::pypy;
use metron_jit::trace::TraceKind;

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/jit")
}

/// pypy3, or a visible skip (a failure under CI: metron_measure::tool::testing).
fn have_pypy() -> bool {
    metron_measure::tool::testing::require(&pypy::PYPY3).is_some()
}

fn record(script: &Path, args: &[&str]) -> (tempfile::TempDir, JitLog) {
    let dir = tempfile::tempdir().unwrap();
    let log_path = dir.path().join("pypylog.txt");
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    pypy::record(script, &args, &log_path, pypy::DEFAULT_SECTIONS).unwrap();
    let log = parse_file(&log_path).unwrap();
    (dir, log)
}

/// What every real log must satisfy, whatever the program.
fn check_log(name: &str, log: &JitLog) {
    assert!(!log.truncated, "{name}");
    // no unparsed line; each trace has exactly the op count its header declares
    assert!(log.warnings.is_empty(), "{name}: {:#?}", log.warnings);
    assert!(!log.traces.is_empty(), "{name}: no traces");
    let loops = log
        .traces
        .iter()
        .filter(|t| matches!(t.kind, TraceKind::Loop { .. }))
        .count();
    let bridges = log.traces.len() - loops;
    assert_eq!(
        log.summary_number("Total # of loops"),
        Some(loops as f64),
        "{name}"
    );
    assert_eq!(
        log.summary_number("Total # of bridges"),
        Some(bridges as f64),
        "{name}"
    );
    for t in &log.traces {
        assert_eq!(t.declared_ops, Some(t.ops.len()), "{name}: {}", t.label());
    }
    // every counter refers to something in the traces, every fragment gets a frequency
    let graph = build(log);
    assert!(graph.warnings.is_empty(), "{name}: {:#?}", graph.warnings);
    assert!(
        graph.fragments.iter().all(|f| f.frequency.is_some()),
        "{name}"
    );
    // the class table knows every operation real PyPy emitted
    let a = analyze(log, &OpClassTable::default_table(), &CostModel::Cmc);
    assert!(a.unknown_ops.is_empty(), "{name}: {:?}", a.unknown_ops);
    assert!(a.gamma.unwrap() > 0.0, "{name}");
}

#[test]
fn nested_loop_counters_match_the_iteration_count() {
    if !have_pypy() {
        return;
    }
    let script = examples().join("nested_loops.py");
    let (m, n) = (300u64, 3000u64);
    let (_dir, log) = record(&script, &[&m.to_string(), &n.to_string()]);
    check_log("nested_loops", &log);
    let graph = build(&log);
    // The inner loop's body runs m*n times; the counters miss only the iterations before
    // compilation (001 §3.2), so the fragments of the inner loop's label must account for
    // nearly all of them and never more.
    let body_line = |line: u32| {
        let log = &log;
        move |f: &&metron_jit::fragment::Fragment| {
            log.traces[f.trace].ops[f.first_op..f.end_op]
                .iter()
                .any(|o| {
                    o.source.and_then(|s| log.sources.get(s)).is_some_and(|l| {
                        l.line == Some(line) && l.function.as_deref() == Some("inner")
                    })
                })
        }
    };
    // `acc += 1` is line 12 of nested_loops.py
    let executed: u64 = graph
        .fragments
        .iter()
        .filter(body_line(12))
        .filter(|f| f.start_name.starts_with('l') || f.start_name.starts_with('e'))
        .filter_map(|f| f.frequency)
        .sum();
    let total = m * n;
    assert!(executed <= total, "{executed} > {total}");
    assert!(
        executed as f64 >= 0.95 * total as f64,
        "{executed} << {total}"
    );
    // the costliest source lines are the inner loop's
    let a = analyze(&log, &OpClassTable::default_table(), &CostModel::Cmc);
    let top = &a.source_lines[0];
    assert!(top.key.file.ends_with("nested_loops.py"), "{top:?}");
    assert_eq!(top.key.function, "inner", "{top:?}");
    assert!((10..=13).contains(&top.key.line.unwrap()), "{top:?}");
}

#[test]
fn every_corpus_program_parses_cleanly() {
    if !have_pypy() {
        return;
    }
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(examples().join("corpus"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    scripts.sort();
    assert!(!scripts.is_empty());
    for script in &scripts {
        // scale 0.02: a few tens of milliseconds each, enough to compile loops and bridges
        let (_dir, log) = record(script, &["0.02"]);
        check_log(&script.display().to_string(), &log);
    }
}

#[test]
fn two_run_difference_counts_the_task_iterations() {
    // 001 §5.2.2 on real logs: the "task" is m2 more outer iterations of nested_loops.py, so
    // the task runs exactly m2 * n inner iterations, all in compiled code. Fragments are
    // matched across the runs by shape, since ids differ.
    if !have_pypy() {
        return;
    }
    let script = examples().join("nested_loops.py");
    let (m1, m2, n) = (200u64, 300u64, 2000u64);
    let (_d1, warm) = record(&script, &[&m1.to_string(), &n.to_string()]);
    let (_d2, full) = record(&script, &[&(m1 + m2).to_string(), &n.to_string()]);
    check_log("warm", &warm);
    check_log("full", &full);
    let classes = OpClassTable::default_table();
    let wa = analyze(&warm, &classes, &CostModel::Cmc);
    let fa = analyze(&full, &classes, &CostModel::Cmc);
    let task = metron_jit::difference::task_cost(&wa, &fa);
    assert!(task.warnings.is_empty(), "{:?}", task.warnings);
    // the costliest shape is the inner loop's body, once per inner iteration of the task
    let body = &task.shapes[0];
    let want = (m2 * n) as f64;
    let got = body.task_frequency as f64;
    assert!((got - want).abs() <= 0.001 * want, "{body:?} vs {want}");
    eprintln!(
        "task body fragment {}: {} executions for {} inner iterations",
        body.name,
        body.task_frequency,
        m2 * n
    );
    // and the task's Γ is nearly all of it
    assert!(got * body.gamma >= 0.99 * task.gamma, "{task:?}");
}
