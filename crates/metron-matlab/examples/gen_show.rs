//! Prints one generated differential case, its passes and its transformed version.
fn main() {
    let seed: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let g = metron_matlab::generator::generate(seed);
    match g.case() {
        Ok(c) => println!(
            "passes {:?} assume {:?} force {}\n{}\n--- transformed\n{}",
            g.passes, g.options.assume, g.options.force, c.original, c.transformed
        ),
        Err(e) => println!("pass error: {e}\n{}", g.source),
    }
}
