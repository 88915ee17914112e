//! The analysis after the issue-15 speed work (byte-level operation parser, interning caches,
//! cheaper cost accumulation) against outputs saved before it.
//!
//! `tests/fixtures/expected/*.json` are `metron --json jit analyze --model M LOG` as written
//! by commit 11c7dc9, the parser whose answers `paper_tables.rs` (001 Tables 1-2 by hand),
//! `pypy_real.rs` and `lifetimes.rs` check against independent figures. Both analysis paths
//! (two-pass streaming and in memory) must reproduce every field of them, floats included,
//! under all three cost models. Integers, strings and orders must be identical; floats may
//! differ by a relative 1e-12 (rounding: CMW's sums run in a fixed order, see
//! `FLOAT_TOLERANCE`).

use std::path::{Path, PathBuf};

use metron_jit::cost::{analyze, CostModel, Weights};
use metron_jit::log::parse_file;
use metron_jit::op_class::OpClassTable;
use metron_jit::stream::analyze_file;
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The saved report without the CLI's own fields, i.e. the flattened `Analysis`.
fn expected(log: &str, model: &str) -> Value {
    let path = fixture(&format!("expected/{log}.{model}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let mut v: Value = serde_json::from_str(&text).unwrap();
    let obj = v.as_object_mut().unwrap();
    for cli_only in [
        "log",
        "bytes",
        "loops",
        "bridges",
        "truncated",
        "parse_warnings",
        "suppressed_parse_warnings",
        "weights_origin",
    ] {
        assert!(obj.remove(cli_only).is_some(), "{path:?} lacks {cli_only}");
    }
    v
}

/// Serialised and parsed again, so that floats go through the same text as the saved file's.
fn as_saved<T: serde::Serialize>(x: &T) -> Value {
    serde_json::from_str(&serde_json::to_string(x).unwrap()).unwrap()
}

fn first_difference(a: &Value, b: &Value, at: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            if x.len() != y.len() {
                return Some(format!("{at}: keys {:?} vs {:?}", x.keys(), y.keys()));
            }
            x.iter().find_map(|(k, v)| match y.get(k) {
                Some(w) => first_difference(v, w, &format!("{at}.{k}")),
                None => Some(format!("{at}.{k} missing")),
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (v, w))| first_difference(v, w, &format!("{at}[{i}]"))),
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            let close = x == y || (x - y).abs() <= FLOAT_TOLERANCE * x.abs().max(y.abs());
            (!close).then(|| format!("{at}: {x} vs {y} (relative tolerance {FLOAT_TOLERANCE})"))
        }
        _ => (a != b).then(|| format!("{at}: {a} vs {b}")),
    }
}

/// Floating-point fields (γ, costs, shares) may differ by rounding only: the second speed pass
/// sums CMW's weighted costs in a fixed order (positions by first operation, classes in table
/// order) rather than a hash map's, which moves the last bits. Everything else (integers,
/// strings, the order of every list) must stay byte for byte the same.
const FLOAT_TOLERANCE: f64 = 1e-12;

fn check(log: &str) {
    let classes = OpClassTable::default_table();
    let path = fixture(&format!("{log}.log"));
    for (name, model) in [
        ("cm0", CostModel::Cm0),
        ("cmc", CostModel::Cmc),
        ("cmw", CostModel::Cmw(Weights::paper_eq7())),
    ] {
        let want = expected(log, name);
        let streamed = analyze_file(&path, &classes, &model).unwrap();
        assert!(streamed.log.warnings.is_empty(), "{log}: parse warnings");
        let got = as_saved(&streamed.analysis);
        if let Some(d) = first_difference(&got, &want, "") {
            panic!("{log} under {name}, streamed: {d}");
        }
        let whole = analyze(&parse_file(&path).unwrap(), &classes, &model);
        if let Some(d) = first_difference(&as_saved(&whole), &want, "") {
            panic!("{log} under {name}, in memory: {d}");
        }
    }
}

#[test]
fn paper_figure_1_log_gives_the_saved_analysis() {
    check("paper_fig1");
}

#[test]
fn real_pypy_log_gives_the_saved_analysis() {
    check("pypy_nested");
}

#[test]
fn the_comparison_sees_a_changed_digit() {
    // a test that cannot fail is no test: one frequency off by one is caught
    let classes = OpClassTable::default_table();
    let streamed = analyze_file(&fixture("pypy_nested.log"), &classes, &CostModel::Cmc).unwrap();
    let mut got = as_saved(&streamed.analysis);
    let f = &mut got["fragments"][0]["frequency"];
    *f = Value::from(f.as_u64().unwrap() + 1);
    assert!(first_difference(&got, &expected("pypy_nested", "cmc"), "").is_some());
}

#[test]
fn the_comparison_sees_a_float_beyond_rounding() {
    let classes = OpClassTable::default_table();
    let model = CostModel::Cmw(Weights::paper_eq7());
    let streamed = analyze_file(&fixture("pypy_nested.log"), &classes, &model).unwrap();
    let want = expected("pypy_nested", "cmw");
    let mut got = as_saved(&streamed.analysis);
    let g = got["gamma"].as_f64().unwrap();
    got["gamma"] = Value::from(g * (1.0 + 1e-15));
    assert!(
        first_difference(&got, &want, "").is_none(),
        "rounding is tolerated"
    );
    got["gamma"] = Value::from(g * (1.0 + 1e-9));
    assert!(
        first_difference(&got, &want, "").is_some(),
        "1e-9 is not rounding"
    );
}
