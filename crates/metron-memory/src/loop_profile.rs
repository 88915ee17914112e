//! Loops whose exit compares a loaded value (`for (w = cap; w >= weight[i]; w--)`): 003
//! §4.1.2 has no static count for them, so they are treated like data-dependent branches
//! (issue 13): one run records, per loop, how often its context was reached and how often its
//! header ran, and the count uses the mean trip count from that run.
//!
//! When the exit test is `iv PRED v` with `iv` an add recurrence `{S,+,c}` and `v` loaded, the
//! exit-test rule gives the trip count as an affine form L of the parameters and of `v`; with
//! `v` replaced by one fitted constant D (the loaded bound's effective mean), the trip count
//! `L(params, D)/c + 1` follows the parameters, so a profile taken at one size predicts another
//! (knapsack: cap − D + 1 iterations per item). Otherwise the mean itself is used.
//!
//! Profile lines (in the branch-profile file, beside the branch lines):
//! `loop FUNCTION HEADER reached iterations` and `activation FUNCTION COUNT ARG=VALUE ...`.

use std::collections::BTreeMap;

use metron_symbolic::{Binding, LinExpr, Piecewise, Rational};
use num_bigint::BigInt;
use serde::Serialize;

use crate::count::{evaluate_text, FunctionCounts, ModuleModel};
use crate::ir::{Function, Inst, Module};
use crate::scev::{arg_symbol, FunctionScev};
use crate::trace::DynamicCounts;
use crate::tree::Cfg;
use crate::MemoryError;

/// A loop of the module whose exit test reads memory.
#[derive(Clone, Debug, Serialize)]
pub struct DataLoop {
    pub function: String,
    pub header: String,
    /// The count's parameter, `trip_<header>`.
    pub parameter: String,
    /// `file:line` of the exit test's load, from debug info.
    pub location: Option<String>,
    /// (L, c): the body runs floor(L / c) + 1 times per activation, L affine in the
    /// function's parameters and in `data_<header>` (the loaded bound).
    #[serde(skip)]
    form: Option<(metron_symbolic::AffineExpr, i64)>,
}

fn data_symbol(header: &str) -> String {
    format!("data_{}", metron_symbolic::identifier(header))
}

/// Every loop the model counts with a `data` source, located and with its exit-test form.
pub fn data_loops(
    module: &Module,
    model: &ModuleModel,
    scev: &BTreeMap<String, FunctionScev>,
    ir: &str,
) -> Vec<DataLoop> {
    let mut out = Vec::new();
    let empty = FunctionScev::default();
    for f in &module.functions {
        let Some(m) = model.functions.get(&f.name) else {
            continue;
        };
        let cfg = Cfg::new(f);
        for (li, l) in cfg.loops.iter().enumerate() {
            let header = &f.blocks[l.header].label;
            let is_data = m
                .loops
                .iter()
                .any(|r| &r.header == header && r.source == "data");
            if !is_data {
                continue;
            }
            let s = scev.get(&f.name).unwrap_or(&empty);
            out.push(DataLoop {
                function: f.name.clone(),
                header: header.clone(),
                parameter: format!("trip_{}", metron_symbolic::identifier(header)),
                location: crate::exit_count::exit_reads_memory(f, &cfg, li)
                    .and_then(|line| source_location(ir, &f.name, line)),
                form: exit_form(f, &cfg, li, s),
            });
        }
    }
    out
}

