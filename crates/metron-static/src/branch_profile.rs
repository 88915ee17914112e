//! Branch profiles (004 §III.C.4's `br_prob`, measured instead of guessed): the probability of
//! each data-dependent `if` and `?:` read from one callgrind run, saved as JSON and applied
//! to later models, so that a model trained at one size predicts others where the fraction of
//! taken branches does not depend on the size.
//!
//! The probability comes from the model itself, not from matching blocks to arms again: with
//! the branch at probability 1 and at 0, the blocks whose predicted executions differ are its
//! arms, and `p = sum n (measured - at0) / sum n (at1 - at0)` over them (`n`: the block's
//! instructions), the probability that gives the run's instruction count.

use std::path::Path;

use metron_symbolic::Binding;
use serde::{Deserialize, Serialize};

use crate::binary::Binary;
use crate::callgrind::ObjectCounts;
use crate::error::{Result, StaticError};
use crate::program::ProgramModel;
use crate::source::SourceModel;
use crate::validate::{load_bias, measured_per_instruction};

pub const FORMAT: &str = "metron.branch-profile/1";

/// Probabilities of the data-dependent branches of one source file.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BranchProfile {
    pub format: String,
    /// The source file's name.
    pub source: String,
    pub branches: Vec<BranchProbability>,
    /// Means of data-dependent loop bounds (`loop_profile`).
    #[serde(default)]
    pub loops: Vec<crate::loop_profile::LoopBoundMean>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BranchProbability {
    pub line: u32,
    /// `if` or `?:`.
    pub kind: String,
    pub function: String,
    /// Probability that the then arm is taken, over the run it was recorded from.
    pub probability: f64,
}

/// A data-dependent branch: an `if` (false) or `?:` (true) and its index.
#[derive(Debug, Clone, Copy)]
struct Probe {
    conditional: bool,
    index: usize,
}

fn probes(source: &SourceModel) -> Vec<Probe> {
    let ifs = source
        .ifs
        .iter()
        .enumerate()
        .filter(|(_, f)| f.condition.is_err() && f.probability.is_none())
        .map(|(index, _)| Probe {
            conditional: false,
            index,
        });
    let conditionals = source
        .conditionals
        .iter()
        .enumerate()
        .filter(|(_, c)| c.condition.is_err() && c.probability.is_none())
        .map(|(index, _)| Probe {
            conditional: true,
            index,
        });
    ifs.chain(conditionals).collect()
}

fn set(source: &mut SourceModel, probe: Probe, p: f64) {
    if probe.conditional {
        source.conditionals[probe.index].probability = Some(p);
    } else {
        source.ifs[probe.index].probability = Some(p);
    }
}

/// Predicted executions of every block of every modelled function (NaN where unknown).
fn predicted(
    binary: &Binary,
    source: &SourceModel,
    mira_compat: bool,
    binding: &Binding,
) -> Result<Vec<Vec<f64>>> {
    Ok(ProgramModel::build(binary, source, mira_compat)
        .run(binary, binding)?
        .blocks)
}

