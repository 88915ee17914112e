//! Block counts checked by running the machine code (issue 12, item 3: "derive every block's
//! count from the binary", not from what the examples happened to produce).
//!
//! The model counts each block from the source nest (004 §III.C) and from rules about how
//! compilers copy loops (`loop_copy`). Where a rule is wrong, the binary says so when it
//! runs: [`Machine`](crate::loop_copy::machine::Machine) runs the function's integer control
//! from its entry ([`run`]) at a dozen small sizes (the loop-bound parameters drawn at
//! random, every other argument a distinct aligned address; array contents and floating
//! point unknown), and counts every block's visits. A
//! block whose model disagrees with a run is refitted: its count becomes the sparsest
//! combination of structural counts that matches every run exactly, taken from
//! - the counts of the blocks whose model agreed with every run (the model's own terms:
//!   vector passes `floor(n/8)`, guards `n >= 8`), and
//! - the source nest's quantities for each loop: its iterations, its entries, and the
//!   entries on which it runs at least once (004 §III.C.2, counted by metron-symbolic).
//!
//! The result stays a parametric model (the combination is symbolic, evaluated at any size).
//! Where the runs cannot decide, the model is left as it was: a branch on a value the machine
//! does not know (data-dependent control), fewer finished runs than [`MIN_SAMPLES`], no
//! combination of at most [`MAX_TERMS`] terms, or a split part or clone whose arguments DWARF
//! does not place (`calibrate/passing.rs`).
//! `METRON_CALIBRATE_TRACE=1` prints each block no combination fits, with its runs, and the
//! block a run was in when it went over its budget;
//! `METRON_CALIBRATE_BLOCK=0xADDR` prints one block's runs each time it is refitted;
//! `METRON_CALIBRATE_TERMS=1` prints every term of each basis with its values at the runs;
//! `METRON_CALIBRATE=off` leaves every function to the rules (what large fixed sizes get).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use metron_symbolic::{
    Binding, Bound, Constraint, CountOptions, Derived, Guard, LinExpr, Piecewise, Rational,
};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{Signed, Zero};
use serde::{Deserialize, Serialize};

mod alias;
mod bound_piece;
mod command_line;
mod conditioned;
mod frames;
mod layout;
mod memo;
mod passing;
mod program_run;
mod remainder;
mod residues;
mod run;
mod screen;
mod split;
mod unswitched;
mod versioned;

use crate::binary::Function;
use crate::cfg::Cfg;
use crate::loop_copy::machine::{Callee, Callees, Library};
use crate::source::{ProgramInput, SourceFunction, SourceModel};
pub use program_run::program_run;
use run::{run, Run, Way};
use screen::{solve_f64, Screen};

/// Sample runs tried per function, and how many must finish for a refit.
const SAMPLES: usize = 18;
/// Further runs, at other sizes, that every count must also match: a refit that fits the
/// samples by coincidence (many terms, few runs with `n > m`) fails them and is fitted
/// again on all runs. These many are drawn at large sizes, after each size's sweep through
/// [`CHECK_SMALL`].
const CHECKS: usize = 8;
pub const MIN_SAMPLES: usize = 7;
/// Instructions one run may execute, and all runs of a function together.
const RUN_BUDGET: usize = 1_000_000;
const TOTAL_BUDGET: usize = 4_000_000;
/// Instructions one run of a function with fixed sizes may take. Sizes a compiler fixed (a
/// `.constprop` clone at a benchmark's size, a suite's dataset) cannot be made smaller, and
/// past the budget only the copy rules count. The interpreter runs 30-80M instructions/s on
/// compiled loops (`docs/static-accuracy-history.md`, "the interpreter"): a cold analysis of a
/// function this large takes seconds, as callgrind would.
const FIXED_BUDGET: usize = 256_000_000;
/// A fixed-size function runs in the mirrored order too (the blocks of alias tests) only
/// when its first run took at most this many instructions.
const MIRRORED_FIXED: usize = 64_000_000;
/// How far past [`FIXED_BUDGET`] the model may count before a fixed-size run is not tried.
const MODEL_SLACK: usize = 4;
/// The sizes drawn for the loop-bound parameters: small ones, and the rest.
const SMALL: std::ops::RangeInclusive<i64> = 1..=4;
const SIZES: std::ops::RangeInclusive<i64> = 5..=40;
/// The sizes each parameter is swept through in the checks: past the thresholds of guards
/// and the copies of short unrolled loops.
const CHECK_SMALL: std::ops::RangeInclusive<i64> = 1..=8;
/// The largest size a check runs at ([`far_points`]).
const FAR: i64 = 64;
/// Instructions a deep nest's run may spend per iteration of its innermost body, to narrow
/// [`SIZES`] so that `size^depth` iterations fit in a run.
const PER_ITERATION: f64 = 16.0;
/// Most structural counts one refitted block combines.
pub const MAX_TERMS: usize = 3;

/// Combinations confirmed exactly at most in one fit, past which the block is left unfitted
/// (the interpreted run's count stands). Nearly every combination of a basis that the runs
/// do not tell apart (nest 3215 at gcc -O3: 505 terms, 18 runs) passes the screen, and each
/// exact solve is refused in the end: 31,275 solves per block, ten minutes a function. The
/// successful fits of the generated nests at -O3 took at most 619.
const EXACT_CHECKS: usize = 4096;

/// What the runs found for one function.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Calibration {
    /// Runs that finished (the refits match every one).
    pub samples: usize,
    /// Blocks whose model disagreed with a run, and what they count now.
    pub refitted: Vec<Refit>,
    /// Blocks whose model disagreed with a run and that no combination fits on all runs:
    /// left as they were, or as the first samples alone fitted them (also in `refitted`).
    pub unfitted: Vec<u64>,
    /// Among `unfitted`, those that count the combination closest to the runs (least
    /// squares), which was much closer than the model's count: approximations.
    #[serde(default)]
    pub approximated: Vec<u64>,
    /// Blocks whose counts changed with the order of the arrays in memory (alias tests):
    /// counted for arrays that do not overlap, at ascending addresses in the order the
    /// caller allocates them ([`Calibration::array_order`]), and no term for other blocks.
    pub address_dependent: Vec<u64>,
    /// With address-dependent blocks, the array arguments as the runs laid them out, lowest
    /// address first (empty for `main`, whose runs allocate as it does).
    #[serde(default)]
    pub array_order: Vec<String>,
    /// Blocks whose counts changed with the way the branches on data went (every one taken,
    /// then none: the runs do not know the data): left as the model counts them, with its
    /// `br_prob` or branch profile, and no term for other blocks.
    #[serde(default)]
    pub data_dependent: Vec<u64>,
}

impl Calibration {
    /// Before any refit: the blocks counted with a data bound's recorded mean follow data,
    /// whatever the data of the runs (`main`'s own).
    fn start(target: &Target, samples: usize) -> Self {
        let starts = target
            .by_data_mean
            .iter()
            .map(|&b| target.cfg.blocks[b].start);
        Calibration {
            samples,
            data_dependent: starts.collect(),
            ..Default::default()
        }
    }

    /// Whether the runs leave block `start`'s count to the model (alias tests, data).
    fn left_to_model(&self, start: u64) -> bool {
        self.address_dependent.contains(&start) || self.data_dependent.contains(&start)
    }
}

/// Branches the runs cannot decide but the model assumes (a libm error path not taken):
/// the successor to follow, and the blocks whose counts rest on the assumption, which the
/// runs neither check nor use.
#[derive(Debug, Clone, Default)]
pub struct Assumed {
    pub take: HashMap<usize, usize>,
    pub fixed: BTreeSet<usize>,
}

/// What the runs found, or why there were none to find it.
pub type Checked = Result<Calibration, NotChecked>;

/// Why a function's counts were not checked against runs (they are the rules' alone).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NotChecked {
    /// A compiler-made split part (`.part`, `.cold`: it starts inside the function), or a
    /// clone (`.constprop`, `.isra`) whose arguments DWARF does not place in registers.
    Clone,
    /// A loop bound or count names something that is no integer parameter of the function
    /// (a value read from data, `main`'s `argv`).
    NoSizeParameter,
    /// A loop bound names a parameter passed in a floating-point register.
    FloatingBound,
    /// A run stopped at this address: a branch on a value the machine cannot know (data, a
    /// call's result, floating point), an indirect jump or a trap.
    Stopped { at: u64 },
    /// Too few runs finished within the budget (the nest is deep, or its fixed sizes large).
    OverBudget { needed: usize, finished: usize },
    /// `METRON_CALIBRATE=off`: the rules' counts alone, as a function whose runs go over
    /// their budget gets them (to measure the rules by themselves).
    TurnedOff,
}

impl std::fmt::Display for NotChecked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotChecked::Clone => write!(
                f,
                "a compiler-made split part, or a clone whose arguments DWARF does not place"
            ),
            NotChecked::NoSizeParameter => write!(f, "a loop bound is not an integer parameter"),
            NotChecked::FloatingBound => write!(f, "a loop bound is a floating-point parameter"),
            NotChecked::Stopped { at } => write!(
                f,
                "a run stopped at 0x{at:x} on a value it cannot know (data, a call's result or floating point)"
            ),
            NotChecked::OverBudget { needed, finished } => write!(
                f,
                "{finished} runs finished within the budget, {needed} needed"
            ),
            NotChecked::TurnedOff => write!(f, "turned off (METRON_CALIBRATE=off)"),
        }
    }
}

/// One refitted block.
#[derive(Debug, Clone, Serialize)]
pub struct Refit {
    pub block: usize,
    pub address: u64,
    /// The count the model had, and the one the runs gave.
    pub was: String,
    pub now: String,
}

/// Block visits of one finished run, and the parameter values it ran with.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Sample {
    values: Binding,
    visits: Vec<i64>,
    /// The visits with the arrays in the opposite order, for every other sample.
    mirrored: Option<Vec<i64>>,
    /// The visits with every branch on data going the other way (`visits` took them all),
    /// when the run met one.
    #[serde(default)]
    other_way: Option<Vec<i64>>,
    /// The arms of the branches on data those two runs met ([`arms_on_data`]): the blocks
    /// only a branch leads to, and those neither run visited (an arm only a mix of ways
    /// reaches: the `?:` inside another `?:`'s arm).
    #[serde(default)]
    arms_on_data: Vec<usize>,
}

/// The function to check, and what the model knows of it.
pub struct Target<'a> {
    pub binary: &'a crate::binary::Binary,
    pub function: &'a Function,
    pub cfg: &'a Cfg,
    pub source: &'a SourceModel,
    /// Trip counts derived from the parameters (steps and tiles that are parameters), in
    /// the order they are computed.
    pub derived: &'a [Derived],
    pub assumed: &'a Assumed,
    /// Blocks counted with a data-dependent loop bound's recorded mean (their model counts no
    /// longer name the bound's parameter).
    pub by_data_mean: &'a BTreeSet<usize>,
}

/// Checks `counts` (one per block of the target's CFG) against runs of its machine code and
/// refits the blocks they contradict; why not, when the runs cannot decide.
pub fn calibrate(target: &Target, counts: &mut [Piecewise]) -> Checked {
    turned_on()?;
    let Checks {
        out,
        runs,
        structural,
    } = memo::checked(target, counts, check)?;
    // Blocks on data count the runs' envelope where it is below the model's count at every
    // run ([`data_counts`]: a loop unrolled away); a `br_prob` the user wrote weighs the
    // model's count instead.
    let profiled = target.source.data_shares.is_some();
    if !out.data_dependent.is_empty() && (profiled || !has_br_prob(target.source)) {
        let basis = Basis::new(Vec::new(), &structural, &|c| runs.values(c));
        data_counts(target, &runs, &basis, counts, &out);
    }
    measured_where_no_fit(target, counts, &out);
    Ok(out)
}

/// What the runs found before a profile or `br_prob` weighs the blocks on data: the same
/// whatever the probabilities of branches, and kept by [`memo`].
#[derive(Clone)]
struct Checks {
    out: Calibration,
    runs: Runs,
    /// The structural terms (the envelopes of blocks on data are fitted from them).
    structural: Vec<Piecewise>,
}

