//! N_k summed over the activations of a run. A kernel called several times with different
//! arguments (`norms(n, …)` then `norms(n - 1, …)`) makes the traced and independent counts the
//! sum of each activation's N_k (003 Eq. 3.1 counts one activation), so `validate` evaluates
//! the static formula once per argument set the run recorded, not once at `--param`.

use metron_symbolic::{Binding, Piecewise, Rational};
use num_bigint::BigInt;
use serde::Serialize;

use crate::count::{with_derived, FunctionCounts, ModuleModel};
use crate::loop_profile::ActivationRecord;
use crate::MemoryError;

/// The bindings N_k is evaluated at, each with its number of activations.
#[derive(Clone, Debug, Serialize)]
pub struct ActivationSum {
    pub bindings: Vec<(Binding, u64)>,
    /// What the run's activations changed (several argument sets, arguments unlike `--param`).
    pub notes: Vec<String>,
}

impl ActivationSum {
    /// One activation at `binding` (with the derived parameters `counts` was evaluated with).
    pub fn single(counts: &FunctionCounts, binding: &Binding) -> Self {
        ActivationSum {
            bindings: vec![(counts.binding(binding), 1)],
            notes: Vec::new(),
        }
    }

    /// Each recorded argument set of the run over `binding` (the run's arguments win over
    /// `--param`, which still binds what is no argument); `lost` activations whose arguments
    /// the runtime could not keep are counted at `binding`.
    pub fn from_run(
        model: &ModuleModel,
        counts: &FunctionCounts,
        binding: &Binding,
        activations: &[ActivationRecord],
        lost: u64,
    ) -> Result<Self, MemoryError> {
        let root = &counts.function;
        let mut notes = Vec::new();
        let mut bindings = Vec::new();
        for a in activations {
            let mut b = binding.clone();
            for (k, v) in &a.args {
                if let Some(u) = binding.get(k).filter(|u| *u != v) {
                    notes.push(format!(
                        "the run called {root} with {k} = {v} (--param {k}={u}): counted with the run's value"
                    ));
                }
                b.insert(k.clone(), *v);
            }
            bindings.push((with_derived(model, root, &b)?, a.count));
        }
        if lost > 0 {
            notes.push(format!(
                "{lost} activations of {root} beyond the runtime's table of argument sets are counted at --param"
            ));
            bindings.push((counts.binding(binding), lost));
        }
        if activations.len() > 1 {
            let total: u64 = activations.iter().map(|a| a.count).sum();
            let sets: Vec<String> = activations
                .iter()
                .map(|a| {
                    let args: Vec<String> =
                        a.args.iter().map(|(k, v)| format!("{k} = {v}")).collect();
                    format!("{} × ({})", a.count, args.join(", "))
                })
                .collect();
            notes.push(format!(
                "{root} ran {total} times with {} argument sets: {}; N_k is summed over them",
                activations.len(),
                sets.join(", ")
            ));
        }
        Ok(ActivationSum { bindings, notes })
    }

    /// Σ activations × value; a parameter with no value is explained by `notes` (a `trip_`).
    pub fn evaluate(&self, p: &Piecewise, notes: &[String]) -> Result<Rational, MemoryError> {
        let mut sum = Rational::from_integer(BigInt::from(0));
        for (b, n) in &self.bindings {
            let v = p
                .evaluate(b)
                .map_err(|e| crate::explain_missing(e.into(), notes))?;
            sum += v * Rational::from_integer(BigInt::from(*n));
        }
        Ok(sum)
    }

    /// The sum as text (an integer, or to 3 decimals), when every parameter has a value.
    pub fn evaluate_text(&self, p: &Piecewise) -> Option<String> {
        self.evaluate(p, &[])
            .ok()
            .map(|r| crate::count::rational_text(&r))
    }

    /// More than one activation, or another argument set than `--param`.
    pub fn is_several(&self) -> bool {
        self.bindings.len() > 1 || self.bindings.iter().any(|(_, n)| *n > 1)
    }
}
