//! `metron report`: one self-contained HTML file with interactive plots of what metron knows
//! (issue 19). 002 built a visualiser (§2.8) and a processing tool (§3.4) because people would
//! rather look at performance data than read it; 000 reads its profiles as plots and violins.
//!
//! The library gathers typed sections ([`Report`]) from the store and from files, and renders
//! them ([`html::render`]) into one page that embeds plotly.js and makes no network requests.

pub mod data;
pub mod escape;
pub mod html;
pub mod input;
pub mod plotly_js;
pub mod section;

use std::path::{Path, PathBuf};

use serde::Serialize;

pub use input::{collect, Inputs};
pub use section::{Figure, Section, SectionKind};

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error(transparent)]
    Store(#[from] metron_store::StoreError),
    #[error(transparent)]
    Measure(#[from] metron_measure::MeasureError),
    #[error(transparent)]
    Profile(#[from] metron_probe::analysis::AnalysisError),
    #[error(transparent)]
    Pep(#[from] metron_pep::PepError),
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: expected a metron-probe profile (JSON, or a directory of them), a PEP trace (`@trace_start:` lines) or the --json output of metron static, memory, contention or jit")]
    UnknownFile { path: PathBuf },
    #[error("{path}:{line}: not a valid {expected}: {message}")]
    Malformed {
        path: PathBuf,
        line: usize,
        expected: &'static str,
        message: String,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Everything the page shows, in order: one section per kind of data present.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub title: String,
    pub sections: Vec<Section>,
    /// Things skipped while gathering (an unreadable stored experiment), shown on the page.
    pub notes: Vec<String>,
}

impl Report {
    /// Whether there is nothing to show (the page then says how to make something).
    pub fn is_empty(&self) -> bool {
        self.sections.is_empty()
    }
}

/// Writes the rendered page next to `path` under a temporary name, then renames it into
/// place, so a reader never sees a half-written report.
pub fn write(report: &Report, path: &Path) -> Result<u64, ReportError> {
    use std::io::Write as _;
    let err = |source| ReportError::Write {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let page = html::render(report);
    // A report is meant to be shared: the usual mode under the umask, not tempfile's 0600.
    let mut tmp = tempfile::Builder::new()
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644))
        .prefix(".metron-report")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(err)?;
    tmp.write_all(page.as_bytes()).map_err(err)?;
    tmp.as_file().sync_all().map_err(err)?;
    tmp.persist(path).map_err(|e| err(e.error))?;
    Ok(page.len() as u64)
}
