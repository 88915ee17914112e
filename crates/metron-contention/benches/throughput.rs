//! Simulator speed (issue 13: at least 20 million simulated accesses per second at 2, 4 and
//! 16 cores, in far less memory than the 317 MB a 20 M-access run took when streams were held
//! in memory). Run with `cargo bench -p metron-contention`; prints accesses per second and
//! the process's peak resident memory. Times are CPU time of the process (the machine is
//! shared; wall time would count the other tenants).

use metron_contention::sim::{
    run_sources, AddressPattern, Arbitration, BernoulliSource, Cache, Config, Mapping, Timing,
};

/// CPU time of this process in seconds (`/proc/self/schedstat`, nanoseconds on a CPU): the
/// machine is shared, so wall time would measure the other tenants too.
fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map(|ns| ns / 1e9)
        .unwrap_or(f64::NAN)
}

fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map(|kb| kb / 1024.0)
        .unwrap_or(f64::NAN)
}

fn main() {
    let total = 20_000_000;
    // The traffic generator alone (ChaCha8, a logarithm per geometric gap), for reference.
    let start = cpu_seconds();
    let mut g = BernoulliSource::new(
        total,
        0.1,
        AddressPattern::Uniform {
            base: 0,
            bytes: 1 << 20,
        },
        0,
    );
    let mut x = 0u64;
    while let Some(a) = metron_contention::sim::AccessSource::next_access(&mut g) {
        x = x.wrapping_add(a.addr);
    }
    std::hint::black_box(x);
    let gen_secs = cpu_seconds() - start;
    println!(
        "generator alone: {total} accesses in {gen_secs:.3} s of CPU = {:.1} M accesses/s",
        total as f64 / gen_secs / 1e6
    );
    let timings = [
        ("bank latency only", Timing::default()),
        (
            "with per-core cache",
            Timing {
                extra_latency: 2,
                cache: Some(Cache {
                    lines: 256,
                    line_bytes: 64,
                    hit_cycles: 1,
                }),
            },
        ),
    ];
    for (label, timing) in timings {
        for (cores, banks) in [(2, 1), (4, 1), (4, 16), (16, 16)] {
            let mut sources: Vec<BernoulliSource> = (0..cores)
                .map(|k| {
                    BernoulliSource::new(
                        total / cores,
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
                timing,
            };
            let start = cpu_seconds();
            let r = run_sources(&config, &mut sources);
            let secs = cpu_seconds() - start;
            std::hint::black_box(r);
            println!(
                "{label:<20} cores={cores:2} banks={banks:2}: {total} accesses in {secs:.3} s of CPU = {:.1} M accesses/s (peak RSS {:.1} MB)",
                total as f64 / secs / 1e6,
                peak_rss_mb()
            );
        }
    }
}
