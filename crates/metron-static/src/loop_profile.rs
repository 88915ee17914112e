//! Data-dependent loop bounds in a branch profile (`source::data_bound`): the mean value of
//! each bound over its loop's entries, read from one callgrind run. The model's counts are
//! affine in the bound's parameter, so with the parameter at 0 and at 1 the blocks that change
//! are the loop's, and `mean = sum n (measured - at0) / sum n (at1 - at0)` (`n`: a block's
//! instructions) is the value that gives the run's instruction count, as for `br_prob`.

use metron_symbolic::Binding;
use serde::{Deserialize, Serialize};

use crate::binary::Binary;
use crate::callgrind::ObjectCounts;
use crate::error::Result;
use crate::program::ProgramModel;
use crate::source::SourceModel;
use crate::validate::{load_bias, measured_per_instruction};

/// The recorded mean of one data-dependent loop bound.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct LoopBoundMean {
    /// The source file's name (empty in profiles written before it was recorded: any file).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub file: String,
    /// Line of the `for`.
    pub line: u32,
    pub function: String,
    /// The bound's parameter in the model (`data_LINE`).
    pub parameter: String,
    /// Mean value of the bound over the loop's entries in the recorded run.
    pub mean: f64,
}

/// Records the mean of every data-dependent loop bound of `source` from callgrind's `counts`
/// of one run at `binding`, and gives it to `source` (so that branches inside those loops
/// can be recorded next). Loops that did not run are left out.
pub fn record(
    binary: &Binary,
    source: &mut SourceModel,
    mira_compat: bool,
    binding: &Binding,
    counts: &ObjectCounts,
) -> Result<Vec<LoopBoundMean>> {
    let mut out = Vec::new();
    for l in 0..source.loops.len() {
        let Some(d) = source.loops[l].data_bound.clone() else {
            continue;
        };
        if d.mean.is_some() {
            continue;
        }
        let cx = Run {
            binary,
            source,
            mira_compat,
            binding,
            counts,
            parameter: &d.parameter,
        };
        // The counts are affine in the bound only where the guards around the loop (`N >= 1`)
        // do not change: a secant step from 0, then from the estimate's floor, until it holds.
        let Some(mut mean) = cx.estimate(0)? else {
            continue;
        };
        for _ in 0..4 {
            match cx.estimate(mean.floor() as i64)? {
                Some(m) if (m - mean).abs() > 1e-9 => mean = m,
                Some(_) | None => break,
            }
        }
        apply_one(source, l, mean);
        out.push(LoopBoundMean {
            file: file_name(&source.file),
            line: source.loops[l].line,
            function: source.loops[l].function.clone(),
            parameter: d.parameter,
            mean,
        });
    }
    Ok(out)
}

/// One recorded run and the bound being estimated.
struct Run<'a> {
    binary: &'a Binary,
    source: &'a SourceModel,
    mira_compat: bool,
    binding: &'a Binding,
    counts: &'a ObjectCounts,
    parameter: &'a str,
}

impl Run<'_> {
    /// Blocks per function with the bound at `v` and the unresolved branches at `taken`.
    fn blocks(&self, taken: f64, v: i64) -> Result<(ProgramModel, Vec<Vec<f64>>)> {
        let mut s = self.source.clone();
        unresolved_branches_at(&mut s, taken);
        let program = ProgramModel::build(self.binary, &s, self.mira_compat);
        let mut b = self.binding.clone();
        b.insert(self.parameter.to_string(), v);
        let blocks = program.run(self.binary, &b)?.blocks;
        Ok((program, blocks))
    }

    /// The bound's value that gives the measured instructions, the counts taken as affine
    /// in it between `v` and `v + 1`; `None` when no block depends on it.
    fn estimate(&self, v: i64) -> Result<Option<f64>> {
        // Blocks whose counts depend on an unresolved data-dependent branch are left out:
        // their share of the run is the branch's, not the bound's.
        let (program, at0) = self.blocks(1.0, v)?;
        let (_, at1) = self.blocks(1.0, v + 1)?;
        let (_, other0) = self.blocks(0.0, v)?;
        let (_, other1) = self.blocks(0.0, v + 1)?;
        let bias = load_bias(self.binary, self.counts);
        let (mut moved, mut slope) = (0.0, 0.0);
        for (k, (i, m)) in program.functions.iter().enumerate() {
            let per = measured_per_instruction(&self.binary.functions[*i], self.counts, bias);
            for (b, block) in m.cfg.blocks.iter().enumerate() {
                let (p0, p1) = (at0[k][b], at1[k][b]);
                let branch_free = p0 == other0[k][b] && p1 == other1[k][b];
                if branch_free && p0.is_finite() && p1.is_finite() && (p1 - p0).abs() > 1e-9 {
                    let n = (block.end - block.first) as f64;
                    moved += n * (per[block.first] - p0);
                    slope += n * (p1 - p0);
                }
            }
        }
        Ok((slope.abs() > 1e-9).then(|| v as f64 + moved / slope))
    }
}

/// Every data-dependent `if` and `?:` without a probability taken with probability `taken`.
fn unresolved_branches_at(source: &mut SourceModel, taken: f64) {
    for f in source.ifs.iter_mut() {
        if f.condition.is_err() && f.probability.is_none() {
            f.probability = Some(taken);
        }
    }
    for c in source.conditionals.iter_mut() {
        if c.condition.is_err() && c.probability.is_none() {
            c.probability = Some(taken);
        }
    }
}

fn apply_one(source: &mut SourceModel, l: usize, mean: f64) {
    if let Some(d) = source.loops[l].data_bound.as_mut() {
        d.mean.get_or_insert(mean);
    }
}

/// Gives the recorded means to the data-dependent loops at their lines.
pub fn apply(source: &mut SourceModel, means: &[LoopBoundMean]) {
    let own = file_name(&source.file);
    // A line and a function name alone could match a loop of another file of the program.
    for m in means.iter().filter(|m| m.file.is_empty() || m.file == own) {
        let at = (0..source.loops.len())
            .filter(|&l| source.loops[l].line == m.line && source.loops[l].function == m.function);
        for l in at.collect::<Vec<_>>() {
            apply_one(source, l, m.mean);
        }
    }
}

/// A source file's name as profiles record it (without its directory: a profile recorded in
/// one build tree applies in another).
pub(crate) fn file_name(path: &std::path::Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |f| f.to_string_lossy().into_owned(),
    )
}
