//! A `for` loop whose exit test compares its counter with data (`for (w = cap; w >= weight[i];
//! w--)`, 0/1 knapsack): the bound is not known before the run, but the loop is still a unit
//! step from an affine start to *some* value. It is counted with the bound as a parameter of
//! its own, `data_LINE`. The total over all entries is affine in the bound's value (each entry
//! runs `start - bound + 1` times, while that is not negative), so one number, the bound's mean
//! over the entries, gives the exact total: `--param data_LINE=V`, or recorded from one run
//! (`metron static validate --record-branch-profile`), which predicts other sizes while the
//! data's pattern does not depend on the size.

use metron_symbolic::{AffineExpr, Bound, Loop};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{affine, binary, decl_name, init_of, reads_data, step_of, Helpers};

/// The data-dependent bound of a loop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DataBound {
    /// The parameter that stands for the bound's value in the counts.
    pub parameter: String,
    /// The bound's mean value over the loop's entries, from a branch profile.
    pub mean: Option<f64>,
}

/// The loop with its bound as the parameter `data_LINE`, when the loop is `var = affine;
/// var CMP data; var++ (or --)` and `data` reads memory.
pub fn data_scop(inner: &[Value], line: u32, helpers: &Helpers) -> Option<(Loop, DataBound)> {
    let [init, _, cond, inc, ..] = inner else {
        return None;
    };
    let (var, start) = init_of(init, helpers)?;
    let stride = step_of(inc, &var)?;
    // Unit steps only: with |step| > 1 the count is a floor of the bound, not affine in it.
    if stride.abs() != 1 {
        return None;
    }
    let (op, l, r) = binary(cond)?;
    let (op, data) = if decl_name(l).as_deref() == Some(var.as_str()) {
        (op, r)
    } else if decl_name(r).as_deref() == Some(var.as_str()) {
        (mirror(op)?, l)
    } else {
        return None;
    };
    if affine(data).is_some() || !reads_data(data) {
        return None;
    }
    let end_inclusive = match (op, stride > 0) {
        ("<", true) | (">", false) => false,
        ("<=", true) | (">=", false) => true,
        _ => return None,
    };
    let parameter = format!("data_{line}");
    let scop = Loop {
        var,
        start,
        end: Bound::single(AffineExpr::var(&parameter)),
        end_inclusive,
        stride,
        residues: Vec::new(),
    };
    Some((
        scop,
        DataBound {
            parameter,
            mean: None,
        },
    ))
}

fn mirror(op: &str) -> Option<&'static str> {
    Some(match op {
        "<" => ">",
        "<=" => ">=",
        ">" => "<",
        ">=" => "<=",
        _ => return None,
    })
}
