use super::*;
use serde_json::json;

fn new_experiment(store: &Store) -> ExperimentId {
    store
        .begin_experiment(&NewExperiment {
            kind: "measure",
            name: Some("t"),
            metron_version: "0.0.0",
            argv: &json!(["metron", "measure"]),
            environment: &json!({"cpu": "x"}),
            config: &json!({"runs": 2}),
            host: Some("h"),
        })
        .unwrap()
}

fn sample(metric: &str, value: f64) -> Sample {
    Sample {
        metric: metric.into(),
        value,
        unit: "s".into(),
    }
}

#[test]
fn round_trip_of_an_experiment() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub/dir/metron.db");
    let mut store = Store::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), latest_version());
    let exp = new_experiment(&store);
    let argv = vec!["sleep".to_string(), "0.1".to_string()];
    let params = vec![("N".to_string(), "10".to_string())];
    let b = store
        .add_benchmark(
            exp,
            &NewBenchmark {
                position: 0,
                label: "A",
                command: "sleep 0.1",
                argv: &argv,
                params: &params,
            },
        )
        .unwrap();
    for (i, warmup) in [(0, true), (1, false), (2, false)] {
        store
            .record_run(&NewRun {
                benchmark: b,
                index: i,
                warmup,
                exit_code: Some(0),
                signal: None,
                ok: true,
                samples: &[
                    sample("wall-time", 0.1 + i as f64),
                    sample("user-time", 0.01),
                ],
            })
            .unwrap();
    }
    store.finish_experiment(exp, Status::Complete).unwrap();
    drop(store);

    let store = Store::open_existing(&path).unwrap();
    let rows = store.experiments(None).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].status, "complete");
    assert_eq!(rows[0].runs, 2, "warm-up runs are not counted");
    assert_eq!(rows[0].config, json!({"runs": 2}));
    let benches = store.benchmarks(exp).unwrap();
    assert_eq!(benches[0].argv, argv);
    assert_eq!(benches[0].params, params);
    let runs = store.runs(exp).unwrap();
    assert_eq!(runs.len(), 3);
    assert!(runs[0].warmup && !runs[1].warmup);
    let wall: Vec<f64> = runs
        .iter()
        .map(|r| {
            r.samples
                .iter()
                .find(|s| s.metric == "wall-time")
                .unwrap()
                .value
        })
        .collect();
    assert_eq!(wall, vec![0.1, 1.1, 2.1]);
    store.integrity_check().unwrap();
}

#[test]
fn history_is_newest_first_and_limited() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("m.db")).unwrap();
    let ids: Vec<_> = (0..5).map(|_| new_experiment(&store)).collect();
    let last2: Vec<_> = store
        .experiments(Some(2))
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(last2, vec![ids[4], ids[3]]);
    assert!(matches!(
        store.experiment(ExperimentId(999)),
        Err(StoreError::NoSuchExperiment { id: 999, .. })
    ));
}

#[test]
fn a_text_file_is_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    let content = b"these are my notes, not a database\n".repeat(200);
    std::fs::write(&path, &content).unwrap();
    let err = Store::open(&path).err().expect("must refuse");
    assert!(matches!(err, StoreError::NotAStore { .. }), "{err}");
    assert!(err.to_string().contains("notes.txt"));
    assert_eq!(std::fs::read(&path).unwrap(), content);
}

#[test]
fn another_programs_database_is_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other.db");
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch("CREATE TABLE t(x); INSERT INTO t VALUES (1);")
            .unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    let err = Store::open(&path).err().expect("must refuse");
    assert!(matches!(err, StoreError::NotAStore { .. }), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn a_newer_schema_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.db");
    drop(Store::open(&path).unwrap());
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(&format!("PRAGMA user_version = {}", latest_version() + 7))
            .unwrap();
    }
    let err = Store::open(&path).err().expect("must refuse");
    match err {
        StoreError::TooNew {
            found, supported, ..
        } => {
            assert_eq!(found, latest_version() + 7);
            assert_eq!(supported, latest_version());
        }
        other => panic!("wrong error: {other}"),
    }
}

#[test]
fn missing_store_for_reading_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nope.db");
    let err = Store::open_existing(&path).err().expect("must fail");
    assert!(err.to_string().contains("nope.db"));
    assert!(!path.exists(), "reading must not create a store");
}

