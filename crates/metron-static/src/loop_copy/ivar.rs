//! Loop copies counted from their own induction variables (issue 12 item 3: "read each
//! loop's induction variable (start, step, exit compare) from the machine code, relate it to
//! the source bounds"). The function is run on the [`Machine`] from its entry with the
//! source loop's bounds at two sizes `N1` and `N2 = N1 + D`; the first entry of every
//! innermost copy gives its passes `T1`, `T2` and its induction variable (the compared
//! operand that moves by a constant per pass: start, step, bound, exit jump). `D` is a
//! multiple of every factor up to 64 but 7 (`D = 960`), so a copy that takes `k` source
//! iterations per pass, peeled or not, has `T2 - T1 = D / k` exactly: `k = (N2 - N1) / (T2 -
//! T1)`. A copy whose passes do not grow with `N` (a remainder) or that the run does not
//! reach (a fallback behind an alias test) is not read, and keeps the older rules.

use std::collections::{BTreeMap, HashMap};

use iced_x86::Register;
use serde::Serialize;

use super::machine::{Callees, Flow, Machine};
use crate::binary::Function;
use crate::cfg::Cfg;
use crate::source::SourceModel;

/// Growth of the source loop's trip count between the two runs: divisible by 1-6, 8, 10,
/// 12, 15, 16, 20, 24, 30, 32, 64.
const GROWTH: i64 = 960;
/// First size given to the source loop's bound parameters: `-1 mod 64`, so that remainder
/// copies run several passes (their steps are read too).
const SIZE: i64 = 1023;
/// Instructions one run may execute.
const BUDGET: usize = 600_000;

/// The induction variable of one binary loop copy as read from its first entry.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Induction {
    /// Register or stack slot (`rbx`, `[rsp-0x7c]`).
    pub place: String,
    pub start: i64,
    /// Change per pass.
    pub step: i64,
    /// What the exit compare tests it against (0 for flags of the step itself).
    pub bound: i64,
    /// The exit jump (`jne`, `jg`, ...).
    pub exit: String,
    /// Passes of the entry, and the source loop's iterations on it.
    pub passes: i64,
    pub source_iterations: i64,
}

/// A copy's factor read from its induction variable, with the readings at both sizes.
#[derive(Debug, Clone, Serialize)]
pub struct IvarFactor {
    pub factor: i64,
    pub readings: [Induction; 2],
    /// For a copy whose passes do not grow: the register and sibling that gave its unit.
    pub unit: Option<String>,
    /// The copy's loop header address.
    pub header: u64,
}

impl std::fmt::Display for IvarFactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [a, b] = &self.readings;
        write!(
            f,
            "{} source iterations per pass, read from its induction variable {} (start {}, \
             step {:+}, exit {} against {}): ",
            self.factor, a.place, a.start, a.step, a.exit, a.bound
        )?;
        match a == b {
            true => write!(
                f,
                "{} passes for a fixed {} iterations",
                a.passes, a.source_iterations
            )?,
            false => write!(
                f,
                "{} and {} passes for {} and {} iterations",
                a.passes, b.passes, a.source_iterations, b.source_iterations
            )?,
        }
        match &self.unit {
            Some(unit) => write!(f, "; the factor from its unit: {unit}"),
            None => Ok(()),
        }
    }
}

/// One finished first entry of a loop.
#[derive(Clone, Serialize, serde::Deserialize)]
struct Entry {
    passes: i64,
    induction: Option<(String, i64, i64, i64, String)>,
    /// Registers that moved by one constant per pass over the first passes, and that step.
    #[serde(with = "registers")]
    steps: BTreeMap<Register, i64>,
}

/// Registers as iced's numbers in the cache (iced's serde feature is off).
mod registers {
    use std::collections::BTreeMap;

