//! How a run passes the function its integer arguments: in the registers its machine code
//! reads them from ([`crate::binary::Signature`]). The function itself takes the source's
//! parameters in order; a gcc clone (`.constprop`, `.isra`) takes those the compiler did not
//! fix, in the registers DWARF gives at its entry. A parameter the compiler fixed gets its
//! value: the runs are at the sizes the binary can run at.

use std::collections::BTreeMap;

use metron_symbolic::Binding;

use super::layout::Layout;
use super::NotChecked;
use crate::binary::{Function, Signature};
use crate::source::SourceFunction;

/// The integer arguments of one function's machine code, by source name.
#[derive(Debug, Clone)]
pub(super) struct Passing {
    /// Per integer argument register, the parameter in it (none: a value the code does not
    /// read).
    order: Vec<Option<String>>,
    /// Parameters fixed by the compiler, with their value.
    pub(super) fixed: BTreeMap<String, i64>,
}

impl Passing {
    /// The passing of `function`, the machine code of source function `f`. Where DWARF puts
    /// a parameter in another register than the source's order (a gcc clone, or a static
    /// function whose constant arguments clang removed), the runs follow DWARF; a clone
    /// whose arguments DWARF does not place, or a split part, is not run.
    pub(super) fn of(function: &Function, f: &SourceFunction) -> Result<Passing, NotChecked> {
        let source: Vec<&String> = f.integer_arguments().collect();
        let fixed = f.fixed_by(&function.signature);
        let clone = function.clone_suffix();
        // A split part (`.part.0`, `.cold`) starts inside the function: its live values are
        // not the parameters.
        if clone.is_some_and(|s| !(s.contains("constprop") || s.contains("isra"))) {
            return Err(NotChecked::Clone);
        }
        let slots = register_slots(&function.signature);
        let known = slots.iter().flatten().all(|p| source.contains(&p));
        let in_source_order = slots
            .iter()
            .enumerate()
            .all(|(k, p)| p.as_ref().is_none_or(|p| source.get(k) == Some(&p)));
        // DWARF's registers hold every argument the code reads (those it lacks are fixed).
        let placed = known && (!slots.is_empty() || source.iter().all(|p| fixed.contains_key(*p)));
        // A clone that kept every parameter's place (gcc's `constprop` of a kernel with a
        // float parameter: the fixed sizes stay in `rdi`..`rdx`) takes the source's order,
        // with the arguments past the sixth on the stack.
        let kept_places = in_source_order && !slots.is_empty();
        let order = if kept_places || (clone.is_none() && (in_source_order || !known)) {
            source.iter().map(|p| Some((*p).clone())).collect()
        } else if placed {
            slots
        } else {
            return Err(NotChecked::Clone);
        };
        Ok(Passing { order, fixed })
    }

    /// The integer arguments of one run: each size from `values` (or its fixed value), every
    /// other argument an address of `layout` (indexed as `f`'s integer arguments) or its
    /// mirror image.
    pub(super) fn arguments(
        &self,
        f: &SourceFunction,
        layout: &Layout,
        values: &Binding,
        mirrored: bool,
    ) -> Vec<i64> {
        self.order
            .iter()
            .map(|p| {
                let Some(p) = p else { return 0 };
                let given = values.get(p).or_else(|| self.fixed.get(p)).copied();
                given.unwrap_or_else(|| {
                    let k = f.integer_arguments().position(|q| q == p).unwrap_or(0);
                    layout.address(k, mirrored)
                })
            })
            .collect()
    }

    /// For the runs' cache key.
    pub(super) fn key(&self) -> Vec<u8> {
        let mut key = Vec::new();
        for p in &self.order {
            key.extend(p.as_deref().unwrap_or("").as_bytes());
            key.push(0);
        }
        for (p, v) in &self.fixed {
            key.extend(p.as_bytes());
            key.extend(v.to_le_bytes());
        }
        key
    }
}

/// Per integer argument (its register, then stack slots) up to the last one DWARF places,
/// its parameter.
fn register_slots(signature: &Signature) -> Vec<Option<String>> {
    (0..signature.integer_arguments())
        .map(|k| signature.integer_argument(k).map(str::to_string))
        .collect()
}