/// Runs the target's machine code, refits the blocks the runs contradict and checks the
/// refits on further runs.
fn check(target: &Target, counts: &mut [Piecewise]) -> Result<Checks, NotChecked> {
    let Target {
        binary,
        function,
        cfg,
        source,
        derived,
        assumed,
        ..
    } = *target;
    let f = source
        .functions
        .iter()
        .find(|f| f.name == function.source_name())
        .ok_or(NotChecked::NoSizeParameter)?;
    let passing = passing::Passing::of(function, f)?;
    let Sizes {
        mut bounds,
        globals,
        inputs,
    } = bound_parameters(source, f, derived, counts, &binary.variables)?;
    // The machine code runs at the sizes the compiler fixed (the model counts there too).
    bounds.retain(|b| !passing.fixed.contains_key(b));
    if bounds.is_empty() && far_past_budget(cfg, counts) {
        return Err(NotChecked::OverBudget {
            needed: 1,
            finished: 0,
        });
    }
    let callees = callees(binary, function);
    let frames = frames::frames(source, f, function);
    // The terms of the basis come from the source with calls inside loops inlined.
    let inlined = frames::inlined_source(source, f, function);
    let terms_source = inlined.as_ref().unwrap_or(source);
    let subject = Subject {
        function,
        cfg,
        callees: &callees,
        f,
        assumed,
        bounds,
        globals,
        inputs,
        depth: deepest_nest(source, &frames),
        constants: constants(binary, function, &callees),
        layout: layout::Layout::of(source, f),
        passing,
        post_dominators: cfg.post_dominators(),
        compared: compared_constants(function),
    };
    let samples = cached_samples(&subject, Draw::Fit)?;
    if std::env::var_os("METRON_CALIBRATE_TRACE").is_some() {
        let at: Vec<&Binding> = samples.iter().map(|s| &s.values).collect();
        eprintln!("calibrate: {} runs at {at:?}", function.name);
    }
    let runs = Runs::new(derived, samples);
    let mut out = Calibration::start(target, runs.samples.len());
    let wrong = disagreeing(cfg, assumed, &runs, counts, &mut out);
    let modelled = counts.to_vec();
    let terms = Terms {
        source: terms_source,
        frames: &frames,
        thresholds: compare_thresholds(function),
        compared: compared_constants(function),
        structural: Default::default(),
        wide: Default::default(),
    };
    if !wrong.is_empty() {
        refit(&terms, cfg, assumed, &runs, counts, wrong, &mut out);
    }
    let runs = match runs.fixed() {
        true => runs,
        false => {
            let ctx = Recheck {
                terms: &terms,
                cfg,
                assumed,
                derived,
                modelled: &modelled,
            };
            recheck(&ctx, &subject, runs, counts, &mut out)
        }
    };
    if !out.address_dependent.is_empty() && subject.inputs.is_empty() {
        let array = |p: &str| !subject.bounds.iter().any(|b| b == p);
        out.array_order = subject.layout.order(f, array);
    }
    let structural = match out.data_dependent.is_empty() {
        true => Vec::new(),
        false => terms.structural().to_vec(),
    };
    Ok(Checks {
        out,
        runs,
        structural,
    })
}

/// Blocks no combination of the sizes fits (`unfitted`: counted by the model's rules, or by
/// the closest combination where that is much closer) take, where a profile measured them
/// (the interpreted run of the program at the user's sizes, or a recorded profile), what they
/// ran at exactly those sizes: a piece guarded by the binding of the function's parameters
/// adds the difference. Not a ratio carried to other sizes: one measured at one size was no
/// better there than the fit (nest 3011 at gcc -O3: 0.1% off at 20 x 20 by the fit, 1.4%
/// scaled by the ratio measured at 5 x 5). Only all of them: fixing some of a function's
/// unfitted blocks and not the others undoes errors that cancelled (nest 3001 at clang -O3:
/// 0.04% with none, 2.1% with the approximated ones alone).
fn measured_where_no_fit(target: &Target, counts: &mut [Piecewise], out: &Calibration) {
    let Some(crate::source::DataShares::Profile(all)) = &target.source.data_shares else {
        return;
    };
    let function = target.function;
    // A binding that names what the counts do not (a profile edited by hand, or of other
    // source) would leave the function unevaluated: it is passed over.
    let mut named: BTreeSet<String> = counts.iter().flat_map(|c| c.parameters()).collect();
    for d in target.derived {
        named.extend(d.inputs().into_iter().cloned());
    }
    for (b, block) in target.cfg.blocks.iter().enumerate() {
        if !out.unfitted.contains(&block.start) {
            continue;
        }
        let measured = all.iter().find(|s| {
            s.block == block.start
                && s.function == function.symbol
                && s.code == function.code_hash()
        });
        let Some((at, offset)) =
            measured.and_then(|s| Some((s.at.as_ref()?, Rational::from_float(s.share)?)))
        else {
            continue;
        };
        if !at.keys().all(|name| named.contains(name)) {
            continue;
        }
        let mut guard = Guard::always();
        for (name, value) in at {
            let at_value = LinExpr::symbol(name).minus(&LinExpr::integer(*value));
            guard.push(Constraint::zero(at_value));
        }
        let there = Piecewise::constant(1).scaled(&offset).restricted(&guard);
        counts[b] = Piecewise::sum([&counts[b], &there]);
    }
}

/// [`NotChecked::TurnedOff`] under `METRON_CALIBRATE=off`.
fn turned_on() -> Result<(), NotChecked> {
    match std::env::var_os("METRON_CALIBRATE").is_some_and(|v| v == "off") {
        true => Err(NotChecked::TurnedOff),
        false => Ok(()),
    }
}

/// Whether the model counts a fixed-size function so far past [`FIXED_BUDGET`] that its run
/// is not started. Only far: the copy rules can count twice what runs (tensor_contract at
/// clang -O3: 89M, 45M ran).
fn far_past_budget(cfg: &Cfg, counts: &[Piecewise]) -> bool {
    modelled_instructions(cfg, counts) > (MODEL_SLACK * FIXED_BUDGET) as f64
}

/// Whether the file gives any `if` or `?:` a `br_prob`.
fn has_br_prob(source: &SourceModel) -> bool {
    source.ifs.iter().any(|c| c.probability.is_some())
        || source.conditionals.iter().any(|c| c.probability.is_some())
}

/// The blocks whose counts disagree with the first runs; those whose counts the runs leave
/// to the model (alias tests, data) are noted in `out` instead.
fn disagreeing(
    cfg: &Cfg,
    assumed: &Assumed,
    runs: &Runs,
    counts: &[Piecewise],
    out: &mut Calibration,
) -> Vec<usize> {
    let mut wrong = Vec::new();
    for (b, count) in counts.iter().enumerate() {
        if assumed.fixed.contains(&b) {
            continue;
        }
        if runs.address_dependent(b) {
            out.address_dependent.push(cfg.blocks[b].start);
        }
        if out.data_dependent.contains(&cfg.blocks[b].start) {
            continue;
        }
        if runs.data_dependent(b) {
            out.data_dependent.push(cfg.blocks[b].start);
            continue;
        }
        if runs.values(count) != Some(runs.measured(b)) {
            wrong.push(b);
        }
    }
    wrong
}

/// With a branch profile, blocks whose counts follow data count their envelope (the larger
/// of the runs' counts with every branch on data taken and with none, fitted as any count;
/// the model's where none fits) times the share the profile recorded for them (1 while a
/// profile is recorded; a block of a profiled function without a share keeps its envelope,
/// a function without any keeps the model, [`crate::source::DataShares`]).
fn data_counts(
    target: &Target,
    runs: &Runs,
    terms: &Basis,
    counts: &mut [Piecewise],
    out: &Calibration,
) {
    let (function, cfg) = (target.function, target.cfg);
    let profiled = target.source.data_shares.is_some();
    let shares: Vec<&crate::source::DataShare> = match &target.source.data_shares {
        Some(crate::source::DataShares::Profile(all)) => all
            .iter()
            .filter(|s| s.function == function.symbol && s.code == function.code_hash())
            .collect(),
        _ => Vec::new(),
    };
    // A profile with no share of this code (of another build, or of none of its blocks)
    // leaves the model's counts, weighed by its probabilities per file:line.
    let unshared = shares.is_empty()
        && matches!(
            target.source.data_shares,
            Some(crate::source::DataShares::Profile(_))
        );
    // A loop bounded by data counts its bound's mean (`data_LINE`, `loop_profile`): a better
    // count than any envelope.
    let means: BTreeSet<&String> = target
        .source
        .loops
        .iter()
        .filter_map(|l| Some(&l.data_bound.as_ref()?.parameter))
        .collect();
    for (b, block) in cfg.blocks.iter().enumerate() {
        let by_mean = target.by_data_mean.contains(&b)
            || counts[b].parameters().iter().any(|p| means.contains(p));
        if !out.data_dependent.contains(&block.start) || by_mean || unshared {
            continue;
        }
        let share = shares.iter().find(|s| s.block == block.start);
        let share_of =
            |s: &&crate::source::DataShare| metron_symbolic::Rational::from_float(s.share);
        if let Some(r) = share.filter(|s| s.over_model).and_then(share_of) {
            counts[b] = counts[b].scaled(&r);
            continue;
        }
        let unseen = (!profiled).then(|| unseen_arm(cfg, runs, b, &counts[b]));
        if let Some(half) = unseen.flatten() {
            counts[b] = half;
            continue;
        }
        let envelope = runs.envelope(b);
        // An arm only a mix of ways reaches has no envelope: the model's count stays, weighed
        // by the profile's share of it.
        if envelope.iter().all(Zero::is_zero) {
            if let Some(r) = share.and_then(share_of) {
                counts[b] = counts[b].scaled(&r);
            }
            continue;
        }
        // Without a profile the envelope, an upper bound from the binary, is kept where it is
        // below the model's count (arms at even odds) at every run: there the model counts a
        // loop the compiler unrolled away. Not where taking every branch one way runs another
        // version of a loop than any real run would.
        let tighter = |model: Vec<BigInt>| envelope.iter().zip(&model).all(|(e, m)| e <= m);
        if !profiled && !runs.values(&counts[b]).is_some_and(tighter) {
            continue;
        }
        let rows: Vec<usize> = (0..envelope.len()).collect();
        let fit = match runs.fixed() {
            true => i64::try_from(&envelope[0]).ok().map(Piecewise::constant),
            false => terms.fit(&envelope, &rows, &runs.grid),
        };
        if let Some(fit) = fit {
            counts[b] = fit;
        }
        if let Some(r) = share.and_then(share_of) {
            counts[b] = counts[b].scaled(&r);
        }
    }
}

/// Block `b` at even odds where the model counted it in full but the runs show it one side
/// of a branch on data: none of its runs with the branches one way, the model's count with
/// them the other, in a loop whose header both ways run alike (no exit on data). gcc -O2
/// copies the code after a `?:` into each arm (saturate.c's `CLAMP`: two latches, one per
/// arm, and no block holding only an arm), so the arm rules find no arm and count both
/// latches every iteration; even odds are what they give an arm they find. `None` otherwise.
fn unseen_arm(cfg: &Cfg, runs: &Runs, b: usize, count: &Piecewise) -> Option<Piecewise> {
    let model = runs.values(count)?;
    let header = cfg.loops[cfg.innermost_loop(b)?].header;
    let mut counted = false;
    for (s, m) in runs.samples.iter().zip(&model) {
        let other = s.other_way.as_ref()?;
        let (x, y) = (s.visits[b], other[b]);
        if s.visits[header] != other[header] || x.min(y) != 0 || BigInt::from(x.max(y)) != *m {
            return None;
        }
        counted |= x.max(y) > 0;
    }
    counted.then(|| count.scaled(&metron_symbolic::Rational::new(1.into(), 2.into())))
}

/// What [`recheck`] needs of the function besides its runs.
struct Recheck<'a> {
    terms: &'a Terms<'a>,
    cfg: &'a Cfg,
    assumed: &'a Assumed,
    derived: &'a [Derived],
    /// The counts before any refit, for blocks that no combination fits on all runs.
    modelled: &'a [Piecewise],
}

/// Checks every count against [`CHECKS`] further runs and fits those that disagree again on
/// all runs. A block no combination fits keeps the count it had (the samples' fit matched
/// more runs than the model did) and is listed as unfitted. A refit made on the checks is
/// confirmed on a third draw it was not fitted on ([`Draw::Confirm`]): with many terms and
/// one check run past a threshold (`n = 1`), a combination can match that run by
/// coincidence. Without further runs (one stopped or none finished) the counts stay as the
/// runs so far fitted them.
fn recheck(
    ctx: &Recheck,
    subject: &Subject,
    runs: Runs,
    counts: &mut [Piecewise],
    out: &mut Calibration,
) -> Runs {
    let first = FirstFit {
        counts: counts.to_vec(),
        refits: out.refitted.clone(),
    };
    let mut runs = runs;
    // Every block is checked; then only those the checks fitted anew are confirmed (the
    // others the confirmations would only approximate again).
    let mut suspects: Vec<usize> = (0..counts.len()).collect();
    for draw in [Draw::Check, Draw::Confirm] {
        runs = match with_draw(ctx, subject, runs, draw) {
            Ok(more) => more,
            Err(same) => return same,
        };
        suspects = check_on(ctx, &runs, &first, &suspects, counts, out);
        if suspects.is_empty() {
            break;
        }
    }
    runs
}