    use iced_x86::Register;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(m: &BTreeMap<Register, i64>, s: S) -> Result<S::Ok, S::Error> {
        let v: Vec<(usize, i64)> = m.iter().map(|(r, x)| (*r as usize, *x)).collect();
        v.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<Register, i64>, D::Error> {
        let v = Vec::<(usize, i64)>::deserialize(d)?;
        v.into_iter()
            .map(|(r, x)| Register::try_from(r).map(|r| (r, x)))
            .collect::<Result<_, _>>()
            .map_err(serde::de::Error::custom)
    }
}

/// Registers that moved by the same constant between consecutive snapshots (at least two).
fn register_steps(shots: &[Machine]) -> BTreeMap<Register, i64> {
    let mut out = BTreeMap::new();
    let [first, second, ..] = shots else {
        return out;
    };
    for (r, a) in first.registers() {
        let Some(b) = second.register(r) else {
            continue;
        };
        let step = b.wrapping_sub(a);
        let steady = shots.windows(2).all(|w| {
            w[0].register(r)
                .zip(w[1].register(r))
                .is_some_and(|(x, y)| y.wrapping_sub(x) == step)
        });
        if step != 0 && steady && r != Register::RSP {
            out.insert(r, step);
        }
    }
    out
}

/// Factors of the innermost binary loops mapped to source loop `s` that its induction
/// variables decide.
pub fn ivar_factors(
    function: &Function,
    cfg: &Cfg,
    source: &SourceModel,
    s: usize,
    copies: &[usize],
) -> BTreeMap<usize, IvarFactor> {
    let innermost: Vec<usize> = copies.to_vec();
    let mut out = BTreeMap::new();
    if innermost.is_empty() {
        return out;
    }
    // Sizes the compiler fixed (a `.constprop` clone, a function whose constant arguments
    // clang dropped): the loop's trip is DWARF's constants, and the arguments the runs would
    // pass in source order are not where the code reads them.
    if function.clone_suffix().is_some() || bounds_fixed(function, source, s) {
        if let Some(trip) = source_trip(source, s, &function.signature.fixed) {
            fixed_trip_factors(function, cfg, (trip, BTreeMap::new()), &innermost, &mut out);
        }
        return out;
    }
    // Bounds that are locals the function sets to constants (`int n = N;` in `main`): one
    // fixed trip, run from the entry as the program runs it.
    if let Some(values) = constant_locals(function, source, s) {
        if let Some(trip) = source_trip(source, s, &values) {
            let entries = cached_run(function, cfg, &[], &innermost, (trip, None));
            fixed_trip_factors(function, cfg, (trip, entries), &innermost, &mut out);
            // The source's constant holds only where the binary agrees: a lone copy (no
            // remainder loop beside it) takes the whole trip in whole passes. A file read
            // without the build's `-D` (N = 400 in the source, 36 in the binary) fits a
            // wrong `k` otherwise (ludcmp_pb's `main`: 11 for 36 passes).
            if innermost.len() == 1 {
                out.retain(|_, f| f.factor * f.readings[0].passes == trip);
            }
        }
        return out;
    }
    let Some(runs) = [0, GROWTH]
        .iter()
        .map(|&grow| sample(function, cfg, source, s, grow, &innermost))
        .collect::<Option<Vec<_>>>()
    else {
        return out;
    };
    let growth = runs[1].0 - runs[0].0;
    // Bounds that are the file's constants: one trip, both runs alike.
    if growth == 0 {
        fixed_trip_factors(function, cfg, runs[0].clone(), &innermost, &mut out);
    }
    for &o in &innermost {
        let (Some(a), Some(b)) = (runs[0].1.get(&o), runs[1].1.get(&o)) else {
            continue;
        };
        let dt = b.passes - a.passes;
        if dt <= 0 || growth <= 0 || growth % dt != 0 || growth / dt > MAX_FACTOR {
            continue;
        }
        let (Some(ia), Some(ib)) = (reading(a, runs[0].0), reading(b, runs[1].0)) else {
            continue;
        };
        out.insert(
            o,
            IvarFactor {
                factor: growth / dt,
                readings: [ia, ib],
                unit: None,
                header: cfg.blocks[cfg.loops[o].header].start,
            },
        );
    }
    by_units(cfg, &runs, &innermost, &mut out);
    out
}

/// Whether source loop `s`'s bounds name parameters and DWARF says the compiler fixed them all.
fn bounds_fixed(function: &Function, source: &SourceModel, s: usize) -> bool {
    let names = bound_names(source, s).unwrap_or_default();
    let fixed = &function.signature.fixed;
    !names.is_empty() && names.iter().all(|n| fixed.contains_key(*n))
}

/// The values of source loop `s`'s bound names where every one is a local of the function
/// that its definition sets to a constant (no parameter, no counter); `None` otherwise.
fn constant_locals(
    function: &Function,
    source: &SourceModel,
    s: usize,
) -> Option<BTreeMap<String, i64>> {
    let names = bound_names(source, s)?;
    if names.is_empty() {
        return None;
    }
    let name = function.source_name();
    let none = BTreeMap::new();
    names
        .into_iter()
        .map(|n| {
            let (_, local) = source
                .locals
                .iter()
                .find(|(f, l)| f == name && &l.name == n)?;
            Some((n.clone(), local.value(&none).ok()?))
        })
        .collect()
}

/// The names source loop `s`'s start and end read; `None` where its bounds are not affine.
fn bound_names(source: &SourceModel, s: usize) -> Option<Vec<&String>> {
    let scop = source.loops[s].scop.as_ref().ok()?;
    let exprs = scop.start.exprs().iter().chain(scop.end.exprs());
    Some(exprs.flat_map(|e| e.names()).collect())
}

/// Copies of a loop of a fixed trip count that the run from the function's entry did not
/// reach within its budget (a loop after a large nest): each run again from the block that
/// enters it (the header's immediate dominator) with every register unknown. A copy whose
/// count the compiler fixed sets its induction variable there and compares it with a
/// constant; one that needs what came before stops on an unknown branch and is not read.
fn from_preheaders(
    function: &Function,
    cfg: &Cfg,
    copies: &[usize],
    (n, entries): &mut (i64, BTreeMap<usize, Entry>),
) {
    for &o in copies {
        if entries.contains_key(&o) {
            continue;
        }
        let Some(preheader) = cfg.idom[cfg.loops[o].header] else {
            continue;
        };
        let mut found = cached_run(function, cfg, &[], &[o], (*n, Some(preheader)));
        if let Some(e) = found.remove(&o) {
            entries.insert(o, e);
        }
    }
}

/// Copies of a loop whose trip count `S` is fixed (sizes the compiler was given as constants:
/// no parameter moves it, so the two runs are one): a copy of `k` source iterations per pass
/// runs `T` passes with `k T <= S <= k T + 2 (k - 1)` (what is left over goes to remainders,
/// at most `k - 1`, and to a peel for alignment, at most `k - 1` more). The factor is read
/// where exactly one `k` up to [`MAX_FACTOR`] fits; short copies (remainders) fit none.
/// `entries`: the first entries a run from the function's entry finished, if any; the others
/// are run from their preheaders.
fn fixed_trip_factors(
    function: &Function,
    cfg: &Cfg,
    mut entries: (i64, BTreeMap<usize, Entry>),
    copies: &[usize],
    out: &mut BTreeMap<usize, IvarFactor>,
) {
    from_preheaders(function, cfg, copies, &mut entries);
    let (trip, entries) = (entries.0, entries.1);
    for &o in copies {
        let Some(e) = entries.get(&o) else { continue };
        let Some(reading) = reading(e, trip) else {
            continue;
        };
        let fits = |k: i64| k * e.passes <= trip && trip <= k * e.passes + 2 * (k - 1);
        let mut ks = (1..=MAX_FACTOR).filter(|&k| e.passes > 0 && fits(k));
        let (Some(k), None) = (ks.next(), ks.next()) else {
            continue;
        };
        out.insert(
            o,
            IvarFactor {
                factor: k,
                readings: [reading.clone(), reading],
                unit: None,
                header: cfg.blocks[cfg.loops[o].header].start,
            },
        );
    }
}

/// Passes of each copy's first entry at the two sizes, and the growth of the source loop's
/// trip count between them; copies a run does not finish are left out.
pub fn pass_growth(
    function: &Function,
    cfg: &Cfg,
    source: &SourceModel,
    s: usize,
    copies: &[usize],
) -> Option<(i64, BTreeMap<usize, [i64; 2]>)> {
    if copies.is_empty() || function.clone_suffix().is_some() {
        return None;
    }
    let runs = [0, GROWTH]
        .iter()
        .map(|&grow| sample(function, cfg, source, s, grow, copies))
        .collect::<Option<Vec<_>>>()?;
    let passes = copies
        .iter()
        .filter_map(|o| Some((*o, [runs[0].1.get(o)?.passes, runs[1].1.get(o)?.passes])))
        .collect();
    Some((runs[1].0 - runs[0].0, passes))
}

/// How many disjoint groups share the entries of the source loop: copies under different
/// copies of an unrolled-away outer loop each take a whole entry, so their source iterations
/// per pass times their passes' growth add up to `m` times the loop's growth, and each takes
/// `1/m` of the total (a cascade's copies split one entry: `m = 1`). `None` unless every
/// growing copy was read and the sum is a whole multiple.
pub fn entry_groups(read: &[&IvarFactor]) -> Option<i64> {
    let mut growth = None;
    let mut sum = 0;
    for f in read.iter().filter(|f| f.unit.is_none()) {
        let [a, b] = &f.readings;
        let g = b.source_iterations - a.source_iterations;
        if g <= 0 || *growth.get_or_insert(g) != g {
            return None;
        }
        sum += (b.passes - a.passes) * f.factor;
    }
    let g = growth?;
    (sum > g && sum % g == 0).then_some(sum / g)
}

/// Copies whose passes do not grow with `N` (remainders): a register that moves `u` per
/// source iteration in a copy whose factor was read (the counter the copies hand on: clang's
/// vector loop steps it by 16, its scalar remainder by 2) gives their factor as `step / u`,
/// when every such register agrees in both runs.
fn by_units(
    cfg: &Cfg,
    runs: &[(i64, BTreeMap<usize, Entry>)],
    copies: &[usize],
    out: &mut BTreeMap<usize, IvarFactor>,
) {
    'copy: for &o in copies {
        if out.contains_key(&o) {
            continue;
        }
        let mut factors = Vec::new();
        let mut why = None;
        for (n, entries) in runs {
            let Some(e) = entries.get(&o) else {
                continue 'copy;
            };
            for (&known, f) in out.iter() {
                let Some(k) = entries.get(&known) else {
                    continue;
                };
                for (r, &c) in &e.steps {
                    let Some(&kc) = k.steps.get(r) else { continue };
                    if kc % f.factor != 0 || c % (kc / f.factor) != 0 || c / (kc / f.factor) <= 0 {
                        continue;
                    }
                    let unit = kc / f.factor;
                    factors.push(c / unit);
                    why.get_or_insert_with(|| {
                        let r = format!("{r:?}").to_lowercase();
                        (format!("{r} moves {c:+} per pass here and {unit:+} per source iteration in the copy at 0x{:x}", f.header), *n)
                    });
                }
            }
        }
        let (Some(&k), Some((unit, _))) = (factors.first(), why) else {
            continue;
        };
        if factors.iter().any(|f| *f != k) || k > 64 {
            continue;
        }
        let (Some(ia), Some(ib)) = (
            runs[0].1.get(&o).and_then(|e| reading(e, runs[0].0)),
            runs[1].1.get(&o).and_then(|e| reading(e, runs[1].0)),
        ) else {
            continue;
        };
        let header = cfg.blocks[cfg.loops[o].header].start;
        out.insert(
            o,
            IvarFactor {
                factor: k,
                readings: [ia, ib],
                unit: Some(unit),
                header,
            },
        );
    }
}

