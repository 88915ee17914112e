//! Why a static count may differ from a run: the constructs the analysis itself flagged as
//! inexact. A data-dependent branch is one only when its arms hold an access or a call; a
//! `?:` choosing between two registers (norms' `mx = a > mx ? a : mx`) weights nothing, and
//! blaming it hid the real cause (a second activation with other arguments).

use crate::count::{FunctionCounts, ModuleModel};

/// Whether the data-dependent branch at `block` of `function` weights an access site or a call.
pub fn branch_weights_accesses(model: &ModuleModel, function: &str, block: &str) -> bool {
    let Some(f) = model.functions.get(function) else {
        return true;
    };
    let edge = format!("{block}->");
    f.site_context
        .iter()
        .chain(&f.call_context)
        .flatten()
        .flat_map(|c| &c.arms)
        .any(|(_, _, _, edges)| edges.iter().any(|e| e.starts_with(&edge)))
}

/// The block a note `branch in %B: its condition depends on data ...` (or `... is not an index
/// condition ...`) names: branches weighted by the policy.
fn data_branch(note: &str) -> Option<&str> {
    let rest = note.strip_prefix("branch in %")?;
    let (block, tail) = rest.split_once(':')?;
    (tail.contains("depends on data") || tail.contains("not an index condition")).then_some(block)
}

/// The notes of `counts` that can explain a difference from a run.
pub fn inexact_reasons(model: &ModuleModel, counts: &FunctionCounts) -> Vec<String> {
    counts
        .notes
        .iter()
        .filter(|n| match data_branch(n) {
            Some(b) => branch_weights_accesses(model, &counts.function, b),
            None => {
                n.contains("recursion")
                    || n.contains("trip count is the parameter")
                    || n.contains("from the profile")
                    || n.contains("the profile's mean")
                    || n.contains("not fully structured")
                    || n.contains("not affine")
            }
        })
        .cloned()
        .collect()
}

/// Whether some data-dependent branch of `counts` weights an access.
pub fn has_weighted_data_branch(model: &ModuleModel, counts: &FunctionCounts) -> bool {
    counts
        .notes
        .iter()
        .filter_map(|n| data_branch(n))
        .any(|b| branch_weights_accesses(model, &counts.function, b))
}

#[cfg(test)]
mod tests {
    #[test]
    fn data_branch_notes_name_their_block() {
        let n = "branch in %cond.end: its condition depends on data; its arms are weighted by the branch policy";
        assert_eq!(super::data_branch(n), Some("cond.end"));
        assert_eq!(super::data_branch("branch in %x: fine"), None);
    }
}
