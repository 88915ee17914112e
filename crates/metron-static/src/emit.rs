//! The model as data and as Python (004 §III.C.5–7, Fig. 5): per function, per-call counts
//! per mnemonic as formulas in the parameters, the calls it makes and how often, and a
//! `handle_function_call` that folds a callee's counts into its caller's.

use std::collections::{BTreeMap, BTreeSet};

use metron_symbolic::{Binding, Piecewise};

use crate::binary::Binary;
use crate::call_site::{callee_binding, Argument, Parameters};
use crate::error::{Result, StaticError};
use crate::program::ProgramModel;
use crate::source::SourceModel;

/// One function of the model.
#[derive(Debug, Clone)]
pub struct FunctionFormulas {
    /// Source-level name (demangled).
    pub name: String,
    pub symbol: String,
    /// Mira's model name: class, function and number of arguments (`A_foo_2`).
    pub model_name: String,
    /// Per-call counts of the function's own instructions, per `x86_` mnemonic.
    pub own: BTreeMap<String, Piecewise>,
    /// Per-call roll-ups of its own instructions that need no architecture description
    /// (`loads`, `stores`, `branches`, `flops`; see `derived`).
    pub rollups: BTreeMap<String, Piecewise>,
    /// Calls of other modelled functions.
    pub calls: Vec<FormulaCall>,
    /// Calls into code that is not analysed (libc, libm, other files).
    pub external: Vec<ExternalCall>,
    pub loops: Vec<crate::model::LoopModel>,
    /// Trip counts derived from the parameters when evaluated (steps that are parameters).
    pub derived: Vec<metron_symbolic::Derived>,
    /// The data-dependent branches its counts rest on (file:line, what was assumed).
    pub assumptions: Vec<crate::assumption::Assumption>,
    /// What runs of its machine code checked and refitted (`calibrate`).
    pub calibration: Option<crate::calibrate::Checked>,
    /// Sizes the compiler fixed, at which it is counted ([`crate::model::FunctionModel::fixed`]).
    pub fixed: BTreeMap<String, i64>,
}

/// A call of a modelled function: executions per call of the caller, and how the callee's
/// parameters are bound at the site (004 §III.C.5).
#[derive(Debug, Clone)]
pub struct FormulaCall {
    /// Index in `Formulas::functions`.
    pub callee: usize,
    pub times: Piecewise,
    pub line: Option<u32>,
    /// The callee's own parameters and what they are at this call site.
    pub arguments: BTreeMap<String, Argument>,
}

/// A call site whose callee is not modelled: counted as the call and its argument set-up
/// (the caller's own instructions), flagged, and charged `cost` instructions per call when a
/// `call_cost` annotation names the callee (as mnemonic `ext_NAME`).
#[derive(Debug, Clone)]
pub struct ExternalCall {
    pub callee: String,
    pub line: Option<u32>,
    pub times: Piecewise,
    pub cost: Option<u64>,
}

#[derive(Debug, Clone)]
pub struct Formulas {
    pub functions: Vec<FunctionFormulas>,
    /// Per function: its own parameters and those renamed per call site below it.
    pub parameters: Vec<Parameters>,
    pub mira_compat: bool,
}

