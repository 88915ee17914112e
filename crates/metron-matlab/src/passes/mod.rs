//! Source-to-source passes (000 Ch. 5, §6.4). Each pass reads a parsed program, records
//! minimal edits and explains what it did and did not do, with the line.

pub mod dslice;
pub mod inline;
pub mod range;
pub mod reorder;
pub mod repack;
pub mod vectorize;

use serde::Serialize;

use crate::ast::Program;
use crate::rewrite::Overlap;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Note {
    pub line: usize,
    pub applied: bool,
    pub message: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct PassOutput {
    pub pass: String,
    pub source: String,
    pub notes: Vec<Note>,
}

impl PassOutput {
    pub fn changed(&self, before: &str) -> bool {
        self.source != before
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PassError {
    #[error(
        "unknown pass `{0}`; expected one of: dslice, inline, range, reorder, repack, vectorize"
    )]
    Unknown(String),
    #[error(transparent)]
    Syntax(#[from] crate::SyntaxError),
    #[error("internal error in pass {pass}: {source}")]
    Overlap { pass: String, source: Overlap },
    #[error(transparent)]
    Classification(#[from] crate::classification::ClassificationError),
}

#[derive(Debug, Clone)]
pub struct Options {
    pub runtime: String,
    /// Repack even where the execution model predicts no change of the chain.
    pub force: bool,
    /// Shape assumed for vectors whose dimensionality the analysis cannot tell.
    pub assume: Option<crate::dimensionality::Dim>,
    /// Profile-guided versioning threshold p: emit `if trips >= p, vector, else, loop, end`.
    pub version_threshold: Option<u64>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            runtime: "r2018b".into(),
            force: false,
            assume: None,
            version_threshold: None,
        }
    }
}

/// Runs `passes` in order, reparsing between them; returns the final source and all notes.
pub fn run_passes(
    source: &str,
    file: &std::path::Path,
    passes: &[String],
    options: &Options,
) -> Result<Vec<PassOutput>, PassError> {
    let mut current = source.to_string();
    let mut outputs = Vec::new();
    for pass in passes {
        let program = crate::parse(&current, file)?;
        let out = match pass.as_str() {
            "range" => range::run(&program),
            "inline" => inline::run(&program),
            "dslice" => dslice::run(&program),
            "repack" => repack::run(&program, options)?,
            "reorder" => reorder::run(&program, options)?,
            "vectorize" => vectorize::run(&program, options),
            other => return Err(PassError::Unknown(other.to_string())),
        }
        .map_err(|source| PassError::Overlap {
            pass: pass.clone(),
            source,
        })?;
        current = out.source.clone();
        outputs.push(out);
    }
    Ok(outputs)
}

pub(crate) fn finish(
    pass: &str,
    program: &Program,
    rw: &crate::rewrite::Rewriter,
    mut notes: Vec<Note>,
) -> Result<PassOutput, Overlap> {
    notes.sort_by_key(|n| n.line);
    Ok(PassOutput {
        pass: pass.to_string(),
        source: rw.apply(&program.source)?,
        notes,
    })
}
