//! Roll-ups against the kernels' own arithmetic (independent ground truth: what the source
//! computes per element): STREAM's copy/scale/add/triad do 0/1/1/2 flops and move
//! 16/16/24/24 bytes per element whatever the compiler does to the loop (scalar, SSE2 or AVX2
//! copies, remainders), so the model's flops are exactly `F * n` and its bytes grow by exactly
//! `B` per element.
mod common;
use common::*;

use metron_static::analysis::{analyse, SourceOptions};

#[test]
fn stream_flops_and_bytes_per_element() {
    if !have("gcc", "gcc") || !have("clang", "clang") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let builds = [
        ("gcc", vec!["-g", "-O2"]),
        ("gcc", vec!["-g", "-O3"]),
        ("gcc", vec!["-g", "-O3", "-march=haswell"]),
        ("clang", vec!["-g", "-O2"]),
    ];
    for (cc, flags) in builds {
        let bin = build(cc, &example("stream.c"), &flags, dir.path(), true);
        let a = analyse(&bin, &SourceOptions::default()).unwrap();
        for (kernel, flops, bytes) in [
            ("scale", 1.0, 16.0),
            ("add", 1.0, 24.0),
            ("triad", 2.0, 24.0),
        ] {
            let k = a
                .formulas
                .functions
                .iter()
                .position(|f| f.name == kernel)
                .unwrap();
            let at = |n: i64| {
                let r = a
                    .formulas
                    .evaluate_rollups(k, &metron_symbolic::binding([("n", n)]))
                    .unwrap();
                let get = |key: &str| r.get(key).copied().unwrap_or(0.0);
                (get("flops"), get("bytes_loaded") + get("bytes_stored"))
            };
            for n in [1000, 1013] {
                assert_eq!(
                    at(n).0,
                    flops * n as f64,
                    "{cc} {flags:?} {kernel} n={n}: flops"
                );
            }
            let grown = at(1013).1 - at(1000).1;
            assert_eq!(
                grown,
                bytes * 13.0,
                "{cc} {flags:?} {kernel}: bytes per element"
            );
        }
    }
}
