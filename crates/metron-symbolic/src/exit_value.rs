//! The value a loop leaves its counter with, for a loop that goes on from it: a remainder
//! loop after a hand-unrolled one (`for (i = 0; i + 3 < n; i += 4) ...; for (; i < n; i++)`).
//! The second loop's start is start + stride · K, with K the first loop's trip count: no
//! polynomial in the parameters, so it is a parameter of its own, computed from the others
//! when a count is evaluated (as [`crate::DerivedTrip`] is).

use serde::{Deserialize, Serialize};

use crate::derived_trip::{evaluate, DerivedTripError};
use crate::minmax::MaxOfMins;
use crate::nest::AffineExpr;

/// The counter's value after `for (v = start; v < end; v += stride)` (`<=` when
/// `inclusive`; `>`/`>=` when `stride` is negative).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExitValue {
    pub name: String,
    /// Its definition in the arguments, as shown to the user.
    pub definition: String,
    pub start: AffineExpr,
    pub end: AffineExpr,
    /// Constant and non-zero.
    pub stride: i64,
    pub inclusive: bool,
}

impl ExitValue {
    pub fn new(
        name: String,
        start: AffineExpr,
        end: AffineExpr,
        stride: i64,
        inclusive: bool,
    ) -> ExitValue {
        let show = |e: &AffineExpr| MaxOfMins::affine(e.clone()).to_string();
        let (s, e) = (show(&start), show(&end));
        let span = match stride > 0 {
            true => format!("({e}) - ({s})"),
            false => format!("({s}) - ({e})"),
        };
        let definition = format!(
            "{s} + {stride} * max(0, ceil(({span}{}) / {}))",
            if inclusive { " + 1" } else { "" },
            stride.abs()
        );
        ExitValue {
            name,
            definition,
            start,
            end,
            stride,
            inclusive,
        }
    }

    /// start + stride · K, K = max(0, ceil(span / |stride|)) with span the distance to the
    /// end on the loop's side of it.
    pub fn value(&self, binding: &crate::Binding) -> Result<i64, DerivedTripError> {
        let (start, end) = (
            evaluate(&self.start, binding)?,
            evaluate(&self.end, binding)?,
        );
        // Sizes near i64's range overflow: an error that names the value, never a panic.
        let overflow = || DerivedTripError::Undefined(format!("{} (overflows)", self.name));
        let distance = match self.stride > 0 {
            true => end.checked_sub(start),
            false => start.checked_sub(end),
        };
        let span = distance
            .and_then(|d| d.checked_add(i64::from(self.inclusive)))
            .ok_or_else(overflow)?;
        let step = self.stride.checked_abs().ok_or_else(overflow)?;
        let trips = if span > 0 { (span - 1) / step + 1 } else { 0 };
        self.stride
            .checked_mul(trips)
            .and_then(|d| start.checked_add(d))
            .ok_or_else(overflow)
    }

    /// The parameters it is computed from.
    pub fn inputs(&self) -> impl Iterator<Item = &String> {
        self.start.names().chain(self.end.names())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against running the loop, over starts, ends, strides both ways and both tests.
    #[test]
    fn the_exit_value_is_where_the_loop_leaves_its_counter() {
        for (start, end, stride, inclusive) in (-3..4)
            .flat_map(|s| (-5..9).map(move |e| (s, e)))
            .flat_map(|(s, e)| [-4, -1, 1, 3, 4].map(|st| (s, e, st)))
            .flat_map(|(s, e, st)| [false, true].map(|inc| (s, e, st, inc)))
        {
            let stays = |i: i64| match (stride > 0, inclusive) {
                (true, false) => i < end,
                (true, true) => i <= end,
                (false, false) => i > end,
                (false, true) => i >= end,
            };
            let mut i = start;
            while stays(i) {
                i += stride;
            }
            let x = ExitValue::new(
                "exit_1".into(),
                AffineExpr::var("s"),
                AffineExpr::var("e"),
                stride,
                inclusive,
            );
            let b = crate::binding([("s", start), ("e", end)]);
            assert_eq!(x.value(&b), Ok(i), "{start} {end} {stride} {inclusive}");
        }
    }

    /// Sizes at the edge of i64 give an error, not a panic or a wrapped value.
    #[test]
    fn an_exit_value_past_i64_is_an_error() {
        let (s, e) = (AffineExpr::var("s"), AffineExpr::var("e"));
        let x = ExitValue::new("exit_1".into(), s, e, 4, false);
        assert!(x
            .value(&crate::binding([("s", i64::MIN), ("e", i64::MAX)]))
            .is_err());
        assert!(x
            .value(&crate::binding([("s", 0), ("e", i64::MAX)]))
            .is_err());
    }
}
