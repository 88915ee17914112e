//! `metron plot KIND ... -o fig.svg|png` on real outputs (issue 19, "Static figures"), and its
//! answers to bad input: exit 2 naming the file, nothing written.

mod common;

use common::report_inputs::PEP_FIXTURE;
use common::{expect_exit, json, metron, run, store_in};

#[test]
fn measurements_of_a_stored_experiment_one_box_and_ci_per_benchmark() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(&dir);
    let m = run(
        &[
            "measure", "--runs", "4", "--param", "N=1,2,3", "--", "true", "{N}",
        ],
        &store,
    );
    assert!(m.status.success(), "{}", common::stderr(&m));
    let out = dir.path().join("m.svg");
    let w = json(&run(
        &[
            "plot",
            "measurements",
            "-o",
            out.to_str().unwrap(),
            "--json",
        ],
        &store,
    ));
    assert_eq!(w["marks"], 6);
    let text = std::fs::read_to_string(&out).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("well-formed SVG");
    let boxes = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("fill") == Some("none"))
        .count();
    let medians = doc
        .descendants()
        .filter(|n| n.has_tag_name("circle"))
        .count();
    assert_eq!((boxes, medians), (3, 3), "{text}");
    let labels: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text().map(str::trim))
        .collect();
    for n in 1..=3 {
        assert!(
            labels.contains(&format!("true {n}").as_str()),
            "no label for N={n}: {labels:?}"
        );
    }
}

#[test]
fn a_pep_trace_as_png() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pep.png");
    let o = metron()
        .current_dir(dir.path())
        .args([
            "plot",
            "pep",
            PEP_FIXTURE,
            "-o",
            "pep.png",
            "--width",
            "700",
        ])
        .args(["--height", "500", "--json"])
        .output()
        .unwrap();
    let w = json(&o);
    assert_eq!(
        (w["width"].as_u64(), w["marks"].as_u64()),
        (Some(700), Some(4))
    );
    let decoder = png::Decoder::new(std::fs::File::open(&out).unwrap());
    let info = decoder.read_info().unwrap().info().clone();
    assert_eq!((info.width, info.height), (700, 500));
}

#[test]
fn a_malformed_profile_is_named_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken.json");
    std::fs::write(
        &bad,
        "{\"format\": \"metron-probe-profile\", \"threads\": [",
    )
    .unwrap();
    let o = metron()
        .current_dir(dir.path())
        .args(["plot", "profile", "broken.json", "-o", "p.svg"])
        .output()
        .unwrap();
    expect_exit(&o, 2, "broken.json");
    assert!(!dir.path().join("p.svg").exists());
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 1, "a temporary file was left: {left:?}");
}

#[test]
fn a_malformed_trace_is_named_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("cut.trace"),
        common::report_inputs::MALFORMED_TRACE,
    )
    .unwrap();
    let o = metron()
        .current_dir(dir.path())
        .args(["plot", "pep", "cut.trace", "-o", "p.png"])
        .output()
        .unwrap();
    expect_exit(&o, 2, "cut.trace:4:");
    assert!(!dir.path().join("p.png").exists());
}

#[test]
fn an_unknown_format_or_an_empty_store_is_an_input_error() {
    let dir = tempfile::tempdir().unwrap();
    let o = metron()
        .current_dir(dir.path())
        .args(["plot", "pep", PEP_FIXTURE, "-o", "fig.pdf"])
        .output()
        .unwrap();
    expect_exit(&o, 2, "fig.pdf");
    let store = store_in(&dir);
    drop(metron_store::Store::open(&store).unwrap());
    for kind in ["measurements", "tuning"] {
        let o = run(&["plot", kind, "-o", "x.svg"], &store);
        expect_exit(&o, 2, "metron.db");
    }
}
