//! `metron report` on real outputs: a store filled by `metron measure`, a profile written by
//! metron-probe in this process (issue 19). No browser here: that test needs Debian's chromium.

mod common;

use std::path::{Path, PathBuf};

use common::report_inputs::{hostile_profile, EVIL, PEP_FIXTURE};
use common::{expect_exit, metron, run, store_in};

/// Issue 19: the demo's report must stay under 6 MB; plotly.js alone is about 4.7 MB.
const MAX_BYTES: u64 = 6_000_000;

/// The page, after the checks that hold for every report: self-contained and small.
fn read_report(path: &Path) -> String {
    let bytes = std::fs::metadata(path).expect("report written").len();
    assert!(bytes < MAX_BYTES, "{bytes} bytes");
    let page = std::fs::read_to_string(path).unwrap();
    assert!(page.contains("plotly.js v"), "plotly.js not embedded");
    assert!(
        !page.contains("<script src") && !page.contains("<script type=\"text/javascript\" src")
    );
    // plotly.js itself names URLs for map tiles and icons, which only map traces load.
    let start = page.find("<script>").expect("inline plotly.js");
    let end = start + page[start..].find("</script>").unwrap();
    let ours = format!("{}{}", &page[..start], &page[end..]);
    for remote in ["http://", "https://", "<link", "<iframe", "<img"] {
        assert!(!ours.contains(remote), "network reference {remote}");
    }
    assert!(!page.contains(EVIL), "unescaped name in the page");
    page
}

fn no_temp_files_left(dir: &Path) {
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn measure_then_report_shows_measurements_and_profiles() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(&dir);
    // Twice: the same command in two experiments has a history.
    common::report_inputs::measure_true(&store, 2);
    let profile = hostile_profile(dir.path());
    let out = dir.path().join("report.html");
    let o = run(
        &[
            "report",
            profile.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--json",
        ],
        &store,
    );
    let written = common::json(&o);
    assert_eq!(
        written["sections"],
        serde_json::json!(["profiles", "measurements"])
    );
    let page = read_report(&out);
    assert!(page.contains("<section id=\"measurements\">"));
    assert!(page.contains("<section id=\"profiles\">"));
    assert!(page.contains("\"type\":\"box\""), "no box plot");
    assert!(page.contains("<h3>history of repeated commands</h3>"));
    assert!(page.contains("\"type\":\"heatmap\""), "no heat map");
    assert!(page.contains("\"type\":\"icicle\""), "no call-stack chart");
    // Escaped for plotly's text (&lt;), then for the script element (\u0026).
    assert!(
        page.contains("\\u0026lt;script\\u0026gt;alert(1)"),
        "the region is missing"
    );
    no_temp_files_left(dir.path());
}

#[test]
fn an_empty_store_says_there_is_nothing_yet() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(&dir);
    drop(metron_store::Store::open(&store).unwrap());
    let out = dir.path().join("empty.html");
    let o = run(&["report", "-o", out.to_str().unwrap()], &store);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(common::stdout(&o).contains("nothing to report yet"));
    let page = read_report(&out);
    assert!(page.contains("id=\"nothing-yet\"") && page.contains("metron measure --"));
    assert!(!page.contains("<section"));
}

