//! Any text through the whole front end: parse, the execution model on every runtime, every
//! pass alone and the full pipeline (with versioning), and the App. C CodeExtractor.
//! The property is that nothing panics: bad input only ever yields an error value.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use metron_matlab::classification::Classification;
use metron_matlab::instruction_tree::model_program;
use metron_matlab::passes::{run_passes, Options};

const PASSES: [&str; 6] = [
    "dslice",
    "inline",
    "range",
    "reorder",
    "repack",
    "vectorize",
];

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    let file = Path::new("fuzz.m");
    let Ok(program) = metron_matlab::parse(source, file) else {
        return;
    };
    for runtime in ["r2015b", "r2018b", "octave"] {
        if let Ok(classification) = Classification::builtin(runtime) {
            for model in model_program(&program, &classification) {
                std::hint::black_box(model.chain_text);
            }
        }
    }
    let options = Options {
        force: true,
        version_threshold: Some(16),
        ..Options::default()
    };
    for pass in PASSES {
        let _ = run_passes(source, file, &[pass.to_string()], &options);
    }
    let pipeline: Vec<String> = [
        "vectorize",
        "inline",
        "range",
        "repack",
        "reorder",
        "dslice",
    ]
    .iter()
    .map(|p| p.to_string())
    .collect();
    let _ = run_passes(source, file, &pipeline, &Options::default());
    let _ = metron_matlab::bench::extract(source, file);
});
