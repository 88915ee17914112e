//! Branch profiles (004 §III.C.4's `br_prob`, measured instead of guessed): the probability of
//! each data-dependent `if` and `?:` read from one callgrind run, saved as JSON and applied
//! to later models, so that a model trained at one size predicts others where the fraction of
//! taken branches does not depend on the size.
//!
//! The probability comes from the model itself, not from matching blocks to arms again: with
//! the branch at probability 1 and at 0, the blocks whose predicted executions differ are its
//! arms, and `p = sum n (x - at0)(at1 - at0) / sum n (at1 - at0)^2` over them (`x`: measured,
//! `n`: the block's instructions), the least-squares fit, refined pass by pass with the other
//! branches at their latest values. A libm error path
//! (`error_path`) is measured directly: the executions of its error block over those of its
//! test. Every source file of the program is covered (format 2 names each branch's file).

use std::path::Path;

use metron_symbolic::Binding;
use serde::{Deserialize, Serialize};

use crate::binary::Binary;
use crate::callgrind::ObjectCounts;
use crate::error::{Result, StaticError};
use crate::loop_profile::file_name;
use crate::program::ProgramModel;
use crate::source::{DataShare, SourceModel};
use crate::validate::{load_bias, measured_per_instruction};

pub const FORMAT: &str = "metron.branch-profile/2";
/// Profiles of one source file, whose branches carry no file name.
const FORMAT_1: &str = "metron.branch-profile/1";

/// Probabilities of the data-dependent branches of a program's source files.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BranchProfile {
    pub format: String,
    /// The source files' names (format 1: the one file, in `source`).
    #[serde(default)]
    pub sources: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    pub branches: Vec<BranchProbability>,
    /// Means of data-dependent loop bounds (`loop_profile`).
    #[serde(default)]
    pub loops: Vec<crate::loop_profile::LoopBoundMean>,
    /// The share of its envelope each block whose count follows data ran (`calibrate`).
    #[serde(default)]
    pub shares: Vec<DataShare>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BranchProbability {
    /// The source file's name (empty in format 1: the profile's `source`).
    #[serde(default)]
    pub file: String,
    pub line: u32,
    /// `if`, `?:` or `libm` (an error path, `assumption::BranchKind`).
    pub kind: String,
    pub function: String,
    /// Probability that the then arm is taken, over the run it was recorded from.
    pub probability: f64,
    /// Which of the line's branches of this kind, in source order, when it has several
    /// (`MIN(MIN(a, b), c)` expands to three `?:`s on one line); absent: all of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nth: Option<u32>,
}

/// A data-dependent branch: an `if` (false) or `?:` (true), its index, and its source's.
#[derive(Debug, Clone, Copy)]
struct Probe {
    source: usize,
    conditional: bool,
    index: usize,
}

fn probes(sources: &[SourceModel]) -> Vec<Probe> {
    let mut out = Vec::new();
    for (s, source) in sources.iter().enumerate() {
        let ifs = source
            .ifs
            .iter()
            .enumerate()
            .filter(|(_, f)| f.condition.is_err() && f.probability.is_none())
            .map(|(index, _)| Probe {
                source: s,
                conditional: false,
                index,
            });
        let conditionals = source
            .conditionals
            .iter()
            .enumerate()
            .filter(|(_, c)| c.condition.is_err() && c.probability.is_none())
            .map(|(index, _)| Probe {
                source: s,
                conditional: true,
                index,
            });
        out.extend(ifs.chain(conditionals));
    }
    out
}

fn set(sources: &mut [SourceModel], probe: Probe, p: f64) {
    let source = &mut sources[probe.source];
    if probe.conditional {
        source.conditionals[probe.index].probability = Some(p);
    } else {
        source.ifs[probe.index].probability = Some(p);
    }
}

/// Predicted executions of every block of every modelled function (NaN where unknown).
fn predicted(
    binary: &Binary,
    sources: &[SourceModel],
    mira_compat: bool,
    binding: &Binding,
) -> Result<Vec<Vec<f64>>> {
    Ok(ProgramModel::build_all(binary, sources, mira_compat)
        .run(binary, binding)?
        .blocks)
}

