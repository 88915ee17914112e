//! Where a binary loop's counts land (004 §III.A.2 line mapping, §III.C.5 inlining): the
//! context a loop copy is counted in, the source lines of a set of blocks, and a source
//! loop's total iterations. Shared by the loop-copy and branch counting and by the model.

use std::collections::{BTreeMap, BTreeSet};

use metron_symbolic::{trip_count, CountOptions, LoopNest, Piecewise};

use crate::binary::Function;
use crate::cfg::Cfg;
use crate::inline_frame::{bind_inlined, Argument};
use crate::source::SourceModel;

/// Where a binary loop's source counts land in its function: a loop inlined from another
/// function counts in that function's parameters (bound to the call's arguments, `inlined`)
/// and runs once per iteration of the binary loop around it (`times`).
#[derive(Debug, Clone, Default)]
pub struct LoopContext {
    pub times: Option<Piecewise>,
    pub inlined: Vec<BTreeMap<String, Argument>>,
}

impl LoopContext {
    /// A source count of the loop as executions per call of the function.
    pub fn apply(&self, count: &Piecewise) -> Piecewise {
        let bound = bind_inlined(count, &self.inlined);
        match &self.times {
            Some(t) => &bound * t,
            None => bound,
        }
    }
}

/// The parameter that stands for the trip count of a binary loop at `header` that no source
/// loop explains (the user annotates it, or the runs of the machine code fit its blocks).
pub fn unmapped_trip(header: u64) -> String {
    format!("trip_0x{header:x}")
}

/// Whether `name` is an [`unmapped_trip`]: no size of the program, and none a run can vary.
pub fn is_unmapped_trip(name: &str) -> bool {
    name.strip_prefix("trip_0x")
        .is_some_and(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Whether `name` is a trip count the model could not derive: an [`unmapped_trip`], a
/// source loop's `trip_LINE` ("annotate its trip count"), or either bound at a call
/// (`trip_LINE_CALL`). Unlike a size, a data bound or a call's argument, no one but an
/// annotation gives it a value.
pub fn is_unknown_trip(name: &str) -> bool {
    is_unmapped_trip(name)
        || name.strip_prefix("trip_").is_some_and(|rest| {
            !rest.is_empty()
                && rest
                    .split('_')
                    .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        })
}

/// Lines (of `file`) the instructions of block `b` come from, each from its innermost frame in
/// the file: the statement it belongs to, not the calls it was inlined through (an arm of an
/// `if` in a kernel inlined into `main` is the arm's line, not also the call's).
pub fn statement_lines_of(function: &Function, cfg: &Cfg, b: usize, file: &str) -> BTreeSet<u32> {
    statement_lines_in(function, cfg, b, file, None)
}

/// [`statement_lines_of`], each line from the innermost frame whose line lies in `range`
/// (a source loop's lines) where there is one: a helper inlined into the loop (`max2` at line
/// 13, called from lcs's loop at line 25) puts its own line innermost, outside the loop, and
/// the statement in the loop is the call.
pub fn statement_lines_in(
    function: &Function,
    cfg: &Cfg,
    b: usize,
    file: &str,
    range: Option<(u32, u32)>,
) -> BTreeSet<u32> {
    let block = &cfg.blocks[b];
    (block.code(function).iter())
        .filter_map(|ins| {
            let mut lines = (ins.frames.iter())
                .filter_map(|f| f.position.as_ref())
                .filter(|p| same_file(&p.file, file))
                .map(|p| p.line);
            let innermost = lines.next()?;
            let inside = |l: &u32| range.is_some_and(|(a, z)| (a..=z).contains(l));
            Some(if inside(&innermost) {
                innermost
            } else {
                lines.find(inside).unwrap_or(innermost)
            })
        })
        .collect()
}

/// Lines (of `file`) the instructions of `blocks` come from, in any inline frame.
pub fn lines_of(
    function: &Function,
    cfg: &Cfg,
    blocks: &BTreeSet<usize>,
    file: &str,
) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    for &b in blocks {
        let block = &cfg.blocks[b];
        for ins in block.code(function) {
            for f in &ins.frames {
                if let Some(p) = &f.position {
                    if same_file(&p.file, file) {
                        out.insert(p.line);
                    }
                }
            }
        }
    }
    out
}

pub fn same_file(a: &str, b: &str) -> bool {
    std::path::Path::new(a).file_name() == std::path::Path::new(b).file_name()
}

/// Blocks of loop `l` that are in no inner loop.
pub fn own_blocks(cfg: &Cfg, l: usize) -> BTreeSet<usize> {
    cfg.loops[l]
        .blocks
        .iter()
        .copied()
        .filter(|&b| cfg.innermost_loop(b) == Some(l))
        .collect()
}

/// Total body executions of source loop `i` per call: the nest from its outermost ancestor.
pub fn source_total(
    source: &SourceModel,
    i: usize,
    options: &CountOptions,
) -> std::result::Result<Piecewise, String> {
    let loops = source.nest_of(i)?;
    trip_count(&LoopNest::new(loops), options).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_trips_are_told_from_sizes_call_arguments_and_data_bounds() {
        for name in ["trip_0x14f0", "trip_23", "trip_23_39"] {
            assert!(is_unknown_trip(name), "{name}");
        }
        for name in [
            "n", "m_28", "data_15", "trip_", "trip_0x", "trip_23_", "trip_n", "tile_20",
        ] {
            assert!(!is_unknown_trip(name), "{name}");
        }
    }
}