fn reading(e: &Entry, n: i64) -> Option<Induction> {
    let (place, start, step, bound, exit) = e.induction.clone()?;
    Some(Induction {
        place,
        start,
        step,
        bound,
        exit,
        passes: e.passes,
        source_iterations: n,
    })
}

/// One run: the source loop's trip count on its first entry, and the first entries of the
/// copies.
fn sample(
    function: &Function,
    cfg: &Cfg,
    source: &SourceModel,
    s: usize,
    grow: i64,
    copies: &[usize],
) -> Option<(i64, BTreeMap<usize, Entry>)> {
    let (arguments, values) = arguments(function, source, s, grow)?;
    let n = source_trip(source, s, &values)?;
    let entries = cached_run(function, cfg, &arguments, copies, (n, None));
    Some((n, entries))
}

/// The function's integer arguments for one run: the source loop's bound parameters at
/// `SIZE + grow` (and up), the other loops' bound parameters small (the enclosing loops
/// then reach the copy soon), every other parameter a distinct aligned address (arrays that
/// do not overlap, as the model assumes).
fn arguments(
    function: &Function,
    source: &SourceModel,
    s: usize,
    grow: i64,
) -> Option<(Vec<i64>, BTreeMap<String, i64>)> {
    let f = source
        .functions
        .iter()
        .find(|f| f.name == function.source_name())?;
    let own = bound_names(source, s)?;
    // Bounds on enclosing counters (triangular loops) are not read here.
    if own.iter().any(|n| !f.parameters.contains(n)) {
        return None;
    }
    let bounded = |name: &String| {
        source.loops.iter().any(|l| {
            l.function == f.name
                && l.scop.as_ref().is_ok_and(|x| {
                    x.start
                        .exprs()
                        .iter()
                        .chain(x.end.exprs())
                        .any(|e| e.terms.contains_key(name))
                })
        })
    };
    let mut values = BTreeMap::new();
    let mut out = Vec::new();
    for (k, p) in f.integer_arguments().enumerate() {
        let k = k as i64;
        let v = if own.contains(&p) {
            SIZE + grow + 16 * k
        } else if bounded(p) {
            5 + k
        } else {
            (k + 1) << 32
        };
        values.insert(p.clone(), v);
        out.push(v);
    }
    Some((out, values))
}

