//! Gathering the report's data: experiments from the store, profiles from files.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use metron_store::Store;

use crate::data::{self as d};
use crate::section::jit::{self, JitInputs};
use crate::section::memory::{self, MemoryInputs};
use crate::section::pep::{self, PepInput};
use crate::section::static_model::{self, StaticInputs};
use crate::section::tuning::{self, TuningInput};
use crate::section::{self, measurement, profile, profile::ProfileInput};
use crate::{Report, ReportError};

/// Where the data comes from: `metron report [--store DB] [FILES...]`.
#[derive(Default)]
pub struct Inputs<'a> {
    pub store: Option<&'a Store>,
    /// metron-probe profiles (a file, a merged set, or a directory of them) and PEP trace
    /// files, told apart by their first bytes.
    pub files: Vec<PathBuf>,
    /// The axes of the tuning scatter plots: expressions over genes (002 Figs. 3.7-3.11).
    pub tuning_axes: tuning::Axes,
}

/// Loads everything and keeps the sections that have data. A malformed file is an error
/// naming it; an unreadable stored experiment is skipped with a note.
pub fn collect(inputs: &Inputs) -> Result<Report, ReportError> {
    let mut notes = Vec::new();
    let (experiments, campaigns) = match inputs.store {
        Some(store) => (
            stored_experiments(store, &mut notes)?,
            campaigns(store, &mut notes)?,
        ),
        None => (Vec::new(), Vec::new()),
    };
    let mut files = Files::default();
    for path in &inputs.files {
        files.add(path)?;
    }
    let sections = section::present([
        profile::section(&files.profiles, &files.timelines),
        pep::section(&files.traces),
        measurement::section(&experiments),
        tuning::section(&campaigns, &inputs.tuning_axes),
        static_model::section(&files.statics),
        memory::section(&files.memory),
        jit::section(&files.jit),
    ]);
    Ok(Report {
        title: "metron report".to_string(),
        sections,
        notes,
    })
}

/// Experiments of every kind that `load_report` can summarise, oldest first. Tuning
/// campaigns keep their data in their own tables, so they have no benchmarks here.
fn stored_experiments(
    store: &Store,
    notes: &mut Vec<String>,
) -> Result<Vec<metron_measure::report::Report>, ReportError> {
    let (mut rows, skipped) = store.experiments_lenient(None)?;
    notes.extend(
        skipped
            .iter()
            .map(|e| format!("skipped an unreadable experiment: {e}")),
    );
    rows.reverse();
    let mut out = Vec::new();
    for row in rows.into_iter().filter(|r| r.kind != "tune") {
        match metron_measure::persist::load_report(store, row.id) {
            Ok(r) if r.benchmarks.iter().any(|b| !b.metrics.is_empty()) => out.push(r),
            Ok(_) => {}
            Err(e) => notes.push(format!("skipped experiment {}: {e}", row.id.0)),
        }
    }
    Ok(out)
}

/// The newest `metron tune` experiment of each library, with the library's units and that
/// run's GA generations. The library is named in the config as `metron tune` wrote it.
fn campaigns(store: &Store, notes: &mut Vec<String>) -> Result<Vec<TuningInput>, ReportError> {
    let (campaigns, unnamed) = store.tune_campaigns()?;
    for id in unnamed {
        notes.push(format!("tuning experiment {} names no library", id.0));
    }
    let mut out = Vec::with_capacity(campaigns.len());
    for c in campaigns.into_iter().rev() {
        out.push(TuningInput {
            experiment: c.experiment.0,
            units: store.tune_units(&c.library)?,
            generations: store.tune_generations(c.experiment)?,
            name: c.name,
            library: c.library,
        });
    }
    Ok(out)
}

/// The files given, sorted by what they hold.
#[derive(Default)]
struct Files {
    profiles: Vec<ProfileInput>,
    timelines: Vec<(PathBuf, d::ChromeTrace)>,
    traces: Vec<PepInput>,
    statics: StaticInputs,
    memory: MemoryInputs,
    jit: JitInputs,
}

