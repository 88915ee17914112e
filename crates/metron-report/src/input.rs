//! Gathering the report's data: experiments from the store, profiles from files.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use metron_store::Store;

use crate::section::pep::{self, PepInput};
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
    let (mut profiles, mut traces) = (Vec::new(), Vec::new());
    for path in &inputs.files {
        match kind_of(path)? {
            FileKind::Probe => profiles.push(ProfileInput {
                path: path.clone(),
                set: metron_probe::analysis::load(path)?,
            }),
            FileKind::Pep => traces.push(PepInput {
                path: path.clone(),
                traces: metron_pep::trace::read_file(path)?,
            }),
        }
    }
    let sections = section::present([
        profile::section(&profiles),
        pep::section(&traces),
        measurement::section(&experiments),
        tuning::section(&campaigns),
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
    let (rows, _) = store.experiments_lenient(None)?;
    let mut out: Vec<TuningInput> = Vec::new();
    for row in rows.into_iter().filter(|r| r.kind == "tune") {
        let Some(library) = row.config["library"].as_str() else {
            notes.push(format!("tuning experiment {} names no library", row.id.0));
            continue;
        };
        if out.iter().any(|t| t.library == library) {
            continue; // an older run of a resumed campaign
        }
        out.push(TuningInput {
            experiment: row.id.0,
            name: row.name.clone(),
            library: library.to_string(),
            units: store.tune_units(library)?,
            generations: store.tune_generations(row.id)?,
        });
    }
    out.reverse();
    Ok(out)
}

enum FileKind {
    Probe,
    Pep,
}

/// A directory or JSON is a probe profile (its loader names what is wrong with it); a text
/// starting with `@trace_start:` is a PEP trace (000 Listing 3.2).
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
    if text.starts_with('{') {
        Ok(FileKind::Probe)
    } else if text.starts_with("@trace_start:") {
        Ok(FileKind::Pep)
    } else {
        Err(ReportError::UnknownFile {
            path: path.to_path_buf(),
        })
    }
}