/// Records the probabilities of `source`'s data-dependent branches from callgrind's `counts`
/// of one run at `binding` (a program of one source file; see [`record_all`]).
pub fn record(
    binary: &Binary,
    source: &SourceModel,
    mira_compat: bool,
    binding: &Binding,
    counts: &ObjectCounts,
) -> Result<BranchProfile> {
    record_all(
        binary,
        std::slice::from_ref(source),
        mira_compat,
        binding,
        counts,
    )
}

/// Passes over the branches at most: each pass refines every probability with the others at
/// their latest values (an arm nested in another's else arm is seen only once the outer
/// probability is below 1).
const PASSES: usize = 4;

/// Callgrind's executions of every block (its first instruction's count) and the blocks'
/// lengths, per modelled function.
type Measured = (Vec<Vec<f64>>, Vec<Vec<f64>>);

/// Records the probabilities of the data-dependent branches and libm error paths of every
/// source file of the program (`sources` as given to `ProgramModel::build_all`) from
/// callgrind's `counts` of one run at `binding`. Branches whose arms were not reached in the
/// run are left out.
pub fn record_all(
    binary: &Binary,
    sources: &[SourceModel],
    mira_compat: bool,
    binding: &Binding,
    counts: &ObjectCounts,
) -> Result<BranchProfile> {
    // Data-dependent loop bounds first: the branches inside those loops need their means.
    let mut current = sources.to_vec();
    let mut loops = Vec::new();
    for source in &mut current {
        loops.extend(crate::loop_profile::record(
            binary,
            source,
            mira_compat,
            binding,
            counts,
        )?);
    }
    let probes = probes(&current);
    for &p in &probes {
        set(&mut current, p, 0.5);
    }
    let program = ProgramModel::build_all(binary, &current, mira_compat);
    let measured = measured_blocks(binary, &program, counts);
    let mut estimates: Vec<Option<f64>> = vec![None; probes.len()];
    for _ in 0..PASSES {
        let mut moved = false;
        // Source order: an outer `if` before the ones in its arms.
        for (k, &probe) in probes.iter().enumerate() {
            let p = estimate(binary, &current, probe, mira_compat, binding, &measured)?;
            if let Some(p) = p {
                set(&mut current, probe, p);
            }
            moved |= match (estimates[k], p) {
                (Some(a), Some(b)) => (a - b).abs() > 1e-6,
                (a, b) => a.is_some() != b.is_some(),
            };
            estimates[k] = p;
        }
        if !moved {
            break;
        }
    }
    let mut branches: Vec<BranchProbability> = probes
        .iter()
        .zip(&estimates)
        .filter_map(|(&probe, p)| Some(probability(&sources[probe.source], probe, (*p)?)))
        .collect();
    branches.extend(error_paths(binary, &program, &measured.0));
    let shares = data_shares(binary, &current, mira_compat, binding, &measured.0)?;
    Ok(BranchProfile {
        format: FORMAT.to_string(),
        sources: sources.iter().map(|s| file_name(&s.file)).collect(),
        source: None,
        branches,
        loops,
        shares,
    })
}