fn model_name(demangled: &str, symbol: &str, source: &SourceModel) -> String {
    // A clone keeps its source function's name and arity, plus which clone it is.
    let (demangled, clone) = crate::binary::split_clone(demangled);
    let symbol = crate::binary::split_clone(symbol).0;
    let (path, args) = match demangled.find('(') {
        Some(p) => (&demangled[..p], Some(&demangled[p + 1..])),
        None => (demangled, None),
    };
    // Drop template arguments for the name; keep class and function.
    let mut clean = String::new();
    let mut depth = 0;
    for ch in path.chars() {
        match ch {
            '<' => depth += 1,
            '>' => depth -= 1,
            _ if depth == 0 => clean.push(ch),
            _ => {}
        }
    }
    let arity = match args {
        Some(a) => {
            let inner = a.trim_end_matches(|c: char| c != ')').trim_end_matches(')');
            let inner = inner.trim_end_matches(" const");
            if inner.trim().is_empty() || inner.trim() == "void" {
                0
            } else {
                inner.split(',').count()
            }
        }
        None => source
            .functions
            .iter()
            .find(|f| f.name == symbol)
            .map_or(0, |f| f.arity),
    };
    let base = metron_symbolic::identifier(
        &clean
            .replace("::", "_")
            .replace("operator()", "operator_call"),
    );
    match clone {
        Some(c) => format!(
            "{base}_{arity}_{}",
            metron_symbolic::identifier(c.trim_start_matches('.'))
        ),
        None => format!("{base}_{arity}"),
    }
}

/// The name of the unanalysed function `ins` calls (a PLT stub's symbol, or a function of
/// the binary outside the modelled file), if it is such a call.
fn external_callee(
    binary: &Binary,
    ins: &crate::binary::Instruction,
    own_address: u64,
) -> Option<String> {
    let target = ins.target?;
    if let Some(name) = binary.plt.get(&target) {
        let call_like = ins.flow == iced_x86::FlowControl::Call
            || ins.flow == iced_x86::FlowControl::UnconditionalBranch;
        return call_like.then(|| name.split('@').next().unwrap_or(name).to_string());
    }
    if ins.flow != iced_x86::FlowControl::Call || target == own_address {
        return None;
    }
    binary
        .functions
        .iter()
        .find(|g| g.address == target)
        .map(|g| g.symbol.clone())
}

/// Instructions per mnemonic as integer weights on block counts, summed once at the end: a
/// function's blocks share few distinct counts, so `sum(n_b * count_b)` becomes a handful of
/// symbolic products instead of one symbolic sum per block and mnemonic.
#[derive(Default)]
struct CountWeights(BTreeMap<String, Vec<(Piecewise, i64)>>);

impl CountWeights {
    fn add(&mut self, mnemonic: String, count: &Piecewise, n: i64) {
        let terms = self.0.entry(mnemonic).or_default();
        match terms.iter_mut().find(|(c, _)| c == count) {
            Some((_, w)) => *w += n,
            None => terms.push((count.clone(), n)),
        }
    }

    fn add_into(self, own: &mut BTreeMap<String, Piecewise>) {
        let weight = |n: i64| metron_symbolic::Rational::from_integer(n.into());
        for (mnemonic, terms) in self.0 {
            let e = own.entry(mnemonic).or_insert_with(Piecewise::zero);
            *e = Piecewise::weighted_sum(
                std::iter::once((&*e, weight(1))).chain(terms.iter().map(|(c, n)| (c, weight(*n)))),
            );
        }
    }
}

/// What building one function's formulas reads: the binary, the program's model, the
/// function's own source and which binary addresses are modelled functions.
struct BuildContext<'a> {
    binary: &'a Binary,
    program: &'a ProgramModel,
    source: &'a SourceModel,
    /// Start address -> index in `program.functions`.
    modelled: &'a BTreeMap<u64, usize>,
}

/// A function's own counts: per mnemonic (with `ext_NAME` for costed external calls) and
/// roll-ups, and its calls into code that is not analysed.
#[derive(Default)]
struct OwnCounts {
    own: BTreeMap<String, Piecewise>,
    rollups: BTreeMap<String, Piecewise>,
    external: Vec<ExternalCall>,
}

fn add_to(map: &mut BTreeMap<String, Piecewise>, key: String, add: &Piecewise) {
    let e = map.entry(key).or_insert_with(Piecewise::zero);
    *e = &*e + add;
}