/// The counts and refits of the first draw, which a block keeps when no combination fits it
/// on all runs.
struct FirstFit {
    counts: Vec<Piecewise>,
    refits: Vec<Refit>,
}

/// `runs` with the runs of `draw` added; `runs` unchanged when they did not finish.
fn with_draw(ctx: &Recheck, subject: &Subject, runs: Runs, draw: Draw) -> Result<Runs, Runs> {
    let trace = std::env::var_os("METRON_CALIBRATE_TRACE").is_some();
    let extra = match cached_samples(subject, draw) {
        Ok(extra) => extra,
        Err(why) => {
            if trace {
                eprintln!(
                    "calibrate: {}: no {draw:?} runs: {why}",
                    subject.function.name
                );
            }
            return Err(runs);
        }
    };
    if trace {
        let at: Vec<&Binding> = extra.iter().map(|s| &s.values).collect();
        eprintln!(
            "calibrate: {} {draw:?} runs at {at:?}",
            subject.function.name
        );
    }
    let mut samples = runs.samples;
    samples.extend(extra);
    Ok(Runs::new(ctx.derived, samples))
}

/// Refits the `suspects` whose counts disagree with `runs`, on all of them; the blocks that
/// took a count no earlier draw fitted (which the next draw is to confirm).
fn check_on(
    ctx: &Recheck,
    runs: &Runs,
    first: &FirstFit,
    suspects: &[usize],
    counts: &mut [Piecewise],
    out: &mut Calibration,
) -> Vec<usize> {
    for b in (0..counts.len()).filter(|&b| runs.data_dependent(b)) {
        let start = ctx.cfg.blocks[b].start;
        if !out.data_dependent.contains(&start) {
            out.data_dependent.push(start);
            counts[b] = ctx.modelled[b].clone();
            out.refitted.retain(|r| r.block != b);
        }
    }
    let wrong: Vec<usize> = (suspects.iter().copied())
        .filter(|b| !ctx.assumed.fixed.contains(b))
        .filter(|&b| !out.left_to_model(ctx.cfg.blocks[b].start))
        .filter(|&b| runs.values(&counts[b]) != Some(runs.measured(b)))
        .collect();
    out.samples = runs.samples.len();
    if wrong.is_empty() {
        return Vec::new();
    }
    let (before, refits_before) = (counts.to_vec(), out.refitted.clone());
    for &b in &wrong {
        counts[b] = ctx.modelled[b].clone();
        let address = ctx.cfg.blocks[b].start;
        out.refitted.retain(|r| r.block != b);
        out.unfitted.retain(|&a| a != address);
        out.approximated.retain(|&a| a != address);
    }
    let (cfg, assumed) = (ctx.cfg, ctx.assumed);
    refit(ctx.terms, cfg, assumed, runs, counts, wrong.clone(), out);
    // A block the first runs fitted and all runs do not keeps the first fit. One the checks
    // fitted and the confirmations do not keeps the checks' fit, as an approximation: it
    // misses fewer runs than a least-squares combination. Otherwise the closest combination
    // to all runs, or the model.
    let mut new_fits = Vec::new();
    for b in wrong {
        let address = ctx.cfg.blocks[b].start;
        let of_b = |r: &&Refit| r.block == b;
        let first_fit: Vec<Refit> = first.refits.iter().filter(of_b).cloned().collect();
        if !out.unfitted.contains(&address) {
            new_fits.push(b);
        } else if !first_fit.is_empty() {
            counts[b] = first.counts[b].clone();
            out.approximated.retain(|&a| a != address);
            out.refitted.extend(first_fit);
        } else if refits_before.iter().any(|r| r.block == b) {
            counts[b] = before[b].clone();
            if !out.approximated.contains(&address) {
                out.approximated.push(address);
            }
        }
    }
    new_fits
}

/// Which runs: the samples the counts are fitted to, the further ones they are checked on,
/// or those that confirm a refit made on the checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Draw {
    Fit,
    Check,
    Confirm,
}

/// Where the terms of a basis come from: the source (with its inlined calls' loops), the
/// functions inlined into the physical one, and the thresholds its compares test.
struct Terms<'a> {
    source: &'a SourceModel,
    frames: &'a [frames::Frame<'a>],
    /// Trip counts a vectoriser's cost model may require (`cmp x, 13; jbe`): each compared
    /// constant and the three above it (the compared value may be `N` less a peel).
    thresholds: Vec<i64>,
    /// Every small constant its compares test (1 to 64): where a vector copy's threshold
    /// may lie ([`threshold_counts`]).
    compared: Vec<i64>,
    /// The terms, made once: they depend on the source only, and a function is refitted on
    /// each draw (a four-deep nest spent a quarter of its analysis making them again).
    structural: std::cell::OnceCell<Vec<Piecewise>>,
    wide: std::cell::OnceCell<Vec<Piecewise>>,
}

impl Terms<'_> {
    /// The nest's structural counts in every frame.
    fn structural(&self) -> &[Piecewise] {
        self.structural.get_or_init(|| {
            memo::terms(self, "structural", || {
                frames::terms_of(self.source, self.frames, &structural_counts)
            })
        })
    }

    /// The structural terms and those of single outer iterations, ranges, split loops,
    /// versions and thresholds: many symbolic counts, made only for blocks the structural
    /// ones do not fit.
    fn wide(&self) -> &[Piecewise] {
        self.wide
            .get_or_init(|| memo::terms(self, "wide", || self.make_wide()))
    }

    fn make_wide(&self) -> Vec<Piecewise> {
        let (source, frames) = (self.source, self.frames);
        let mut all = self.structural().to_vec();
        for more in [
            instance_counts,
            split::split_counts,
            remainder::remainder_arm_counts,
            remainder::lane_arm_counts,
            path_counts,
            class_counts,
            conditioned::conditioned_counts,
            unswitched::unswitched_counts,
            split::unrolled_split_counts,
        ] {
            all.extend(frames::terms_of(source, frames, &more));
        }
        let versions = |s: &SourceModel, f: &SourceFunction| {
            versioned::versioned_counts(s, f, &self.thresholds)
        };
        all.extend(frames::terms_of(source, frames, &versions));
        let behind = |s: &SourceModel, f: &SourceFunction| threshold_counts(s, f, &self.compared);
        all.extend(frames::terms_of(source, frames, &behind));
        all
    }
}

/// The [`Terms::thresholds`] of `function`: its compares' constants from 9 to 64 (the
/// smaller ones are the basis's own widths and guards) and the three above each.
fn compare_thresholds(function: &Function) -> Vec<i64> {
    let constants: BTreeSet<i64> = compared_constants(function)
        .into_iter()
        .filter(|c| *c >= 9)
        .flat_map(|c| c..=c + 3)
        .collect();
    constants.into_iter().collect()
}

/// The constants from 1 to 64 that `function`'s compares test, each once.
fn compared_constants(function: &Function) -> Vec<i64> {
    let constants: BTreeSet<i64> = function
        .instructions
        .iter()
        .filter_map(|i| i.compare_constant)
        .filter(|c| (1..=64).contains(c))
        .collect();
    constants.into_iter().collect()
}

/// Refits the `wrong` blocks of `counts` from the combinations the runs admit; lists those
/// no combination fits in `out`.
fn refit(
    terms: &Terms,
    cfg: &Cfg,
    assumed: &Assumed,
    runs: &Runs,
    counts: &mut [Piecewise],
    wrong: Vec<usize>,
    out: &mut Calibration,
) {
    let right: Vec<Piecewise> = (0..counts.len())
        .filter(|b| {
            !wrong.contains(b)
                && !assumed.fixed.contains(b)
                && !out.left_to_model(cfg.blocks[*b].start)
        })
        .map(|b| counts[b].clone())
        .collect();
    let values = |c: &Piecewise| runs.values(c);
    let basis = Basis::new(right.iter().collect(), terms.structural(), &values);
    // The terms of single outer iterations, ranges and split loops only for the blocks the
    // others do not fit: they cost many symbolic counts, and cannot change a fit found.
    let mut wider = None;
    trace_block(runs, cfg, counts, &wrong);
    let mut left = wrong;
    let mut refitted = Vec::new();
    // Every run first, then (a count right where sizes are not small) the large ones.
    for (rows, wide) in [
        (Rows::All, false),
        (Rows::All, true),
        (Rows::Large, false),
        (Rows::Large, true),
    ] {
        if left.is_empty() {
            return;
        }
        let basis = match wide {
            false => &basis,
            true => wider
                .get_or_insert_with(|| Basis::new(right.iter().collect(), terms.wide(), &values)),
        };
        let mut still = Vec::new();
        for b in left {
            match fit_block(basis, runs, b, rows) {
                Some(now) => {
                    out.refit(cfg, counts, b, now);
                    refitted.push(b);
                }
                None => still.push(b),
            }
        }
        left = still;
    }
    let unfitted = Unfitted {
        narrow: &basis,
        widest: wider.as_ref().unwrap_or(&basis),
        runs,
        cfg,
    };
    unfitted.settle(counts, left, refitted, out);
}

/// The blocks no combination of terms fits, and what else the runs can count them from.
struct Unfitted<'a> {
    narrow: &'a Basis,
    widest: &'a Basis,
    runs: &'a Runs,
    cfg: &'a Cfg,
}

impl Unfitted<'_> {
    /// Fits the blocks `left` from the counts of the blocks `refitted` before them
    /// ([`Unfitted::through_neighbours`]); lists those none fits in `out`, each counted as
    /// the combination closest to its runs where that is much closer than the model.
    fn settle(
        &self,
        counts: &mut [Piecewise],
        left: Vec<usize>,
        refitted: Vec<usize>,
        out: &mut Calibration,
    ) {
        let (left, refitted) = self.through_neighbours(counts, left, refitted, out);
        if left.is_empty() {
            return;
        }
        let values = |c: &Piecewise| self.runs.values(c);
        let first: Vec<&Piecewise> = refitted.iter().map(|&b| &counts[b]).collect();
        let near = self.narrow.before(&first, &values);
        for b in left {
            let address = self.cfg.blocks[b].start;
            if std::env::var_os("METRON_CALIBRATE_TRACE").is_some() {
                trace_unfitted(self.runs, address, &counts[b], &self.runs.measured(b));
            }
            out.unfitted.push(address);
            if let Some(closer) = closer_than_model(&near, self.runs, b, &counts[b]) {
                counts[b] = closer;
                out.approximated.push(address);
            }
        }
    }

    /// The blocks of `left` fitted from the counts of blocks refitted before them, first in the
    /// basis: a block's count is its neighbours' difference where the CFG splits one count
    /// between two blocks (`count(B) = count(P) - count(C)`, P's other successor C), and such a
    /// difference may take more source terms than one fit combines ([`MAX_TERMS`]). Repeated
    /// while blocks are fitted; returns those none fits, and every block refitted.
    fn through_neighbours(
        &self,
        counts: &mut [Piecewise],
        mut left: Vec<usize>,
        refitted: Vec<usize>,
        out: &mut Calibration,
    ) -> (Vec<usize>, Vec<usize>) {
        let values = |c: &Piecewise| self.runs.values(c);
        let mut basis = self.widest.clone();
        let mut new = refitted.clone();
        let mut all = refitted;
        while !new.is_empty() && !left.is_empty() {
            let first: Vec<&Piecewise> = new.iter().map(|&b| &counts[b]).collect();
            basis = basis.before(&first, &values);
            new.clear();
            let mut still = Vec::new();
            for b in left {
                let fit = fit_block(&basis, self.runs, b, Rows::All)
                    .or_else(|| fit_block(&basis, self.runs, b, Rows::Large));
                match fit {
                    Some(now) => {
                        out.refit(self.cfg, counts, b, now);
                        new.push(b);
                    }
                    None => still.push(b),
                }
            }
            all.extend(&new);
            left = still;
        }
        (left, all)
    }
}

/// For a block no combination fits: the closest combination of `basis` to its runs, where
/// it is much closer than the model's count (a quarter of its [`relative_error`], or the model
/// names a size the runs do not give: a trip count no source loop has). An approximation,
/// reported as one, in place of a count the runs contradict.
fn closer_than_model(basis: &Basis, runs: &Runs, b: usize, model: &Piecewise) -> Option<Piecewise> {
    let target = runs.measured(b);
    let y: Vec<f64> = target.iter().map(to_f64).collect();
    let model_error = match runs.values(model) {
        Some(v) => relative_error(&v.iter().map(to_f64).collect::<Vec<_>>(), &y),
        // A count the runs cannot evaluate is replaced only when what they lack is a trip
        // count no one but an annotation gives; a call's argument (`m_28`) or a data bound
        // (`data_LINE`) is bound where the model is evaluated.
        None if runs.lacks_only_unknown_trips(model) => f64::INFINITY,
        None => return None,
    };
    let (closest, error) = basis.closest(&target)?;
    (error < model_error / 4.0).then_some(closest)
}