/// Iterations of source loop `s` on an entry, its bounds evaluated at `values`.
fn source_trip(source: &SourceModel, s: usize, values: &BTreeMap<String, i64>) -> Option<i64> {
    let scop = source.loops[s].scop.as_ref().ok()?;
    let start = scop.start.evaluate(values).ok()?;
    let end = scop.end.evaluate(values).ok()?;
    let inclusive = i64::from(scop.end_inclusive);
    let span = if scop.stride > 0 {
        end - start + inclusive
    } else {
        start - end + inclusive
    };
    let stride = scop.stride.abs();
    Some(((span + stride - 1).div_euclid(stride)).max(0))
}

/// [`run`], read from the analysis cache when this build already ran the same machine code
/// with the same arguments (warm analyses then skip the interpreter; `ast_cache`).
fn cached_run(
    function: &Function,
    cfg: &Cfg,
    arguments: &[i64],
    copies: &[usize],
    (n, start): (i64, Option<usize>),
) -> BTreeMap<usize, Entry> {
    let mut key = function.code_hash().to_le_bytes().to_vec();
    let from = start.map_or(-1, |b| b as i64);
    for v in arguments.iter().chain([&n, &from]) {
        key.extend(v.to_le_bytes());
    }
    for c in copies {
        key.extend(c.to_le_bytes());
    }
    let cache = crate::ast_cache::Entry::for_bytes("ivar", &key);
    if let Some(done) = cache.as_ref().and_then(|c| c.load::<Vec<(usize, Entry)>>()) {
        return done.into_iter().collect();
    }
    let done = run(function, cfg, arguments, copies, (n, start));
    if let Some(c) = cache {
        let list: Vec<(usize, &Entry)> = done.iter().map(|(o, e)| (*o, e)).collect();
        c.store(&list, &Default::default());
    }
    done
}

