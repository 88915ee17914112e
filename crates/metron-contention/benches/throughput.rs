//! Simulator speed (issue 5: at least 20 million simulated accesses per second on one
//! core). Run with `cargo bench -p metron-contention`; prints accesses per second.

use std::time::Instant;

use metron_contention::sim::{
    bernoulli_stream, run_parallel, AddressPattern, Arbitration, Config, Mapping,
};

fn main() {
    let per_core = 5_000_000;
    for (cores, banks) in [(2, 1), (4, 1), (4, 16), (16, 16)] {
        let streams: Vec<_> = (0..cores)
            .map(|k| {
                bernoulli_stream(
                    per_core / cores,
                    0.1,
                    AddressPattern::Uniform {
                        base: 0,
                        bytes: 1 << 20,
                    },
                    k as u64,
                )
            })
            .collect();
        let config = Config {
            banks,
            mapping: Mapping::Interleaved { unit: 8 },
            latency: 2,
            arbitration: Arbitration::RoundRobin,
        };
        let total: usize = streams.iter().map(|s| s.accesses.len()).sum();
        let start = Instant::now();
        let r = run_parallel(&config, &streams);
        let secs = start.elapsed().as_secs_f64();
        std::hint::black_box(r);
        println!(
            "cores={cores:2} banks={banks:2}: {total} accesses in {secs:.3} s = {:.1} M accesses/s",
            total as f64 / secs / 1e6
        );
    }
}
