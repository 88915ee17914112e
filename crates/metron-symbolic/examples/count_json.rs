//! Counts a loop nest given as JSON on stdin and prints the piece count and time:
//! `echo '{"loops": [...]}' | cargo run --release -p metron-symbolic --example count_json`.
use std::io::Read;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text)?;
    let nest: metron_symbolic::LoopNest = serde_json::from_str(&text)?;
    let t = Instant::now();
    let p = metron_symbolic::trip_count(&nest, &Default::default())?;
    eprintln!(
        "{} pieces in {:.3}s",
        p.pieces().len(),
        t.elapsed().as_secs_f64()
    );
    if p.pieces().len() <= 40 {
        println!("{p}");
    }
    Ok(())
}
