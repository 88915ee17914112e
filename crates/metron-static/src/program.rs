//! The whole program's model (004 §III.C.5): each function's per-call counts, the call sites
//! between them with the callee's parameters bound per site, and the executions of every
//! block summed over the call contexts reached from `main`.

use std::collections::BTreeMap;

use metron_symbolic::Binding;

use crate::binary::Binary;
use crate::call_site::{
    call_sites, callee_binding, parameters, sites_by_caller, CallSite, Parameters, PerIteration,
};
use crate::error::{Result, StaticError};
use crate::model::{model_binary, FunctionModel};
use crate::source::SourceModel;

/// Deeper call chains are taken for recursion, which is not modelled.
const MAX_CALL_DEPTH: usize = 64;
/// Points walked to share out the calls of a site whose arguments follow loop counters (the
/// loops the arguments do not read are counted, not walked).
const POINT_LIMIT: u64 = 10_000_000;

/// How many calls of a site take each value of its varying arguments: the loops down to the
/// deepest one the arguments read are walked point by point (`oracle::for_each_point`), the
/// loops inside it counted (their trip count at each point), so that `daxpy(n - k - 1, ...)`
/// under `k` and `j` walks `k` only. `None` past [`POINT_LIMIT`] points or on an error.
fn argument_values(per: &PerIteration, local: &Binding) -> Option<BTreeMap<Vec<i64>, u64>> {
    use metron_symbolic::{trip_count, CountOptions, LoopNest};
    let read = |l: &metron_symbolic::Loop| {
        per.arguments
            .iter()
            .any(|(_, e)| e.terms.contains_key(&l.var))
    };
    let walked = per.nest.iter().rposition(read).map_or(0, |d| d + 1);
    let (outer, inner) = per.nest.split_at(walked);
    let inside = match inner.is_empty() {
        true => None,
        false => Some(trip_count(&LoopNest::new(inner.to_vec()), &CountOptions::default()).ok()?),
    };
    let mut groups: BTreeMap<Vec<i64>, u64> = BTreeMap::new();
    let mut failed = false;
    let nest = LoopNest::new(outer.to_vec());
    let visit = |pt: &BTreeMap<String, i64>| {
        let values: Option<Vec<i64>> = per
            .arguments
            .iter()
            .map(|(_, e)| e.evaluate(pt).ok())
            .collect();
        let times = match &inside {
            None => Some(1),
            Some(c) => c
                .evaluate_integer(pt)
                .ok()
                .and_then(|v| u64::try_from(v).ok()),
        };
        match values.zip(times) {
            Some((v, t)) => *groups.entry(v).or_default() += t,
            None => failed = true,
        }
    };
    metron_symbolic::oracle::for_each_point(&nest, local, POINT_LIMIT, visit).ok()?;
    (!failed).then_some(groups)
}

/// Where a call site is visited from: the caller's binding, the user's, how often the site
/// runs in all, and the call depth.
struct Context<'a> {
    local: &'a Binding,
    user: &'a Binding,
    times: f64,
    depth: usize,
}

/// Block executions of one run, with the functions that could not be evaluated.
#[derive(Debug)]
pub struct ProgramRun {
    /// Per function, per block; NaN where a count could not be evaluated.
    pub blocks: Vec<Vec<f64>>,
    /// Per function: why its counts could not be evaluated (an unbound parameter).
    pub unevaluated: Vec<Option<StaticError>>,
    /// Per function: the bindings of its own parameters it was visited with, one per context.
    pub contexts: Vec<Vec<Binding>>,
}

#[derive(Debug, Clone)]
pub struct ProgramModel {
    /// (index into `Binary::functions`, model).
    pub functions: Vec<(usize, FunctionModel)>,
    pub call_sites: Vec<CallSite>,
    /// Per function: indices of its call sites in `call_sites`.
    pub sites_of: Vec<Vec<usize>>,
    /// Per function: the parameters its model (with callees) takes.
    pub parameters: Vec<Parameters>,
    /// 004's approximations: also every callee parameter renamed per call site (Fig. 5).
    pub mira_compat: bool,
    /// Per function: index of the source (translation unit) it was modelled from, in the
    /// sources given to [`build_all`](Self::build_all).
    pub source_of: Vec<usize>,
}