/// The exit-test count with the loaded bound as the symbol `data_<header>`: L and c when it
/// is `max(0, L)` (or L) with L linear in that symbol.
fn exit_form(
    f: &Function,
    cfg: &Cfg,
    li: usize,
    scev: &FunctionScev,
) -> Option<(metron_symbolic::AffineExpr, i64)> {
    let header = &f.blocks[cfg.loops[li].header].label;
    let data = data_symbol(header);
    let loads: std::collections::BTreeSet<&str> = f
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|i| matches!(i.kind, Inst::Load { .. }))
        .filter_map(|i| i.result.as_deref())
        .collect();
    let args: BTreeMap<&str, String> = f
        .args
        .iter()
        .map(|(_, n)| (n.as_str(), arg_symbol(n)))
        .collect();
    let symbol_of = |v: &str| {
        args.get(v)
            .cloned()
            .or_else(|| loads.contains(v).then(|| data.clone()))
    };
    let (bound, c) = crate::exit_count::from_exit_test(f, cfg, li, &symbol_of, &scev.values)?;
    let terms: Vec<_> = bound.to_symbolic().0.iter().collect();
    let affine: Vec<_> = terms
        .iter()
        .filter(|t| !(t.len() == 1 && t[0].terms.is_empty() && t[0].constant <= 0))
        .collect();
    let [only] = affine.as_slice() else {
        return None;
    };
    let [l] = only.as_slice() else { return None };
    // An outer loop's iteration in L would make the trip vary per activation in a way one
    // constant cannot fit: the mean is used then.
    let fits = l.terms.get(&data).is_some_and(|a| *a != 0)
        && l.terms.keys().all(|k| k == &data || !k.starts_with("k_"));
    fits.then(|| (l.clone(), c))
}

/// `file:line` of the instruction on line `ir_line` of the `.ll` text, through its `!dbg`
/// and the function's `DISubprogram` file.
fn source_location(ir: &str, function: &str, ir_line: usize) -> Option<String> {
    let text: Vec<&str> = ir.lines().collect();
    let raw = text.get(ir_line.checked_sub(1)?)?;
    let dbg = raw
        .split(", ")
        .find_map(|p| p.trim().strip_prefix("!dbg "))?;
    let line = crate::branch::debug_lines(ir).get(dbg.trim()).copied()?;
    let meta = |id: &str| {
        text.iter()
            .find_map(|l| l.strip_prefix(&format!("{id} = ")))
            .map(str::to_string)
    };
    let field = |s: &str, key: &str| {
        let at = s.find(key)? + key.len();
        let rest = &s[at..];
        Some(
            rest[..rest.find([',', ')']).unwrap_or(rest.len())]
                .trim()
                .to_string(),
        )
    };
    let define = text
        .iter()
        .find(|l| l.starts_with("define ") && l.contains(&format!("@{function}(")))?;
    let sub = define.split("!dbg ").nth(1)?.split_whitespace().next()?;
    let file_id = field(&meta(sub)?, "file: ")?;
    let file = field(&meta(&file_id)?, "filename: ")?;
    Some(format!("{}:{line}", file.trim_matches('"')))
}

/// Puts each data loop's `file:line` and how to measure it into its note.
pub fn explain(model: &mut ModuleModel, loops: &[DataLoop]) {
    for d in loops {
        let Some(f) = model.functions.get_mut(&d.function) else {
            continue;
        };
        let at = d.location.as_deref().unwrap_or("unknown line");
        for n in f.notes.iter_mut() {
            if n.starts_with(&format!("loop %{}:", d.header)) && n.contains(&d.parameter) {
                *n = format!(
                    "loop %{} ({at}, in {}): its exit test compares a value loaded from memory: \
                     data-dependent control, like a data-dependent branch, with no static trip count. \
                     Record it from one run with `metron memory trace ... -f {} --write-branch-profile P \
                     -- ARGS` and count with `--branch-profile P` (or give its mean trip count with \
                     --param {}=N)",
                    d.header, d.function, d.function, d.parameter
                );
            }
        }
    }
}

/// One data loop as a run saw it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LoopRecord {
    pub function: String,
    pub header: String,
    /// How often the loop's context was reached: its guard's executions (a rotated loop), or
    /// its entries; the static count takes a guard as always passed, so the mean is per reach.
    pub reached: u64,
    /// Executions of the loop header.
    pub iterations: u64,
}

/// An outermost activation of the traced function: `count` activations with these integer
/// arguments (parameter name -> value).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ActivationRecord {
    pub function: String,
    pub count: u64,
    pub args: Binding,
}

