//! Any text as `opt -passes='print<scalar-evolution>'` output: the section parser, the SCEV
//! expression grammar on every value and loop count it finds, and the counts of a real module
//! (examples/memory/kernels.c through clang-14/opt-14) built on that scalar evolution.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use metron_memory::count::{count_function, ModuleModel};
use metron_memory::{ir, scev, BranchPolicy};
use metron_symbolic::Binding;

const KERNELS_LL: &str = include_str!("../kernels_canonical.ll");

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let parsed = scev::parse_output(&text);
    let symbol_of = |v: &str| v.strip_prefix('%').map(scev::arg_symbol);
    for f in parsed.values() {
        for e in f.values.values() {
            let _ = scev::to_affine(e, &symbol_of);
        }
        for e in f.backedge_taken.values() {
            let _ = scev::backedge_count(e, &symbol_of);
        }
    }
    static MODULE: OnceLock<Option<ir::Module>> = OnceLock::new();
    let Some(module) = MODULE
        .get_or_init(|| ir::parse_module(KERNELS_LL, "kernels_canonical.ll").ok())
        .as_ref()
    else {
        return;
    };
    let Ok(model) = ModuleModel::build(module, &parsed) else {
        return;
    };
    let binding = Binding::from([("n".to_string(), 7)]);
    for name in model.functions.keys() {
        let _ = count_function(&model, name, &BranchPolicy::Max, &binding);
    }
});