/// What each block whose count follows data ran (`measured`) over its envelope (`calibrate`,
/// with the probabilities found where no envelope fits): its share, where it ran. A block
/// that ran more often than its envelope (no upper bound of it, then) and one counted with a
/// bound's mean are shared over the model's count instead (`DataShare::over_model`).
fn data_shares(
    binary: &Binary,
    sources: &[SourceModel],
    mira_compat: bool,
    binding: &Binding,
    measured: &[Vec<f64>],
) -> Result<Vec<DataShare>> {
    use crate::source::DataShares;
    // The envelopes: the counts the shares multiply.
    let with = |shares: DataShares| {
        let mut s = sources.to_vec();
        s.iter_mut()
            .for_each(|s| s.data_shares = Some(shares.clone()));
        ProgramModel::build_all(binary, &s, mira_compat)
    };
    let program = with(DataShares::Recording);
    let run = program.run(binary, binding)?;
    let mut out = Vec::new();
    let functions = program.functions.iter().zip(&run.blocks).zip(measured);
    for ((((i, m), predicted), measured), contexts) in functions.zip(&run.contexts) {
        let follows_data =
            |start: u64| matches!(&m.calibration, Some(Ok(c)) if c.data_dependent.contains(&start));
        let function = &binary.functions[*i];
        let share = |block: u64, share: f64, over_model: bool| DataShare {
            function: function.symbol.clone(),
            code: function.code_hash(),
            block,
            share,
            over_model,
            at: None,
        };
        for (b, block) in m.cfg.blocks.iter().enumerate() {
            let (p, x) = (predicted[b], measured[b]);
            let by_mean = m.by_data_mean.contains(&b);
            if (by_mean || follows_data(block.start)) && p.is_finite() && p > 0.0 {
                out.push(share(block.start, x / p, by_mean));
            }
        }
        out.extend(
            unfitted_differences(m, contexts, predicted, measured).map(|(b, at)| DataShare {
                at: Some(at),
                ..share(m.cfg.blocks[b].start, measured[b] - predicted[b], true)
            }),
        );
    }
    // The model's counts of the blocks past their envelope: shares of 1 over the model.
    let past = |s: &DataShare| !s.over_model && s.share > 1.0 + 1e-9;
    let at_model: Vec<DataShare> = (out.iter().filter(|s| past(s)))
        .map(|s| DataShare {
            share: 1.0,
            over_model: true,
            ..s.clone()
        })
        .collect();
    if at_model.is_empty() {
        return Ok(out);
    }
    let model = with(DataShares::Profile(at_model));
    let counts = model.run(binary, binding)?.blocks;
    for (((i, m), counts), measured) in model.functions.iter().zip(&counts).zip(measured) {
        let symbol = &binary.functions[*i].symbol;
        for (b, block) in m.cfg.blocks.iter().enumerate() {
            let mine = |s: &&mut DataShare| &s.function == symbol && s.block == block.start;
            let s = out.iter_mut().filter(|s| past(s)).find(mine);
            if let Some(s) = s.filter(|_| counts[b].is_finite() && counts[b] > 0.0) {
                s.share = measured[b] / counts[b];
                s.over_model = true;
            }
        }
    }
    Ok(out)
}

/// The blocks of `m` no combination of the sizes fits (`calibrate` counts them by the model's
/// rules or the closest combination) that ran otherwise than they count, with the binding of
/// `m`'s parameters they ran at: where `m` was entered in one context only (the run's counts
/// are of that binding alone).
fn unfitted_differences<'a>(
    m: &'a crate::model::FunctionModel,
    contexts: &[Binding],
    predicted: &'a [f64],
    measured: &'a [f64],
) -> impl Iterator<Item = (usize, Binding)> + 'a {
    let unfitted: &[u64] = match &m.calibration {
        Some(Ok(c)) if contexts.len() == 1 => &c.unfitted,
        _ => &[],
    };
    let parameters = m.parameters();
    let at: Option<Binding> = contexts.first().and_then(|local| {
        let named = |p: &String| Some((p.clone(), *local.get(p)?));
        parameters.iter().map(named).collect()
    });
    m.cfg
        .blocks
        .iter()
        .enumerate()
        .filter_map(move |(b, block)| {
            let (p, x) = (predicted[b], measured[b]);
            let differs = p.is_finite() && (x - p).abs() > 1e-9;
            (unfitted.contains(&block.start) && differs).then(|| Some((b, at.clone()?)))?
        })
}

fn probability(source: &SourceModel, probe: Probe, p: f64) -> BranchProbability {
    let (line, function, kind) = if probe.conditional {
        let c = &source.conditionals[probe.index];
        (c.line, c.function.clone(), "?:")
    } else {
        let f = &source.ifs[probe.index];
        (f.line, f.function.clone(), "if")
    };
    let lines = branch_lines(source, probe.conditional);
    let on_line = |k: &usize| lines[*k] == line;
    let nth = (0..probe.index).filter(on_line).count() as u32;
    let several = (0..lines.len()).filter(on_line).count() > 1;
    BranchProbability {
        file: file_name(&source.file),
        line,
        kind: kind.to_string(),
        function,
        probability: p,
        nth: several.then_some(nth),
    }
}