/// Which runs a fit must match: all, or those where no size is small.
#[derive(Debug, Clone, Copy)]
enum Rows {
    All,
    Large,
}

/// Block `b`'s combination of `basis` matching the `rows` runs ([`Basis::fit`]); at fixed
/// sizes, the count one run said.
fn fit_block(basis: &Basis, runs: &Runs, b: usize, rows: Rows) -> Option<Piecewise> {
    let target = runs.measured(b);
    if runs.fixed() {
        return i64::try_from(&target[0]).ok().map(Piecewise::constant);
    }
    // A fit to the large runs is a count where sizes are large: checked there only.
    let (rows, grid) = match rows {
        Rows::All => ((0..target.len()).collect(), runs.grid.clone()),
        Rows::Large => (runs.large(), runs.large_grid()),
    };
    (rows.len() >= MIN_SAMPLES)
        .then(|| basis.fit(&target, &rows, &grid))
        .flatten()
}

impl Calibration {
    /// Block `b` counts `now`, as the runs say.
    fn refit(&mut self, cfg: &Cfg, counts: &mut [Piecewise], b: usize, now: Piecewise) {
        self.refitted.push(Refit {
            block: b,
            address: cfg.blocks[b].start,
            was: counts[b].to_string(),
            now: now.to_string(),
        });
        counts[b] = now;
    }
}

/// The instructions one call executes by the model, at fixed sizes (those it can count).
fn modelled_instructions(cfg: &Cfg, counts: &[Piecewise]) -> f64 {
    let none = Binding::new();
    cfg.blocks
        .iter()
        .zip(counts)
        .map(|(b, c)| {
            // A count the model cannot evaluate (a loop no source loop explains) is the
            // run's to find: the budget still stops it.
            let n = c.evaluate_integer(&none).map_or(0.0, |v| to_f64(&v));
            n * (b.end - b.first) as f64
        })
        .sum()
}

/// For whoever extends the terms: the block no combination fits, with its runs.
fn trace_unfitted(runs: &Runs, address: u64, model: &Piecewise, target: &[BigInt]) {
    eprintln!("calibrate: block 0x{address:x} fits no combination; model {model}");
    print_runs(runs, target);
}

/// Each run's sizes and the count `target` gives for it.
fn print_runs(runs: &Runs, target: &[BigInt]) {
    for (s, t) in runs.samples.iter().zip(target) {
        eprintln!("  at {:?}: {t}", s.values);
    }
}

/// `METRON_CALIBRATE_BLOCK=0xADDR`: the runs of that block, when it is to be refitted.
fn trace_block(runs: &Runs, cfg: &Cfg, counts: &[Piecewise], wrong: &[usize]) {
    let Ok(wanted) = std::env::var("METRON_CALIBRATE_BLOCK") else {
        return;
    };
    for &b in wrong {
        let address = cfg.blocks[b].start;
        if format!("0x{address:x}") == wanted.to_lowercase() {
            eprintln!(
                "calibrate: block 0x{address:x} to refit; model {}",
                counts[b]
            );
            print_runs(runs, &runs.measured(b));
        }
    }
}

/// The finished runs, and the parameter bindings (derived trip counts included) to evaluate
/// the counts at.
#[derive(Clone)]
struct Runs {
    samples: Vec<Sample>,
    bindings: Vec<Binding>,
    /// Sizes across the sampled range (derived values added) where a fit must be a count.
    grid: Vec<Binding>,
}

/// Points of the grid a fit is checked on: at most this many.
const GRID_POINTS: usize = 512;

/// Whether `c` is a non-negative integer at every point of `grid` where it has a value:
/// a combination that matches the runs with fractions (`(n + 2)/7` where `n + 2` is 7 at
/// every sample) is a coincidence, not a count.
fn a_count_everywhere(c: &Piecewise, grid: &[Binding]) -> bool {
    grid.iter().all(|b| match c.evaluate(b) {
        Ok(v) => v.is_integer() && !v.is_negative(),
        Err(_) => true,
    })
}

/// Every combination of sizes from an even spread of `SMALL.start..=SIZES.end` per
/// parameter, [`GRID_POINTS`] at most, with the derived values each point gives.
fn size_grid(names: &[String], derived: &[Derived]) -> Vec<Binding> {
    let (low, high) = (*SMALL.start(), *SIZES.end());
    let per = (GRID_POINTS as f64).powf(1.0 / names.len().max(1) as f64) as i64;
    let per = per.clamp(2, high - low + 1);
    let values: Vec<i64> = (0..per)
        .map(|k| low + k * (high - low) / (per - 1))
        .collect();
    let mut grid = vec![Binding::new()];
    for n in names {
        // Many sizes (globals and parameters together) would make `2^d` points: the first
        // [`GRID_POINTS`] of them are checked.
        grid = grid
            .into_iter()
            .flat_map(|b| {
                values.iter().map(move |&v| {
                    let mut b = b.clone();
                    b.insert(n.clone(), v);
                    b
                })
            })
            .take(GRID_POINTS)
            .collect();
    }
    grid.into_iter().map(|b| with_derived(b, derived)).collect()
}

fn with_derived(mut b: Binding, derived: &[Derived]) -> Binding {
    for d in derived {
        if let Ok(v) = d.value(&b) {
            b.insert(d.name().to_string(), v);
        }
    }
    b
}

impl Runs {
    fn new(derived: &[Derived], samples: Vec<Sample>) -> Runs {
        let bindings = samples
            .iter()
            .map(|s| with_derived(s.values.clone(), derived))
            .collect();
        let names: Vec<String> = samples
            .first()
            .map(|s| s.values.keys().cloned().collect())
            .unwrap_or_default();
        let grid = size_grid(&names, derived);
        Runs {
            samples,
            bindings,
            grid,
        }
    }

    /// `c` at every sample, `None` when it names a parameter the runs do not give.
    fn values(&self, c: &Piecewise) -> Option<Vec<BigInt>> {
        self.bindings
            .iter()
            .map(|b| c.evaluate_integer(b).ok())
            .collect()
    }

    /// What block `b` ran at each sample. An alias test's block (one whose count follows the
    /// order of the arrays) counts the runs with the arrays where the caller's `malloc`s put
    /// them, below its mmap threshold ([`layout`]).
    fn measured(&self, b: usize) -> Vec<BigInt> {
        self.samples.iter().map(|s| s.visits[b].into()).collect()
    }

    /// Block `b`'s larger count of the two ways the branches on data went, at each sample.
    fn envelope(&self, b: usize) -> Vec<BigInt> {
        self.samples
            .iter()
            .map(|s| {
                let other = s.other_way.as_ref().map_or(s.visits[b], |o| o[b]);
                s.visits[b].max(other).into()
            })
            .collect()
    }

    /// Whether block `b` ran a different number of times with the branches on data the other
    /// way, or is an arm of one (whose count both ways may agree on, each way taking the
    /// branch only where the runs' own values do not decide it).
    fn data_dependent(&self, b: usize) -> bool {
        self.samples.iter().any(|s| {
            s.other_way.as_ref().is_some_and(|o| o[b] != s.visits[b]) || s.arms_on_data.contains(&b)
        })
    }

    /// Whether block `b` ran a different number of times with the arrays in the other order.
    fn address_dependent(&self, b: usize) -> bool {
        self.samples
            .iter()
            .any(|s| s.mirrored.as_ref().is_some_and(|m| m[b] != s.visits[b]))
    }

    /// Whether every parameter of `c` the runs do not give is a trip count the model could
    /// not derive ([`crate::loop_context::is_unknown_trip`]).
    fn lacks_only_unknown_trips(&self, c: &Piecewise) -> bool {
        let given = |p: &String| self.bindings.first().is_some_and(|b| b.contains_key(p));
        c.parameters()
            .iter()
            .filter(|p| !given(p))
            .all(|p| crate::loop_context::is_unknown_trip(p))
    }

    /// One run at a function's fixed sizes (no parameter to vary).
    fn fixed(&self) -> bool {
        self.samples.len() == 1 && self.samples[0].values.is_empty()
    }

    /// The points of the grid where no size is one of the small ones.
    fn large_grid(&self) -> Vec<Binding> {
        let names: BTreeSet<&String> = self
            .samples
            .first()
            .map(|s| s.values.keys().collect())
            .unwrap_or_default();
        let large = |b: &Binding| {
            b.iter()
                .filter(|(n, _)| names.contains(n))
                .all(|(_, v)| *v >= *SIZES.start())
        };
        self.grid.iter().filter(|b| large(b)).cloned().collect()
    }

    /// The samples where no size is one of the small ones.
    fn large(&self) -> Vec<usize> {
        (0..self.samples.len())
            .filter(|&t| {
                self.samples[t]
                    .values
                    .values()
                    .all(|v| *v >= *SIZES.start())
            })
            .collect()
    }
}

/// The function's parameters that its loop bounds or its counts name (a derived trip
/// count's inputs in its place): the ones the runs vary. None, when the counts name no
/// parameter at all, is one run at the function's fixed sizes; a count that names something
/// else (a value read from data) or a bound passed in a floating-point register is a reason
/// not to check.
fn bound_parameters(
    source: &SourceModel,
    f: &SourceFunction,
    derived: &[Derived],
    counts: &[Piecewise],
    variables: &BTreeMap<String, (u64, u64)>,
) -> Result<Sizes, NotChecked> {
    let mut named: BTreeSet<String> = counts.iter().flat_map(|c| c.parameters()).collect();
    let mut counters = BTreeSet::new();
    for l in source.loops.iter().filter(|l| l.function == f.name) {
        if let Ok(scop) = &l.scop {
            named.extend(scop.bound_names().cloned());
            counters.insert(scop.var.clone());
        }
    }
    // A size that only an index guard reads (`if (i <= n - 1)`) decides counts as much as a
    // bound does: the runs must vary it too, or a refit learns the guard at one value.
    let ifs = source
        .ifs
        .iter()
        .filter(|c| c.function == f.name)
        .map(|c| &c.condition);
    let conditionals = source.conditionals.iter().filter(|c| c.function == f.name);
    for c in ifs
        .chain(conditionals.map(|c| &c.condition))
        .flatten()
        .flatten()
    {
        let sizes = c.names().into_iter();
        named.extend(
            sizes
                .filter(|n| f.parameters.contains(n) || variables.contains_key(*n))
                .cloned(),
        );
    }
    // An enclosing loop's counter in a triangular bound (`j < i`) is no parameter, nor is a
    // trip count the model could not derive (a loop no source loop explains, copies that do
    // not nest): the runs fit its blocks. A derived trip count (`trip_15` of a loop whose
    // step is a parameter) has the same form of name, and stands for its inputs.
    let derived_name = |n: &String| derived.iter().any(|d| d.name() == n);
    named.retain(|n| {
        !counters.contains(n) && (derived_name(n) || !crate::loop_context::is_unknown_trip(n))
    });
    for d in derived.iter().rev() {
        if named.remove(d.name()) {
            named.extend(d.inputs().into_iter().cloned());
        }
    }
    let integer: Vec<&String> = f.integer_arguments().collect();
    let mut bounds: Vec<String> = integer
        .iter()
        .filter(|p| named.contains(**p))
        .map(|p| p.to_string())
        .collect();
    let floating = f.not_in_integer_registers.iter().any(|p| named.contains(p));
    if floating {
        return Err(NotChecked::FloatingBound);
    }
    // `main`'s sizes from its command line: the runs pass them all as arguments, also those
    // no count names (`argc > 1 ? atoi(argv[1]) : N` takes the arm the program runs with).
    let inputs: Vec<ProgramInput> = match f.name == "main" {
        true => source.inputs.clone(),
        false => Vec::new(),
    };
    bounds.extend(inputs.iter().map(|i| i.name.clone()));
    // A name that is no parameter but a global scalar of the binary (`int n;` that `main`
    // sets): the runs store its value where the code loads it from.
    let globals: Vec<Global> = named
        .iter()
        .filter(|n| !f.parameters.contains(n) && !inputs.iter().any(|i| i.name == **n))
        .filter_map(|n| {
            let &(address, bytes) = variables.get(n)?;
            matches!(bytes, 4 | 8).then(|| Global {
                name: n.clone(),
                address,
                bytes: bytes as u32,
            })
        })
        .collect();
    bounds.extend(globals.iter().map(|g| g.name.clone()));
    if bounds.is_empty() && !named.is_empty() {
        return Err(NotChecked::NoSizeParameter);
    }
    Ok(Sizes {
        bounds,
        globals,
        inputs,
    })
}

