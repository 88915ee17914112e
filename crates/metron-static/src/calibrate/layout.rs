//! Where a run puts the function's arrays: 4 GiB apart (they do not overlap, as the model
//! assumes), in the order its caller allocates them (`a`, `b`, `c` for
//! `gemm(..., c, a, b)` after `a = malloc(...); b = ...; c = ...`). A compiler's runtime alias
//! test compares their addresses, so its blocks count for this order: `malloc` gives
//! ascending addresses below its mmap threshold. Arguments the caller did not allocate
//! (globals, its own parameters) come first, in the order of the parameters, then the
//! allocated ones; without a call in the file, the order of the parameters.

use crate::source::{SourceFunction, SourceModel};

/// The slot (address / 4 GiB) of each integer argument of one function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Layout {
    slots: Vec<i64>,
}

impl Layout {
    pub(super) fn of(source: &SourceModel, f: &SourceFunction) -> Layout {
        let arguments: Vec<&String> = f.integer_arguments().collect();
        let rank = allocation_ranks(source, f, &arguments);
        let mut order: Vec<usize> = (0..arguments.len()).collect();
        order.sort_by_key(|&k| (rank[k], k));
        let mut slots = vec![0; arguments.len()];
        for (place, k) in order.into_iter().enumerate() {
            slots[k] = place as i64 + 1;
        }
        Layout { slots }
    }

    /// Argument `k`'s address, or with the arrays `mirrored` (the opposite order, which
    /// shows the blocks of alias tests), its mirror image.
    pub(super) fn address(&self, k: usize, mirrored: bool) -> i64 {
        let slot = self.slots[k];
        let slot = match mirrored {
            true => self.slots.len() as i64 + 1 - slot,
            false => slot,
        };
        slot << 32
    }

    /// The arguments named `arrays` among `f`'s, lowest address first.
    pub(super) fn order(&self, f: &SourceFunction, arrays: impl Fn(&str) -> bool) -> Vec<String> {
        let mut named: Vec<(i64, &String)> = f
            .integer_arguments()
            .zip(&self.slots)
            .filter(|(p, _)| arrays(p))
            .map(|(p, &s)| (s, p))
            .collect();
        named.sort();
        named.into_iter().map(|(_, p)| p.clone()).collect()
    }

    /// For the runs' cache key.
    pub(super) fn key(&self) -> Vec<u8> {
        self.slots.iter().flat_map(|s| s.to_le_bytes()).collect()
    }
}

/// Per argument, its place among the caller's allocations at the first call of `f` in the
/// file (0 where the caller did not allocate it: such arrays are below the heap).
fn allocation_ranks(source: &SourceModel, f: &SourceFunction, arguments: &[&String]) -> Vec<usize> {
    let mut rank = vec![0; arguments.len()];
    let Some(call) = source.calls.iter().find(|c| c.callee == f.name) else {
        return rank;
    };
    for (k, p) in arguments.iter().enumerate() {
        let Some(position) = f.parameters.iter().position(|q| q == *p) else {
            continue;
        };
        let passed = call.arguments.get(position).and_then(|a| a.as_ref());
        let Some(variable) = passed.and_then(|a| single_variable(a)) else {
            continue;
        };
        let allocated = source
            .allocations
            .iter()
            .filter(|a| a.function == call.function)
            .position(|a| a.variable == variable);
        if let Some(place) = allocated {
            rank[k] = place + 1;
        }
    }
    rank
}

/// `v` of an argument that is one variable (`c`, or `c + 1` into the same array).
fn single_variable(a: &metron_symbolic::AffineExpr) -> Option<&str> {
    match a.terms.len() {
        1 => a
            .terms
            .iter()
            .next()
            .filter(|(_, &k)| k == 1)
            .map(|(v, _)| v.as_str()),
        _ => None,
    }
}