impl BuildContext<'_> {
    fn function(&self, k: usize) -> FunctionFormulas {
        let (i, m) = &self.program.functions[k];
        let f = &self.binary.functions[*i];
        let mut counts = self.own_counts(f, m);
        plt_counts(m, &mut counts);
        let program = self.program;
        let calls = program.sites_of[k]
            .iter()
            .map(|&i| &program.call_sites[i])
            .map(|site| FormulaCall {
                callee: site.callee,
                times: m.block_counts[site.block].clone(),
                line: site.line,
                arguments: site
                    .arguments(&program.parameters[site.callee].local, program.mira_compat),
            })
            .collect();
        FunctionFormulas {
            name: f.display_name(),
            symbol: f.symbol.clone(),
            model_name: model_name(&f.name, &f.symbol, self.source),
            own: counts.own,
            rollups: counts.rollups,
            calls,
            external: counts.external,
            loops: m.loops.clone(),
            derived: m.derived.clone(),
            assumptions: m.assumptions.clone(),
            calibration: m.calibration.clone(),
            fixed: m.fixed.clone(),
        }
    }

    /// Counts of the function's own instructions, block by block.
    fn own_counts(
        &self,
        f: &crate::binary::Function,
        m: &crate::model::FunctionModel,
    ) -> OwnCounts {
        let mut out = OwnCounts::default();
        let mut weights = CountWeights::default();
        let mut rollup_weights = CountWeights::default();
        for (b, block) in m.cfg.blocks.iter().enumerate() {
            let mut per_mnemonic: BTreeMap<String, i64> = BTreeMap::new();
            let mut per_rollup: BTreeMap<&str, i64> = BTreeMap::new();
            for ins in block.code(f) {
                *per_mnemonic
                    .entry(format!("x86_{}", ins.name()))
                    .or_default() += 1;
                for (k, v) in crate::derived::instruction_rollups(ins) {
                    *per_rollup.entry(k).or_default() += i64::from(v);
                }
                if self.modelled.contains_key(&ins.target.unwrap_or(u64::MAX)) {
                    // A modelled callee: a call site of `program`.
                    continue;
                }
                if let Some(callee) = external_callee(self.binary, ins, f.address) {
                    let cost = self.source.call_costs.get(&callee).copied();
                    if let Some(c) = cost {
                        let add = &m.block_counts[b] * &Piecewise::constant(c as i64);
                        add_to(&mut out.own, format!("ext_{callee}"), &add);
                    }
                    out.external.push(ExternalCall {
                        callee,
                        // The call's line in the modelled file (not in an inlined header).
                        line: crate::call_site::line_in(ins, self.source),
                        times: m.block_counts[b].clone(),
                        cost,
                    });
                }
            }
            for (mn, n) in per_mnemonic {
                weights.add(mn, &m.block_counts[b], n);
            }
            for (k, n) in per_rollup.into_iter().filter(|(_, n)| *n != 0) {
                rollup_weights.add(k.to_string(), &m.block_counts[b], n);
            }
        }
        weights.add_into(&mut out.own);
        rollup_weights.add_into(&mut out.rollups);
        out
    }
}

/// The bound PLT stub's `jmp` runs with each call into an unanalysed function.
fn plt_counts(m: &crate::model::FunctionModel, out: &mut OwnCounts) {
    for (b, path) in &m.plt_calls {
        for &mn in path {
            let name = crate::binary::mnemonic_name(mn);
            add_to(&mut out.own, format!("x86_{name}"), &m.block_counts[*b]);
            if mn == iced_x86::Mnemonic::Jmp {
                // `jmp [GOT]`: a load of 8 bytes and a branch.
                for (k, n) in [("loads", 1), ("bytes_loaded", 8), ("branches", 1)] {
                    let add = &m.block_counts[*b] * &Piecewise::constant(n);
                    add_to(&mut out.rollups, k.to_string(), &add);
                }
            }
        }
    }
}

impl Formulas {
    pub fn build(binary: &Binary, program: &ProgramModel, source: &SourceModel) -> Formulas {
        Self::build_all(binary, program, std::slice::from_ref(source))
    }