/// What the runs of a function vary, and how each size reaches its code.
struct Sizes {
    /// Every size, by name.
    bounds: Vec<String>,
    /// The global scalars among them, stored before each run.
    globals: Vec<Global>,
    /// `main`'s sizes from its command line, passed in `argv`.
    inputs: Vec<ProgramInput>,
}

/// A global scalar that bounds a loop, and where the code loads it from.
#[derive(Debug, Clone)]
struct Global {
    name: String,
    address: u64,
    bytes: u32,
}

/// Widths of the copies whose passes and guards are candidate terms.
const WIDTHS: [i64; 5] = [2, 4, 8, 16, 32];
/// Thresholds of guards (entries with `N >= k`) beyond the widths: unroll-by-3 and peels.
const THRESHOLDS: [i64; 4] = [3, 5, 6, 7];
/// Iterations a prologue may peel before a narrow copy's passes.
const PEELS: [i64; 3] = [1, 2, 3];

/// The source nest's quantities of every loop of `f` (004 §III.C.2, counted by
/// metron-symbolic): its iterations and entries, and the terms a loop copied `k` wide counts
/// in: passes `sum floor(N/k)` (also after a peel of a few iterations, for `k` up to 8),
/// guards (entries with `N >= k`), and the entries whose `N` is a multiple of `k` (a
/// remainder that does not run).
fn structural_counts(source: &SourceModel, f: &SourceFunction) -> Vec<Piecewise> {
    use crate::loop_copy::{entries_where, entries_with_at_least, passes_after_peel};
    let options = CountOptions::default();
    let mut out = Vec::new();
    for (i, l) in source.loops.iter().enumerate() {
        if l.function != f.name {
            continue;
        }
        out.extend(crate::loop_context::source_total(source, i, &options).ok());
        if let Some(p) = l.parent {
            out.extend(crate::loop_context::source_total(source, p, &options).ok());
        }
        out.extend(entries_with_at_least(source, i, 1, &options).ok());
        for k in WIDTHS {
            out.extend(passes_after_peel(source, i, k, 0, &options).ok());
            out.extend(entries_with_at_least(source, i, k, &options).ok());
            out.extend(entries_where(source, i, 1, Some((k, 0)), &options).ok());
        }
        for k in THRESHOLDS {
            out.extend(entries_with_at_least(source, i, k, &options).ok());
        }
        for (k, p) in [2, 4, 8].into_iter().flat_map(|k| PEELS.map(|p| (k, p))) {
            out.extend(passes_after_peel(source, i, k, p, &options).ok());
        }
    }
    out.extend(crate::branch::source_arm_counts(source, &f.name, &options));
    out
}

/// The counts of paths through two tests of one loop body (`branch::path_counts`).
fn path_counts(source: &SourceModel, f: &SourceFunction) -> Vec<Piecewise> {
    crate::branch::path_counts(source, &f.name, &CountOptions::default())
}

/// Trip classes of each loop of `f` beyond [`structural_counts`]'s: guards hoisted out of
/// the loops whose counters the bounds do not read, every remainder class of
/// [`residue_moduli`], and unroll-and-jam ([`jammed_counts`]).
fn class_counts(source: &SourceModel, f: &SourceFunction) -> Vec<Piecewise> {
    let options = CountOptions::default();
    let mut out = Vec::new();
    let moduli = residue_moduli(source, f);
    for (i, _) in source
        .loops
        .iter()
        .enumerate()
        .filter(|(_, l)| l.function == f.name)
    {
        for k in [1].into_iter().chain(WIDTHS).chain(THRESHOLDS) {
            out.extend(crate::loop_copy::hoisted_entries_with_at_least(
                source, i, k, &options,
            ));
        }
        for &q in &moduli {
            out.extend(crate::loop_copy::passes_after_peel(source, i, q, 0, &options).ok());
            for r in 0..q {
                let class = Some((q, r));
                out.extend(crate::loop_copy::entries_where(source, i, 1, class, &options).ok());
            }
        }
        jammed_counts(source, i, &options, &mut out);
    }
    out
}

/// Each loop's `w`-wide passes (`w` = 1, 2, 4; 1: iterations) in its entries with at least
/// `k` iterations, for the thresholds `k` the binary's `compared` constants name: a vector
/// copy that a cost model runs only past `k` iterations, its scalar copy through the other
/// entries (`loop_copy::passes_in_entries_with_at_least`). `cmp $c` tests the trip count
/// (`N <= c` keeps the scalar copy: `k = c + 1`), the trip count less one (`k = c + 2`), or
/// the last value of a loop stepping by `s` (`k = c / s + 1` or `+ 2`). Only the compared
/// constants: the same terms for every small `k` fit other loops' copies by coincidence
/// (triangular.c at clang -O2). Also on the side of each alias test on the loop where it
/// keeps the scalar copy ([`alias::range_atoms`]): both tests guard one vector copy.
fn threshold_counts(source: &SourceModel, f: &SourceFunction, compared: &[i64]) -> Vec<Piecewise> {
    let options = CountOptions::default();
    let atoms = alias::range_atoms(source, f);
    let mut out = Vec::new();
    for (i, l) in source.loops.iter().enumerate() {
        if l.function != f.name {
            continue;
        }
        let step = l.scop.as_ref().map_or(1, |s| s.stride.abs().max(1));
        let ks: BTreeSet<i64> = compared
            .iter()
            .flat_map(|&c| [c + 1, c + 2, c / step + 1, c / step + 2])
            .filter(|&k| k >= 2)
            .collect();
        // A loop also behind an alias test runs its vector copy where the threshold is met
        // and the test says no: the counts where it says yes are the difference. (Only the
        // tests of one case: a range to the last counter reached is left out here.)
        let mut arms = vec![Vec::new()];
        arms.extend(
            atoms
                .iter()
                .filter(|a| a.at == i && a.cases.len() == 1)
                .map(|a| a.cases[0].clone()),
        );
        for (k, arm) in ks
            .into_iter()
            .flat_map(|k| arms.iter().map(move |a| (k, a)))
        {
            threshold_terms(source, i, k, arm, &options, &mut out);
        }
    }
    out
}

/// Loop `i`'s passes 1, 2 and 4 wide in its entries with at least `k` iterations where `arm`
/// holds, and those entries: all, and those whose trip leaves no remainder 2 or 4 wide (the
/// vector copy's preheader and its epilogue's test).
fn threshold_terms(
    source: &SourceModel,
    i: usize,
    k: i64,
    arm: &[metron_symbolic::Condition],
    options: &CountOptions,
    out: &mut Vec<Piecewise>,
) {
    use crate::loop_copy::{entries_where_arm, passes_in_entries_with_at_least};
    for w in [1, 2, 4].into_iter().filter(|&w| w <= k) {
        out.extend(passes_in_entries_with_at_least(source, i, (w, k), arm, options).ok());
    }
    for modulo in [None, Some((2, 0)), Some((4, 0))] {
        out.extend(entries_where_arm(source, i, k, modulo, arm, options).ok());
    }
}

/// Entries of loop `i`'s trip classes once per pass of its parent unrolled and jammed
/// (`loop_copy::jammed_entries`): the parent by 2 or 4, after a peel of 0 or 1.
fn jammed_counts(source: &SourceModel, i: usize, options: &CountOptions, out: &mut Vec<Piecewise>) {
    use crate::loop_copy::{jammed_entries, PerEntry};
    for parent in [(2, 0), (2, 1), (4, 0), (4, 1)] {
        let classes = [1, 2, 4, 8].map(|k| PerEntry::Class(k, None)).into_iter();
        let residues = [2, 4]
            .into_iter()
            .flat_map(|q| (0..q).map(move |r| PerEntry::Class(1, Some((q, r)))));
        let passes = [2, 4, 8].map(PerEntry::Passes).into_iter();
        for per_entry in classes.chain(residues).chain(passes) {
            out.extend(jammed_entries(source, i, parent, per_entry, options));
        }
    }
}

/// The moduli of trip-count classes a copied loop's remainder tests (`N mod q == r`, every
/// `r`): a loop unrolled `q` times enters one of `q` remainder paths. Narrow widths, and the
/// moduli of the function's `%` tests (gcc unrolls a loop by the period of an `i % 3` in it).
fn residue_moduli(source: &SourceModel, f: &SourceFunction) -> BTreeSet<i64> {
    let tests = source
        .ifs
        .iter()
        .filter(|c| c.function == f.name)
        .filter_map(|c| c.condition.as_ref().ok());
    let conditionals = source
        .conditionals
        .iter()
        .filter(|c| c.function == f.name)
        .filter_map(|c| c.condition.as_ref().ok());
    let mut moduli: BTreeSet<i64> = [2, 3, 4].into();
    for c in tests.chain(conditionals).flatten() {
        if let metron_symbolic::Condition::Modulo { modulus, .. } = c {
            moduli.extend((2..=8).contains(modulus).then_some(*modulus));
        }
    }
    moduli
}

/// Iterations of an enclosing loop whose inner loops a compiler may copy once per iteration:
/// the first of any loop (a peeled first iteration), and each of a loop that runs at most
/// [`UNROLLED`] times (a small constant loop unrolled away, each copy of its inner loops
/// counting for one value of its counter).
const UNROLLED: i64 = 8;

/// The quantities of the loops inside each copied iteration (see [`UNROLLED`]): the source
/// nest with the enclosing loop cut to its `c`-th iteration (004 §III.C.2, the same count as
/// [`structural_counts`] on a narrower domain), for the terms a copy of an inner loop counts
/// in: its iterations, entries, and passes, guards and multiples of narrow widths.
fn instance_counts(source: &SourceModel, f: &SourceFunction) -> Vec<Piecewise> {
    let options = CountOptions::default();
    let mut out = Vec::new();
    for (a, l) in source.loops.iter().enumerate() {
        let inner: Vec<usize> = (0..source.loops.len())
            .filter(|&i| source.is_within(i, a))
            .collect();
        let Ok(scop) = &l.scop else { continue };
        let in_a = |p: Option<usize>| p.is_some_and(|p| p == a || source.is_within(p, a));
        let arms = source.ifs.iter().any(|c| in_a(c.parent_loop))
            || source.conditionals.iter().any(|c| in_a(c.parent_loop));
        if l.function != f.name || (inner.is_empty() && !arms) {
            continue;
        }
        let last = most_iterations(scop)
            .filter(|&t| t <= UNROLLED)
            .unwrap_or(1);
        let iterations: Vec<_> = (1..=last).flat_map(|c| iteration(scop, c)).collect();
        let ranges = inner.iter().flat_map(|&b| within_range(source, a, b));
        for cut in iterations.iter().cloned().chain(ranges).collect::<Vec<_>>() {
            let mut one = source.clone();
            one.loops[a].scop = Ok(cut);
            for &i in &inner {
                copy_terms(&one, i, &options, &mut out);
            }
        }
        // A small constant loop unrolled away: each copy of an `if` in it runs where the
        // condition holds for that one value of the counter (`i <= n + 1` at `i = 4`), and
        // so does each copy of an inner loop unswitched on it (`2i >= n - 2` around a `j`
        // loop: clang -O3 copies the `j` loop per arm per `i`). At the first iteration
        // alone: a test hoisted out of the loop, run where it is entered (the loop not
        // empty).
        if arms {
            for cut in iterations {
                let mut one = source.clone();
                one.loops[a].scop = Ok(cut);
                out.extend(crate::branch::source_arm_counts(&one, &f.name, &options));
                out.extend(unswitched::unswitched_counts(&one, f));
            }
        }
    }
    out
}

/// The terms a copy of source loop `i` counts in: its iterations, entries, and passes,
/// guards and multiples of narrow widths.
fn copy_terms(source: &SourceModel, i: usize, options: &CountOptions, out: &mut Vec<Piecewise>) {
    use crate::loop_copy::{entries_where, entries_with_at_least, passes_after_peel};
    out.extend(crate::loop_context::source_total(source, i, options).ok());
    out.extend(entries_with_at_least(source, i, 1, options).ok());
    for k in [2, 4, 8] {
        out.extend(passes_after_peel(source, i, k, 0, options).ok());
        out.extend(entries_with_at_least(source, i, k, options).ok());
        out.extend(entries_where(source, i, 1, Some((k, 0)), options).ok());
    }
}

