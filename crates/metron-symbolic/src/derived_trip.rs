//! A trip count that is no polynomial in the parameters: a loop stepping by a parameter
//! (`for (i = 0; i < n; i += stride)`). Its count K = max(0, ceil((bound - start) / step)) is
//! a parameter of its own, computed from the others' values when a count is evaluated
//! (metron memory derives it from LLVM's add recurrences, metron static from source loops).

use serde::{Deserialize, Serialize};

use crate::minmax::MaxOfMins;
use crate::nest::AffineExpr;

/// A trip count that is no polynomial in the arguments: a step that is itself an argument
/// (`for (i = 0; i < n; i += stride)`), whose backedge-taken count is
/// K = max(0, ceil((bound − start) / step)). The count gets a parameter of its own, defined by
/// the loop's start, bound and step, that metron computes from the arguments' values when the
/// count is evaluated: the user gives `n` and `stride`, never K.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DerivedTrip {
    pub name: String,
    /// K's definition in the arguments, as shown to the user.
    pub definition: String,
    /// The compared value at k = 0 (one step on for a latch test of `iv.next`).
    pub start: AffineExpr,
    pub bound: AffineExpr,
    /// The argument the induction variable steps by.
    pub step: String,
    /// `<=` rather than `<`.
    pub inclusive: bool,
}

/// Why a derived parameter has no value.
#[derive(Clone, Debug, PartialEq)]
pub enum DerivedTripError {
    /// An argument of its definition is not bound (the count stays symbolic).
    Unbound(String),
    /// The step is not positive: the loop does not terminate.
    NoEnd { step: String, value: i64 },
    /// A local's definition divides by zero or overflows at these values.
    Undefined(String),
}

impl std::fmt::Display for DerivedTripError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DerivedTripError::Unbound(v) => write!(f, "`{v}` has no value"),
            DerivedTripError::NoEnd { step, value } => write!(
                f,
                "{step} = {value}: the loop stepping by it does not terminate"
            ),
            DerivedTripError::Undefined(e) => write!(f, "{e} is undefined at these values"),
        }
    }
}

/// The value of argument `v`, or why there is none.
pub fn argument(v: &str, binding: &crate::Binding) -> Result<i64, DerivedTripError> {
    binding
        .get(v)
        .copied()
        .ok_or_else(|| DerivedTripError::Unbound(v.to_string()))
}

/// The value of an affine form of the arguments, or the argument without a value.
pub fn evaluate(e: &AffineExpr, binding: &crate::Binding) -> Result<i64, DerivedTripError> {
    e.terms.iter().try_fold(
        e.constant,
        |acc, (v, c)| Ok(acc + c * argument(v, binding)?),
    )
}

impl DerivedTrip {
    /// K: the first k >= 0 at which start + k * step leaves `< bound` (`<= bound`). A step
    /// that is not positive never leaves when the loop is entered (or wraps, undefined in C).
    pub fn value(&self, binding: &crate::Binding) -> Result<i64, DerivedTripError> {
        let eval = |e: &AffineExpr| evaluate(e, binding);
        let s = argument(&self.step, binding)?;
        let (start, bound) = (eval(&self.start)?, eval(&self.bound)?);
        if s <= 0 {
            return Err(DerivedTripError::NoEnd {
                step: self.step.clone(),
                value: s,
            });
        }
        let span = bound - start + i64::from(self.inclusive);
        // ceil(span / s) for span > 0, else 0.
        Ok(if span > 0 { (span + s - 1) / s } else { 0 })
    }
}

impl DerivedTrip {
    /// K of a loop whose compared value runs `start, start + step, ...` while `< bound`
    /// (`<= bound` when `inclusive`), with its definition written out for the user.
    pub fn new(
        name: String,
        start: AffineExpr,
        bound: AffineExpr,
        step: String,
        inclusive: bool,
    ) -> DerivedTrip {
        let show = |e: &AffineExpr| MaxOfMins::affine(e.clone()).to_string();
        let definition = format!(
            "max(0, ceil(({} - ({}){}) / {step}))",
            show(&bound),
            show(&start),
            if inclusive { " + 1" } else { "" }
        );
        DerivedTrip {
            name,
            definition,
            start,
            bound,
            step,
            inclusive,
        }
    }

    /// The parameters K is computed from.
    pub fn inputs(&self) -> impl Iterator<Item = &String> {
        self.start
            .names()
            .chain(self.bound.names())
            .chain(std::iter::once(&self.step))
    }
}

/// A parameter computed from the others when a count is evaluated: the trip count of a loop
/// stepping by a parameter, or the count of a loop inside tiles summed over the tiles
/// ([`crate::TileSum`], which reads its tile loop's trip count: evaluate in order).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Derived {
    Trip(DerivedTrip),
    Tile(crate::TileSum),
    Exit(crate::ExitValue),
    Local(crate::LocalValue),
    Inlined(InlinedDerived),
}

/// A derived parameter of a function inlined into another (a local `m = n % 5` of a BLAS
/// kernel that `main` inlines): computed in the callee's names, its parameters bound to the
/// call's arguments in the caller's (004 §III.C.5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InlinedDerived {
    /// Each parameter of the callee that the derived one reads, and its argument.
    pub arguments: Vec<(String, AffineExpr)>,
    pub inner: Box<Derived>,
}

impl InlinedDerived {
    fn value(&self, binding: &crate::Binding) -> Result<i64, DerivedTripError> {
        let mut callee = binding.clone();
        for (p, e) in &self.arguments {
            callee.insert(p.clone(), evaluate(e, binding)?);
        }
        self.inner.value(&callee)
    }

