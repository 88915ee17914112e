//! Data-dependent loop bounds in a branch profile (`source::data_bound`): the mean value of
//! each bound over its loop's entries, read from one callgrind run. The model's counts are
//! affine in the bound's parameter on each residue class modulo one period `P` of their
//! floors (1 for a loop kept whole, `k` for one unrolled `k`-fold), so the blocks that change
//! with it are the loop's, and the mean is the value at which the average of those lines
//! gives the run's instruction count, as for `br_prob` (`Run::estimate`).

use metron_symbolic::Binding;
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::One;
use serde::{Deserialize, Serialize};

use crate::binary::{Binary, Function};
use crate::callgrind::ObjectCounts;
use crate::cfg::Cfg;
use crate::error::Result;
use crate::loop_context::statement_lines_of;
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
    /// The program with the unresolved branches at `taken`.
    fn program(&self, taken: f64) -> ProgramModel {
        let mut s = self.source.clone();
        unresolved_branches_at(&mut s, taken);
        ProgramModel::build(self.binary, &s, self.mira_compat)
    }

    /// Blocks per function of `program` with the bound at `v`.
    fn blocks(&self, program: &ProgramModel, v: i64) -> Result<Vec<Vec<f64>>> {
        let mut b = self.binding.clone();
        b.insert(self.parameter.to_string(), v);
        Ok(program.run(self.binary, &b)?.blocks)
    }

    /// The bound's value that gives the measured instructions; `None` when no block depends
    /// on it. Along one period `P` of the counts' floors in the bound (`Piecewise::period`:
    /// `k` for a loop unrolled `k`-fold) each count is affine on each residue class; a mean
    /// over many entries counts the average of those lines, as `Piecewise::at_mean` does: the
    /// mean of `C(v..v+P)` at `v + (P - 1)/2`, with the slope `(C(v + P) - C(v)) / P`.
    fn estimate(&self, v: i64) -> Result<Option<f64>> {
        let program = self.program(1.0);
        let span = (program.functions.iter())
            .flat_map(|(_, m)| &m.block_counts)
            .map(|c| c.period(self.parameter))
            .fold(BigInt::one(), |p, q| p.lcm(&q));
        let span = i64::try_from(span)
            .ok()
            .filter(|&p| p <= crate::model::MAX_MEAN_PERIOD)
            .unwrap_or(1);
        let at: Vec<Vec<Vec<f64>>> = (0..=span)
            .map(|j| self.blocks(&program, v + j))
            .collect::<Result<_>>()?;
        // Blocks whose counts depend on an unresolved data-dependent branch are left out:
        // their share of the run is the branch's, not the bound's.
        let other = self.program(0.0);
        let (other0, other1) = (self.blocks(&other, v)?, self.blocks(&other, v + span)?);
        let bias = load_bias(self.binary, self.counts);
        // Blocks on every pass of their loop first: one the model counts per pass where the
        // compiler duplicated a copy's tail into both arms of an `if` on data runs that arm's
        // share of the passes, not the bound's. The other blocks only when none of those move.
        let (mut every, mut any) = ((0.0, 0.0), (0.0, 0.0));
        for (k, (i, m)) in program.functions.iter().enumerate() {
            let per = measured_per_instruction(&self.binary.functions[*i], self.counts, bias);
            let function = &self.binary.functions[*i];
            for (b, block) in m.cfg.blocks.iter().enumerate() {
                let (p0, p1) = (at[0][k][b], at[span as usize][k][b]);
                let branch_free = p0 == other0[k][b]
                    && p1 == other1[k][b]
                    && !in_arm_on_data(self.source, function, &m.cfg, b);
                if branch_free && p0.is_finite() && p1.is_finite() && (p1 - p0).abs() > 1e-9 {
                    let n = (block.end - block.first) as f64;
                    let mean =
                        at[..span as usize].iter().map(|a| a[k][b]).sum::<f64>() / span as f64;
                    let sums = if runs_every_pass(&m.cfg, b) {
                        &mut every
                    } else {
                        &mut any
                    };
                    sums.0 += n * (per[block.first] - mean);
                    sums.1 += n * (p1 - p0) / span as f64;
                }
            }
        }
        let (moved, slope) = if every.1.abs() > 1e-9 {
            every
        } else {
            (every.0 + any.0, every.1 + any.1)
        };
        let middle = v as f64 + (span - 1) as f64 / 2.0;
        Ok((slope.abs() > 1e-9).then(|| middle + moved / slope))
    }
}

/// Whether block `b` runs on every pass of its innermost loop (it dominates the loop's
/// latches); a block outside loops runs whenever its function does.
fn runs_every_pass(cfg: &Cfg, b: usize) -> bool {
    cfg.innermost_loop(b).is_none_or(|l| {
        let l = &cfg.loops[l];
        !l.latches.is_empty() && l.latches.iter().all(|&latch| cfg.dominates(b, latch))
    })
}

/// Whether all of block `b`'s code is from an arm of an `if` on data: a block the model counts
/// as the loop's body where it did not tell the arm (an `if` in an unrolled copy) runs the
/// branch's share, not the bound's.
fn in_arm_on_data(source: &SourceModel, function: &Function, cfg: &Cfg, b: usize) -> bool {
    let arms: Vec<(u32, u32)> = (source.ifs.iter())
        .filter(|f| f.condition.is_err())
        .flat_map(|f| std::iter::once(f.then_lines).chain(f.else_lines))
        .collect();
    let lines = statement_lines_of(function, cfg, b, &source.file.to_string_lossy());
    !lines.is_empty() && (lines.iter()).all(|l| arms.iter().any(|&(a, z)| (a..=z).contains(l)))
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