#[test]
fn profiles_alone_give_only_the_profiles_section() {
    let dir = tempfile::tempdir().unwrap();
    let profile = hostile_profile(dir.path());
    let out = dir.path().join("p.html");
    // No --store and no default store in this directory: files only.
    let o = metron()
        .current_dir(dir.path())
        .args(["report", profile.to_str().unwrap(), "-o", "p.html"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", common::stderr(&o));
    let page = read_report(&out);
    assert!(page.contains("<section id=\"profiles\">"));
    assert!(!page.contains("id=\"measurements\""));
}

#[test]
fn a_malformed_file_is_named_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken.json");
    std::fs::write(
        &bad,
        "{\"format\": \"metron-probe-profile\", \"threads\": [",
    )
    .unwrap();
    let out = dir.path().join("r.html");
    let o = metron()
        .current_dir(dir.path())
        .args(["report", bad.to_str().unwrap(), "-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    expect_exit(&o, 2, "broken.json");
    assert!(!out.exists(), "a report was written from bad input");
    no_temp_files_left(dir.path());
}

#[test]
fn a_named_store_that_does_not_exist_is_an_input_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.html");
    let o = run(
        &["report", "-o", out.to_str().unwrap()],
        &dir.path().join("nope.db"),
    );
    expect_exit(&o, 2, "nope.db");
    assert!(!out.exists());
}

/// The tune example (MPI + OpenMP solver with probe regions): its campaign gives the Tuning
/// section, and a unit's real rank profiles the Profiles section.
#[test]
fn a_tuning_campaign_and_its_unit_profiles() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let store = store_in(&tmp);
    let profile_dir = common::report_inputs::tune_campaign(dir, &store);
    let out = dir.join("t.html");
    let args = [
        "report",
        profile_dir.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    let written = common::json(&run(&[&args[..], &["--json"]].concat(), &store));
    assert_eq!(
        written["sections"],
        serde_json::json!(["profiles", "tuning"])
    );
    let page = read_report(&out);
    assert!(page.contains("<section id=\"tuning\">"));
    // A click on a unit shows its parameters and folder below the plot.
    assert!(page.contains("class=\"details\"") && page.contains("\"customdata\":[\"unit "));
    assert!(page.contains("GA convergence") || page.contains("fitness against"));
    // Axes from expressions over genes (002 Figs. 3.7-3.11): a 2D plot with min/mean/max.
    let axes = ["--x", "ranks * threads", "--y", "fitness * 1000"];
    let o = run(&[&args[..], &axes].concat(), &store);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let page = read_report(&out);
    assert!(
        page.contains("fitness * 1000 against ranks * threads"),
        "no expression plot"
    );
    assert!(page.contains("\"name\":\"mean\""));
    let o = run(&[&args[..], &["--x", "ranks * ("]].concat(), &store);
    expect_exit(&o, 2, "ranks * (");
}

#[test]
fn a_pep_trace_gives_the_pep_section_with_shaded_segments() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pep.html");
    // No store named and none in this directory: the file alone.
    let o = metron()
        .current_dir(dir.path())
        .args(["report", PEP_FIXTURE, "-o", "pep.html", "--json"])
        .output()
        .unwrap();
    assert_eq!(common::json(&o)["sections"], serde_json::json!(["pep"]));
    let page = read_report(&out);
    assert!(page.contains("<section id=\"pep\">"));
    // Four member events after the sampling event INST_RETIRED:ANY_P: four panels, each
    // labelled above its own y axis.
    assert!(page.contains("\"y4 domain\"") && !page.contains("\"y5 domain\""));
    assert!(page.contains("\"type\":\"rect\""), "no region shaded");
}

#[test]
fn a_malformed_trace_is_named_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("cut.trace");
    std::fs::write(&bad, common::report_inputs::MALFORMED_TRACE).unwrap();
    let o = metron()
        .current_dir(dir.path())
        .args(["report", bad.to_str().unwrap(), "-o", "r.html"])
        .output()
        .unwrap();
    expect_exit(&o, 2, "cut.trace:4:");
    assert!(!dir.path().join("r.html").exists());
}

/// Runs `metron --json ARGS` and keeps its output in `file`, as a user would with `>`.
fn save_json(args: &[&str], file: &Path) -> PathBuf {
    let o = metron().arg("--json").args(args).output().unwrap();
    assert!(o.status.success(), "{args:?}: {}", common::stderr(&o));
    std::fs::write(file, &o.stdout).unwrap();
    file.to_path_buf()
}

/// A folder whose path reads `.../<script>alert(1)</script>/`: file names are user input too
/// and appear in the figures' titles.
fn hostile_dir(root: &Path) -> PathBuf {
    let d = root.join("<script>alert(1)<").join("script>");
    std::fs::create_dir_all(&d).unwrap();
    assert!(d.display().to_string().contains(EVIL));
    d
}

const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");