impl Files {
    fn add(&mut self, path: &Path) -> Result<(), ReportError> {
        let p = path.to_path_buf();
        match kind_of(path)? {
            FileKind::Probe => {
                if path.is_dir() {
                    self.add_timelines_in(path)?;
                }
                self.profiles.push(ProfileInput {
                    set: metron_probe::analysis::load(path)?,
                    path: p,
                })
            }
            FileKind::Pep => self.traces.push(PepInput {
                traces: metron_pep::trace::read_file(path)?,
                path: p,
            }),
            FileKind::Json(kind, text) => self.add_json(p, kind, &text)?,
        }
        Ok(())
    }

    /// The `*.trace.json` timelines beside the profiles of a directory, as one timeline.
    fn add_timelines_in(&mut self, dir: &Path) -> Result<(), ReportError> {
        let read = |source| ReportError::Read {
            path: dir.to_path_buf(),
            source,
        };
        let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(read)?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.to_string_lossy().ends_with(".trace.json"))
            .collect();
        found.sort();
        // One chart for the directory: every rank's lanes together, as in 002 Fig. 2.6.
        let mut merged = d::ChromeTrace {
            trace_events: Vec::new(),
        };
        for p in &found {
            let text = std::fs::read_to_string(p).map_err(|source| ReportError::Read {
                path: p.clone(),
                source,
            })?;
            let trace: d::ChromeTrace = parse(p, JsonKind::Timeline, &text)?;
            merged.trace_events.extend(trace.trace_events);
        }
        if !found.is_empty() {
            self.timelines.push((dir.to_path_buf(), merged));
        }
        Ok(())
    }

    fn add_json(&mut self, p: PathBuf, kind: JsonKind, text: &str) -> Result<(), ReportError> {
        match kind {
            JsonKind::StaticModel => self
                .statics
                .models
                .push((p.clone(), parse(&p, kind, text)?)),
            JsonKind::StaticValidation => {
                let v: d::StaticValidation = parse(&p, kind, text)?;
                self.statics.validations.push((p, v.rows().to_vec()))
            }
            JsonKind::MemoryAnalysis => self
                .memory
                .analyses
                .push((p.clone(), parse(&p, kind, text)?)),
            JsonKind::MemoryValidation => self
                .memory
                .validations
                .push((p.clone(), parse(&p, kind, text)?)),
            JsonKind::Simulation => self
                .memory
                .simulations
                .push((p.clone(), parse(&p, kind, text)?)),
            JsonKind::ContentionFit => self.memory.fits.push((p.clone(), parse(&p, kind, text)?)),
            JsonKind::ContentionExperiment => self
                .memory
                .experiments
                .push((p.clone(), parse(&p, kind, text)?)),
            JsonKind::JitAnalysis => self.jit.analyses.push((p.clone(), parse(&p, kind, text)?)),
            JsonKind::Timeline => self.timelines.push((p.clone(), parse(&p, kind, text)?)),
            JsonKind::JitTau => self.jit.taus.push((p.clone(), parse(&p, kind, text)?)),
            JsonKind::JitCalibration => {
                let c: d::Calibration = parse(&p, kind, text)?;
                let set = d::CalibrationSet {
                    fits: vec![("CMW".into(), c)],
                };
                self.jit.calibrations.push((p, set))
            }
            JsonKind::JitCorpus => {
                let c: d::CorpusCalibration = parse(&p, kind, text)?;
                let set = d::CalibrationSet {
                    fits: c.fits.into_iter().map(|f| (f.model, f.fit)).collect(),
                };
                self.jit.calibrations.push((p, set))
            }
        }
        Ok(())
    }
}

/// Reads a file of a known kind into its typed form; a mismatch names the file, line and kind.
fn parse<T: serde::de::DeserializeOwned>(
    path: &Path,
    kind: JsonKind,
    text: &str,
) -> Result<T, ReportError> {
    serde_json::from_str(text).map_err(|e| ReportError::Malformed {
        path: path.to_path_buf(),
        line: e.line(),
        expected: kind.what(),
        message: e.to_string(),
    })
}

enum FileKind {
    Probe,
    Pep,
    Json(JsonKind, String),
}

/// The `--json` outputs of other metron commands the report draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonKind {
    StaticModel,
    StaticValidation,
    MemoryAnalysis,
    MemoryValidation,
    Simulation,
    ContentionFit,
    ContentionExperiment,
    JitAnalysis,
    JitTau,
    JitCalibration,
    JitCorpus,
    Timeline,
}