/// Source loop `a` ended where its counter reaches the range of inner loop `b`'s counter
/// (`a`'s iterations before it, and those before its end): a compiler that versions `a`'s
/// body on whether `b`'s accesses can touch what `a`'s counter indexes (a dependence only
/// inside the range) splits `a` there. Only `a`'s end moves, so its iterations keep their
/// values for any step; `None` where a bound of `b` names counters inside `a`.
fn within_range(source: &SourceModel, a: usize, b: usize) -> Vec<metron_symbolic::Loop> {
    let (Ok(outer), Ok(inner)) = (&source.loops[a].scop, &source.loops[b].scop) else {
        return Vec::new();
    };
    let inside: BTreeSet<&String> = (0..source.loops.len())
        .filter(|&i| i == a || source.is_within(i, a))
        .filter_map(|i| source.loops[i].scop.as_ref().ok().map(|l| &l.var))
        .collect();
    let free = |e: &&metron_symbolic::AffineExpr| e.names().all(|n| !inside.contains(n));
    // `j >= MIN(0, 2)` is the single bound 0.
    let inner = &folded(inner);
    let [start] = inner.start.exprs() else {
        return Vec::new();
    };
    let [end] = inner.end.exprs() else {
        return Vec::new();
    };
    // The first and the last value of `b`'s counter, lowest first.
    let Ok(last) = end.plus_constant(if inner.end_inclusive {
        0
    } else {
        -inner.stride.signum()
    }) else {
        return Vec::new();
    };
    let (low, high) = if inner.stride > 0 {
        (start.clone(), last)
    } else {
        (last, start.clone())
    };
    let up = outer.stride > 0;
    // Counting up, `a` ends before `low` and after `high`; counting down, the mirror.
    let bounds = if up {
        [low.plus_constant(-1), Ok(high)]
    } else {
        [high.plus_constant(1), Ok(low)]
    };
    bounds
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| free(&e))
        .filter_map(|e| ended_at(outer, e))
        .collect()
}

/// `l` with its counter's last value at most (counting down: at least) `e`.
fn ended_at(
    l: &metron_symbolic::Loop,
    e: metron_symbolic::AffineExpr,
) -> Option<metron_symbolic::Loop> {
    let l = &folded(l);
    let up = l.stride > 0;
    let last = if l.end_inclusive {
        e
    } else {
        e.plus_constant(l.stride.signum()).ok()?
    };
    let mut ends = l.end.exprs().to_vec();
    ends.push(last);
    let mut cut = l.clone();
    cut.end = match (&l.end, up) {
        (Bound::Min(_), true) => Bound::Min(ends),
        (Bound::Max(_), false) => Bound::Max(ends),
        (_, true) if ends.len() == 2 => Bound::Min(ends),
        (_, false) if ends.len() == 2 => Bound::Max(ends),
        _ => return None,
    };
    Some(cut)
}

/// The most iterations `l` runs, when its bounds make that a constant (`i < 5`, `j <
/// MIN(11, n)` from 1: a constant start and a constant among the `min` of its ends).
fn most_iterations(l: &metron_symbolic::Loop) -> Option<i64> {
    let constant = |e: &metron_symbolic::AffineExpr| e.terms.is_empty().then_some(e.constant);
    let up = l.stride > 0;
    // A bound's constant extreme on the side the counter cannot pass: the largest constant
    // of a start's `max` (counting up), the smallest of an end's `min`, mirrored down.
    let extreme = |b: &Bound, largest: bool| match (b, largest) {
        (Bound::Max(v), true) => v.iter().filter_map(constant).max(),
        (Bound::Min(v), false) => v.iter().filter_map(constant).min(),
        (b, _) => single_constant(b),
    };
    let start = extreme(&l.start, up)?;
    let end = extreme(&l.end, !up)?;
    let distance = (end - start) * l.stride.signum() + i64::from(l.end_inclusive);
    Some(if distance <= 0 {
        0
    } else {
        (distance + l.stride.abs() - 1) / l.stride.abs()
    })
}

/// `l` with a `min`/`max` of constants (`MIN(1, 0)`) as the one constant it is.
fn folded(l: &metron_symbolic::Loop) -> metron_symbolic::Loop {
    let fold = |b: &Bound| {
        let constants: Option<Vec<i64>> = b
            .exprs()
            .iter()
            .map(|e| e.terms.is_empty().then_some(e.constant))
            .collect();
        let value = match (b, constants) {
            (Bound::Max(_), Some(c)) => c.into_iter().max(),
            (Bound::Min(_), Some(c)) => c.into_iter().min(),
            _ => None,
        };
        value.map_or_else(
            || b.clone(),
            |v| Bound::single(metron_symbolic::AffineExpr::constant(v)),
        )
    };
    let mut out = l.clone();
    out.start = fold(&l.start);
    out.end = fold(&l.end);
    out
}

fn single_constant(b: &Bound) -> Option<i64> {
    match b.exprs() {
        [e] if e.terms.is_empty() => Some(e.constant),
        _ => None,
    }
}

/// `l` cut to its `c`-th iteration: started `c - 1` steps on, ended one step after that;
/// one cut per piece of a start that is the `min` (counting down) or `max` (counting up) of
/// several expressions (`for (i = MIN(8, n + 1); i > 0; i -= 3)`). Empty for a start whose
/// `c`-th value no cut gives (a `max` counting down).
fn iteration(l: &metron_symbolic::Loop, c: i64) -> Vec<metron_symbolic::Loop> {
    let l = &folded(l);
    let up = l.stride > 0;
    let tightened = matches!(
        (&l.start, up),
        (Bound::Max(_), true) | (Bound::Min(_), false)
    );
    let starts = l.start.exprs();
    if starts.len() > 1 && !tightened {
        return Vec::new();
    }
    // Every end as an inclusive bound: `i > e` is `i >= e + 1`.
    let inclusive = |e: &metron_symbolic::AffineExpr| match l.end_inclusive {
        true => Some(e.clone()),
        false => e.plus_constant(-l.stride.signum()).ok(),
    };
    let Some(ends) = l
        .end
        .exprs()
        .iter()
        .map(inclusive)
        .collect::<Option<Vec<_>>>()
    else {
        return Vec::new();
    };
    let single_end = ends.len() == 1;
    let end_tightened = matches!((&l.end, up), (Bound::Min(_), true) | (Bound::Max(_), false));
    if !single_end && !end_tightened {
        return Vec::new();
    }
    (0..starts.len())
        .filter_map(|p| piece_iteration(l, starts, &ends, p, c))
        .collect()
}

/// [`iteration`]'s cut for start piece `p`: the counter runs from the start (the `min`
/// counting down, ties to the first expression) to piece `p`'s value, which it reaches only
/// where that piece is the start.
fn piece_iteration(
    l: &metron_symbolic::Loop,
    starts: &[metron_symbolic::AffineExpr],
    ends: &[metron_symbolic::AffineExpr],
    p: usize,
    c: i64,
) -> Option<metron_symbolic::Loop> {
    let (up, step) = (l.stride > 0, (c - 1) * l.stride);
    let at = starts[p].plus_constant(step).ok()?;
    // Earlier pieces win ties: strictly past them (`+1` counting up).
    let start: Option<Vec<_>> = starts
        .iter()
        .enumerate()
        .map(|(q, e)| {
            let tie = if q < p { l.stride.signum() } else { 0 };
            e.plus_constant(step + tie).ok()
        })
        .collect();
    let mut cut_ends = ends.to_vec();
    cut_ends.push(at);
    let mut cut = l.clone();
    cut.start = match up {
        true => Bound::Max(start?),
        false => Bound::Min(start?),
    };
    cut.end = match up {
        true => Bound::Min(cut_ends),
        false => Bound::Max(cut_ends),
    };
    cut.end_inclusive = true;
    Some(cut)
}

/// Candidate terms with their values at the samples, distinct and not all zero: the model's
/// own terms first, the structural ones next, the constant last (a guarded term of the same
/// values, `[n > 0]`, is the better `1` outside the samples).
#[derive(Clone)]
struct Basis {
    terms: Vec<(Piecewise, Vec<BigInt>, Vec<f64>)>,
}

impl Basis {
    fn new(
        right: Vec<&Piecewise>,
        structural: &[Piecewise],
        values: &dyn Fn(&Piecewise) -> Option<Vec<BigInt>>,
    ) -> Basis {
        let one = Piecewise::constant(1);
        let constant = |c: &&Piecewise| c.parameters().is_empty();
        let ordered = right
            .iter()
            .copied()
            .filter(|c| !constant(c))
            .chain(structural.iter().filter(|c| !constant(c)))
            .chain([&one]);
        let mut seen: BTreeSet<Vec<BigInt>> = BTreeSet::new();
        let mut terms = Vec::new();
        for c in ordered {
            let Some(v) = values(c) else { continue };
            if v.iter().all(Zero::is_zero) || !seen.insert(v.clone()) {
                continue;
            }
            let approx = v.iter().map(to_f64).collect();
            terms.push((c.clone(), v, approx));
        }
        if std::env::var_os("METRON_CALIBRATE_TERMS").is_some() {
            for (c, v, _) in &terms {
                eprintln!("calibrate: term {v:?} = {c}");
            }
        }
        Basis { terms }
    }

    /// The sparsest combination (fewest terms, earlier terms first) equal to `target` at
    /// the samples `rows`, with a unique solution: screened in floating point, confirmed
    /// exactly.
    fn fit(&self, target: &[BigInt], rows: &[usize], grid: &[Binding]) -> Option<Piecewise> {
        if rows.iter().all(|&r| target[r].is_zero()) {
            return Some(Piecewise::zero());
        }
        let pick = |v: &[BigInt]| -> Vec<BigRational> {
            rows.iter()
                .map(|&r| BigRational::from_integer(v[r].clone()))
                .collect()
        };
        let y = pick(target);
        let y_approx: Vec<f64> = rows.iter().map(|&r| to_f64(&target[r])).collect();
        let approx: Vec<Vec<f64>> = self
            .terms
            .iter()
            .map(|t| rows.iter().map(|&r| t.2[r]).collect())
            .collect();
        let residues = self
            .terms
            .iter()
            .map(|t| rows.iter().map(|&r| residues::residue(&t.1[r])).collect())
            .collect();
        let y_residues = rows
            .iter()
            .map(|&r| residues::residue(&target[r]))
            .collect();
        let screen = Screen::new(&approx, &y_approx).with_residues(residues, y_residues);
        let exact = |chosen: &[usize]| {
            let columns: Vec<Vec<BigRational>> =
                chosen.iter().map(|&j| pick(&self.terms[j].1)).collect();
            let columns: Vec<&[BigRational]> = columns.iter().map(Vec::as_slice).collect();
            solve(&columns, &y)
                .map(|k| self.combine(chosen, &k))
                .filter(|c| a_count_everywhere(c, grid))
        };
        // The same count at every run is that constant, however large: [`solve`] refuses
        // coefficients past 64 (a coincidence of the samples) but not a count that the
        // sizes do not change (a loop to a constant the compiler fixed).
        let constant = || {
            let first = &target[rows[0]];
            let same = rows.iter().all(|&r| target[r] == *first);
            same.then(|| i64::try_from(first).ok().map(Piecewise::constant))
                .flatten()
        };
        let mut left = EXACT_CHECKS;
        let found = screen.first(MAX_TERMS, &mut |chosen| {
            if left == 0 {
                if std::env::var_os("METRON_CALIBRATE_TRACE").is_some() {
                    eprintln!("calibrate: no fit within {EXACT_CHECKS} exact checks");
                }
                return Some(None);
            }
            left -= 1;
            exact(chosen).map(Some)
        });
        found.flatten().or_else(constant)
    }

    /// This basis with `first` before its terms (those whose values it already has left
    /// out): the sparsest fit prefers them.
    fn before(
        &self,
        first: &[&Piecewise],
        values: &dyn Fn(&Piecewise) -> Option<Vec<BigInt>>,
    ) -> Basis {
        let seen: BTreeSet<&Vec<BigInt>> = self.terms.iter().map(|t| &t.1).collect();
        let mut terms = Vec::new();
        for c in first {
            let Some(v) = values(c) else { continue };
            if v.iter().all(Zero::is_zero) || seen.contains(&v) {
                continue;
            }
            let approx = v.iter().map(to_f64).collect();
            terms.push(((*c).clone(), v, approx));
        }
        terms.extend(self.terms.iter().cloned());
        Basis { terms }
    }

    /// The combination of at most [`MAX_TERMS`] terms closest to `target` at every run (least
    /// squares of relative errors, so that small runs weigh as much as large ones;
    /// coefficients to the nearest 1/64), and its [`relative_error`]: for a block that no
    /// combination fits.
    fn closest(&self, target: &[BigInt]) -> Option<(Piecewise, f64)> {
        let y: Vec<f64> = target.iter().map(to_f64).collect();
        let weight: Vec<f64> = y.iter().map(|&v| run_weight(v)).collect();
        let weighted =
            |v: &[f64]| -> Vec<f64> { v.iter().zip(&weight).map(|(x, w)| x * w).collect() };
        let approx: Vec<Vec<f64>> = self.terms.iter().map(|t| weighted(&t.2)).collect();
        let screen = Screen::new(&approx, &weighted(&y));
        let (chosen, _) = screen.closest(MAX_TERMS)?;
        let gram: Vec<Vec<f64>> = chosen
            .iter()
            .map(|&i| chosen.iter().map(|&j| screen.gram[i][j]).collect())
            .collect();
        let ty: Vec<f64> = chosen.iter().map(|&i| screen.ty[i]).collect();
        let k: Vec<BigRational> = solve_f64(gram, ty)?
            .into_iter()
            .map(|x| BigRational::new(BigInt::from((x * 64.0).round() as i64), BigInt::from(64)))
            .collect();
        let c = self.combine(&chosen, &k);
        let error = relative_error(&self.combine_values(&chosen, &k), &y);
        Some((c, error))
    }