/// Runs the function from its entry (or from block `start`, the registers unknown) until
/// every copy has finished its first entry (or the run stops: a return, an unknown branch,
/// the budget, or a copy that cannot finish within the budget: see [`Pace`]). `n`: the
/// source loop's iterations per entry.
fn run(
    function: &Function,
    cfg: &Cfg,
    arguments: &[i64],
    copies: &[usize],
    (n, start): (i64, Option<usize>),
) -> BTreeMap<usize, Entry> {
    let by_start = cfg.blocks_by_start();
    let mut m = Machine::at_entry(arguments);
    let mut done: BTreeMap<usize, Entry> = BTreeMap::new();
    let mut open: HashMap<usize, Vec<Machine>> = HashMap::new();
    let mut visits: HashMap<usize, i64> = HashMap::new();
    let mut pace: HashMap<usize, Pace> = HashMap::new();
    // A copy that encloses another (one the lines mapped wrong: `nesting`) need not take
    // `N / 64` passes, so it is not paced.
    let encloses = |o: usize| {
        copies.iter().any(|&x| {
            x != o
                && cfg.loops[x]
                    .blocks
                    .iter()
                    .all(|b| cfg.loops[o].blocks.contains(b))
        })
    };
    let paced: Vec<bool> = copies.iter().map(|&o| !encloses(o)).collect();
    let entry = *by_start.get(&function.address).unwrap_or(&0);
    let (mut b, mut steps) = (start.unwrap_or(entry), 0usize);
    while done.len() < copies.len() && steps < BUDGET {
        if pace.values().any(|p| p.hopeless(steps, n)) {
            break;
        }
        for (&o, &paced) in copies.iter().zip(&paced) {
            if cfg.loops[o].header == b && !done.contains_key(&o) {
                *visits.entry(o).or_default() += 1;
                if paced {
                    pace.entry(o)
                        .or_insert(Pace {
                            first: steps,
                            pass: steps,
                            passes: 0,
                        })
                        .visit(steps);
                }
                let shots = open.entry(o).or_default();
                if shots.len() < 3 {
                    shots.push(m.clone());
                }
            }
        }
        let block = &cfg.blocks[b];
        steps += block.end - block.first;
        let Flow::Goto(next) = m.run_block(function, block, &Callees::default()) else {
            break;
        };
        let Some(&nb) = by_start.get(&next) else {
            break;
        };
        for &o in copies {
            let inside = cfg.loops[o].blocks.contains(&b);
            if inside && !cfg.loops[o].blocks.contains(&nb) && !done.contains_key(&o) {
                let last = &function.instructions[block.end - 1];
                let shots = open.get(&o).map_or(&[][..], |v| v);
                let entry = Entry {
                    passes: visits.get(&o).copied().unwrap_or(0),
                    induction: induction(function, &m, last, shots),
                    steps: register_steps(shots),
                };
                done.insert(o, entry);
                pace.remove(&o);
            }
        }
        b = nb;
    }
    done
}

