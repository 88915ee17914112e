//! What a function's counts assume where they depend on data (issue 12 item 4; 004 §III.C.4):
//! each data-dependent `if` and `?:` whose code the function holds, and each libm error path,
//! named by file:line with the probability used and how to give a better one.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::binary::Function;
use crate::cfg::Cfg;
use crate::error_path::ErrorPath;
use crate::loop_context::lines_of;
use crate::source::SourceModel;

/// What kind of branch a count depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BranchKind {
    /// An `if` whose condition reads data.
    If,
    /// A `?:` whose condition reads data.
    Conditional,
    /// The test around an inlined libm function (`sqrt`) whose other side calls libm.
    LibmErrorPath,
}

impl BranchKind {
    /// The kind's name in a branch profile (`if`, `?:`, `libm`).
    pub fn profile_name(self) -> &'static str {
        match self {
            BranchKind::If => "if",
            BranchKind::Conditional => "?:",
            BranchKind::LibmErrorPath => "libm",
        }
    }
}

/// One data-dependent branch and what the counts assume about it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Assumption {
    /// The source file's name.
    pub file: String,
    pub line: u32,
    pub kind: BranchKind,
    /// Why the count is not a function of the parameters (the condition, or the libm call).
    pub reason: String,
    /// Probability used for the then arm (the error path): from a `br_prob` annotation or a
    /// branch profile; `None` where none was given.
    pub probability: Option<f64>,
    /// How the blocks that depend on it were counted.
    pub counted_as: String,
    /// How to give the probability.
    pub remedy: &'static str,
}

const BRANCH_REMEDY: &str = "`#pragma @Annotation {br_prob: P}` on the line before it, or \
`--branch-profile FILE` recorded by `metron static validate BIN --record-branch-profile FILE -- ARGS`";
const LIBM_REMEDY: &str =
    "`--branch-profile FILE` recorded by `metron static validate BIN --record-branch-profile FILE -- ARGS`";

fn file_name(path: &std::path::Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |f| f.to_string_lossy().into_owned(),
    )
}

/// The data-dependent `if`s and `?:`s of `source` whose condition's line is among the lines
/// `function`'s code comes from.
pub fn data_dependent(function: &Function, cfg: &Cfg, source: &SourceModel) -> Vec<Assumption> {
    let all: BTreeSet<usize> = (0..cfg.blocks.len()).collect();
    let file = source.file.display().to_string();
    let lines = lines_of(function, cfg, &all, &file);
    let ifs = source
        .ifs
        .iter()
        .map(|f| (BranchKind::If, f.line, &f.condition, f.probability));
    let conditionals = source
        .conditionals
        .iter()
        .map(|c| (BranchKind::Conditional, c.line, &c.condition, c.probability));
    ifs.chain(conditionals)
        .filter(|(_, line, _, _)| lines.contains(line))
        .filter_map(|(kind, line, condition, probability)| {
            let why = condition.as_ref().err()?;
            Some(Assumption {
                file: file_name(&source.file),
                line,
                kind,
                reason: why.clone(),
                probability,
                counted_as: match probability {
                    Some(p) => format!("arms weighted by probability {p:.4} (then arm)"),
                    None => format!(
                        "no probability given: arms counted at even odds ({})",
                        crate::branch::EVEN_ODDS
                    ),
                },
                remedy: BRANCH_REMEDY,
            })
        })
        .collect()
}

/// The assumption behind each libm error path (one per source line), with the probability
/// each was counted with.
pub fn error_paths(
    paths: &[ErrorPath],
    probability: impl Fn(&ErrorPath) -> Option<f64>,
) -> Vec<Assumption> {
    let mut out: Vec<Assumption> = Vec::new();
    for path in paths {
        let Some(at) = &path.position else { continue };
        let file = std::path::Path::new(&at.file)
            .file_name()
            .map_or_else(|| at.file.clone(), |f| f.to_string_lossy().into_owned());
        if out.iter().any(|a| a.file == file && a.line == at.line) {
            continue;
        }
        let p = probability(path);
        out.push(Assumption {
            file,
            line: at.line,
            kind: BranchKind::LibmErrorPath,
            reason: format!(
                "`{}` is inlined behind a test of its argument; a negative or NaN argument calls libm's `{}` (errno)",
                path.callee, path.callee
            ),
            probability: p,
            counted_as: match p {
                Some(p) => format!("error path taken with probability {p:.4} (branch profile)"),
                None => "error path not taken (argument assumed >= 0 and not NaN)".to_string(),
            },
            remedy: LIBM_REMEDY,
        });
    }
    out
}
