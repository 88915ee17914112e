//! Real inputs of `metron report` (issue 19), shared by tests/report.rs, tests/browser.rs and
//! tests/plot.rs: a store filled by `metron measure`, a metron-probe profile written by this
//! process with a hostile region name, the tune example's campaign with its units' rank
//! profiles, and metron-pep's mPAPI fixture.

use std::path::{Path, PathBuf};

use super::{metron, run};

/// A region name that must reach the page only escaped.
pub const EVIL: &str = "<script>alert(1)</script>";

/// A real mPAPI trace (000 Listing 3.2, kept as metron-pep's fixture).
pub const PEP_FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../metron-pep/tests/data/with_address.trace"
);

/// A PEP trace whose fourth line is not a sample: readers must name `FILE:4:`.
pub const MALFORMED_TRACE: &str = "@trace_start:metron:1:1:b:v:10:1\n@perf_events:A,B\n1,2\nx,y\n";

/// A real metron-probe profile of this test process, with a region named like an attack.
pub fn hostile_profile(dir: &Path) -> PathBuf {
    {
        let _outer = metron_probe::region!("solve");
        let _evil = metron_probe::region!(EVIL);
        std::hint::black_box((0..10_000u64).sum::<u64>());
    }
    let files = metron_probe::flush_to(dir, metron_probe::Formats::default()).unwrap();
    files
        .into_iter()
        .find(|f| f.extension().is_some_and(|e| e == "json"))
        .expect("flush writes a JSON profile")
}

/// `metron measure --runs 3 -- true`, `times` times into `store` (twice gives a history).
pub fn measure_true(store: &Path, times: usize) {
    for _ in 0..times {
        let m = run(&["measure", "--runs", "3", "--json", "--", "true"], store);
        assert!(m.status.success(), "{}", super::stderr(&m));
    }
}

/// `metron tune run --random 4` of the tune example (MPI + OpenMP solver with probe regions)
/// in `dir`, into `store`; returns the `profile/` folder of one of its units.
pub fn tune_campaign(dir: &Path, store: &Path) -> PathBuf {
    let project = super::example_project(dir);
    let t = metron()
        .current_dir(dir)
        .args(["--store", store.to_str().unwrap()])
        .args(["tune", "run", "--random", "4", "--cores", "2"])
        .arg(&project)
        .env("METRON_PROBE_LIB", super::probe_library())
        .output()
        .unwrap();
    assert!(t.status.success(), "{}", super::stderr(&t));
    first_profile_dir(&dir.join("library")).expect("a unit wrote a profile")
}

/// The `profile/` folder of some unit in the library.
pub fn first_profile_dir(root: &Path) -> Option<PathBuf> {
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).ok()?.filter_map(|e| e.ok()) {
            let p = e.path();
            if p.is_dir() && p.file_name().is_some_and(|n| n == "profile") {
                return Some(p);
            }
            if p.is_dir() {
                stack.push(p);
            }
        }
    }
    None
}