/// Progress of a copy's first entry. It takes at least `n / MAX_FACTOR` passes, each costing
/// about what the passes so far did (or the current one, if longer): when that cannot fit in
/// what is left of the budget (an outer loop whose inner loops run at the large size, a time
/// loop around a whole nest), the run stops at once instead of spending the budget.
struct Pace {
    /// Steps when the entry and the current pass began.
    first: usize,
    pass: usize,
    passes: usize,
}

/// The widest copy the readings accept (`ivar_factors`).
const MAX_FACTOR: i64 = 64;

impl Pace {
    fn visit(&mut self, steps: usize) {
        self.pass = steps;
        self.passes += 1;
    }

    fn hopeless(&self, steps: usize, n: i64) -> bool {
        let done = self.passes.saturating_sub(1);
        let average = (self.pass - self.first).checked_div(done).unwrap_or(0);
        let cost = average.max(steps - self.pass);
        let left = (n / MAX_FACTOR).saturating_sub(done as i64).max(1) as usize;
        cost.saturating_mul(left) > BUDGET.saturating_sub(steps)
    }
}

/// The exit compare's operand that moved by one constant per pass over the first passes.
fn induction(
    function: &Function,
    exit_state: &Machine,
    exit: &crate::binary::Instruction,
    shots: &[Machine],
) -> Option<(String, i64, i64, i64, String)> {
    let compare = function
        .instructions
        .iter()
        .find(|i| i.address == exit_state.flags_from)?;
    let d = &compare.decoded;
    let jump = crate::binary::mnemonic_name(exit.mnemonic);
    for k in 0..d.op_count().min(2) {
        let values: Vec<i64> = shots
            .iter()
            .map(|s| s.operand(d, k))
            .collect::<Option<_>>()?;
        let [a, b, ..] = values.as_slice() else {
            continue;
        };
        let step = b - a;
        if step == 0 || values.windows(2).any(|w| w[1] - w[0] != step) {
            continue;
        }
        // `cmp`/`sub` test against the other operand; `test`, `add`, `dec` against 0.
        let compares = matches!(
            d.mnemonic(),
            iced_x86::Mnemonic::Cmp | iced_x86::Mnemonic::Sub
        );
        let bound = if compares && d.op_count() >= 2 {
            exit_state.operand(d, 1 - k).unwrap_or(0)
        } else {
            0
        };
        return Some((place(d, k), *a, step, bound, jump));
    }
    None
}