impl JsonKind {
    pub fn what(self) -> &'static str {
        match self {
            JsonKind::StaticModel => "`metron static --json` output",
            JsonKind::StaticValidation => "`metron static validate --json` output",
            JsonKind::MemoryAnalysis => "`metron memory analyze --json` output",
            JsonKind::MemoryValidation => "`metron memory validate --json` output",
            JsonKind::Simulation => "`metron contention simulate --json` output",
            JsonKind::ContentionFit => "`metron contention fit --json` output",
            JsonKind::ContentionExperiment => "`metron contention experiment --json` output",
            JsonKind::JitAnalysis => "`metron jit analyze --json` output",
            JsonKind::JitTau => "`metron jit tau --json` output",
            JsonKind::JitCalibration => "`metron jit calibrate --json` output",
            JsonKind::JitCorpus => "`metron jit calibrate --corpus --json` output",
            JsonKind::Timeline => "metron-probe timeline (Chrome trace events)",
        }
    }

    /// Tells the outputs apart by the keys that only one of them has; `None` for anything
    /// else (a probe profile, whose loader then names what is wrong).
    pub fn detect(v: &serde_json::Value) -> Option<JsonKind> {
        let has = |k: &str| v.get(k).is_some();
        if let Some(first) = v.as_array().and_then(|a| a.first()) {
            return if first.get("region").is_some() {
                Some(JsonKind::StaticValidation)
            } else if first.get("fit").is_some() && first.get("tests").is_some() {
                Some(JsonKind::ContentionFit)
            } else {
                None
            };
        }
        let kind = if v["schema"]
            .as_str()
            .is_some_and(|s| s.starts_with("metron.static"))
            || v["functions"][0].get("model_name").is_some()
        {
            JsonKind::StaticModel
        } else if v["rows"][0].get("region").is_some() {
            JsonKind::StaticValidation
        } else if has("functions") && has("pipeline") {
            JsonKind::MemoryAnalysis
        } else if has("rows") && has("static_total") {
            JsonKind::MemoryValidation
        } else if has("config") && has("cores") {
            JsonKind::Simulation
        } else if has("configurations") && has("results") {
            JsonKind::ContentionExperiment
        } else if has("traceEvents") {
            JsonKind::Timeline
        } else if has("fragments") && has("source_lines") {
            JsonKind::JitAnalysis
        } else if has("points") && has("table5") {
            JsonKind::JitTau
        } else if has("fits") && has("programs") {
            JsonKind::JitCorpus
        } else if has("programs") && has("r_squared") {
            JsonKind::JitCalibration
        } else {
            return None;
        };
        Some(kind)
    }
}

/// A directory is a probe profile set; JSON is another command's `--json` output or else a
/// probe profile (its loader names what is wrong with it); a text starting with
/// `@trace_start:` is a PEP trace (000 Listing 3.2).
fn kind_of(path: &Path) -> Result<FileKind, ReportError> {
    if path.is_dir() {
        return Ok(FileKind::Probe);
    }
    let read = |source| ReportError::Read {
        path: path.to_path_buf(),
        source,
    };
    let mut head = Vec::with_capacity(256);
    std::fs::File::open(path)
        .map_err(read)?
        .take(256)
        .read_to_end(&mut head)
        .map_err(read)?;
    let text = String::from_utf8_lossy(&head);
    let text = text.trim_start();
    if text.starts_with('{') || text.starts_with('[') {
        json_kind(path)
    } else if text.starts_with("@trace_start:") {
        Ok(FileKind::Pep)
    } else {
        Err(ReportError::UnknownFile {
            path: path.to_path_buf(),
        })
    }
}

/// JSON of a kind [`JsonKind::detect`] knows, with its text; otherwise a probe profile.
fn json_kind(path: &Path) -> Result<FileKind, ReportError> {
    let text = std::fs::read_to_string(path).map_err(|source| ReportError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let value: serde_json::Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        // Truncated or not JSON: the probe loader reports it with its line.
        Err(_) => return Ok(FileKind::Probe),
    };
    Ok(match JsonKind::detect(&value) {
        Some(kind) => FileKind::Json(kind, text),
        None if value.is_array() => {
            return Err(ReportError::UnknownFile {
                path: path.to_path_buf(),
            })
        }
        None => FileKind::Probe,
    })
}
