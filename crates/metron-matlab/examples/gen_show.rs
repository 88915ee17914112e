//! Prints one generated differential case, its passes and its transformed version;
//! `--save DIR` writes it as a regression file `DIR/gSEED.m` instead.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let seed: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let g = metron_matlab::generator::generate(seed);
    if let (Some(flag), Some(dir)) = (args.get(2), args.get(3)) {
        if flag == "--save" {
            let path = std::path::Path::new(dir).join(format!("{}.m", g.name));
            std::fs::write(&path, g.to_regression_file()).expect("write the regression file");
            println!("{}", path.display());
            return;
        }
    }
    match g.case() {
        Ok(c) => println!(
            "passes {:?} assume {:?} force {}\n{}\n--- transformed\n{}",
            g.passes, g.options.assume, g.options.force, c.original, c.transformed
        ),
        Err(e) => println!("pass error: {e}\n{}", g.source),
    }
}