    /// The formulas of a program modelled from several sources (`ProgramModel::build_all`
    /// with the same `sources`).
    pub fn build_all(binary: &Binary, program: &ProgramModel, sources: &[SourceModel]) -> Formulas {
        let modelled: BTreeMap<u64, usize> = program
            .functions
            .iter()
            .enumerate()
            .map(|(k, (i, _))| (binary.functions[*i].address, k))
            .collect();
        let functions = (0..program.functions.len())
            .map(|k| {
                BuildContext {
                    binary,
                    program,
                    source: &sources[program.source_of[k]],
                    modelled: &modelled,
                }
                .function(k)
            })
            .collect();
        Formulas {
            functions,
            parameters: program.parameters.clone(),
            mira_compat: program.mira_compat,
        }
    }

    /// Parameters of function `k` and everything it calls.
    pub fn parameters(&self, k: usize) -> BTreeSet<String> {
        self.parameters[k].all()
    }

    /// Per-call counts of function `k` including its callees (what the Python returns), with
    /// `binding` giving `k`'s parameters and every call-site parameter below it.
    pub fn evaluate(&self, k: usize, binding: &Binding) -> Result<BTreeMap<String, f64>> {
        let binding = &self.with_fallbacks(binding);
        self.evaluate_at(k, binding, binding, 0, &|f| &f.own)
    }

    /// Roll-ups of function `k` including its callees (see `derived`).
    pub fn evaluate_rollups(&self, k: usize, binding: &Binding) -> Result<BTreeMap<String, f64>> {
        let binding = &self.with_fallbacks(binding);
        self.evaluate_at(k, binding, binding, 0, &|f| &f.rollups)
    }

    /// `binding` with unbound `NAME_LINE` parameters taking `NAME`'s value.
    pub fn with_fallbacks(&self, binding: &Binding) -> Binding {
        let all: Vec<String> = self.parameters.iter().flat_map(|p| p.all()).collect();
        crate::call_site::with_fallbacks(binding, &all)
    }

    /// Per-call counts (`pick`: own or roll-ups) of function `k` with callees, under a
    /// binding that already has its fallbacks (`with_fallbacks`).
    pub fn evaluate_bound(
        &self,
        k: usize,
        bound: &Binding,
        pick: &dyn Fn(&FunctionFormulas) -> &BTreeMap<String, Piecewise>,
    ) -> Result<BTreeMap<String, f64>> {
        self.evaluate_at(k, bound, bound, 0, pick)
    }

    fn evaluate_at(
        &self,
        k: usize,
        local: &Binding,
        user: &Binding,
        depth: usize,
        pick: &dyn Fn(&FunctionFormulas) -> &BTreeMap<String, Piecewise>,
    ) -> Result<BTreeMap<String, f64>> {
        if depth > 64 {
            return Err(StaticError::Run(format!(
                "call chain through {} is deeper than 64 (recursion is not modelled)",
                self.functions[k].name
            )));
        }
        // The derived parameters first: the counts below read them (`m = n % 5`).
        let f = &self.functions[k];
        let local = &crate::model::with_derived(&f.derived, local)?;
        let number = |p: &Piecewise| -> Result<f64> {
            // Rational: `br_prob` arms are expected counts.
            let v = p.evaluate(local)?;
            Ok(v.numer().to_string().parse::<f64>().unwrap_or(f64::NAN)
                / v.denom().to_string().parse::<f64>().unwrap_or(f64::NAN))
        };
        let mut out = BTreeMap::new();
        for (m, p) in pick(f) {
            let v = number(p)?;
            if v != 0.0 {
                *out.entry(m.clone()).or_default() += v;
            }
        }
        for c in &f.calls {
            let t = number(&c.times)?;
            if t == 0.0 {
                continue;
            }
            let b = callee_binding(&c.arguments, local, user)?;
            for (m, v) in self.evaluate_at(c.callee, &b, user, depth + 1, pick)? {
                *out.entry(m).or_default() += v * t;
            }
        }
        Ok(out)
    }