/// Records the probabilities of `source`'s data-dependent branches from callgrind's `counts`
/// of one run at `binding`. Branches whose arms were not reached in the run are left out.
pub fn record(
    binary: &Binary,
    source: &SourceModel,
    mira_compat: bool,
    binding: &Binding,
    counts: &ObjectCounts,
) -> Result<BranchProfile> {
    let mut source = source.clone();
    let loops = crate::loop_profile::record(binary, &mut source, mira_compat, binding, counts)?;
    let source = &source;
    let probes = probes(source);
    let mut all_taken = source.clone();
    for &p in &probes {
        set(&mut all_taken, p, 1.0);
    }
    let program = ProgramModel::build(binary, &all_taken, mira_compat);
    let at1 = program.run(binary, binding)?.blocks;
    let bias = load_bias(binary, counts);
    // Executions of a block (callgrind's count of its first instruction) and its length.
    let (measured, sizes): (Vec<Vec<f64>>, Vec<Vec<f64>>) = program
        .functions
        .iter()
        .map(|(i, m)| {
            let f = &binary.functions[*i];
            let per = measured_per_instruction(f, counts, bias);
            let runs = m.cfg.blocks.iter().map(|b| per[b.first]).collect();
            let sizes = m
                .cfg
                .blocks
                .iter()
                .map(|b| (b.end - b.first) as f64)
                .collect();
            (runs, sizes)
        })
        .unzip();
    let mut branches = Vec::new();
    for &probe in &probes {
        let mut one_off = all_taken.clone();
        set(&mut one_off, probe, 0.0);
        let at0 = predicted(binary, &one_off, mira_compat, binding)?;
        let (mut taken, mut span) = (0.0, 0.0);
        // Weighted by instructions: the probability that makes the run's instruction total
        // right, also where the optimiser merged an arm with code around it.
        for (((b1, b0), m), n) in at1.iter().zip(&at0).zip(&measured).zip(&sizes) {
            for (((p1, p0), x), n) in b1.iter().zip(b0).zip(m).zip(n) {
                if p1.is_finite() && p0.is_finite() && (p1 - p0).abs() > 1e-9 {
                    taken += n * (x - p0);
                    span += n * (p1 - p0);
                }
            }
        }
        if span.abs() < 1e-9 {
            continue;
        }
        let (line, function, kind) = if probe.conditional {
            let c = &source.conditionals[probe.index];
            (c.line, c.function.clone(), "?:")
        } else {
            let f = &source.ifs[probe.index];
            (f.line, f.function.clone(), "if")
        };
        branches.push(BranchProbability {
            line,
            kind: kind.to_string(),
            function,
            probability: (taken / span).clamp(0.0, 1.0),
        });
    }
    Ok(BranchProfile {
        format: FORMAT.to_string(),
        source: file_name(&source.file),
        branches,
        loops,
    })
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |f| f.to_string_lossy().into_owned(),
    )
}

/// Gives the profile's probabilities to the branches at its lines that have neither an
/// affine condition nor a `br_prob` annotation (an annotation is the user's word).
pub fn apply(source: &mut SourceModel, profile: &BranchProfile) {
    crate::loop_profile::apply(source, &profile.loops);
    for b in &profile.branches {
        if b.kind == "?:" {
            for c in source.conditionals.iter_mut().filter(|c| c.line == b.line) {
                if c.condition.is_err() && c.probability.is_none() {
                    c.probability = Some(b.probability);
                }
            }
        } else {
            for f in source.ifs.iter_mut().filter(|f| f.line == b.line) {
                if f.condition.is_err() && f.probability.is_none() {
                    f.probability = Some(b.probability);
                }
            }
        }
    }
}

pub fn save(profile: &BranchProfile, path: &Path) -> Result<()> {
    let text = serde_json::to_string_pretty(profile).map_err(|e| StaticError::Parse {
        path: path.to_path_buf(),
        line: 0,
        message: e.to_string(),
    })?;
    std::fs::write(path, text + "\n").map_err(|source| StaticError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// Reads a profile, checking its format and that it was recorded for `source_file`.
pub fn load(path: &Path, source_file: &Path) -> Result<BranchProfile> {
    let text = std::fs::read_to_string(path).map_err(|source| StaticError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let bad = |line: usize, message: String| StaticError::Parse {
        path: path.to_path_buf(),
        line,
        message,
    };
    let profile: BranchProfile = serde_json::from_str(&text)
        .map_err(|e| bad(e.line(), format!("expected a {FORMAT} branch profile: {e}")))?;
    if profile.format != FORMAT {
        return Err(bad(
            1,
            format!("format `{}`, expected `{FORMAT}`", profile.format),
        ));
    }
    if profile.source != file_name(source_file) {
        return Err(bad(
            1,
            format!(
                "recorded for `{}`, not for `{}`",
                profile.source,
                file_name(source_file)
            ),
        ));
    }
    Ok(profile)
}