fn place(d: &iced_x86::Instruction, k: u32) -> String {
    match d.op_kind(k) {
        iced_x86::OpKind::Register => format!("{:?}", d.op_register(k)).to_lowercase(),
        _ => format!(
            "[{:?}{:+#x}]",
            d.memory_base(),
            d.memory_displacement64() as i64
        )
        .to_lowercase(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(factor: i64, passes: [i64; 2], unit: Option<&str>) -> IvarFactor {
        let at = |passes, source_iterations| Induction {
            place: "rbx".into(),
            start: 0,
            step: 1,
            bound: 0,
            exit: "jne".into(),
            passes,
            source_iterations,
        };
        IvarFactor {
            factor,
            readings: [at(passes[0], 1023), at(passes[1], 1983)],
            unit: unit.map(String::from),
            header: 0,
        }
    }

    /// A cascade (8-wide copy, 4-wide, a remainder read from its unit) splits one entry;
    /// three copies each taking whole entries (an outer loop of 3 unrolled away) split them in
    /// three; a sum that is not a whole multiple decides nothing.
    #[test]
    fn groups_follow_the_passes_growth() {
        let cascade = [
            read(8, [127, 247], None),
            read(4, [1, 1], None),
            read(1, [3, 3], Some("r")),
        ];
        assert_eq!(entry_groups(&cascade.iter().collect::<Vec<_>>()), None);
        let three = [
            read(1, [1023, 1983], None),
            read(1, [1023, 1983], None),
            read(1, [1023, 1983], None),
        ];
        assert_eq!(entry_groups(&three.iter().collect::<Vec<_>>()), Some(3));
        let two_vector = [read(4, [255, 495], None), read(4, [255, 495], None)];
        assert_eq!(
            entry_groups(&two_vector.iter().collect::<Vec<_>>()),
            Some(2)
        );
        let odd = [read(1, [1023, 1983], None), read(2, [511, 751], None)];
        assert_eq!(entry_groups(&odd.iter().collect::<Vec<_>>()), None);
    }
}