    /// 004 Fig. 5 layout; runs under plain `python3`: `python3 model.py n=2000` prints each
    /// function's total as JSON.
    pub fn to_python(&self) -> Result<String> {
        let mut out = String::from(
            "# Generated by metron static (004 Fig. 5 layout). Run: python3 THIS.py n=2000 ...\n\
             from collections import defaultdict\n\n\n\
             def handle_function_call(caller, callee, times=1):\n    \
             for key, value in callee.items():\n        caller[key] += value * times\n\n\n",
        );
        for (k, f) in self.functions.iter().enumerate() {
            let params: Vec<String> = self.parameters(k).into_iter().collect();
            for p in &params {
                metron_symbolic::check_python_identifier(p)?;
            }
            out.push_str(&format!(
                "# {}\ndef {}({}):\n",
                f.name,
                f.model_name,
                params.join(", ")
            ));
            out.push_str("    local = defaultdict(lambda: 0)\n");
            out.push_str(&derived_python(&f.derived));
            for (m, p) in &f.own {
                if p.is_zero() {
                    continue;
                }
                let vars = p.parameters();
                if !vars.is_empty() {
                    out.push_str(&format!(
                        "    # variables [{}]\n",
                        vars.into_iter().collect::<Vec<_>>().join(", ")
                    ));
                }
                out.push_str(&format!("    local['{m}'] += {}\n", p.to_python_expr()?));
            }
            for c in &f.calls {
                // Own parameters as bound at the site (`y=y_16`, `n=2*n`), renamed ones through.
                let args: Vec<String> = self
                    .parameters(c.callee)
                    .into_iter()
                    .map(|q| match c.arguments.get(&q) {
                        Some(a) => format!("{q}={}", a.text()),
                        None => format!("{q}={q}"),
                    })
                    .collect();
                out.push_str(&format!(
                    "    ret = {}({})\n    handle_function_call(local, ret, {})\n",
                    self.functions[c.callee].model_name,
                    args.join(", "),
                    c.times.to_python_expr()?
                ));
            }
            out.push_str("    return local\n\n\n");
        }
        out.push_str("if __name__ == '__main__':\n    import inspect, json, sys\n");
        out.push_str(
            "    values = dict((k, int(v)) for k, v in (a.split('=', 1) for a in sys.argv[1:]))\n",
        );
        // A call-site parameter `n_16` that is not given takes the value of `n`.
        out.push_str(
            "    def value(name):\n        \
             base, _, line = name.rpartition('_')\n        \
             if name not in values and base and line.isdigit():\n            \
             name = base\n        \
             return values[name]\n    \
             result = {}\n",
        );
        for f in &self.functions {
            out.push_str(&format!(
                "    try:\n        \
                 args = {{n: value(n) for n in inspect.signature({m}).parameters}}\n        \
                 result['{m}'] = sum({m}(**args).values())\n    \
                 except KeyError:\n        \
                 pass\n",
                m = f.model_name
            ));
        }
        out.push_str("    print(json.dumps(result, sort_keys=True))\n");
        Ok(out)
    }
}

/// A C integer expression in Python: `/` and `%` truncate toward zero as C's do.
fn int_expr_python(e: &metron_symbolic::IntExpr) -> String {
    use metron_symbolic::IntExpr;
    match e {
        IntExpr::Const(c) => c.to_string(),
        IntExpr::Var(v) => v.clone(),
        IntExpr::Binary(op, l, r) => {
            let (l, r) = (int_expr_python(l), int_expr_python(r));
            match op {
                '/' => format!("int(({l}) / ({r}))"),
                '%' => format!("(({l}) - ({r}) * int(({l}) / ({r})))"),
                _ => format!("({l} {op} {r})"),
            }
        }
    }
}

