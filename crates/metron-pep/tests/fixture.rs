//! The real mPAPI trace of `../shared/fixtures/pep/with_address.trace` (copied with its MIT
//! licence into tests/data so the test does not depend on shared/). Expected values are read
//! off the file by hand.

use metron_pep::execution_region::{regions, Predicate};
use metron_pep::profile::{delta, jitter, ProfileGroup};
use metron_pep::trace::{parse, read_file, to_string};

fn fixture() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/with_address.trace")
}

#[test]
fn the_fixture_parses_and_writes_back_byte_for_byte() {
    let traces = read_file(&fixture()).unwrap();
    assert_eq!(traces.len(), 2);
    let t = &traces[0];
    assert_eq!(t.name.env, "R2018b");
    assert_eq!(t.name.benchmark, "execution_model_examples");
    assert_eq!(t.name.version, "lcpc19_example1");
    assert_eq!(t.name.n, "1000000");
    assert_eq!(traces[1].name.in_process, "2");
    assert_eq!(t.events.len(), 5);
    assert_eq!(t.events[0], "INST_RETIRED:ANY_P");
    assert_eq!(t.events[3], "MEM_INST_RETIRED:ALL_LOADS");
    assert_eq!(t.extra, vec!["address"]);
    assert_eq!(t.rows.len(), 11);
    assert_eq!(traces[1].rows.len(), 17);
    assert_eq!(t.extra_column("address").unwrap()[0], 139663731445614);
    let text = std::fs::read_to_string(fixture()).unwrap();
    let normalised: String = text.lines().map(|l| format!("{l}\n")).collect();
    assert_eq!(to_string(&traces), normalised);
    assert_eq!(parse(&normalised).unwrap(), traces);
}

#[test]
fn the_fixture_samples_every_100000_instructions() {
    let traces = read_file(&fixture()).unwrap();
    let g = ProfileGroup::from_trace(&traces[1]);
    assert_eq!(&delta(&g.times)[..3], &[55683, 99988, 100015]);
    let j = jitter(&g, Some(100_000)).unwrap();
    assert_eq!(j.min, 99935);
    assert_eq!(j.max, 100033);
    assert_eq!(j.within_1pct, 1.0);
}

#[test]
fn eq_3_2_finds_the_data_copy_of_the_fixture() {
    let traces = read_file(&fixture()).unwrap();
    let phi = Predicate::data_copy(
        "MEM_INST_RETIRED:ALL_LOADS",
        "MEM_INST_RETIRED:ALL_STORES",
        0.1,
    );
    // Trace 1: loads ≈ stores ≈ 16 700 per 100 000 instructions from sample 3 on.
    let g = ProfileGroup::from_trace(&traces[0]);
    let r = regions(&g, &phi.evaluate(&g).unwrap(), 1);
    assert_eq!(r.len(), 1);
    assert_eq!((r[0].first_sample, r[0].last_sample), (2, 10));
    assert_eq!((r[0].start_time, r[0].end_time), (200022, 1100008));
    // Trace 2: a store-only stretch (57 000 stores, 12 loads per sample), then the copy.
    let g = ProfileGroup::from_trace(&traces[1]);
    let r = regions(&g, &phi.evaluate(&g).unwrap(), 1);
    assert_eq!(r.len(), 1);
    assert_eq!((r[0].first_sample, r[0].last_sample), (10, 16));
}
