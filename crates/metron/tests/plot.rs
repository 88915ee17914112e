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

/// The tune example's campaign (MPI + OpenMP, probe regions): one point per finished unit,
/// counted in the store with SQL, and one bar per region and rank of a unit's profile,
/// counted in its JSON files.
#[test]
fn a_real_campaign_and_its_unit_profile() {
    let tmp = tempfile::tempdir().unwrap();
    let store = store_in(&tmp);
    let profile = common::report_inputs::tune_campaign(tmp.path(), &store);
    let db = rusqlite::Connection::open(&store).unwrap();
    let finished: i64 = db
        .query_row(
            "SELECT count(*) FROM tune_units WHERE fitness IS NOT NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let out = tmp.path().join("units.svg");
    let args = [
        "plot",
        "tuning",
        "--x",
        "ranks * threads",
        "--y",
        "1000 * fitness",
    ];
    let w = json(&run(
        &[&args[..], &["-o", out.to_str().unwrap(), "--json"]].concat(),
        &store,
    ));
    assert_eq!(w["marks"].as_i64(), Some(finished));
    let text = std::fs::read_to_string(&out).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let circles = doc
        .descendants()
        .filter(|n| n.has_tag_name("circle"))
        .count();
    assert_eq!(circles as i64, finished);

    let mut bars = 0;
    for f in std::fs::read_dir(&profile).unwrap().filter_map(|e| e.ok()) {
        let name = f.file_name().to_string_lossy().into_owned();
        if name.ends_with(".json") && !name.ends_with(".trace.json") {
            let p: serde_json::Value =
                serde_json::from_slice(&std::fs::read(f.path()).unwrap()).unwrap();
            // One bar per region and unit; a unit is a thread of a rank (metron-probe's
            // analysis labels them r0.t1 when any rank has several threads).
            for t in p["threads"].as_array().unwrap() {
                bars += t["regions"].as_array().unwrap().len();
            }
        }
    }
    let out = tmp.path().join("regions.png");
    let o = metron()
        .args([
            "plot",
            "profile",
            profile.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .arg("--json")
        .output()
        .unwrap();
    assert_eq!(json(&o)["marks"].as_u64(), Some(bars as u64));
}