    fn inputs(&self) -> Vec<&String> {
        let bound = |v: &&String| self.arguments.iter().any(|(p, _)| p == *v);
        let mut out: Vec<&String> = self
            .inner
            .inputs()
            .into_iter()
            .filter(|v| !bound(v))
            .collect();
        out.extend(self.arguments.iter().flat_map(|(_, e)| e.terms.keys()));
        out
    }
}

impl Derived {
    pub fn name(&self) -> &str {
        match self {
            Derived::Trip(d) => &d.name,
            Derived::Tile(t) => &t.name,
            Derived::Exit(x) => &x.name,
            Derived::Local(l) => &l.name,
            Derived::Inlined(d) => d.inner.name(),
        }
    }

    pub fn definition(&self) -> &str {
        match self {
            Derived::Trip(d) => &d.definition,
            Derived::Tile(t) => &t.definition,
            Derived::Exit(x) => &x.definition,
            Derived::Local(l) => &l.definition,
            Derived::Inlined(d) => d.inner.definition(),
        }
    }

    pub fn value(&self, binding: &crate::Binding) -> Result<i64, DerivedTripError> {
        match self {
            Derived::Trip(d) => d.value(binding),
            Derived::Tile(t) => t.value(binding),
            Derived::Exit(x) => x.value(binding),
            Derived::Local(l) => l.value(binding),
            Derived::Inlined(d) => d.value(binding),
        }
    }

    /// The parameters it is computed from (other derived ones among them).
    pub fn inputs(&self) -> Vec<&String> {
        match self {
            Derived::Trip(d) => d.inputs().collect(),
            Derived::Tile(t) => t.inputs().collect(),
            Derived::Exit(x) => x.inputs().collect(),
            Derived::Local(l) => l.inputs(),
            Derived::Inlined(d) => d.inputs(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// K by running the loop: a top-tested `for (i = s0; i < n; i += st)` takes its backedge
    /// once per body execution; a bottom-tested one compares `i + st` after each body.
    fn brute(s0: i64, n: i64, st: i64, inclusive: bool, bottom: bool) -> i64 {
        let stays = |i: i64| if inclusive { i <= n } else { i < n };
        let (mut i, mut k) = (s0, 0);
        if bottom {
            while stays(i + st) {
                i += st;
                k += 1;
            }
        } else {
            while stays(i) {
                i += st;
                k += 1;
            }
        }
        k
    }

    #[test]
    fn derived_trip_parameter_equals_the_run() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |m: i64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % m as u64) as i64
        };
        for _ in 0..2000 {
            // starts above the bound and steps larger than the range included.
            let (s0, n, st) = (next(40) - 10, next(40) - 10, next(50) + 1);
            let (inclusive, bottom) = (next(2) == 1, next(2) == 1);
            let d = DerivedTrip {
                name: "q".into(),
                definition: String::new(),
                // a latch test compares `i + st`: its value at k = 0 is s0 + st.
                start: if bottom {
                    AffineExpr::var("s0")
                        .plus_scaled(&AffineExpr::var("st"), 1)
                        .unwrap()
                } else {
                    AffineExpr::var("s0")
                },
                bound: AffineExpr::var("n"),
                step: "st".into(),
                inclusive,
            };
            let b = [("s0", s0), ("n", n), ("st", st)]
                .iter()
                .map(|(k, v)| (k.to_string(), *v))
                .collect();
            assert_eq!(
                d.value(&b),
                Ok(brute(s0, n, st, inclusive, bottom)),
                "s0 {s0} n {n} st {st} inclusive {inclusive} bottom {bottom}"
            );
        }
        let b = [("s0", 0), ("n", 5), ("st", 0)]
            .iter()
            .map(|(k, v)| (k.to_string(), *v))
            .collect();
        let d = DerivedTrip {
            name: "q".into(),
            definition: String::new(),
            start: AffineExpr::var("s0"),
            bound: AffineExpr::var("n"),
            step: "st".into(),
            inclusive: false,
        };
        assert_eq!(
            d.value(&b),
            Err(DerivedTripError::NoEnd {
                step: "st".into(),
                value: 0
            })
        );
    }

    /// A local `m = n % 5` of a kernel called as `kernel(2*k + 1)`: computed from the
    /// argument, in C's arithmetic, whatever the caller's own `n` (or `m`) is.
    #[test]
    fn an_inlined_local_is_computed_from_the_call_argument() {
        use crate::{IntExpr, LocalValue};
        let local = LocalValue::new(
            "m".into(),
            IntExpr::Binary(
                '%',
                Box::new(IntExpr::Var("n".into())),
                Box::new(IntExpr::Const(5)),
            ),
        );
        let d = Derived::Inlined(InlinedDerived {
            arguments: vec![(
                "n".into(),
                AffineExpr::var("k")
                    .plus_scaled(&AffineExpr::var("k"), 1)
                    .unwrap()
                    .plus_scaled(&AffineExpr::constant(1), 1)
                    .unwrap(),
            )],
            inner: Box::new(Derived::Local(local)),
        });
        for k in -12..40 {
            let b = [("k", k), ("n", 1000)]
                .iter()
                .map(|(a, v)| (a.to_string(), *v))
                .collect();
            assert_eq!(d.value(&b), Ok((2 * k + 1) % 5), "k = {k}");
        }
        assert_eq!(d.name(), "m");
        assert_eq!(d.inputs(), vec![&"k".to_string()]);
        let none = crate::Binding::new();
        assert_eq!(d.value(&none), Err(DerivedTripError::Unbound("k".into())));
    }
}
