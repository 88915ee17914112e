//! Any text as a textual `.ll` module, through everything that reads it: the reader, access
//! sites, loops and the access tree, counting under every branch policy, and instrumentation.
//! The property is that nothing panics and every failure is a MemoryError.
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use metron_memory::count::{count_function, ModuleModel};
use metron_memory::{ir, trace, BranchPolicy};
use metron_symbolic::Binding;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(module) = ir::parse_module(&text, "fuzz.ll") else {
        return;
    };
    let Ok(model) = ModuleModel::build(&module, &BTreeMap::new()) else {
        return;
    };
    let binding = Binding::new();
    for name in model.functions.keys() {
        for policy in [BranchPolicy::Max, BranchPolicy::Mean, BranchPolicy::Sum] {
            let _ = count_function(&model, name, &policy, &binding);
        }
        let _ = trace::instrument(&text, &module, name);
    }
});
