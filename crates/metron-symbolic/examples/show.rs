//! Prints the counts of a few nests: `cargo run -p metron-symbolic --example show`.
use metron_symbolic::{trip_count, Condition, CountOptions, Loop, LoopNest, NotEqualRule};

fn main() -> Result<(), metron_symbolic::Error> {
    let cases = vec![
        (
            "004 Listing 2",
            LoopNest::new(vec![
                Loop::inclusive("i", "1", "4", 1)?,
                Loop::inclusive("j", "i + 1", "6", 1)?,
            ]),
        ),
        (
            "triangle",
            LoopNest::new(vec![
                Loop::exclusive("i", "0", "n", 1)?,
                Loop::exclusive("j", "0", "i", 1)?,
            ]),
        ),
        (
            "stride 3",
            LoopNest::new(vec![Loop::exclusive("i", "0", "n", 3)?]),
        ),
        (
            "parametric Listing 5",
            LoopNest::new(vec![
                Loop::inclusive("i", "1", "n", 1)?,
                Loop::inclusive("j", "i + 1", "m", 1)?,
            ])
            .with_condition(Condition::parse("j % 4 != 0")?),
        ),
        (
            "min bound",
            LoopNest::new(vec![
                Loop::exclusive("i", "0", "n", 1)?,
                Loop::exclusive("j", "0", "min(i, m)", 1)?,
            ]),
        ),
    ];
    for (name, nest) in cases {
        for rule in [NotEqualRule::Split, NotEqualRule::Complement] {
            let p = trip_count(
                &nest,
                &CountOptions {
                    not_equal: rule,
                    ..Default::default()
                },
            )?;
            println!("== {name} ({rule:?}, {} pieces)\n{p}\n", p.pieces().len());
        }
    }
    Ok(())
}
