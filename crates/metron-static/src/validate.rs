//! Validation (004 §IV, with callgrind where Mira used TAU/PAPI): run the program under
//! `valgrind --tool=callgrind --dump-instr=yes`, join its per-instruction counts with the
//! disassembly, and compare with the model per function, loop and category.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use metron_measure::counters::CounterSet;
use metron_measure::runner::{run_once, OutputPolicy};
use metron_measure::valgrind;

use metron_symbolic::Binding;
use serde::Serialize;

use crate::binary::{Binary, Function};
use crate::callgrind::{ObjectCounts, Profile};
use crate::category::{Architecture, Counts};
use crate::error::{Result, StaticError};
use crate::model::FunctionModel;

pub use metron_measure::tool::VALGRIND;

/// Runs `binary args...` under callgrind and returns the profile. A clang binary whose DWARF 5
/// valgrind cannot read is run as a copy without debug information (`metron_measure::valgrind`);
/// its counts are filed under `binary`.
pub fn run_callgrind(binary: &Path, args: &[String], out_dir: &Path) -> Result<Profile> {
    // valgrind looks a bare name up on PATH; the user meant the file here.
    let binary = &std::fs::canonicalize(binary).map_err(|source| StaticError::Read {
        path: binary.to_path_buf(),
        source,
    })?;
    let out: PathBuf = out_dir.join("callgrind.out");
    let tool_args = [
        "--tool=callgrind".to_string(),
        "--dump-instr=yes".into(),
        "--compress-strings=no".into(),
        format!("--callgrind-out-file={}", out.display()),
    ];
    // Eager binding: with lazy binding the first call of each libc function also runs the
    // PLT's resolver path (4 instructions charged to the caller), a once-per-symbol start-up
    // cost of ld.so that is not the program's.
    let env = [("LD_BIND_NOW".to_string(), "1".to_string())];
    let run = valgrind::run(&valgrind::Invocation {
        tool_args: &tool_args,
        program: binary,
        args,
        env: &env,
        work: out_dir,
    })
    .map_err(|e| match e {
        valgrind::ValgrindError::Tool(t) => StaticError::Tool(t),
        other => StaticError::Run(other.to_string()),
    })?;
    if !run.exit.success() {
        return Err(StaticError::Run(format!(
            "`{} {}` under callgrind exited with status {}",
            binary.display(),
            args.join(" "),
            run.exit.status()
        )));
    }
    let mut profile = Profile::load(&out)?;
    if run.ran_copy(binary) {
        profile.rename_object(&run.ran, binary);
    }
    Ok(profile)
}

/// A hardware count of the whole run next to callgrind's (004 validated Mira with PAPI).
#[derive(Debug, Clone, Serialize)]
pub struct PerfCheck {
    /// User-space instructions of one native run (`instructions:u`), or why there is none.
    pub instructions_user: std::result::Result<f64, String>,
    /// Callgrind's total for the whole run (all objects: the program, ld.so, libc...).
    pub callgrind_total: Option<u64>,
}

impl PerfCheck {
    /// Relative difference of the two whole-run totals, in percent.
    pub fn difference_percent(&self) -> Option<f64> {
        let perf = *self.instructions_user.as_ref().ok()?;
        Some(error_percent(self.callgrind_total? as f64, perf))
    }
}

/// Runs `binary args...` natively once with the PMU's user-space instruction counter.
pub fn perf_check(binary: &Path, args: &[String], profile: &Profile) -> Result<PerfCheck> {
    use metron_measure::counters::INSTRUCTIONS_USER;
    let set = CounterSet::open(&[INSTRUCTIONS_USER]);
    let callgrind_total = profile.total;
    if let Some(note) = set.availability().notes().first() {
        return Ok(PerfCheck {
            instructions_user: Err(note.clone()),
            callgrind_total,
        });
    }
    let mut argv = vec![binary.display().to_string()];
    argv.extend(args.iter().cloned());
    let outcome = run_once(&argv, OutputPolicy::Discard, &set)
        .map_err(|e| StaticError::Run(format!("{} could not run: {e}", binary.display())))?;
    let value = outcome
        .counters
        .iter()
        .find(|c| c.name == INSTRUCTIONS_USER.name)
        .map(|c| c.value)
        .ok_or_else(|| "the counter opened but gave no value".to_string());
    Ok(PerfCheck {
        instructions_user: value,
        callgrind_total,
    })
}