    fn combine_values(&self, chosen: &[usize], k: &[BigRational]) -> Vec<f64> {
        let k: Vec<f64> = k
            .iter()
            .map(|x| to_f64(x.numer()) / to_f64(x.denom()))
            .collect();
        (0..self.terms.first().map_or(0, |t| t.2.len()))
            .map(|r| {
                chosen
                    .iter()
                    .zip(&k)
                    .map(|(&j, k)| k * self.terms[j].2[r])
                    .sum()
            })
            .collect()
    }

    fn combine(&self, chosen: &[usize], k: &[BigRational]) -> Piecewise {
        chosen
            .iter()
            .zip(k)
            .fold(Piecewise::zero(), |acc, (&j, k)| {
                &acc + &self.terms[j].0.scaled(k)
            })
    }
}

/// A run's weight in a least-squares fit: `1/sqrt(count)`, so that the squared errors are
/// relative to the count's size (a count's spread), and the large runs do not drown the
/// small ones, nor the small ones the large.
fn run_weight(count: f64) -> f64 {
    1.0 / count.abs().max(1.0).sqrt()
}

/// The weighted ([`run_weight`]) sum of squared errors of `predicted` against `measured`.
fn relative_error(predicted: &[f64], measured: &[f64]) -> f64 {
    predicted
        .iter()
        .zip(measured)
        .map(|(p, y)| ((p - y) * run_weight(*y)).powi(2))
        .sum()
}

fn to_f64(v: &BigInt) -> f64 {
    v.to_string().parse().unwrap_or(f64::NAN)
}

/// The unique `k` with `sum_j k_j columns_j = y` exactly (Gauss-Jordan over the rationals),
/// or `None` when there is none or it is not unique.
fn solve(columns: &[&[BigRational]], y: &[BigRational]) -> Option<Vec<BigRational>> {
    let n = columns.len();
    let mut rows: Vec<Vec<BigRational>> = (0..y.len())
        .map(|r| {
            let mut row: Vec<BigRational> = columns.iter().map(|c| c[r].clone()).collect();
            row.push(y[r].clone());
            row
        })
        .collect();
    for (pivot_row, col) in (0..n).enumerate() {
        let p = (pivot_row..rows.len()).find(|&r| !rows[r][col].is_zero())?;
        rows.swap(pivot_row, p);
        let lead = rows[pivot_row][col].clone();
        for x in rows[pivot_row].iter_mut() {
            *x = &*x / &lead;
        }
        let pivot = rows[pivot_row].clone();
        for (r, row) in rows.iter_mut().enumerate() {
            if r != pivot_row && !row[col].is_zero() {
                let factor = row[col].clone();
                for (x, p) in row.iter_mut().zip(&pivot) {
                    *x = &*x - &(&factor * p);
                }
            }
        }
    }
    // Rows past the pivots read 0 = residual: consistent only if every residual is 0.
    if rows[n..].iter().any(|r| !r[n].is_zero()) {
        return None;
    }
    let k: Vec<BigRational> = rows[..n].iter().map(|r| r[n].clone()).collect();
    // A term with coefficient 0 is not needed: a smaller subset fits. Coefficients beyond
    // the widest copy (64 iterations per pass) are no compiler's: a coincidence of the samples.
    let widest = BigRational::from_integer(BigInt::from(64));
    if k.iter().any(|x| x.is_zero() || x.abs() > widest) {
        return None;
    }
    Some(k)
}

/// The function to run, and what its runs vary.
struct Subject<'a> {
    function: &'a Function,
    cfg: &'a Cfg,
    callees: &'a Callees<'a>,
    f: &'a SourceFunction,
    assumed: &'a Assumed,
    /// Its integer parameters and the global scalars that bound loops (the sizes).
    bounds: Vec<String>,
    /// The global scalars among them, stored before each run.
    globals: Vec<Global>,
    /// `main`'s sizes from its command line, passed in `argv`.
    inputs: Vec<ProgramInput>,
    /// Loops in its deepest nest (the sizes shrink with it).
    depth: usize,
    /// Where its arrays are.
    layout: layout::Layout,
    /// Which argument register holds which parameter.
    passing: passing::Passing,
    /// The read-only constants its code (and its callees') loads: (address, bytes).
    constants: Vec<(u64, Vec<u8>)>,
    /// Each block's immediate post-dominator in `cfg`: where the ways of a branch on data join.
    post_dominators: Vec<Option<usize>>,
    /// The small constants its compares test ([`compared_constants`]).
    compared: Vec<i64>,
}

/// The finished runs, from the analysis cache when this build already ran the same machine
/// code (warm analyses then run no interpreter).
fn cached_samples(subject: &Subject, draw: Draw) -> Result<Vec<Sample>, NotChecked> {
    let mut key = subject.function.code_hash().to_le_bytes().to_vec();
    match draw {
        Draw::Fit => {}
        Draw::Check => key.extend(b"check"),
        Draw::Confirm => key.extend(b"confirm"),
    }
    key.extend(subject.depth.to_le_bytes());
    key.extend(subject.layout.key());
    key.extend(subject.passing.key());
    // The entered callees' code decides the runs too.
    let mut entered: Vec<_> = subject.callees.enter.values().collect();
    entered.sort_by_key(|c| c.function.address);
    for c in entered {
        key.extend(c.function.code_hash().to_le_bytes());
    }
    for f in subject.callees.library.values() {
        key.extend(format!("{f:?}").as_bytes());
    }
    let mut taken: Vec<_> = subject.assumed.take.iter().collect();
    taken.sort();
    for (d, t) in taken {
        key.extend(d.to_le_bytes());
        key.extend(t.to_le_bytes());
    }
    for b in &subject.bounds {
        key.extend(b.as_bytes());
        key.push(0);
    }
    let cache = crate::ast_cache::Entry::for_bytes("calibrate", &key);
    // An entry whose runs do not cover this CFG's blocks (a corrupt or colliding file) is
    // run again rather than indexed out of range.
    let blocks = subject.cfg.blocks.len();
    let fits = |s: &Sample| {
        let all = |v: &Vec<i64>| v.len() == blocks;
        all(&s.visits)
            && s.mirrored.as_ref().is_none_or(all)
            && s.other_way.as_ref().is_none_or(all)
            && s.arms_on_data.iter().all(|&b| b < blocks)
    };
    if let Some(samples) = cache
        .as_ref()
        .and_then(|c| c.load::<Result<Vec<Sample>, NotChecked>>())
        .filter(|r| r.as_ref().map_or(true, |v| v.iter().all(fits)))
    {
        return samples;
    }
    let samples = run_samples(subject, draw);
    if let Some(c) = cache {
        c.store(&samples, &Default::default());
    }
    samples
}

/// Runs the function at [`SAMPLES`] sizes, cheapest first, within the budgets; an error when a
/// run stopped on something it cannot know (then the counts rest on data) or too few finished.
/// Every other point runs again with the arrays in the opposite order, so that the blocks of
/// alias tests (whose counts depend on where the arrays are, not on the sizes) show.
fn run_samples(subject: &Subject, draw: Draw) -> Result<Vec<Sample>, NotChecked> {
    let f = subject.f;
    // Fixed sizes (no parameter): one point, with a larger budget, in both orders when the
    // first run was short ([`MIRRORED_FIXED`]); the other way of branches on data may take
    // the rest.
    let fixed = subject.bounds.is_empty();
    let (mut points, run_budget, total_budget, needed) = match fixed {
        true => (vec![Binding::new()], FIXED_BUDGET, 2 * FIXED_BUDGET, 1),
        false => (
            sizes(&subject.bounds, subject.depth, draw, &subject.compared),
            RUN_BUDGET,
            TOTAL_BUDGET,
            if draw == Draw::Fit { MIN_SAMPLES } else { 1 },
        ),
    };
    points.sort_by_key(|p| p.values().map(|v| v.unsigned_abs()).product::<u64>());
    let mut out = Vec::new();
    let mut spent = 0;
    for (t, values) in points.into_iter().enumerate() {
        let mut runs = Vec::new();
        let (mut other_way, mut on_data) = (None, Vec::new());
        // The arrays in order, the arrays mirrored, and (when a run met a branch on data)
        // every such branch the other way.
        let ways = [(false, true), (true, true), (false, false)];
        for (k, &(mirrored, taken)) in ways.iter().enumerate() {
            let wanted = match k {
                1 => (t + usize::from(fixed)) % 2 == 1 && !(fixed && spent > MIRRORED_FIXED),
                2 => runs.first().is_some_and(|(_, guessed)| *guessed),
                _ => true,
            };
            if !wanted {
                continue;
            }
            let arguments = match subject.inputs.is_empty() {
                true => subject
                    .passing
                    .arguments(f, &subject.layout, &values, mirrored),
                false => command_line::arguments(&subject.inputs),
            };
            let budget = run_budget.min(total_budget.saturating_sub(spent));
            let way = Way { mirrored, taken };
            match run(subject, &arguments, &values, way, budget) {
                Run::Finished {
                    visits,
                    steps,
                    on_data: branches,
                } => {
                    spent += steps;
                    let guessed = !branches.is_empty();
                    if k != 1 {
                        on_data.extend(branches);
                    }
                    match k {
                        2 => other_way = Some(visits),
                        _ => runs.push((visits, guessed)),
                    }
                }
                Run::OverBudget => {
                    spent += budget;
                    // The other ways run as long: not tried (at a fixed size, a second
                    // wasted second).
                    break;
                }
                Run::Stopped { at } => return Err(NotChecked::Stopped { at }),
            }
        }
        // A run that guessed the data says nothing when the other way did not finish (a loop
        // bounded by data runs on): which blocks follow the data is unknown.
        let guessed = runs.first().is_some_and(|(_, g)| *g);
        if guessed && other_way.is_none() {
            runs.clear();
        }
        let mut runs = runs.into_iter().map(|(v, _)| v);
        if let Some(visits) = runs.next() {
            let arms_on_data = match &other_way {
                Some(o) => arms_on_data(subject, &on_data, &visits, o),
                None => Vec::new(),
            };
            out.push(Sample {
                values,
                visits,
                mirrored: runs.next(),
                other_way,
                arms_on_data,
            });
        }
        if spent >= total_budget {
            break;
        }
    }
    if out.len() < needed {
        return Err(NotChecked::OverBudget {
            needed,
            finished: out.len(),
        });
    }
    Ok(out)
}

/// [`SAMPLES`] distinct points ([`CHECKS`] from another seed for the checks and a third for
/// the confirmations, each after every size's sweep), each parameter drawn from [`SMALL`] one time in four (the
/// thresholds of guards, `n >= 4`, lie there) and from [`SIZES`] otherwise; a fixed
/// generator, so that the cache and the tests are reproducible.
fn sizes(bounds: &[String], depth: usize, draw: Draw, compared: &[i64]) -> Vec<Binding> {
    let fits = (RUN_BUDGET as f64 / PER_ITERATION).powf(1.0 / depth.max(1) as f64) as i64;
    let sizes = *SIZES.start()..=(*SIZES.end()).min(fits.max(SIZES.start() + 4));
    let (mut state, wanted) = match draw {
        Draw::Fit => (0x9e37_79b9_7f4a_7c15u64, SAMPLES),
        Draw::Check => (0x2545_f491_4f6c_dd1d, CHECKS),
        Draw::Confirm => (0x6a09_e667_f3bc_c908, CHECKS),
    };
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let pick = |range: &std::ops::RangeInclusive<i64>, r: u64| {
        range.start() + (r % (range.end() - range.start() + 1) as u64) as i64
    };
    let mut points: Vec<Binding> = Vec::new();
    let top = *sizes.end();
    // Past the draws, three sizes each: a refit the checks made can match one far point by
    // a coincidence of periods (`m - 12` less 24-wide passes at m = 30), and with two a
    // count that changes with `i mod 12` took a piece past each (nest 3246 at gcc -O3).
    let far = match draw {
        Draw::Check => vec![4 * top / 3, 5 * top / 3, 2 * top],
        Draw::Confirm => vec![top + 2, (3 * top / 2) | 1, 11 * top / 6],
        Draw::Fit => Vec::new(),
    };
    for p in far.into_iter().flat_map(|f| far_points(bounds, &sizes, f)) {
        if !points.contains(&p) {
            points.push(p);
        }
    }
    if draw != Draw::Fit {
        // Each size swept through the small ones, the others drawn: where guards and the
        // copies of short unrolled loops change (`i <= n + 1` for i = 0..6 changes at every
        // n up to 5), one point per value.
        for swept in bounds {
            for v in CHECK_SMALL {
                let p: Binding = bounds
                    .iter()
                    .map(|b| (b.clone(), if b == swept { v } else { pick(&sizes, next()) }))
                    .collect();
                if !points.contains(&p) {
                    points.push(p);
                }
            }
        }
    }
    if draw != Draw::Fit {
        let mut others = || pick(&sizes, next());
        for p in threshold_points(bounds, compared, &mut others) {
            if !points.contains(&p) {
                points.push(p);
            }
        }
    }
    // A repeated point says nothing new: drawn again (a one-parameter kernel drew n = 23
    // three times in 18).
    let wanted = wanted + points.len();
    for _ in 0..20 * wanted {
        if points.len() >= wanted {
            break;
        }
        let p: Binding = bounds
            .iter()
            .map(|b| {
                let range = match draw {
                    Draw::Fit if next() % 4 == 0 => &SMALL,
                    _ => &sizes,
                };
                (b.clone(), pick(range, next()))
            })
            .collect();
        if !points.contains(&p) {
            points.push(p);
        }
    }
    points
}