impl ProgramModel {
    /// `mira_compat` reproduces 004's approximations (every loop block `N` times, no
    /// vectorisation factor, `y_16` parameters) for comparison.
    pub fn build(binary: &Binary, source: &SourceModel, mira_compat: bool) -> ProgramModel {
        Self::build_all(binary, std::slice::from_ref(source), mira_compat)
    }

    /// The model of a program built from several translation units: each function modelled
    /// with the source its code comes from, calls joined across files.
    pub fn build_all(binary: &Binary, sources: &[SourceModel], mira_compat: bool) -> ProgramModel {
        let mut functions: Vec<(usize, FunctionModel)> = Vec::new();
        let mut source_of = Vec::new();
        for (s, source) in sources.iter().enumerate() {
            for (i, m) in model_binary(binary, source, mira_compat) {
                // Two sources of the same file name: the first claims the function.
                if functions.iter().all(|(j, _)| *j != i) {
                    functions.push((i, m));
                    source_of.push(s);
                }
            }
        }
        let of_function: Vec<&SourceModel> = source_of.iter().map(|&s| &sources[s]).collect();
        let call_sites = call_sites(binary, &of_function, &functions);
        let sites_of = sites_by_caller(&call_sites, functions.len());
        let parameters = parameters(&functions, &call_sites, &sites_of, mira_compat);
        ProgramModel {
            functions,
            call_sites,
            sites_of,
            parameters,
            mira_compat,
            source_of,
        }
    }

    /// The function `main`, where the program's counts start, if it is modelled.
    pub fn main(&self, binary: &Binary) -> Option<usize> {
        self.functions
            .iter()
            .position(|(i, _)| binary.functions[*i].symbol == "main")
    }

    /// Executions of every block of every function in one run under the user's `binding`:
    /// `main` once, each callee in every context it is reached in, with its parameters bound
    /// at each call site. Functions not reached from `main` run 0 times.
    pub fn block_executions(&self, binary: &Binary, binding: &Binding) -> Result<Vec<Vec<f64>>> {
        let run = self.run(binary, binding)?;
        match run.unevaluated.into_iter().flatten().next() {
            Some(e) => Err(e),
            None => Ok(run.blocks),
        }
    }

    /// As [`block_executions`](Self::block_executions), but a function whose count cannot be
    /// evaluated (an unbound parameter) does not stop the others: its blocks (and those of
    /// the callees it reaches) are NaN and the reason is kept per function.
    pub fn run(&self, binary: &Binary, binding: &Binding) -> Result<ProgramRun> {
        let mut run = ProgramRun {
            blocks: self
                .functions
                .iter()
                .map(|(_, m)| vec![0.0; m.cfg.blocks.len()])
                .collect(),
            unevaluated: (0..self.functions.len()).map(|_| None).collect(),
            contexts: vec![Vec::new(); self.functions.len()],
        };
        let all: Vec<String> = self.parameters.iter().flat_map(|p| p.all()).collect();
        let binding = &crate::call_site::with_fallbacks(binding, &all);
        if let Some(main) = self.main(binary) {
            self.visit(main, binding, binding, 1.0, 0, &mut run)?;
        }
        Ok(run)
    }