/// The data loops' records of a traced run.
pub fn loop_records(
    module: &Module,
    loops: &[DataLoop],
    dynamic: &DynamicCounts,
) -> Vec<LoopRecord> {
    let mut out = Vec::new();
    let mut first_block = 0usize;
    for f in &module.functions {
        let cfg = Cfg::new(f);
        let count = |b: usize| dynamic.blocks.get(&(first_block + b)).copied().unwrap_or(0);
        for l in &cfg.loops {
            let header = &f.blocks[l.header].label;
            if !loops
                .iter()
                .any(|d| d.function == f.name && &d.header == header)
            {
                continue;
            }
            let entering: Vec<usize> = cfg.pred[l.header]
                .iter()
                .copied()
                .filter(|p| !l.blocks.contains(p))
                .collect();
            // A rotated loop's preheader is reached through its guard (`cap >= weight[i]`).
            let reached = match entering.as_slice() {
                [p] => match cfg.pred[*p].as_slice() {
                    [g] if cfg.succ[*g].len() == 2 && cfg.succ[*p].len() == 1 => count(*g),
                    _ => count(*p),
                },
                _ => entering.iter().map(|&p| count(p)).sum(),
            };
            out.push(LoopRecord {
                function: f.name.clone(),
                header: header.clone(),
                reached,
                iterations: count(l.header),
            });
        }
        first_block += f.blocks.len();
    }
    out
}

/// The traced function's activations with parameter names.
pub fn activation_records(
    model: &ModuleModel,
    function: &str,
    dynamic: &DynamicCounts,
) -> Vec<ActivationRecord> {
    let params = model
        .functions
        .get(function)
        .map(|f| f.params.clone())
        .unwrap_or_default();
    dynamic
        .activations
        .iter()
        .map(|(count, args)| ActivationRecord {
            function: function.to_string(),
            count: *count,
            args: args
                .iter()
                .filter_map(|(i, v)| Some((params.get(*i)?.clone(), *v)))
                .collect(),
        })
        .collect()
}

/// The profile lines of loops and activations (appended to the branch lines).
pub fn profile_text(loops: &[LoopRecord], activations: &[ActivationRecord]) -> String {
    let mut s = String::new();
    if !loops.is_empty() {
        s.push_str("# loop function header reached iterations (data-dependent exits)\n");
    }
    for l in loops {
        s.push_str(&format!(
            "loop {} {} {} {}\n",
            l.function, l.header, l.reached, l.iterations
        ));
    }
    for a in activations {
        s.push_str(&format!("activation {} {}", a.function, a.count));
        for (k, v) in &a.args {
            s.push_str(&format!(" {k}={v}"));
        }
        s.push('\n');
    }
    s
}

/// The `loop` and `activation` lines of a profile (other lines are the branch reader's).
pub fn read_profile(
    text: &str,
    file: &str,
) -> Result<(Vec<LoopRecord>, Vec<ActivationRecord>), MemoryError> {
    let mut loops = Vec::new();
    let mut acts = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        let w: Vec<&str> = line.split_whitespace().collect();
        let err = |message: String| MemoryError::Parse {
            file: file.into(),
            line: i + 1,
            message,
        };
        let num = |s: &str| {
            s.parse::<u64>().map_err(|_| {
                err(format!(
                    "expected a non-negative integer count, found `{s}`"
                ))
            })
        };
        match w.first() {
            Some(&"loop") => {
                let [_, f, h, r, n] = w[..] else {
                    return Err(err(format!(
                        "expected `loop function header reached iterations`, found {} fields",
                        w.len()
                    )));
                };
                loops.push(LoopRecord {
                    function: f.into(),
                    header: h.into(),
                    reached: num(r)?,
                    iterations: num(n)?,
                });
            }
            Some(&"activation") => {
                if w.len() < 3 {
                    return Err(err(
                        "expected `activation function count NAME=VALUE ...`".into()
                    ));
                }
                let mut args = Binding::new();
                for p in &w[3..] {
                    let (k, v) = p
                        .split_once('=')
                        .and_then(|(k, v)| Some((k, v.parse::<i64>().ok()?)))
                        .ok_or_else(|| err(format!("expected NAME=INTEGER, found `{p}`")))?;
                    args.insert(k.to_string(), v);
                }
                acts.push(ActivationRecord {
                    function: w[1].into(),
                    count: num(w[2])?,
                    args,
                });
            }
            _ => {}
        }
    }
    Ok((loops, acts))
}

