//! Any bytes through the whole pipeline: parse, build fragments, cost under every model.
//! The property is that nothing panics and every error is a JitError.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use metron_jit::cost::{analyze, CostModel, Weights};
use metron_jit::log::parse_reader;
use metron_jit::op_class::OpClassTable;

fuzz_target!(|data: &[u8]| {
    let Ok(log) = parse_reader(data, std::path::Path::new("fuzz.log")) else {
        return;
    };
    static CLASSES: OnceLock<OpClassTable> = OnceLock::new();
    let classes = CLASSES.get_or_init(OpClassTable::default_table);
    for model in [
        CostModel::Cm0,
        CostModel::Cmc,
        CostModel::Cmw(Weights::paper_eq7()),
    ] {
        let _ = analyze(&log, classes, &model);
    }
    // the streaming path: skeleton pass, loop lifetimes, full pass
    let _ = metron_jit::stream::analyze_stream(
        || Ok::<_, metron_jit::JitError>(data),
        std::path::Path::new("fuzz.log"),
        classes,
        &CostModel::Cmc,
    );
});
