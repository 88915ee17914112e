//! The cheap half of `read_ll`, at many more executions per second: the reader, access
//! sites and their bases, the CFG, dominators and loops, the access tree, branch sites, and
//! instrumentation, without the (symbolic, slow) counting.
#![no_main]

use libfuzzer_sys::fuzz_target;
use metron_memory::{access, branch, ir, trace, tree};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(module) = ir::parse_module(&text, "fuzz.ll") else {
        return;
    };
    let _ = branch::branch_sites(&module);
    for f in &module.functions {
        let _ = access::access_sites(f);
        let cfg = tree::Cfg::new(f);
        let _ = tree::build_tree(&cfg);
        let _ = trace::instrument(&text, &module, &f.name);
    }
});
