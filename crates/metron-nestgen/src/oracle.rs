//! Brute-force execution counts of a nest: the loops run as C runs them, statement by
//! statement, with no formula shared with the analysers under test.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::nest::{Affine, Body, Bound, Cmp, Condition, Nest, PARAMETERS};

/// Executions of each statement of a nest for one call at its parameter values.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Body executions of each loop, outermost first (the `for`'s iterations summed).
    pub iterations: Vec<u64>,
    /// Times each loop was entered (its `for` reached).
    pub entries: Vec<u64>,
    /// Executions of the innermost body.
    pub body: u64,
    /// Executions of the `if`'s then and else arms.
    pub then_arm: u64,
    pub else_arm: u64,
    /// Executions of the `?:`'s true value.
    pub select_true: u64,
}

impl Affine {
    pub fn evaluate(&self, env: &BTreeMap<String, i64>) -> i64 {
        self.terms
            .iter()
            .map(|(c, n)| c * env.get(n).copied().unwrap_or(0))
            .sum::<i64>()
            + self.constant
    }
}

impl Bound {
    pub fn evaluate(&self, env: &BTreeMap<String, i64>) -> i64 {
        match self {
            Bound::Affine(a) => a.evaluate(env),
            Bound::Min(a, b) => a.evaluate(env).min(b.evaluate(env)),
            Bound::Max(a, b) => a.evaluate(env).max(b.evaluate(env)),
        }
    }
}

impl Cmp {
    pub fn holds(self, a: i64, b: i64) -> bool {
        match self {
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
            Cmp::Ne => a != b,
        }
    }
}

impl Condition {
    pub fn holds(&self, env: &BTreeMap<String, i64>) -> bool {
        match self {
            Condition::Compare(l, op, r) => op.holds(l.evaluate(env), r.evaluate(env)),
            // C's `%` truncates; `== 0` is the same under either convention.
            Condition::Modulo(e, m) => e.evaluate(env) % m == 0,
        }
    }
}

impl Nest {
    /// The parameters as names bound to values.
    pub fn environment(&self) -> BTreeMap<String, i64> {
        PARAMETERS
            .iter()
            .zip(self.values)
            .map(|(n, v)| (n.to_string(), v))
            .collect()
    }

    /// Runs the nest at its own parameter values.
    pub fn counts(&self) -> Counts {
        self.counts_at(self.values)
    }

    /// Runs the nest at other parameter values.
    pub fn counts_at(&self, values: [i64; 2]) -> Counts {
        let mut env: BTreeMap<String, i64> = PARAMETERS
            .iter()
            .zip(values)
            .map(|(n, v)| (n.to_string(), v))
            .collect();
        let mut counts = Counts {
            iterations: vec![0; self.loops.len()],
            entries: vec![0; self.loops.len()],
            ..Counts::default()
        };
        self.run(0, &mut env, &mut counts);
        counts
    }

    fn run(&self, depth: usize, env: &mut BTreeMap<String, i64>, counts: &mut Counts) {
        let Some(l) = self.loops.get(depth) else {
            body(&self.body, env, counts);
            return;
        };
        counts.entries[depth] += 1;
        let end = l.end.evaluate(env);
        let mut v = l.start.evaluate(env);
        // The bounds are read once, as C reads them: they depend only on outer variables.
        while l.cmp.holds(v, end) {
            counts.iterations[depth] += 1;
            env.insert(l.var.clone(), v);
            self.run(depth + 1, env, counts);
            v += l.step;
        }
        env.remove(&l.var);
    }
}

fn body(body: &Body, env: &BTreeMap<String, i64>, counts: &mut Counts) {
    counts.body += 1;
    if let Some((c, _)) = &body.guard {
        if c.holds(env) {
            counts.then_arm += 1;
        } else {
            counts.else_arm += 1;
        }
    }
    if let Some(c) = &body.select {
        if c.holds(env) {
            counts.select_true += 1;
        }
    }
}