/// Run-time minus static address of the binary's code (non-zero for PIE): the most common
/// page-aligned offset between callgrind's function starts and the symbols of the same name.
pub fn load_bias(binary: &Binary, counts: &ObjectCounts) -> u64 {
    let mut first: BTreeMap<&str, u64> = BTreeMap::new();
    for (addr, name) in &counts.function_of {
        first.entry(name.as_str()).or_insert(*addr);
    }
    let mut votes: BTreeMap<u64, usize> = BTreeMap::new();
    for f in &binary.functions {
        if let Some(&a) = first
            .get(f.symbol.as_str())
            .or_else(|| first.get(f.name.as_str()))
        {
            let bias = a.wrapping_sub(f.address);
            if bias % 0x1000 == 0 {
                *votes.entry(bias).or_default() += 1;
            }
        }
    }
    votes
        .into_iter()
        .max_by_key(|(_, n)| *n)
        .map_or(0, |(b, _)| b)
}

/// Measured executions of each instruction of `function`.
pub fn measured_per_instruction(function: &Function, counts: &ObjectCounts, bias: u64) -> Vec<f64> {
    function
        .instructions
        .iter()
        .map(|i| {
            counts
                .instructions
                .get(&i.address.wrapping_add(bias))
                .copied()
                .unwrap_or(0) as f64
        })
        .collect()
}

/// Predicted against measured for one region.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub region: String,
    pub predicted: Counts,
    pub measured: Counts,
    /// Why the prediction could not be evaluated (the others are still compared).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unevaluated: Option<String>,
}

impl Comparison {
    /// Relative error of the totals in percent.
    pub fn total_error_percent(&self) -> f64 {
        error_percent(self.predicted.total, self.measured.total)
    }

    /// Category -> (predicted, measured, error %), for categories holding at least `share`
    /// of the measured instructions.
    pub fn categories(&self, share: f64) -> Vec<(String, f64, f64, f64)> {
        self.measured
            .by_category
            .iter()
            .filter(|(_, m)| **m >= share * self.measured.total)
            .map(|(k, m)| {
                let p = self.predicted.by_category.get(k).copied().unwrap_or(0.0);
                (k.clone(), p, *m, error_percent(p, *m))
            })
            .collect()
    }
}

pub fn error_percent(predicted: f64, measured: f64) -> f64 {
    if measured == 0.0 {
        if predicted == 0.0 {
            0.0
        } else {
            f64::INFINITY
        }
    } else {
        100.0 * (predicted - measured).abs() / measured
    }
}

/// Compares one modelled function (and each of its loops) with callgrind's counts, given the
/// predicted executions of each of its blocks in the run.
pub fn compare_function(
    function: &Function,
    model: &FunctionModel,
    arch: &Architecture,
    predicted_blocks: &[f64],
    counts: &ObjectCounts,
    bias: u64,
) -> Vec<Comparison> {
    let measured = measured_per_instruction(function, counts, bias);
    let measured_counts = |only: Option<&std::collections::BTreeSet<usize>>| {
        let mut c = Counts::default();
        for (b, block) in model.cfg.blocks.iter().enumerate() {
            if only.is_some_and(|o| !o.contains(&b)) {
                continue;
            }
            let range = block.first..block.end;
            for (ins, m) in function.instructions[range.clone()]
                .iter()
                .zip(&measured[range])
            {
                c.add(arch, ins, *m);
            }
        }
        c
    };
    let mut out = vec![Comparison {
        region: function.display_name(),
        predicted: model.counts(function, arch, predicted_blocks, None),
        measured: measured_counts(None),
        unevaluated: None,
    }];
    for l in &model.loops {
        out.push(Comparison {
            region: format!(
                "{} loop@0x{:x}{}",
                function.display_name(),
                l.header_address,
                l.source_line
                    .map_or(String::new(), |s| format!(" (line {s})"))
            ),
            predicted: model.counts(function, arch, predicted_blocks, Some(&l.blocks)),
            measured: measured_counts(Some(&l.blocks)),
            unevaluated: None,
        });
    }
    out
}

/// Compares every modelled function of the program (004 §III.C.5: each function's blocks
/// summed over the call contexts reached from `main`).
pub fn compare_program(
    binary: &Binary,
    program: &crate::program::ProgramModel,
    arch: &Architecture,
    binding: &Binding,
    counts: &ObjectCounts,
) -> Result<Vec<Comparison>> {
    let bias = load_bias(binary, counts);
    let run = program.run(binary, binding)?;
    let mut out = Vec::new();
    for (((i, m), blocks), why) in program
        .functions
        .iter()
        .zip(&run.blocks)
        .zip(&run.unevaluated)
    {
        let mut rows = compare_function(&binary.functions[*i], m, arch, blocks, counts, bias);
        if let Some(e) = why {
            for r in &mut rows {
                r.unevaluated = Some(e.to_string());
            }
        }
        out.extend(rows);
    }
    Ok(out)
}