/// The line of each `?:` (`conditional`) or each `if` of `source`, in source order.
fn branch_lines(source: &SourceModel, conditional: bool) -> Vec<u32> {
    if conditional {
        source.conditionals.iter().map(|c| c.line).collect()
    } else {
        source.ifs.iter().map(|f| f.line).collect()
    }
}

fn measured_blocks(binary: &Binary, program: &ProgramModel, counts: &ObjectCounts) -> Measured {
    let bias = load_bias(binary, counts);
    program
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
        .unzip()
}

/// The probability of `probe` that gives the run's instruction count, the other branches at
/// their probabilities in `current`: with the branch at 1 and at 0, the blocks whose
/// predicted executions differ are its arms; `None` when it has none (or they did not run).
fn estimate(
    binary: &Binary,
    current: &[SourceModel],
    probe: Probe,
    mira_compat: bool,
    binding: &Binding,
    (measured, sizes): &Measured,
) -> Result<Option<f64>> {
    let mut at = current.to_vec();
    set(&mut at, probe, 1.0);
    let at1 = predicted(binary, &at, mira_compat, binding)?;
    set(&mut at, probe, 0.0);
    let at0 = predicted(binary, &at, mira_compat, binding)?;
    let (mut taken, mut span) = (0.0, 0.0);
    // Least squares over the blocks that depend on it, each weighted by its instructions:
    // a block's count is linear in `p`, `p0 + p (p1 - p0)`. (Matching the instruction total
    // alone cannot tell an outer arm from the arms nested in its other side.)
    for (((b1, b0), m), n) in at1.iter().zip(&at0).zip(measured).zip(sizes) {
        for (((p1, p0), x), n) in b1.iter().zip(b0).zip(m).zip(n) {
            if p1.is_finite() && p0.is_finite() && (p1 - p0).abs() > 1e-9 {
                taken += n * (x - p0) * (p1 - p0);
                span += n * (p1 - p0) * (p1 - p0);
            }
        }
    }
    Ok((span > 1e-9).then(|| (taken / span).clamp(0.0, 1.0)))
}

/// The libm error paths' probabilities, per source line: executions of the error blocks over
/// those of their tests (`measured`: callgrind's executions of each block).
fn error_paths(
    binary: &Binary,
    program: &ProgramModel,
    measured: &[Vec<f64>],
) -> Vec<BranchProbability> {
    use std::collections::BTreeMap;
    let mut sums: BTreeMap<(String, u32), (f64, f64, String)> = BTreeMap::new();
    for ((i, m), runs) in program.functions.iter().zip(measured) {
        for path in &m.error_paths {
            let Some(at) = &path.position else { continue };
            let key = (file_name(Path::new(&at.file)), at.line);
            let entry = sums
                .entry(key)
                .or_insert_with(|| (0.0, 0.0, binary.functions[*i].source_name().to_string()));
            entry.0 += runs[path.error];
            entry.1 += runs[path.decide];
        }
    }
    sums.into_iter()
        .filter(|(_, (_, tests, _))| *tests > 0.0)
        .map(
            |((file, line), (taken, tests, function))| BranchProbability {
                file,
                line,
                kind: crate::assumption::BranchKind::LibmErrorPath
                    .profile_name()
                    .to_string(),
                function,
                probability: (taken / tests).clamp(0.0, 1.0),
                nth: None,
            },
        )
        .collect()
}

/// The file a branch of `profile` belongs to.
fn file_of<'a>(profile: &'a BranchProfile, b: &'a BranchProbability) -> &'a str {
    if b.file.is_empty() {
        profile.source.as_deref().unwrap_or("")
    } else {
        &b.file
    }
}

