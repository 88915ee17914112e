//! A small threaded program instrumented with `region!`, for the demo and the docs.
//!
//! `METRON_PROFILE_DIR=prof METRON_RANK=0 cargo run --release -p metron-probe --example
//! threaded_solver -- 4` writes `prof/metron-rank0.json`; `metron profile show prof` shows it.

use metron_probe::region;

fn relax(u: &mut [f64], sweeps: usize) {
    let _r = region!("relax");
    for _ in 0..sweeps {
        let _s = region!("sweep");
        for i in 1..u.len() - 1 {
            u[i] = 0.5 * (u[i - 1] + u[i + 1]);
        }
    }
}

/// Inclusive recursion: only the outermost `refine` is timed in the flat table; the call tree
/// shows one level per recursion depth (002 Listing 2.26).
fn refine(u: &mut [f64], depth: u32) {
    let _r = region!("refine");
    relax(u, 5);
    if depth > 0 && u.len() > 8 {
        let half = u.len() / 2;
        refine(&mut u[..half], depth - 1);
    }
}

fn main() {
    let threads: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    metron_probe::init(metron_probe::Config::from_env());
    let _main = region!("main");
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            std::thread::spawn(move || {
                let _w = region!("worker");
                // Uneven work, so that the load imbalance column has something to show.
                let mut u = vec![0.0; 20_000 * (t + 1)];
                u[0] = 1.0;
                for _ in 0..5 {
                    refine(&mut u, 4);
                }
                u[1]
            })
        })
        .collect();
    let _j = region!("join");
    let s: f64 = handles.into_iter().filter_map(|h| h.join().ok()).sum();
    println!("checksum {s:.6}");
}