/// The real outputs of metron static, memory, contention and jit give their three sections.
#[test]
fn static_memory_contention_and_jit_outputs_give_their_sections() {
    use metron_measure::tool::{self, testing};
    let tools = [
        &tool::CC,
        &tool::CLANG,
        &tool::OPT,
        &tool::VALGRIND,
        &tool::PYPY3,
    ];
    if testing::require_all(&tools).is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let d = hostile_dir(tmp.path());
    let s = |p: &Path| p.display().to_string();
    let stream = d.join("stream");
    let cc = testing::command("cc")
        .args(["-g", "-O2", &format!("{EXAMPLES}/static/stream.c"), "-o"])
        .arg(&stream)
        .status()
        .unwrap();
    assert!(cc.success());
    let kernels = format!("{EXAMPLES}/memory/kernels.c");
    let log = d.join("mandel.pypylog");
    let rec = metron()
        .args(["jit", "record", "--discard-output", "-o", &s(&log), "--"])
        .args([&format!("{EXAMPLES}/jit/corpus/06_float_mandel.py"), "0.02"])
        .output()
        .unwrap();
    assert!(rec.status.success(), "{}", common::stderr(&rec));
    let files = [
        save_json(
            &["static", &s(&stream), "--param", "n=2000"],
            &d.join("model.json"),
        ),
        save_json(
            &[
                "static",
                "validate",
                &s(&stream),
                "--param",
                "n=2000",
                "--",
                "2000",
            ],
            &d.join("validate.json"),
        ),
        save_json(
            &[
                "memory", "analyze", &kernels, "-f", "matmul", "--param", "n=8",
            ],
            &d.join("analyze.json"),
        ),
        save_json(
            &[
                "memory",
                "validate",
                &kernels,
                "-f",
                "triangular",
                "--param",
                "n=10",
                "--",
                "triangular",
                "10",
            ],
            &d.join("mvalidate.json"),
        ),
        save_json(
            &[
                "contention",
                "simulate",
                "--cores",
                "3",
                "--accesses",
                "5000",
            ],
            &d.join("simulate.json"),
        ),
        save_json(
            &["contention", "experiment", "--small"],
            &d.join("experiment.json"),
        ),
        save_json(&["jit", "analyze", &s(&log)], &d.join("jit.json")),
    ];
    let out = tmp.path().join("r.html");
    let mut args: Vec<String> = vec!["report".into()];
    args.extend(files.iter().map(|f| s(f)));
    args.extend(["-o".into(), s(&out), "--json".into()]);
    let o = metron()
        .current_dir(tmp.path())
        .args(&args)
        .output()
        .unwrap();
    assert_eq!(
        common::json(&o)["sections"],
        serde_json::json!(["static", "memory", "jit"])
    );
    let page = read_report(&out);
    for needle in [
        "predicted instructions per call, by category",
        "predicted against measured per region",
        "error table",
        "static accesses per variable (n=8)",
        "triangular static against traced (n=10), all equal",
        "simulated contention, 3 cores",
        "model errors per thread count",
        "slowdown from contention",
        "top fragments by cost",
        "top source lines",
    ] {
        assert!(page.contains(needle), "missing `{needle}`");
    }
    // The heading shows the folder escaped; the mandel loop's source text is in the table.
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;/model.json"));
    assert!(
        page.contains("while k \\u0026lt; 50"),
        "no source line text"
    );
    assert!(page.contains("\"type\":\"table\"") && page.contains("\"q1\":["));
}

/// Without any tool: the simulator's output alone gives the memory section only, and a file
/// of a known kind with a wrong field is named with its line, nothing written.
#[test]
fn a_simulation_alone_and_malformed_outputs() {
    let tmp = tempfile::tempdir().unwrap();
    let sim = save_json(
        &[
            "contention",
            "simulate",
            "--cores",
            "2",
            "--accesses",
            "1000",
        ],
        &tmp.path().join("sim.json"),
    );
    let o = metron()
        .current_dir(tmp.path())
        .args(["report", sim.to_str().unwrap(), "-o", "m.html", "--json"])
        .output()
        .unwrap();
    assert_eq!(common::json(&o)["sections"], serde_json::json!(["memory"]));
    let page = read_report(&tmp.path().join("m.html"));
    assert!(page.contains("<section id=\"memory\">") && page.contains("\"t_par\""));

    let bad = tmp.path().join("bad-validate.json");
    std::fs::write(
        &bad,
        "[\n  {\"region\": \"main\",\n   \"predicted\": \"many\"}\n]\n",
    )
    .unwrap();
    let o = metron()
        .current_dir(tmp.path())
        .args(["report", bad.to_str().unwrap(), "-o", "b.html"])
        .output()
        .unwrap();
    let err = expect_exit(&o, 2, "bad-validate.json:");
    assert!(err.contains("metron static validate --json"), "{err}");
    let unknown = tmp.path().join("list.json");
    std::fs::write(&unknown, "[1, 2, 3]").unwrap();
    let o = metron()
        .current_dir(tmp.path())
        .args(["report", unknown.to_str().unwrap(), "-o", "b.html"])
        .output()
        .unwrap();
    expect_exit(&o, 2, "list.json");
    assert!(!tmp.path().join("b.html").exists());
    no_temp_files_left(tmp.path());
}
