//! Prints the Python function and JSON of the 004 Fig. 5 count:
//! `cargo run -p metron-symbolic --example python_model`.
use metron_symbolic::{trip_count, CountOptions, Loop, LoopNest};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let nest = LoopNest::new(vec![
        Loop::exclusive("i", "0", "10", 1)?,
        Loop::exclusive("j", "0", "y", 1)?,
    ]);
    let count = trip_count(&nest, &CountOptions::default())?;
    println!("{count}\n");
    println!("{}", count.to_python_function("A_foo_2_body")?);
    println!("{}", count.to_python_expr()?);
    println!("{}", serde_json::to_string_pretty(&count)?);
    Ok(())
}