/// What a data loop's trip parameter becomes: the fitted form when the profile's arguments
/// allow it (used for the loop's own function), and the measured mean (used everywhere).
#[derive(Clone, Debug, Serialize)]
pub struct TripFit {
    pub function: String,
    pub parameter: String,
    #[serde(serialize_with = "as_text")]
    pub mean: LinExpr,
    #[serde(serialize_with = "as_opt_text")]
    pub form: Option<LinExpr>,
    pub note: String,
}

fn as_text<S: serde::Serializer>(e: &LinExpr, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&e.to_string())
}

fn as_opt_text<S: serde::Serializer>(e: &Option<LinExpr>, s: S) -> Result<S::Ok, S::Error> {
    match e {
        Some(e) => s.serialize_str(&e.to_string()),
        None => s.serialize_none(),
    }
}

fn rational(n: i64) -> Rational {
    Rational::from_integer(BigInt::from(n))
}

/// Fits each profiled data loop: mean = iterations / reached, and D from
/// `mean = L(args, D) / c + 1` when the loop's function ran with one argument set.
pub fn fit(
    loops: &[DataLoop],
    records: &[LoopRecord],
    activations: &[ActivationRecord],
) -> (Vec<TripFit>, Vec<String>) {
    let mut fits = Vec::new();
    let mut notes = Vec::new();
    for d in loops {
        let at = d.location.as_deref().unwrap_or("unknown line");
        let Some(r) = records
            .iter()
            .find(|r| r.function == d.function && r.header == d.header)
        else {
            continue;
        };
        if r.reached == 0 {
            notes.push(format!(
                "loop %{} ({at}): the profile's run never reached it; its trip count stays {}",
                d.header, d.parameter
            ));
            continue;
        }
        let mean = Rational::new(BigInt::from(r.iterations), BigInt::from(r.reached));
        let args: Vec<&ActivationRecord> = activations
            .iter()
            .filter(|a| a.function == d.function)
            .collect();
        let form = match (&d.form, args.as_slice()) {
            (Some((l, c)), [one]) => fitted_form(l, *c, &data_symbol(&d.header), &mean, &one.args),
            _ => None,
        };
        let mean_text = mean_text(&mean);
        let note = match &form {
            Some((e, dv)) => format!(
                "loop %{} ({at}): trip count {} = {e} from the profile ({} iterations over {} \
                 reaches, mean {mean_text}; the loaded bound's mean {} fitted at {})",
                d.header,
                d.parameter,
                r.iterations,
                r.reached,
                mean_text_of(dv),
                binding_text(&args[0].args)
            ),
            None => format!(
                "loop %{} ({at}): trip count {} = {mean_text}, the profile's mean ({} iterations \
                 over {} reaches; the same at every size)",
                d.header, d.parameter, r.iterations, r.reached
            ),
        };
        fits.push(TripFit {
            function: d.function.clone(),
            parameter: d.parameter.clone(),
            mean: LinExpr::constant(mean),
            form: form.map(|(e, _)| e),
            note,
        });
    }
    (fits, notes)
}

