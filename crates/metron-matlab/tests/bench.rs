//! CodeExtractor on 000 Listing C.1, and a small Menchi-style run on Octave.

use std::path::Path;

use metron_matlab::bench::{extract, resolve_size, run, SizeSpec, Spec, CSV_HEADER};

fn dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/matlab/bench")
}

#[test]
fn code_extractor_splits_listing_c_1() {
    let file = dir().join("kernel_3_inner_prod.m");
    let src = std::fs::read_to_string(&file).unwrap();
    let versions = extract(&src, &file).unwrap();
    let names: Vec<&str> = versions.iter().map(|v| v.version.as_str()).collect();
    assert_eq!(names, ["loop", "unrolled_2", "vec"]);
    let v = &versions[0];
    assert_eq!(v.benchmark, "kernel_3_inner_prod");
    assert_eq!(v.parameter, "LEN_1D");
    assert_eq!((v.num_vectors, v.num_matrices), (2, 0));
    assert_eq!(v.init_vars, ["q", "x", "z"]);
    assert_eq!(v.code_vars, ["q"]);
    assert!(versions[2]
        .code
        .contains("q = sum(z(1:LEN_1D) .* x(1:LEN_1D));"));
    // The generated function parses and returns the version's variables.
    let f = v.function_file();
    let p = metron_matlab::parse(&f, Path::new("gen.m")).unwrap();
    assert_eq!(p.functions[0].outputs, ["metron__t", "q"]);
    // `%! init` without the word pragma works too.
    let file = dir().join("stream_triad.m");
    let src = std::fs::read_to_string(&file).unwrap();
    let names: Vec<String> = extract(&src, &file)
        .unwrap()
        .into_iter()
        .map(|v| v.version)
        .collect();
    assert_eq!(names, ["loop", "array_op"]);
}

#[test]
fn cache_relative_sizes() {
    assert_eq!(resolve_size(&SizeSpec::Elements(77), 3).unwrap(), 77);
    match metron_matlab::bench::cache_bytes(1) {
        Some(l1) => assert_eq!(
            resolve_size(&SizeSpec::Relative("L1".into()), 2).unwrap(),
            l1 / 16
        ),
        None => eprintln!("skipped: no cache sizes in sysfs"),
    }
    assert!(resolve_size(&SizeSpec::Relative("X9".into()), 2).is_err());
}

#[test]
fn menchi_modes_on_octave() {
    if !metron_matlab::octave::OCTAVE.is_available() {
        eprintln!("skipped: octave-cli not found; install with: apt-get install -y --no-install-recommends octave");
        return;
    }
    let spec = Spec {
        files: vec!["kernel_3_inner_prod.m".into()],
        versions: Vec::new(),
        sizes: vec![SizeSpec::Elements(64), SizeSpec::Elements(31)],
        repetitions: 3,
        modes: vec!["validate".into(), "measure".into(), "threads".into()],
        threads: vec![1, 2],
        tolerance: 1e-9,
    };
    let result = run(&spec, &dir(), |_| {}).unwrap();
    // At an even size every version agrees; at an odd size unrolled_2 skips the last element,
    // which validation must catch (independent ground truth: the loop's arithmetic).
    let at = |n: u64, v: &str| {
        result
            .validations
            .iter()
            .find(|x| x.n == n && x.version == v)
            .unwrap()
            .equal
    };
    assert!(at(64, "unrolled_2") && at(64, "vec"));
    assert!(!at(31, "unrolled_2") && at(31, "vec"));
    // measure: 3 versions x 2 sizes x 3 calls; threads: the same for each of 2 thread counts.
    assert_eq!(result.rows.len(), 3 * 2 * 3 + 2 * 3 * 2 * 3);
    assert!(result
        .rows
        .iter()
        .all(|r| r.value > 0.0 && r.metric == "time_s"));
    assert_eq!(
        CSV_HEADER.split(',').count(),
        result.rows[0].csv().split(',').count()
    );
}
