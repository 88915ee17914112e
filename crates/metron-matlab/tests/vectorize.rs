//! Loop vectorisation: what must stay a loop stays one; the π-graph distributes and reorders;
//! transposes for mixed orientation; reductions; versioning.

use std::path::Path;

use metron_matlab::dimensionality::Dim;
use metron_matlab::passes::{run_passes, Options};

fn vectorize(name: &str, options: &Options) -> (String, String, Vec<String>) {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/matlab")
        .join(name);
    let src = std::fs::read_to_string(&file).unwrap();
    let out = run_passes(&src, &file, &["vectorize".to_string()], options).unwrap();
    let notes = out[0].notes.iter().map(|n| n.message.clone()).collect();
    (src, out[0].source.clone(), notes)
}

#[test]
fn true_dependences_are_left_alone() {
    for name in ["recurrence.m", "tridiagonal.m"] {
        let (src, out, notes) = vectorize(name, &Options::default());
        assert_eq!(out, src, "{name} must not change");
        assert!(
            notes.iter().all(|n| n.contains("dependence cycle")),
            "{notes:?}"
        );
    }
}

#[test]
fn listing_6_4_gets_a_transpose() {
    let (_, out, _) = vectorize("mixed_orientation.m", &Options::default());
    assert!(out.contains("a(1:n) = b(1:n) + c(1:n).';"), "{out}");
}

#[test]
fn allen_kennedy_distributes_and_reorders() {
    let (_, out, _) = vectorize("partial.m", &Options::default());
    assert!(
        out.contains("for i = 2:n\n  a(i) = a(i-1) + b(i);\nend\nc(2:n) = a(2:n) .* 2;"),
        "{out}"
    );
    let (_, out, _) = vectorize("reorder.m", &Options::default());
    let b = out.find("b(2:n) = c(2:n) .* 2;").unwrap();
    let a = out.find("a(2:n) = b(1:(n-1)) + 1;").unwrap();
    assert!(b < a, "S2 must come first:\n{out}");
}

#[test]
fn reductions_become_sums_and_offsets_become_ranges() {
    let (_, out, _) = vectorize("inner_product.m", &Options::default());
    assert!(out.contains("q = q + sum(z(1:n).*x(1:n));"), "{out}");
    let (_, out, _) = vectorize("hydro.m", &Options::default());
    assert!(
        out.contains("z(11:(n+10))") && out.contains("z(12:(n+11))"),
        "{out}"
    );
}

#[test]
fn scripts_keep_their_loops_and_unknown_shapes_need_an_assumption() {
    let (src, out, notes) = vectorize("script_commands.m", &Options::default());
    assert_eq!(out, src);
    assert!(notes.iter().any(|n| n.contains("workspace")), "{notes:?}");
    let src = "function a = f(b, n)\na = zeros(1, n);\nfor i = 1:n\n  a(i) = 2*b(i);\nend\nend\n";
    let p = metron_matlab::parse(src, Path::new("f.m")).unwrap();
    let out = metron_matlab::passes::vectorize::run(&p, &Options::default()).unwrap();
    assert_eq!(out.source, src, "b's orientation is unknown");
    let assume = Options {
        assume: Some(Dim::Row),
        ..Options::default()
    };
    let out = metron_matlab::passes::vectorize::run(&p, &assume).unwrap();
    assert!(out.source.contains("a(1:n) = 2.*b(1:n);"), "{}", out.source);
}

#[test]
fn profile_guided_versioning_keeps_the_loop_for_small_sizes() {
    let options = Options {
        version_threshold: Some(300),
        ..Options::default()
    };
    let (src, out, _) = vectorize("triad.m", &options);
    assert!(
        out.contains("if n >= 300\n  a(1:n) = b(1:n) + s.*c(1:n);\nelse\n  for i = 1:n"),
        "{out}"
    );
    // The original loop survives verbatim inside the else branch (indented).
    assert!(
        out.contains("    a(i) = b(i) + s*c(i);   % independent iterations"),
        "{out}"
    );
    assert!(out.len() > src.len());
}