    fn visit(
        &self,
        k: usize,
        local: &Binding,
        user: &Binding,
        times: f64,
        depth: usize,
        run: &mut ProgramRun,
    ) -> Result<()> {
        if depth > MAX_CALL_DEPTH {
            return Err(StaticError::Run(format!(
                "call chain through {} is deeper than {MAX_CALL_DEPTH} (recursion is not modelled)",
                self.functions[k].1.name
            )));
        }
        run.contexts[k].push(local.clone());
        let (blocks, error) = self.functions[k].1.evaluate_blocks_partly(local);
        if let Some(e) = error {
            run.unevaluated[k].get_or_insert(e);
        }
        if times.is_nan() && run.unevaluated[k].is_none() {
            run.unevaluated[k] = Some(StaticError::Run(format!(
                "its calls are not known: a caller's count needs a parameter (see {})",
                self.functions
                    .iter()
                    .zip(&run.unevaluated)
                    .find_map(|((_, m), e)| e.as_ref().map(|_| m.name.as_str()))
                    .unwrap_or("its callers")
            )));
        }
        for (acc, b) in run.blocks[k].iter_mut().zip(&blocks) {
            *acc += times * b;
        }
        for s in self.sites_of[k].iter().map(|&i| &self.call_sites[i]) {
            let site_runs = blocks[s.block];
            if site_runs == 0.0 {
                continue;
            }
            let at = Context {
                local,
                user,
                times: times * site_runs,
                depth,
            };
            if self.visit_per_iteration(s, k, &at, site_runs, run)? {
                continue;
            }
            let arguments = s.arguments(&self.parameters[s.callee].local, self.mira_compat);
            // Arguments may read the caller's derived locals (`int n = N;` in `main`).
            let caller = self.functions[k].1.with_derived(local);
            let (b, times) =
                match callee_binding(&arguments, caller.as_ref().unwrap_or(local), user) {
                    Ok(b) if !site_runs.is_nan() => (b, times * site_runs),
                    Ok(b) => (b, f64::NAN),
                    Err(e) => {
                        run.unevaluated[s.callee].get_or_insert(e);
                        (local.clone(), f64::NAN)
                    }
                };
            self.visit(s.callee, &b, user, times, depth + 1, run)?;
        }
        Ok(())
    }

    /// A call whose arguments follow the counters of the loops around it (`dot(i, ...)`):
    /// the callee is visited once per distinct argument value, as often as the points of the
    /// nest give it (shared out in proportion when the call runs under a condition). False
    /// when the nest cannot be walked here (then the arguments' own parameters are needed).
    fn visit_per_iteration(
        &self,
        s: &CallSite,
        k: usize,
        at: &Context,
        site_runs: f64,
        run: &mut ProgramRun,
    ) -> Result<bool> {
        let Some(per) = s.per_iteration.as_ref().filter(|_| !site_runs.is_nan()) else {
            return Ok(false);
        };
        let Ok(local) = self.functions[k].1.with_derived(at.local) else {
            return Ok(false);
        };
        let Some(groups) = argument_values(per, &local) else {
            return Ok(false);
        };
        let points: u64 = groups.values().sum();
        if points == 0 {
            return Ok(false);
        }
        let arguments = s.arguments(&self.parameters[s.callee].local, self.mira_compat);
        let mut fixed = at.user.clone();
        for (q, a) in &arguments {
            if per.arguments.iter().all(|(p, _)| p != q) {
                match a.value(&local, at.user) {
                    Ok(v) => fixed.insert(q.clone(), v),
                    Err(_) => return Ok(false),
                };
            }
        }
        for (values, count) in groups {
            let mut b = fixed.clone();
            for ((p, _), v) in per.arguments.iter().zip(values) {
                b.insert(p.clone(), v);
            }
            let share = at.times * count as f64 / points as f64;
            self.visit(s.callee, &b, at.user, share, at.depth + 1, run)?;
        }
        Ok(true)
    }

    /// Calls of each function in one run (the sum over its contexts).
    pub fn calls(&self, binary: &Binary, binding: &Binding) -> Result<Vec<f64>> {
        let blocks = self.block_executions(binary, binding)?;
        Ok(self.calls_in(binary, &blocks))
    }

    /// Calls of each function, from the run's block executions (`block_executions`).
    pub fn calls_in(&self, binary: &Binary, blocks: &[Vec<f64>]) -> Vec<f64> {
        let mut calls = vec![0.0; self.functions.len()];
        if let Some(main) = self.main(binary) {
            calls[main] = 1.0;
        }
        for s in &self.call_sites {
            calls[s.callee] += blocks[s.caller][s.block];
        }
        calls
    }
}