/// A derived parameter of an inlined function: its definition in a function whose parameters
/// are the callee's, called with the call's arguments (evaluated in the caller's names).
fn inlined_python(d: &metron_symbolic::InlinedDerived) -> String {
    let name = d.inner.name();
    let (params, args): (Vec<&str>, Vec<String>) = d
        .arguments
        .iter()
        .map(|(p, e)| {
            let value = metron_symbolic::MaxOfMins::affine(e.clone()).to_string();
            (p.as_str(), value)
        })
        .unzip();
    let mut out = format!("    def _inlined_{name}({}):\n", params.join(", "));
    for line in derived_python(std::slice::from_ref(&*d.inner)).lines() {
        out.push_str(&format!("    {line}\n"));
    }
    out.push_str(&format!(
        "        return {name}\n    {name} = _inlined_{name}({})\n",
        args.join(", ")
    ));
    out
}

/// Python lines computing each derived trip count from the function's parameters (K =
/// max(0, ceil(span / step)), written with floor division), refusing an endless loop, and
/// each tile sum by its definition, tile by tile.
fn derived_python(derived: &[metron_symbolic::Derived]) -> String {
    let show =
        |e: &metron_symbolic::AffineExpr| metron_symbolic::MaxOfMins::affine(e.clone()).to_string();
    derived
        .iter()
        .map(|d| match d {
            metron_symbolic::Derived::Tile(t) => tile_python(t),
            metron_symbolic::Derived::Inlined(d) => inlined_python(d),
            metron_symbolic::Derived::Local(l) => format!(
                "    # {name} = {def}, in C's arithmetic\n    {name} = {py}\n",
                name = l.name,
                def = l.definition,
                py = int_expr_python(&l.expr),
            ),
            metron_symbolic::Derived::Exit(x) => format!(
                "    # {name} = {def}\n    \
                 {name} = ({start}) + ({stride}) * max(0, -(-({span} + {incl}) // {step}))\n",
                name = x.name,
                def = x.definition,
                start = show(&x.start),
                stride = x.stride,
                span = if x.stride > 0 {
                    format!("({}) - ({})", show(&x.end), show(&x.start))
                } else {
                    format!("({}) - ({})", show(&x.start), show(&x.end))
                },
                incl = u8::from(x.inclusive),
                step = x.stride.abs(),
            ),
            metron_symbolic::Derived::Trip(d) => format!(
                "    # {name} = {def}\n    \
                 if {step} <= 0:\n        \
                 raise ValueError('{step} = %d: the loop stepping by it does not terminate' % {step})\n    \
                 {name} = max(0, -(-(({bound}) - ({start}) + {incl}) // {step}))\n",
                name = d.name,
                def = d.definition,
                step = d.step,
                bound = show(&d.bound),
                start = show(&d.start),
                incl = u8::from(d.inclusive),
            ),
        })
        .collect()
}

/// Python lines summing a loop's count over the tiles of its tile loop
/// (`metron_symbolic::TileSum`), tile by tile as its definition says.
fn tile_python(t: &metron_symbolic::TileSum) -> String {
    let show = |e: &metron_symbolic::AffineExpr| {
        format!("({})", metron_symbolic::MaxOfMins::affine(e.clone()))
    };
    let reach: Vec<String> = t
        .reach
        .iter()
        .map(|e| format!("{} - {} * k", show(e), t.step))
        .collect();
    let terms: Vec<String> = t.width.iter().map(show).chain(reach).collect();
    format!(
        "    # {name} = {def}\n    \
         {name} = sum(max(0, min([{terms}])) for k in range({tiles}))\n",
        name = t.name,
        def = t.definition,
        terms = terms.join(", "),
        tiles = match &t.cap {
            Some(cap) => format!("min({} + {}, {cap})", t.outer_trips, t.extra),
            None => format!("{} + {}", t.outer_trips, t.extra),
        },
    )
}