fn binding_text(b: &Binding) -> String {
    b.iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn mean_text(r: &Rational) -> String {
    mean_text_of(r)
}

fn mean_text_of(r: &Rational) -> String {
    use num_traits::ToPrimitive;
    if r.is_integer() {
        r.to_integer().to_string()
    } else {
        format!("{r} ≈ {:.4}", r.to_f64().unwrap_or(f64::NAN))
    }
}

/// The trip count L(params, D)/c + 1 with D solved from the mean at `args`.
fn fitted_form(
    l: &metron_symbolic::AffineExpr,
    c: i64,
    data: &str,
    mean: &Rational,
    args: &Binding,
) -> Option<(LinExpr, Rational)> {
    let alpha = rational(*l.terms.get(data)?);
    let mut l0 = LinExpr::integer(l.constant);
    let mut l0_at = rational(l.constant);
    for (k, a) in l.terms.iter().filter(|(k, _)| *k != data) {
        l0 = l0.plus(&LinExpr::symbol(k).scaled(&rational(*a)));
        l0_at += rational(*a) * rational(*args.get(k)?);
    }
    let c = rational(c);
    let one = rational(1);
    let d = (&c * (mean - &one) - l0_at) / &alpha;
    let mut e = l0.scaled(&(one.clone() / &c));
    e.add_constant(&(&alpha * &d / &c + one));
    Some((e, d))
}

/// Replaces the profiled trip parameters in `counts` (the fitted form in the loop's own
/// function, the mean elsewhere) and evaluates again under `binding`.
pub fn apply(counts: &mut FunctionCounts, fits: &[TripFit], binding: &Binding) {
    let used: Vec<&TripFit> = fits
        .iter()
        .filter(|t| counts.n_k.parameters().contains(&t.parameter))
        .collect();
    if used.is_empty() {
        return;
    }
    let root = counts.function.clone();
    let sub = |p: &Piecewise| {
        let mut p = used.iter().fold(p.clone(), |p, t| {
            let e = match &t.form {
                Some(e) if t.function == root => e,
                _ => &t.mean,
            };
            p.substitute(&t.parameter, e)
        });
        p.simplify();
        p
    };
    counts.n_k = sub(&counts.n_k);
    counts.reads = sub(&counts.reads);
    counts.writes = sub(&counts.writes);
    for v in counts.per_site.values_mut() {
        *v = sub(v);
    }
    let b = counts.binding(binding);
    for v in counts.variables.iter_mut() {
        v.reads = sub(&v.reads);
        v.writes = sub(&v.writes);
        v.reads_value = evaluate_text(&v.reads, &b);
        v.writes_value = evaluate_text(&v.writes, &b);
    }
    counts.n_k_value = evaluate_text(&counts.n_k, &b);
    counts
        .notes
        .retain(|n| !used.iter().any(|t| n.contains(&t.parameter)));
    counts.notes.extend(used.iter().map(|t| t.note.clone()));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// knapsack's inner loop `for (w = cap; w >= weight[i]; w--)`: L = cap − D, c = 1. With
    /// weights i % 7 + 1 for 60 items and cap = 500 it runs Σ (500 − w_i + 1) = 60·501 − 234
    /// = 29826 times (Σ w_i = Σ (i % 7) + 60 = 174 + 60 = 234): D = 234/60 = 3.9, and at
    /// cap = 1000 the fit predicts 60·(1000 − 3.9 + 1) = 59826, the hand count.
    #[test]
    fn fitted_trip_follows_the_parameters() {
        let l = metron_symbolic::AffineExpr {
            terms: [("cap".to_string(), 1), ("data_x".to_string(), -1)].into(),
            constant: 0,
        };
        let mean = Rational::new(BigInt::from(29826), BigInt::from(60));
        let args: Binding = [("cap".to_string(), 500), ("items".to_string(), 60)].into();
        let (e, d) = fitted_form(&l, 1, "data_x", &mean, &args).unwrap();
        assert_eq!(d, Rational::new(BigInt::from(39), BigInt::from(10)));
        let at = |cap: i64| e.evaluate(&[("cap".to_string(), cap)].into()).unwrap() * rational(60);
        assert_eq!(at(500), rational(29826));
        assert_eq!(at(1000), rational(59826));
    }

    #[test]
    fn profile_lines_round_trip_and_bad_ones_are_named() {
        let loops = vec![LoopRecord {
            function: "knapsack".into(),
            header: "for.body11".into(),
            reached: 60,
            iterations: 29826,
        }];
        let acts = vec![ActivationRecord {
            function: "knapsack".into(),
            count: 1,
            args: [("cap".to_string(), 500), ("items".to_string(), 60)].into(),
        }];
        let text = profile_text(&loops, &acts);
        let (l, a) = read_profile(&format!("f b t e 1 2\n{text}"), "p").unwrap();
        assert_eq!((l, a), (loops, acts));
        let e = read_profile("loop f h 1\n", "p").unwrap_err().to_string();
        assert!(e.contains("p:1") && e.contains("4 fields"), "{e}");
        let e = read_profile("\nactivation f 1 n=x\n", "p")
            .unwrap_err()
            .to_string();
        assert!(e.contains("p:2") && e.contains("`n=x`"), "{e}");
    }
}