/// Compared constants past [`CHECK_SMALL`] whose two sides the checks run on, at most.
const THRESHOLD_POINTS: usize = 6;

/// Each size at each side of the constants its function compares with (`cmp $12, edi; jle`:
/// n = 12 and 13), the others drawn, then one more: where a copy runs past a threshold the
/// draws may all miss (clang's copy per value of an unrolled `i` of a loop unswitched on
/// `2i >= n - 2` runs from n = 15, 13, 11 or 9), the fit can only guess which threshold
/// it is. Two draws of the others, the second one more, so that both parities show.
fn threshold_points(
    bounds: &[String],
    compared: &[i64],
    others: &mut dyn FnMut() -> i64,
) -> Vec<Binding> {
    let past_small = compared
        .iter()
        .filter(|&&c| c > *CHECK_SMALL.end() && c < FAR)
        .take(THRESHOLD_POINTS);
    let mut out = Vec::new();
    for &c in past_small {
        for swept in bounds {
            for v in [c, c + 1] {
                let drawn: Vec<i64> = bounds.iter().map(|_| others()).collect();
                for shift in [0, 1] {
                    let p: Binding = bounds
                        .iter()
                        .zip(&drawn)
                        .map(|(b, &d)| (b.clone(), if b == swept { v } else { d + shift }))
                        .collect();
                    if !out.contains(&p) {
                        out.push(p);
                    }
                }
            }
        }
    }
    out
}

/// One run per size at `far` past the drawn values (at most [`FAR`]), the others at the
/// smallest drawn one: a nest whose depth narrows the draws runs below thresholds its copies
/// pass at larger sizes (a guard `N >= 6` on a loop stepping by 3 over `i - 2`), and a count
/// fitted below them holds only there. A run past the budget is dropped.
fn far_points(bounds: &[String], sizes: &std::ops::RangeInclusive<i64>, far: i64) -> Vec<Binding> {
    let far = far.min(FAR);
    bounds
        .iter()
        .map(|swept| {
            bounds
                .iter()
                .map(|b| (b.clone(), if b == swept { far } else { *sizes.start() }))
                .collect()
        })
        .collect()
}

/// Loops in the deepest nest of any of `frames`' functions.
fn deepest_nest(source: &SourceModel, frames: &[frames::Frame]) -> usize {
    frames
        .iter()
        .map(|fr| nest_depth(source, fr.function))
        .max()
        .unwrap_or(1)
}

/// Loops in the deepest nest of `f`.
fn nest_depth(source: &SourceModel, f: &SourceFunction) -> usize {
    (0..source.loops.len())
        .filter(|&i| source.loops[i].function == f.name)
        .map(|i| std::iter::successors(Some(i), |&l| source.loops[l].parent).count())
        .max()
        .unwrap_or(1)
}

/// What the runs know of `function`'s calls: the functions of the same binary it calls are
/// entered, and so are theirs; the C library's functions a run follows ([`Library`]) are
/// known wherever an entered function calls them (a suite's `alloc` helper calling
/// `posix_memalign`).
fn callees<'a>(binary: &'a crate::binary::Binary, function: &Function) -> Callees<'a> {
    let mut out = Callees::default();
    let call_targets = |f: &Function| -> Vec<u64> {
        f.instructions
            .iter()
            .filter(|i| i.mnemonic == iced_x86::Mnemonic::Call)
            .filter_map(|i| i.target)
            .collect()
    };
    let mut pending = call_targets(function);
    let mut seen = BTreeSet::from([function.address]);
    while let Some(t) = pending.pop() {
        if !seen.insert(t) {
            continue;
        }
        match binary.plt.get(&t) {
            Some(name) => {
                if let Some(f) = Library::by_name(name) {
                    out.library.insert(t, f);
                }
            }
            None => {
                if let Some(f) = binary.functions.iter().find(|f| f.address == t) {
                    out.enter.insert(t, Callee::new(f));
                    pending.extend(call_targets(f));
                }
            }
        }
    }
    out
}

/// The read-only data that `function` and the callees the runs enter load (RIP-relative
/// operands in `.rodata`): stored before each run, as the loader maps them.
fn constants(
    binary: &crate::binary::Binary,
    function: &Function,
    callees: &Callees,
) -> Vec<(u64, Vec<u8>)> {
    let entered = callees.enter.values().map(|c| c.function);
    let mut out: Vec<(u64, Vec<u8>)> = std::iter::once(function)
        .chain(entered)
        .flat_map(|f| &f.instructions)
        .filter(|i| i.decoded.is_ip_rel_memory_operand())
        .filter_map(|i| {
            let address = i.decoded.ip_rel_memory_address();
            let bytes = binary.constant(address, i.decoded.memory_size().size())?;
            Some((address, bytes.to_vec()))
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The arms of the branches on data two runs met (blocks `on_data` end in them): every block
/// on a way from a branch to its join (its immediate post-dominator), the join excluded (gcc
/// sets one side's value before the branch and jumps to the join). Their counts follow the
/// data even where both runs visit them alike: `a > hi ? hi : MAX(a / 2, lo)` reaches the
/// `MIN`'s arm with every branch taken and with none, but not with a mix. A branch without a
/// join (an arm that returns): the blocks it is the only way into, and the blocks neither run
/// visited that it leads to (code only a mix of ways runs, which both runs count 0).
fn arms_on_data(subject: &Subject, on_data: &[usize], visits: &[i64], other: &[i64]) -> Vec<usize> {
    let (cfg, post_dominators) = (subject.cfg, &subject.post_dominators);
    let unvisited = |b: usize| visits[b] == 0 && other[b] == 0;
    let mut out: BTreeSet<usize> = BTreeSet::new();
    for &d in on_data {
        let join = post_dominators[d];
        let within = |b: usize| join.map_or(unvisited(b), |j| b != j);
        let mut work: Vec<usize> = (cfg.blocks[d].successors.iter().copied())
            .filter(|&s| within(s) || (join.is_none() && cfg.only_way_in(s, d)))
            .collect();
        let mut seen = BTreeSet::new();
        while let Some(b) = work.pop() {
            if seen.insert(b) {
                work.extend(
                    cfg.blocks[b]
                        .successors
                        .iter()
                        .copied()
                        .filter(|&s| within(s)),
                );
            }
        }
        out.extend(seen);
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_traits::One;

    /// [`iteration`]'s cuts of a loop whose start is a `min` counting down (or a `max`
    /// counting up) hold one point, summed over the pieces, exactly where the loop has a
    /// `c`-th iteration: checked against running the loop, for every `n` in -6..=16.
    #[test]
    fn first_iteration_cuts_of_a_min_start_match_running_the_loop() {
        let loops = [
            ("min(8, n + 1)", "0", false, -3),
            ("max(2, n - 4)", "n + 3", false, 2),
            ("min(n, 5)", "1", true, -1),
        ];
        for (start, end, inclusive, stride) in loops {
            let l = metron_symbolic::Loop {
                var: "i".into(),
                start: Bound::parse(start).unwrap(),
                end: Bound::parse(end).unwrap(),
                end_inclusive: inclusive,
                stride,
                residues: Vec::new(),
            };
            for c in 1..=4 {
                let cuts = iteration(&l, c);
                assert!(!cuts.is_empty(), "{start}: no cut");
                for n in -6..=16 {
                    // The loop run by hand: its c-th iteration exists or not.
                    let at = |b: &Bound| b.evaluate(&[("n".to_string(), n)].into()).unwrap();
                    let (mut i, stop) = (at(&l.start), at(&l.end));
                    let mut iterations = 0;
                    let runs = |i: i64| match (stride > 0, inclusive) {
                        (true, true) => i <= stop,
                        (true, false) => i < stop,
                        (false, true) => i >= stop,
                        (false, false) => i > stop,
                    };
                    while runs(i) {
                        iterations += 1;
                        i += stride;
                    }
                    let binding: Binding = [("n".to_string(), n)].into();
                    let counted: i64 = cuts
                        .iter()
                        .map(|cut| {
                            let nest = metron_symbolic::LoopNest::new(vec![cut.clone()]);
                            let count =
                                metron_symbolic::trip_count(&nest, &CountOptions::default());
                            let v = count.unwrap().evaluate_integer(&binding).unwrap();
                            i64::try_from(&v).unwrap()
                        })
                        .sum();
                    let expected = i64::from(iterations >= c);
                    assert_eq!(counted, expected, "{start}, iteration {c}, n = {n}");
                }
            }
        }
    }

    fn r(v: &[i64]) -> Vec<BigRational> {
        v.iter()
            .map(|&x| BigRational::from_integer(BigInt::from(x)))
            .collect()
    }

    /// `y = 2a - b` on five samples is found; a `y` off by one at one sample is not.
    #[test]
    fn solve_finds_the_exact_combination_only() {
        let a = r(&[3, 5, 8, 13, 21]);
        let b = r(&[1, 1, 2, 3, 5]);
        let y = r(&[5, 9, 14, 23, 37]);
        let k = solve(&[&a, &b], &y).expect("2a - b");
        assert_eq!(k, r(&[2, -1]));
        let mut off = y.clone();
        off[4] = off[4].clone() + BigRational::one();
        assert!(solve(&[&a, &b], &off).is_none());
        // Linearly dependent columns have no unique solution.
        assert!(solve(&[&a, &a], &r(&[6, 10, 16, 26, 42])).is_none());
    }

    /// The remainder loop of an 8-wide copy runs `n - 8 floor(n/8)` times: two terms of the
    /// basis, found from samples at n <= 40 and right at n = 100003.
    #[test]
    fn a_remainder_is_found_as_iterations_minus_eight_passes() {
        use metron_symbolic::{trip_count, Loop, LoopNest};
        let count = |l: Loop| trip_count(&LoopNest::new(vec![l]), &CountOptions::default());
        let iterations = count(Loop::exclusive("n_loop", "0", "n", 1).unwrap()).unwrap();
        let passes = count(Loop::exclusive("n_loop", "0", "n - 7", 8).unwrap()).unwrap();
        let noise = count(Loop::exclusive("n_loop", "0", "n - 3", 4).unwrap()).unwrap();
        let samples: Vec<i64> = vec![5, 9, 13, 17, 22, 31, 40, 3];
        let values = |c: &Piecewise| -> Option<Vec<BigInt>> {
            samples
                .iter()
                .map(|&n| {
                    c.evaluate_integer(&metron_symbolic::binding([("n", n)]))
                        .ok()
                })
                .collect()
        };
        let basis = Basis::new(vec![], &[noise, iterations, passes], &values);
        let target: Vec<BigInt> = samples.iter().map(|n| BigInt::from(n % 8)).collect();
        let rows: Vec<usize> = (0..samples.len()).collect();
        let fitted = basis.fit(&target, &rows, &[]).expect("n - 8 floor(n/8)");
        let at = |n: i64| {
            fitted
                .evaluate_integer(&metron_symbolic::binding([("n", n)]))
                .unwrap()
        };
        assert_eq!(at(100003), BigInt::from(3));
        assert_eq!(at(100000), BigInt::from(0));
        // A target no combination gives (n^2) is not fitted.
        let square: Vec<BigInt> = samples.iter().map(|n| BigInt::from(n * n)).collect();
        assert!(basis.fit(&square, &rows, &[]).is_none());
    }
}
