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
        None => metron_measure::tool::testing::skip("no cache sizes in sysfs"),
    }
    assert!(resolve_size(&SizeSpec::Relative("X9".into()), 2).is_err());
}

#[test]
fn menchi_modes_on_octave() {
    if metron_measure::tool::testing::require(&metron_matlab::octave::OCTAVE).is_none() {
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

#[test]
fn bench_results_go_to_the_store() {
    if metron_measure::tool::testing::require(&metron_matlab::octave::OCTAVE).is_none() {
        return;
    }
    use metron_matlab::bench::run_observed;
    use metron_matlab::bench_store::{StoreRecorder, KIND};
    let spec = Spec {
        files: vec!["stream_triad.m".into()],
        versions: Vec::new(),
        sizes: vec![SizeSpec::Elements(40)],
        repetitions: 3,
        modes: vec!["validate".into(), "measure".into(), "warmup".into()],
        threads: vec![1],
        tolerance: 1e-9,
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut store = metron_store::Store::open(&tmp.path().join("m.db")).unwrap();
    let mut steps = 0;
    let mut progress = |_: &str| steps += 1;
    let argv = vec!["metron".to_string(), "matlab".into(), "bench".into()];
    let spec_file = dir().join("spec.json");
    let mut recorder =
        StoreRecorder::begin(&mut store, &spec, &spec_file, &argv, &mut progress).unwrap();
    let result = run_observed(&spec, &dir(), &mut recorder).unwrap();
    let id = recorder.finish(true).unwrap();
    assert!(steps > 0);
    // 2 versions x (3 measured + 3 from-first-call) calls.
    assert_eq!(result.rows.len(), 2 * 2 * 3);

    let exp = store.experiment(id).unwrap();
    assert_eq!(exp.kind, KIND);
    assert_eq!(exp.status, "complete");
    let benchmarks = store.benchmarks(id).unwrap();
    let params = |b: metron_store::BenchmarkId| {
        benchmarks
            .iter()
            .find(|x| x.id == b)
            .unwrap()
            .params
            .iter()
            .cloned()
            .collect::<std::collections::BTreeMap<String, String>>()
    };
    // Rebuild the long CSV from the store alone and compare it with the CSV rows.
    let mut from_store = Vec::new();
    let mut validations = 0;
    for run in store.runs(id).unwrap() {
        let p = params(run.benchmark);
        assert_eq!(run.samples.len(), 1);
        let s = &run.samples[0];
        if p["mode"] == "validate" {
            validations += 1;
            assert_eq!(s.metric, "max_rel_error");
            assert!(run.ok && s.value <= 1e-9);
            continue;
        }
        assert_eq!(s.unit, "s");
        from_store.push(format!(
            "{},{},{},{},{},{},{},{},{}",
            p["runtime"],
            p["threads"],
            p["process"],
            p["benchmark"],
            p["version"],
            s.metric,
            p["N"],
            run.index,
            s.value
        ));
    }
    let mut from_csv: Vec<String> = result.rows.iter().map(|r| r.csv()).collect();
    from_store.sort();
    from_csv.sort();
    assert_eq!(from_store, from_csv);
    assert_eq!(validations, result.validations.len());
    assert_eq!(validations, 1); // array_op against loop
}
