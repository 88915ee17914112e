//! Inputs that crashed a fuzz target (crates/metron-memory/fuzz), kept so they stay fixed.
//! Each goes through what its target runs; the property is no panic and no stack overflow.

use std::collections::BTreeMap;
use std::path::Path;

use metron_memory::count::{count_function, ModuleModel};
use metron_memory::{ir, trace, BranchPolicy};
use metron_symbolic::Binding;

fn read_ll_target(text: &str) -> usize {
    let Ok(module) = ir::parse_module(text, "fuzz.ll") else {
        return 0;
    };
    let Ok(model) = ModuleModel::build(&module, &BTreeMap::new()) else {
        return 0;
    };
    for name in model.functions.keys() {
        for policy in [BranchPolicy::Max, BranchPolicy::Mean, BranchPolicy::Sum] {
            let _ = count_function(&model, name, &policy, &Binding::new());
        }
        let _ = trace::instrument(text, &module, name);
    }
    model.functions.len()
}

/// A mutated `main` whose branches re-enter each other without forming a natural loop: the
/// access tree's arm recursion never ended (stack overflow). Now bounded, and the function
/// is reported as unstructured.
#[test]
fn irreducible_branches_do_not_recurse_forever() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz_read_ll_tree_recursion.ll");
    let text = String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
    assert!(read_ll_target(&text) > 0);
}