#[test]
fn consecutive_versioned_loops_share_one_guard() {
    let options = Options {
        version_threshold: Some(4),
        ..Options::default()
    };
    // kernels.m: six independent loops over 1:n with plain assignments between them.
    let (src, out, notes) = vectorize("kernels.m", &options);
    assert_eq!(out.matches("if n >= 4").count(), 1, "{out}");
    assert_eq!(out.matches("\nelse\n").count(), 1, "{out}");
    assert_eq!(notes.iter().filter(|n| n.contains("one guard")).count(), 6);
    // The else branch is the original region, byte for byte apart from two more spaces.
    let start = src.find("for i = 1:n").unwrap();
    let end = src.rfind("end\nend").unwrap() + 3;
    let indented: String = src[start..end]
        .lines()
        .enumerate()
        .map(|(k, l)| {
            if k == 0 || l.is_empty() {
                l.to_string()
            } else {
                format!("  {l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert!(out.contains(&format!("else\n  {indented}\nend")), "{out}");
    // The statements between the loops run in both branches.
    assert_eq!(out.matches("a = zeros(1, n);").count(), 2);

    // A bound assigned between two loops gives each loop its own guard.
    let src = "function [a, b] = f(n)\na = zeros(1, n);\nfor i = 1:n\n  a(i) = 2*i;\nend\nn = n - 1;\nb = zeros(1, n);\nfor i = 1:n\n  b(i) = 3*i;\nend\nend\n";
    let out = run_passes(src, Path::new("f.m"), &["vectorize".to_string()], &options).unwrap();
    assert_eq!(
        out[0].source.matches("if n >= 4").count(),
        2,
        "{}",
        out[0].source
    );
    // A loop nested in a statement between them also splits the run.
    let src = "function [a, b] = f(n, c)\na = zeros(1, n);\nfor i = 1:n\n  a(i) = 2*i;\nend\nif c\n  c = 0;\nend\nb = zeros(1, n);\nfor i = 1:n\n  b(i) = 3*i;\nend\nend\n";
    let out = run_passes(src, Path::new("f.m"), &["vectorize".to_string()], &options).unwrap();
    assert_eq!(
        out[0].source.matches("if n >= 4").count(),
        2,
        "{}",
        out[0].source
    );
}

/// The guard is one comparison equivalent to `trips >= p`; checked against the trip count of
/// the loop header counted by brute force for n = -3..40.
#[test]
fn versioning_guard_is_one_comparison_equivalent_to_the_trip_count_test() {
    let p = 4;
    let options = Options {
        version_threshold: Some(p),
        ..Options::default()
    };
    for (header, lower, step, upper_offset) in [
        ("2:n-1", 2i64, 1i64, -1i64),
        ("1:2:n", 1, 2, 0),
        ("3:3:n+1", 3, 3, 1),
        ("n:-1:1", 0, -1, 0),
        ("n+2:-2:3", 0, -2, 0),
    ] {
        let src = format!(
            "function a = f(n)\na = zeros(1, 100);\nfor i = {header}\n  a(i) = 2*i;\nend\nend\n"
        );
        let out = run_passes(&src, Path::new("f.m"), &["vectorize".to_string()], &options)
            .unwrap()
            .remove(0)
            .source;
        let cond = out
            .lines()
            .find_map(|l| l.strip_prefix("if "))
            .unwrap_or_else(|| panic!("{header}: no guard in\n{out}"));
        let parts: Vec<&str> = cond.split_whitespace().collect();
        assert_eq!(parts.len(), 3, "{header}: `{cond}` is not one comparison");
        let sign = match parts[0] {
            "n" => 1,
            "-n" => -1,
            other => panic!("{header}: unexpected left side {other}"),
        };
        let k: i64 = parts[2].parse().unwrap();
        for n in -3i64..40 {
            let (from, to) = if step > 0 {
                (lower, n + upper_offset)
            } else if header == "n:-1:1" {
                (n, 1)
            } else {
                (n + 2, 3)
            };
            let trips = if step > 0 {
                (from..=to).step_by(step as usize).count()
            } else {
                (to..=from).rev().step_by((-step) as usize).count()
            } as i64;
            let lhs = sign * n;
            let guard = match parts[1] {
                ">=" => lhs >= k,
                "<=" => lhs <= k,
                other => panic!("{header}: operator {other}"),
            };
            assert_eq!(
                guard,
                trips >= p as i64,
                "{header} n={n}: `{cond}` vs {trips} trips"
            );
        }
    }
}
