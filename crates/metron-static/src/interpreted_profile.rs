//! A branch profile recorded without running the program natively: `main` interpreted
//! (`calibrate::program_run`) at the user's sizes, its counts read as callgrind's would be
//! (`branch_profile::record_all`). Where no profile is given, a count that follows data
//! (004 §III.C.4's `br_prob`; a loop bounded by data) then takes the odds of the data the
//! program computes itself, instead of even odds or no number at all. Programs whose data the
//! interpreter cannot follow (input from files, instructions it does not model) get no such
//! profile and keep the even odds, flagged as before.

use metron_symbolic::Binding;
use serde::{Deserialize, Serialize};

use crate::binary::Binary;
use crate::branch_profile::BranchProfile;
use crate::program::ProgramModel;
use crate::source::SourceModel;

/// Instructions the interpreted run may take (the interpreter runs 30-80M a second).
pub const BUDGET: usize = 40_000_000;
/// Halvings of the sizes tried to bring the run within [`BUDGET`].
const HALVINGS: usize = 12;
/// The smallest a size is halved to.
const SMALLEST: i64 = 4;

/// What the interpreted run was, for the report.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct InterpretedProfile {
    /// The sizes `main` ran at: the user's, halved until the run fits the budget.
    pub sizes: Binding,
    /// Branches, loop-bound means and block shares the run recorded.
    pub branches: usize,
    pub loop_bounds: usize,
    pub shares: usize,
}

/// The profile of one interpreted run of `main` at `sizes` (halved where the model says the
/// run would be too long), when the program has counts that follow data and every size `main`
/// reads from its command line is given.
pub fn record(
    binary: &Binary,
    sources: &[SourceModel],
    program: &ProgramModel,
    mira_compat: bool,
    sizes: &Binding,
) -> Option<(BranchProfile, InterpretedProfile)> {
    if !follows_data(sources, program) {
        return None;
    }
    let (i, _) = program.functions.get(program.main(binary)?)?;
    let main = &binary.functions[*i];
    let defines_main = |s: &&SourceModel| s.functions.iter().any(|f| f.name == "main");
    let inputs = sources
        .iter()
        .find(defines_main)
        .map_or(&[][..], |s| &s.inputs);
    if inputs.iter().any(|input| !sizes.contains_key(&input.name)) {
        return None;
    }
    let at = within_budget(binary, program, sizes, inputs);
    // Recording builds the model a dozen times: a warm analysis reads what the last one found.
    let cache = cache_entry(binary, sources, mira_compat, &at);
    if let Some(found) = cache.as_ref().and_then(|c| c.load()) {
        return found;
    }
    let found = (|| {
        let counts = crate::calibrate::program_run(binary, main, inputs, &at, BUDGET)?;
        let recorded =
            crate::branch_profile::record_all(binary, sources, mira_compat, &at, &counts);
        if let (Err(e), Some(_)) = (&recorded, std::env::var_os("METRON_CALIBRATE_TRACE")) {
            eprintln!("interpreted profile: not recorded: {e}");
        }
        let profile = recorded.ok()?;
        let summary = InterpretedProfile {
            sizes: at.clone(),
            branches: profile.branches.len(),
            loop_bounds: profile.loops.len(),
            shares: profile.shares.len(),
        };
        let empty = summary.branches + summary.loop_bounds + summary.shares == 0;
        (!empty).then_some((profile, summary))
    })();
    if let Some(c) = cache {
        let files = sources.iter().map(|s| s.file.display().to_string());
        c.store(&found, &files.collect());
    }
    found
}

/// The analysis cache's entry for the profile of this machine code and read-only data,
/// these sources (their files stamped) and sizes.
fn cache_entry(
    binary: &Binary,
    sources: &[SourceModel],
    mira_compat: bool,
    sizes: &Binding,
) -> Option<crate::ast_cache::Entry> {
    let mut key = vec![u8::from(mira_compat)];
    for f in &binary.functions {
        key.extend(f.address.to_le_bytes());
        key.extend(f.code_hash().to_le_bytes());
    }
    for (address, data) in &binary.read_only {
        key.extend(address.to_le_bytes());
        key.extend(data);
    }
    for s in sources {
        key.extend(s.file.display().to_string().as_bytes());
        key.push(0);
    }
    for (name, value) in sizes {
        key.extend(name.as_bytes());
        key.extend(value.to_le_bytes());
    }
    crate::ast_cache::Entry::for_bytes("interpreted-profile", &key)
}

/// Whether some count follows data with no odds given (a branch without `br_prob`, a block
/// the runs saw follow the data, a loop bounded by data without its mean) or no combination
/// of the sizes fits it (the run measures it at the sizes asked).
fn follows_data(sources: &[SourceModel], program: &ProgramModel) -> bool {
    let unbound_loop = sources
        .iter()
        .flat_map(|s| &s.loops)
        .any(|l| l.data_bound.as_ref().is_some_and(|d| d.mean.is_none()));
    unbound_loop
        || program.functions.iter().any(|(_, m)| {
            m.assumptions.iter().any(|a| a.probability.is_none())
                || matches!(&m.calibration, Some(Ok(c))
                    if !c.data_dependent.is_empty() || !c.unfitted.is_empty())
        })
}

/// `sizes` with `main`'s inputs halved until the model's count of the whole run is within
/// the budget (as given when the model cannot say: the run's own budget stops it).
fn within_budget(
    binary: &Binary,
    program: &ProgramModel,
    sizes: &Binding,
    inputs: &[crate::source::ProgramInput],
) -> Binding {
    let mut at = sizes.clone();
    for _ in 0..HALVINGS {
        let Some(n) = instructions(binary, program, &at) else {
            return at;
        };
        if n <= BUDGET as f64 {
            return at;
        }
        for input in inputs {
            if let Some(v) = at.get_mut(&input.name) {
                *v = (*v / 2).max(SMALLEST.min(*v));
            }
        }
    }
    at
}

/// The model's instructions for one run of the program at `binding`.
fn instructions(binary: &Binary, program: &ProgramModel, binding: &Binding) -> Option<f64> {
    let run = program.run(binary, binding).ok()?;
    let total = (program.functions.iter().zip(&run.blocks))
        .flat_map(|((_, m), counts)| {
            m.cfg
                .blocks
                .iter()
                .zip(counts)
                .map(|(b, n)| n * (b.end - b.first) as f64)
        })
        .sum::<f64>();
    total.is_finite().then_some(total)
}
