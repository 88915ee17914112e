//! Any text as a `metron contention fit` data file, then every model trained and evaluated on
//! what parsed. Nothing may panic; bad rows are ContentionErrors naming the line.
#![no_main]

use libfuzzer_sys::fuzz_target;
use metron_contention::data::parse_samples;
use metron_contention::model::{evaluate, fit, ModelKind, Training};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(samples) = parse_samples(&text, "fuzz.csv") else {
        return;
    };
    for kind in ModelKind::all() {
        for training in [Training::Median, Training::LeastSquares] {
            if let Ok(fitted) = fit(kind, training, &samples) {
                let _ = evaluate(kind, &fitted, &samples, 2);
            }
        }
    }
});
