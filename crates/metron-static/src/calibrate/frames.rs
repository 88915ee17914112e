//! The source functions whose loops run in one physical function: its own, and those inlined
//! into it (a kernel that clang inlines into `main`). Each term of the basis a refit draws
//! on is a count of one of them, in the physical function's names (004 §III.C.5, as the
//! model binds inlined loops).

use std::collections::BTreeMap;

use metron_symbolic::Piecewise;

use crate::binary::Function;
use crate::inline_frame::{base_name, bind_inlined, inline_levels, Argument};
use crate::source::{SourceFunction, SourceModel};

/// One source function at one inline position: how its parameters are bound, innermost
/// level first (none for the function itself).
pub(super) struct Frame<'a> {
    pub function: &'a SourceFunction,
    levels: Vec<BTreeMap<String, Argument>>,
}

/// `f` itself, then every distinct inline position of another function in `physical`.
pub(super) fn frames<'a>(
    source: &'a SourceModel,
    f: &'a SourceFunction,
    physical: &Function,
) -> Vec<Frame<'a>> {
    let mut out = vec![Frame {
        function: f,
        levels: Vec::new(),
    }];
    for ins in &physical.instructions {
        let Some(name) = ins.frames.first().and_then(|fr| fr.function.as_deref()) else {
            continue;
        };
        let name = base_name(name);
        if ins.frames.len() < 2 || name == f.name {
            continue;
        }
        let Some(g) = source.functions.iter().find(|g| g.name == name) else {
            continue;
        };
        let levels = inline_levels(ins, source);
        let known = |fr: &Frame| fr.function.name == g.name && fr.levels == levels;
        if !levels.is_empty() && !out.iter().any(known) {
            out.push(Frame {
                function: g,
                levels,
            });
        }
    }
    out
}

/// `terms` of every frame, each in the physical function's names.
pub(super) fn terms_of(
    source: &SourceModel,
    frames: &[Frame],
    terms: fn(&SourceModel, &SourceFunction) -> Vec<Piecewise>,
) -> Vec<Piecewise> {
    let mut out = Vec::new();
    for fr in frames {
        let own = terms(source, fr.function);
        match fr.levels.is_empty() {
            true => out.extend(own),
            false => out.extend(own.iter().map(|c| bind_inlined(c, &fr.levels))),
        }
    }
    out
}
