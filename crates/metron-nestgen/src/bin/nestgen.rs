//! `nestgen SEED [DIR] [--styles]`: writes `DIR/nest_SEED.c` (default: the current directory) and prints
//! the nest and its brute-force counts as one JSON line. For the accuracy scripts of
//! metron static and metron memory.

use std::process::ExitCode;

use metron_nestgen::{Nest, Options};

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    // `--styles`: loops also written as `while` loops and with comma lists.
    let styled = args.iter().any(|a| a == "--styles");
    args.retain(|a| a != "--styles");
    let Some(seed) = args.first().and_then(|s| s.parse::<u64>().ok()) else {
        eprintln!("usage: nestgen SEED [DIR] [--styles]  (SEED: an unsigned integer)");
        return ExitCode::from(2);
    };
    let dir = std::path::PathBuf::from(args.get(1).map_or(".", String::as_str));
    let nest = Nest::random(seed, &Options::default());
    let path = dir.join(format!("nest_{seed}.c"));
    let text = match styled {
        true => nest.c_source_in_styles(),
        false => nest.c_source(),
    };
    if let Err(e) = std::fs::write(&path, text) {
        eprintln!("nestgen: cannot write {}: {e}", path.display());
        return ExitCode::from(2);
    }
    let out = serde_json::json!({
        "seed": seed,
        "file": path,
        "args": nest.values,
        "params": { "n": nest.values[0], "m": nest.values[1] },
        "counts": nest.counts(),
        "nest": nest,
    });
    println!("{out}");
    ExitCode::SUCCESS
}
