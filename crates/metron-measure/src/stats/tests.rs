use super::*;

#[test]
fn median_of_hand_worked_samples() {
    assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
    assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
    assert_eq!(median(&[7.0]), Some(7.0));
    assert_eq!(median(&[]), None);
}

#[test]
fn type7_quantiles_match_r() {
    // R: quantile(c(1,2,3,4,5,6,7,8,9,10), c(.25,.75)) -> 3.25 7.75
    let xs: Vec<f64> = (1..=10).map(f64::from).collect();
    assert_eq!(quantile_sorted(&xs, 0.25), Some(3.25));
    assert_eq!(quantile_sorted(&xs, 0.75), Some(7.75));
    assert_eq!(quantile_sorted(&xs, 0.0), Some(1.0));
    assert_eq!(quantile_sorted(&xs, 1.0), Some(10.0));
}

#[test]
fn mean_and_sample_std_dev() {
    // Hand-worked: mean 5, squared deviations 9+1+1+1+0+0+4+16 = 32, s^2 = 32/7.
    let xs = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
    assert_eq!(mean(&xs), Some(5.0));
    assert!((std_dev(&xs).unwrap() - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
}

#[test]
fn iqr_rule_on_a_hand_worked_sample() {
    // Sorted: 10 11 12 13 14 15 16 17 30 60. Type-7 quartiles: h = 9*0.25 = 2.25 ->
    // Q1 = 12 + 0.25*(13-12) = 12.25; h = 6.75 -> Q3 = 16 + 0.75*(17-16) = 16.75; IQR = 4.5.
    // Mild fence above: 16.75 + 6.75 = 23.5; severe: 16.75 + 13.5 = 30.25.
    // So 30 is mild, 60 is severe, nothing low (lower mild fence 5.5).
    let xs = [14.0, 60.0, 10.0, 11.0, 12.0, 30.0, 13.0, 15.0, 16.0, 17.0];
    let out = outliers(&xs);
    assert_eq!(out.len(), 2);
    assert_eq!(
        (out[0].index, out[0].severity, out[0].high),
        (1, Severity::Severe, true)
    );
    assert_eq!(
        (out[1].index, out[1].severity, out[1].high),
        (5, Severity::Mild, true)
    );
    // A low one: replace 60 by 0. Sorted 0 10 11 12 13 14 15 16 17 30; Q1 = 11 + .25 = 11.25,
    // Q3 = 15 + .75 = 15.75, IQR 4.5. Low: 11.25 - 0 = 11.25 is beyond 6.75 but not 13.5, so
    // mild; high: 30 - 15.75 = 14.25 is beyond 13.5, so severe.
    let ys = [14.0, 0.0, 10.0, 11.0, 12.0, 30.0, 13.0, 15.0, 16.0, 17.0];
    let out = outliers(&ys);
    assert_eq!(out.len(), 2);
    assert_eq!(
        (out[0].index, out[0].severity, out[0].high),
        (1, Severity::Mild, false)
    );
    assert_eq!(
        (out[1].index, out[1].severity, out[1].high),
        (5, Severity::Severe, true)
    );
    assert!(outliers(&[1.0, 1.0, 1.0]).is_empty());
}

/// The bootstrap written out again, independently of `Bootstrap::interval`: its own loop, its
/// own sort, its own percentile arithmetic. Only the random stream (ChaCha8 from the seed,
/// multiply-shift index draws, documented in `draw_index`) is shared, because that is what
/// "seeded, reproducible" promises.
fn reference_percentile_bootstrap(
    sample: &[f64],
    resamples: usize,
    seed: u64,
    stat: fn(&[f64]) -> f64,
) -> (f64, f64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = sample.len();
    let mut stats = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        let mut draw = Vec::with_capacity(n);
        for _ in 0..n {
            let r = rng.next_u64() as u128;
            draw.push(sample[((r * n as u128) >> 64) as usize]);
        }
        stats.push(stat(&draw));
    }
    stats.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let pick = |p: f64| {
        let h = (resamples - 1) as f64 * p;
        let (l, f) = (h.floor() as usize, h - h.floor());
        stats[l] + f * (stats[(l + 1).min(resamples - 1)] - stats[l])
    };
    (pick(0.025), pick(0.975))
}

fn plain_mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

fn plain_median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

const SAMPLE: [f64; 12] = [
    50.8, 50.3, 51.9, 50.5, 50.4, 57.2, 50.6, 50.9, 50.2, 51.1, 50.7, 50.5,
];

#[test]
fn bootstrap_ci_matches_an_independent_computation() {
    let b = Bootstrap {
        resamples: 3000,
        confidence: 0.95,
        seed: 42,
    };
    for stat in [plain_mean as fn(&[f64]) -> f64, plain_median] {
        let got = b.interval(&SAMPLE, stat).unwrap();
        let (lo, hi) = reference_percentile_bootstrap(&SAMPLE, 3000, 42, stat);
        assert!(
            (got.lo - lo).abs() < 1e-12 && (got.hi - hi).abs() < 1e-12,
            "{got:?} vs {lo} {hi}"
        );
        assert!(
            got.contains(stat(&SAMPLE)),
            "the CI holds the point estimate"
        );
    }
}

#[test]
fn bootstrap_is_reproducible_and_seed_dependent() {
    let a = Bootstrap::default().interval(&SAMPLE, plain_mean).unwrap();
    let b = Bootstrap::default().interval(&SAMPLE, plain_mean).unwrap();
    assert_eq!(a, b);
    let c = Bootstrap {
        seed: 7,
        ..Bootstrap::default()
    }
    .interval(&SAMPLE, plain_mean)
    .unwrap();
    assert_ne!(a, c);
}

#[test]
fn bootstrap_ci_of_the_mean_agrees_with_normal_theory_on_a_large_sample() {
    // Deterministic, symmetric sample: 1..=400. Mean 200.5, population sd = sqrt((n^2-1)/12).
    // The 95% interval of the mean is close to mean +- 1.96 sd / sqrt(n) = +- 11.3.
    let xs: Vec<f64> = (1..=400).map(f64::from).collect();
    let ci = Bootstrap::default().interval(&xs, plain_mean).unwrap();
    let half = 1.96 * ((400.0f64 * 400.0 - 1.0) / 12.0).sqrt() / 20.0;
    assert!((ci.lo - (200.5 - half)).abs() < 1.0, "{ci:?}");
    assert!((ci.hi - (200.5 + half)).abs() < 1.0, "{ci:?}");
}

#[test]
fn ratio_interval_holds_the_true_ratio() {
    let a: Vec<f64> = SAMPLE.iter().map(|x| x / 2.0).collect();
    let ci = Bootstrap::default()
        .ratio_interval(&a, &SAMPLE, plain_median)
        .unwrap();
    assert!(ci.contains(0.5), "{ci:?}");
    assert!(ci.width() < 0.05);
}

#[test]
fn summary_of_a_sample() {
    let s = Summary::of(&SAMPLE, &Bootstrap::default()).unwrap();
    assert_eq!(s.n, 12);
    assert_eq!(s.min, 50.2);
    assert_eq!(s.max, 57.2);
    assert!((s.median - 50.65).abs() < 1e-12);
    assert!(s.ci_median.contains(s.median) && s.ci_mean.contains(s.mean));
    assert_eq!(
        s.outliers.len(),
        2,
        "57.2 severe and 51.9 mild: {:?}",
        s.outliers
    );
    assert!(Summary::of(&[], &Bootstrap::default()).is_none());
}
