//! Bench results in the metron store (000 App. C: "results go to the store and to the long
//! CSV"), in schema v1 as it is: an experiment of kind `matlab-bench`; one benchmark per
//! timing process (benchmark, version, N, threads and mode as params); one run per timed call,
//! `run_index` = the CSV's `in_process`, with one sample named after the CSV's `metric`.
//! Validation results become benchmarks with `mode = validate` and one run each whose sample
//! is `max_rel_error` and whose `ok` says whether it was within the tolerance.

use std::path::Path;

use metron_store::{
    BenchmarkId, ExperimentId, NewBenchmark, NewExperiment, NewRun, Sample, Status, Store,
};

use crate::bench::{BenchError, BenchObserver, Row, Spec, Validation};

pub const KIND: &str = "matlab-bench";

/// Writes a bench run into the store as it goes; wrap another observer for progress.
pub struct StoreRecorder<'a> {
    store: &'a mut Store,
    experiment: ExperimentId,
    position: u32,
    progress: &'a mut dyn FnMut(&str),
}

impl<'a> StoreRecorder<'a> {
    /// Starts the experiment; `spec_file` names it, `argv` is the command line.
    pub fn begin(
        store: &'a mut Store,
        spec: &Spec,
        spec_file: &Path,
        argv: &[String],
        progress: &'a mut dyn FnMut(&str),
    ) -> Result<StoreRecorder<'a>, BenchError> {
        let cwd = std::env::current_dir().unwrap_or_else(|_| ".".into());
        let environment = metron_measure::environment::Environment::capture(&cwd);
        let json =
            |v: Result<serde_json::Value, serde_json::Error>| v.unwrap_or(serde_json::Value::Null);
        let config = serde_json::json!({
            "spec_file": spec_file.display().to_string(),
            "spec": json(serde_json::to_value(spec)),
        });
        let name = spec_file.display().to_string();
        let experiment = store.begin_experiment(&NewExperiment {
            kind: KIND,
            name: Some(&name),
            metron_version: env!("CARGO_PKG_VERSION"),
            argv: &serde_json::json!(argv),
            environment: &json(serde_json::to_value(&environment)),
            config: &config,
            host: Some(&environment.hostname),
        })?;
        Ok(StoreRecorder {
            store,
            experiment,
            position: 0,
            progress,
        })
    }

    pub fn experiment(&self) -> ExperimentId {
        self.experiment
    }

    /// Marks the experiment complete (every version agreed) or failed.
    pub fn finish(self, ok: bool) -> Result<ExperimentId, BenchError> {
        let status = if ok { Status::Complete } else { Status::Failed };
        self.store.finish_experiment(self.experiment, status)?;
        Ok(self.experiment)
    }

    fn benchmark(
        &mut self,
        label: &str,
        command: &str,
        params: &[(String, String)],
    ) -> Result<BenchmarkId, BenchError> {
        let id = self.store.add_benchmark(
            self.experiment,
            &NewBenchmark {
                position: self.position,
                label,
                command,
                argv: &[],
                params,
            },
        )?;
        self.position += 1;
        Ok(id)
    }
}

fn param(k: &str, v: impl ToString) -> (String, String) {
    (k.to_string(), v.to_string())
}

/// The mode a CSV metric came from.
fn mode_of(metric: &str) -> &'static str {
    if metric == "time_s_from_first_call" {
        "warmup"
    } else {
        "measure"
    }
}

impl BenchObserver for StoreRecorder<'_> {
    fn step(&mut self, what: &str) {
        (self.progress)(what)
    }

    fn process(&mut self, rows: &[Row]) -> Result<(), BenchError> {
        let Some(r) = rows.first() else {
            return Ok(());
        };
        let params = [
            param("benchmark", &r.benchmark),
            param("version", &r.version),
            param("N", r.n),
            param("threads", r.threads),
            param("mode", mode_of(&r.metric)),
            param("runtime", &r.runtime),
            param("process", r.process),
        ];
        let label = format!(
            "{} {} N={} threads={}",
            r.benchmark, r.version, r.n, r.threads
        );
        let command = format!("{}__{}({})", r.benchmark, r.version, r.n);
        let id = self.benchmark(&label, &command, &params)?;
        for row in rows {
            let samples = [Sample {
                metric: row.metric.clone(),
                value: row.value,
                unit: "s".into(),
            }];
            self.store.record_run(&NewRun {
                benchmark: id,
                index: row.in_process as u32,
                warmup: false,
                exit_code: Some(0),
                signal: None,
                ok: true,
                samples: &samples,
            })?;
        }
        Ok(())
    }

    fn validated(&mut self, validations: &[Validation]) -> Result<(), BenchError> {
        for v in validations {
            let params = [
                param("benchmark", &v.benchmark),
                param("version", &v.version),
                param("N", v.n),
                param("mode", "validate"),
                param("reference", &v.reference),
            ];
            let label = format!("{} {} vs {} N={}", v.benchmark, v.version, v.reference, v.n);
            let command = format!("{}__{}({})", v.benchmark, v.version, v.n);
            let id = self.benchmark(&label, &command, &params)?;
            // SQLite keeps infinities but turns NaN into NULL, which the schema refuses.
            let error = if v.max_rel_error.is_nan() {
                f64::INFINITY
            } else {
                v.max_rel_error
            };
            self.store.record_run(&NewRun {
                benchmark: id,
                index: 1,
                warmup: false,
                exit_code: Some(0),
                signal: None,
                ok: v.equal,
                samples: &[Sample {
                    metric: "max_rel_error".into(),
                    value: error,
                    unit: "1".into(),
                }],
            })?;
        }
        Ok(())
    }
}