/// Gives the profile's probabilities to `source`'s branches at its lines that have neither
/// an affine condition nor a `br_prob` annotation (an annotation is the user's word), and to
/// its libm error paths.
pub fn apply(source: &mut SourceModel, profile: &BranchProfile) {
    crate::loop_profile::apply(source, &profile.loops);
    // Shares name the binary's functions, whatever file they come from.
    source.data_shares = Some(crate::source::DataShares::Profile(profile.shares.clone()));
    let own = file_name(&source.file);
    for b in profile
        .branches
        .iter()
        .filter(|b| file_of(profile, b) == own)
    {
        if b.kind == crate::assumption::BranchKind::LibmErrorPath.profile_name() {
            source.error_paths.insert(b.line, b.probability);
        } else {
            let conditional = b.kind == "?:";
            let lines = branch_lines(source, conditional);
            let on_line = (0..lines.len()).filter(|&k| lines[k] == b.line);
            for (nth, k) in on_line.enumerate() {
                if b.nth.is_some_and(|n| n as usize != nth) {
                    continue;
                }
                let (condition_known, probability) = if conditional {
                    let c = &mut source.conditionals[k];
                    (c.condition.is_ok(), &mut c.probability)
                } else {
                    let f = &mut source.ifs[k];
                    (f.condition.is_ok(), &mut f.probability)
                };
                if !condition_known && probability.is_none() {
                    *probability = Some(b.probability);
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

/// Reads a profile, checking its format and that it was recorded for one of `source_files`.
pub fn load(path: &Path, source_files: &[&Path]) -> Result<BranchProfile> {
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
    if profile.format != FORMAT && profile.format != FORMAT_1 {
        return Err(bad(
            1,
            format!("format `{}`, expected `{FORMAT}`", profile.format),
        ));
    }
    // Values a run cannot record: a hand-edited or damaged profile, refused rather than
    // counted (a share of -3 would count negative executions).
    let probabilities = profile
        .branches
        .iter()
        .map(|b| ("probability", b.probability));
    // A share measured at one binding is a difference to the model's count: of either sign.
    let shares = (profile.shares.iter()).map(|s| {
        (
            if s.at.is_some() {
                "difference"
            } else {
                "share"
            },
            s.share,
        )
    });
    let means = profile.loops.iter().map(|l| ("mean", l.mean));
    for (what, v) in probabilities.chain(shares).chain(means) {
        let in_range = v.is_finite()
            && (what == "difference" || v >= 0.0)
            && (what != "probability" || v <= 1.0);
        if !in_range {
            let range = match what {
                "probability" => "in [0, 1]",
                "difference" => "finite",
                _ => "finite, >= 0",
            };
            return Err(bad(
                1,
                format!("a {what} of {v}, expected a number {range}"),
            ));
        }
    }
    let recorded: Vec<&str> = match &profile.source {
        Some(s) => vec![s.as_str()],
        None => profile.sources.iter().map(String::as_str).collect(),
    };
    let analysed: Vec<String> = source_files.iter().map(|f| file_name(f)).collect();
    if !recorded.iter().any(|r| analysed.iter().any(|a| a == r)) {
        return Err(bad(
            1,
            format!(
                "recorded for `{}`, not for `{}`",
                recorded.join("`, `"),
                analysed.join("`, `")
            ),
        ));
    }
    Ok(profile)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile_text(probability: f64, share: f64) -> String {
        format!(
            r#"{{"format": "{FORMAT}", "sources": ["k.c"],
              "branches": [{{"file": "k.c", "line": 3, "kind": "if", "function": "k",
                             "probability": {probability}}}],
              "shares": [{{"function": "k", "code": 1, "block": 16, "share": {share}}}]}}"#
        )
    }

    fn load_text(text: &str) -> Result<BranchProfile> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.json");
        std::fs::write(&path, text).unwrap();
        load(&path, &[Path::new("src/k.c")])
    }

    #[test]
    fn a_profile_with_values_no_run_records_is_refused_with_its_file() {
        let ok = load_text(&profile_text(0.25, 0.5)).unwrap();
        assert_eq!(ok.shares[0].share, 0.5);
        assert!(!ok.shares[0].over_model, "absent field reads as false");
        for (p, s, what) in [(1.5, 0.5, "probability"), (0.5, -3.0, "share")] {
            let e = load_text(&profile_text(p, s)).unwrap_err().to_string();
            assert!(e.contains("p.json") && e.contains(what), "{e}");
        }
    }
}
