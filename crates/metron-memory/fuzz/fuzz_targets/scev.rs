//! Any text as `opt -passes='print<scalar-evolution>'` output: the section parser, the SCEV
//! expression grammar on every value and loop count it finds, and the loop model (trip counts,
//! call arguments) of a real module (examples/memory/kernels.c through clang-14/opt-14) built
//! on that scalar evolution. Counting is left to `read_ll`: its symbolic sums would slow this
//! target to a few inputs a second.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use metron_memory::count::ModuleModel;
use metron_memory::{ir, scev};

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
    let _ = ModuleModel::build(module, &parsed);
});
