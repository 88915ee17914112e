//! Simulator speed (issue 13: at least 20 million simulated accesses per second at 2, 4 and
//! 16 cores, in far less memory than the 317 MB a 20 M-access run took when streams were held
//! in memory). `cargo bench -p metron-contention` runs every configuration in this process;
//! `scripts/contention-bench` runs each in its own process (so that peak RSS is per
//! configuration) and records wall time, CPU time and the machine's load.
//!
//! Arguments (after `--`): `[CORES BANKS [cache|plain [TOTAL]]]`; with none, all of
//! (2, 1), (4, 1), (4, 16), (16, 16), (16, 1) with and without the per-core cache.
//! One line per run: `cores banks timing accesses wall_s cpu_s peak_rss_mb`.

use std::time::Instant;

use metron_contention::sim::{
    run_sources, AddressPattern, Arbitration, BernoulliSource, Cache, Config, Mapping, Timing,
};

/// CPU time of this process in seconds (`/proc/self/schedstat`, nanoseconds on a CPU): the
/// machine is shared, so wall time also measures the other tenants.
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

const PATTERN: AddressPattern = AddressPattern::Uniform {
    base: 0,
    bytes: 1 << 20,
};

fn timing(cache: bool) -> Timing {
    if cache {
        Timing {
            extra_latency: 2,
            cache: Some(Cache {
                lines: 256,
                line_bytes: 64,
                hit_cycles: 1,
            }),
        }
    } else {
        Timing::default()
    }
}

/// One run of `total` accesses split over `cores`, Bernoulli p = 0.1 over 1 MiB, bank
/// latency 2, round-robin; the generator is included (it makes the accesses as they are
/// consumed, so nothing per access is held).
fn run(cores: usize, banks: u32, cache: bool, total: usize) {
    let mut sources: Vec<BernoulliSource> = (0..cores)
        .map(|k| BernoulliSource::new(total / cores, 0.1, PATTERN, k as u64))
        .collect();
    let config = Config {
        banks,
        mapping: Mapping::Interleaved { unit: 8 },
        latency: 2,
        arbitration: Arbitration::RoundRobin,
        timing: timing(cache),
    };
    let (wall, cpu) = (Instant::now(), cpu_seconds());
    let r = run_sources(&config, &mut sources);
    let (wall, cpu) = (wall.elapsed().as_secs_f64(), cpu_seconds() - cpu);
    std::hint::black_box(r);
    let n = (total / cores * cores) as f64;
    println!(
        "{cores} {banks} {} {n} {wall:.3} {cpu:.3} {:.1}   # {:.1} M accesses/s of CPU, {:.1} M/s of wall",
        if cache { "cache" } else { "plain" },
        peak_rss_mb(),
        n / cpu / 1e6,
        n / wall / 1e6,
    );
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if args.len() >= 2 {
        let cores = args[0].parse().expect("CORES");
        let banks = args[1].parse().expect("BANKS");
        let cache = args.get(2).is_some_and(|a| a == "cache");
        let total = args
            .get(3)
            .map_or(20_000_000, |a| a.parse().expect("TOTAL"));
        run(cores, banks, cache, total);
        return;
    }
    // The traffic generator alone, for reference.
    let cpu = cpu_seconds();
    let mut g = BernoulliSource::new(20_000_000, 0.1, PATTERN, 0);
    let mut x = 0u64;
    while let Some(a) = metron_contention::sim::AccessSource::next_access(&mut g) {
        x = x.wrapping_add(a.addr);
    }
    std::hint::black_box(x);
    println!(
        "# generator alone: {:.1} M accesses/s of CPU",
        20.0 / (cpu_seconds() - cpu)
    );
    println!("# cores banks timing accesses wall_s cpu_s peak_rss_mb");
    for cache in [false, true] {
        for (cores, banks) in [(2, 1), (4, 1), (4, 16), (16, 16), (16, 1)] {
            run(cores, banks, cache, 20_000_000);
        }
    }
}