#[test]
fn concurrent_writers_from_threads_lose_nothing() {
    // The process-level version of this test lives in the metron binary's tests; this one
    // checks the store alone, with one connection per thread as separate processes have.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.db");
    let writers: Vec<_> = (0..4)
        .map(|_| {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut store = Store::open(&path).unwrap();
                let exp = new_experiment(&store);
                let b = store
                    .add_benchmark(
                        exp,
                        &NewBenchmark {
                            position: 0,
                            label: "A",
                            command: "x",
                            argv: &[],
                            params: &[],
                        },
                    )
                    .unwrap();
                for i in 0..50 {
                    store
                        .record_run(&NewRun {
                            benchmark: b,
                            index: i,
                            warmup: false,
                            exit_code: Some(0),
                            signal: None,
                            ok: true,
                            samples: &[sample("wall-time", i as f64)],
                        })
                        .unwrap();
                }
                exp
            })
        })
        .collect();
    let ids: Vec<_> = writers.into_iter().map(|w| w.join().unwrap()).collect();
    let store = Store::open_existing(&path).unwrap();
    for id in ids {
        assert_eq!(store.experiment(id).unwrap().runs, 50);
    }
}

#[test]
fn an_empty_file_or_empty_database_is_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.db");
    std::fs::write(&empty, "").unwrap();
    let err = Store::open(&empty).err().expect("must refuse").to_string();
    assert!(
        err.contains("not a metron store") && err.contains("0 bytes"),
        "{err}"
    );
    assert_eq!(std::fs::metadata(&empty).unwrap().len(), 0);
    let sqlite = dir.path().join("blank.db");
    rusqlite::Connection::open(&sqlite)
        .unwrap()
        .execute_batch("PRAGMA user_version = 0; VACUUM;")
        .unwrap();
    let before = std::fs::read(&sqlite).unwrap();
    for err in [
        Store::open(&sqlite).err(),
        Store::open_read_only(&sqlite).err(),
    ] {
        let err = err.expect("must refuse").to_string();
        assert!(err.contains("not a metron store"), "{err}");
    }
    assert_eq!(std::fs::read(&sqlite).unwrap(), before);
}

#[test]
fn a_new_store_appears_whole_under_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.db");
    drop(Store::open(&path).unwrap());
    // Reopening the store metron created is fine; no temporary file is left behind.
    drop(Store::open(&path).unwrap());
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}

#[test]
fn read_only_opening_reads_and_refuses_to_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("weird ?#% name.db");
    {
        let store = Store::open(&path).unwrap();
        new_experiment(&store);
    }
    let store = Store::open_read_only(&path).unwrap();
    assert_eq!(store.experiments(None).unwrap().len(), 1);
    let err = store
        .begin_experiment(&NewExperiment {
            kind: "measure",
            name: None,
            metron_version: "0",
            argv: &json!([]),
            environment: &json!({}),
            config: &json!({}),
            host: None,
        })
        .expect_err("read-only")
        .to_string();
    assert!(err.contains("readonly"), "{err}");
    assert!(matches!(
        Store::open_read_only(&dir.path().join("none.db")),
        Err(StoreError::Missing { .. })
    ));
}

#[test]
fn one_corrupt_experiment_does_not_hide_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.db");
    let store = Store::open(&path).unwrap();
    let ids: Vec<ExperimentId> = (0..3).map(|_| new_experiment(&store)).collect();
    store
        .conn
        .execute(
            "UPDATE experiments SET environment = '{\"cpu\": ' WHERE id = ?1",
            [ids[1].0],
        )
        .unwrap();
    assert!(store.experiments(None).is_err());
    let (rows, skipped) = store.experiments_lenient(None).unwrap();
    assert_eq!(
        rows.iter().map(|r| r.id).collect::<Vec<_>>(),
        [ids[2], ids[0]]
    );
    assert_eq!(skipped.len(), 1);
    let msg = skipped[0].to_string();
    assert!(
        msg.contains("experiments.environment")
            && msg.contains(&format!("experiment {}", ids[1].0)),
        "{msg}"
    );
}

#[test]
fn each_library_s_campaign_is_its_newest_tune_experiment() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("m.db")).unwrap();
    let tune = |name: &str, config: serde_json::Value| {
        store
            .begin_experiment(&NewExperiment {
                kind: "tune",
                name: Some(name),
                metron_version: "0",
                argv: &json!([]),
                environment: &json!({}),
                config: &config,
                host: None,
            })
            .unwrap()
    };
    tune("a first run", json!({"library": "a"}));
    let b = tune("b", json!({"library": "b"}));
    new_experiment(&store);
    let a = tune("a resumed", json!({"library": "a"}));
    let unnamed = tune("old", json!({}));
    let (campaigns, without) = store.tune_campaigns().unwrap();
    let got: Vec<(ExperimentId, &str)> = campaigns
        .iter()
        .map(|c| (c.experiment, c.library.as_str()))
        .collect();
    assert_eq!(got, [(a, "a"), (b, "b")]);
    assert_eq!(campaigns[0].name.as_deref(), Some("a resumed"));
    assert_eq!(without, [unnamed]);
}
