//! Issue 13: counts that are no polynomial in the iteration numbers, made countable by
//! splitting the nest. Loops inside tiles (`i < MIN(ii + b, m)` under `ii += b`) are summed
//! over the tiles in closed form; loops whose start is a residue of the outer indices
//! (red-black `1 + (i + colour) % 2`, `i % 4`, `i % 3`) are counted per residue. Every count
//! is worked by hand (in the comment beside it) and equals the instrumented run.

use metron_memory::trace::{compare, run_traced, SiteTable};
use metron_memory::{frontend, Analysis, BranchPolicy};
use metron_symbolic::binding;

const KERNELS: &str = r#"
#include <stdlib.h>
#include <string.h>
#define MIN(x, y) ((x) < (y) ? (x) : (y))
double A[4096], B[4096];

/* a branch on loaded data, beside the tiles' branches on indices */
void positives(int n) {
  for (int i = 0; i < n; i++)
    if (A[i] > 0.5)
      B[i] = A[i];
}

/* blocked transpose, B = A^T, in b x b tiles with ragged edges */
void tiled_transpose(int m, int n, int b) {
  for (int ii = 0; ii < m; ii += b)
    for (int jj = 0; jj < n; jj += b)
      for (int i = ii; i < MIN(ii + b, m); i++)
        for (int j = jj; j < MIN(jj + b, n); j++)
          B[j * m + i] = A[i * n + j];
}

/* strip-mined sum: one partial sum stored per strip */
void strip_sums(int n, int b) {
  for (int ii = 0; ii < n; ii += b) {
    double s = 0.0;
    for (int i = ii; i < MIN(ii + b, n); i++)
      s += A[i];
    B[ii / b] = s;
  }
}

/* overlapping windows: width w, hop b */
void window_sums(int n, int b, int w) {
  for (int ii = 0; ii < n; ii += b) {
    double s = 0.0;
    for (int i = ii; i < MIN(ii + w, n); i++)
      s += A[i];
    B[ii / b] = s;
  }
}

/* red-black Gauss-Seidel sweep on the interior of an n x n grid */
void red_black(int n) {
  for (int colour = 0; colour < 2; colour++)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1 + (i + colour) % 2; j < n - 1; j += 2)
        A[i * n + j] = 0.25 * (A[(i - 1) * n + j] + A[(i + 1) * n + j]);
}

/* four interleaved phases, and three */
void phases4(int n) {
  for (int i = 0; i < n; i++)
    for (int j = i % 4; j < n; j += 4)
      A[j] += 1.0;
}
void phases3(int n) {
  for (int i = 0; i < n; i++)
    for (int j = i % 3; j < n; j += 3)
      A[j] += 1.0;
}

int main(int argc, char **argv) {
  int a = atoi(argv[2]), b = argc > 3 ? atoi(argv[3]) : 0, c = argc > 4 ? atoi(argv[4]) : 0;
  if (!strcmp(argv[1], "tiled_transpose")) tiled_transpose(a, b, c);
  else if (!strcmp(argv[1], "strip_sums")) strip_sums(a, b);
  else if (!strcmp(argv[1], "window_sums")) window_sums(a, b, c);
  else if (!strcmp(argv[1], "red_black")) red_black(a);
  else if (!strcmp(argv[1], "phases4")) phases4(a);
  else phases3(a);
  return (int)A[0];
}
"#;

/// Function, its arguments, N_k worked by hand.
type Case<'a> = (&'a str, &'a [(&'a str, i64)], u64);

const CASES: &[Case] = &[
    // m x n elements, each read once and written once, whatever the tiling: 2 m n.
    // m = 10, n = 7, b = 4: row tiles 4 + 4 + 2, column tiles 4 + 3: 2 * 70 = 140.
    ("tiled_transpose", &[("m", 10), ("n", 7), ("b", 4)], 140),
    // b divides both: 2 * 8 * 12 = 192.
    ("tiled_transpose", &[("m", 8), ("n", 12), ("b", 4)], 192),
    // one tile larger than the matrix: 2 * 5 * 3 = 30.
    ("tiled_transpose", &[("m", 5), ("n", 3), ("b", 16)], 30),
    // b = 1: 2 * 6 * 4 = 48.
    ("tiled_transpose", &[("m", 6), ("n", 4), ("b", 1)], 48),
    // n reads, one write per strip: n = 10, b = 4: strips 4 + 4 + 2, 10 + 3 = 13.
    ("strip_sums", &[("n", 10), ("b", 4)], 13),
    // n = 12, b = 4: 12 + 3 = 15.
    ("strip_sums", &[("n", 12), ("b", 4)], 15),
    // empty: no strip.
    ("strip_sums", &[("n", 0), ("b", 4)], 0),
    // windows at 0, 3, 6, 9 (n = 10) of width min(5, 10 - ii): 5 + 5 + 4 + 1 = 15 reads, 4
    // writes: 19.
    ("window_sums", &[("n", 10), ("b", 3), ("w", 5)], 19),
    // width below the hop (gaps): windows at 0, 5, 10 (n = 11) of min(2, 11 - ii): 2 + 2 + 1
    // = 5 reads, 3 writes: 8.
    ("window_sums", &[("n", 11), ("b", 5), ("w", 2)], 8),
    // n = 9: interior 7 x 7 = 49 points over the two colours, 2 reads + 1 write each: 147.
    // (colour 0: odd rows start at 2 (j = 2, 4, 6), even rows at 1 (1, 3, 5, 7): 4*3 + 3*4 =
    // 24; colour 1: 4*4 + 3*3 = 25.)
    ("red_black", &[("n", 9)], 147),
    // n = 10: 8 x 8 = 64 points: 192.
    ("red_black", &[("n", 10)], 192),
    // n = 10: rows i with i % 4 = 0, 1, 2, 3 run j = 0,4,8 / 1,5,9 / 2,6 / 3,7: 3, 3, 2, 2;
    // i = 0..9 has residues 0,1,2,3,0,1,2,3,0,1: 26 iterations, a read and a write: 52.
    ("phases4", &[("n", 10)], 52),
    // n = 10, % 3: 0,3,6,9 / 1,4,7 / 2,5,8: 4, 3, 3; residues of 0..9: four 0s, three 1s,
    // three 2s: 16 + 9 + 9 = 34 iterations: 68.
    ("phases3", &[("n", 10)], 68),
];

/// The kernels compiled and analysed in a fresh directory (None, visibly skipped or failing
/// under CI, without clang and opt).
fn load() -> Option<(tempfile::TempDir, Analysis)> {
    metron_measure::tool::testing::require_all(&[&frontend::CLANG, &frontend::OPT])?;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("split.c");
    std::fs::write(&p, KERNELS).unwrap();
    let a = Analysis::load(&p, frontend::DEFAULT_PIPELINE).unwrap();
    Some((dir, a))
}

#[test]
fn tiles_and_residues_are_counted_without_a_trip_parameter() {
    let Some((dir, a)) = load() else {
        return;
    };
    for f in ["tiled_transpose", "strip_sums", "window_sums"] {
        let tiles = a.model.functions[f]
            .loops
            .iter()
            .filter(|l| l.source == "tile");
        assert!(tiles.count() >= 1, "{f}: {:#?}", a.model.functions[f].loops);
    }
    for f in ["red_black", "phases4", "phases3"] {
        let split = a.model.functions[f]
            .loops
            .iter()
            .filter(|l| !l.residues.is_empty());
        assert_eq!(split.count(), 1, "{f}: {:#?}", a.model.functions[f].loops);
    }
    for (f, params, want) in CASES {
        let b = binding(params.iter().copied());
        let c = a.count(f, &BranchPolicy::Max, &b).unwrap();
        assert!(
            c.n_k.parameters().iter().all(|p| !p.starts_with("trip_")),
            "{f}: {}",
            c.n_k
        );
        assert_eq!(
            c.n_k_value.as_deref(),
            Some(want.to_string().as_str()),
            "{f} {params:?}\n{:?}",
            c.notes
        );
        let mut args = vec![f.to_string()];
        args.extend(params.iter().map(|(_, v)| v.to_string()));
        let d = run_traced(&a.prepared.ir, &a.module, f, &args, dir.path(), false).unwrap();
        let rows = compare(&SiteTable::new(&a.module), &c, &b, &d).unwrap();
        assert!(rows.iter().all(|r| r.equal), "{f} {params:?}: {rows:#?}");
    }
}

#[test]
fn a_tile_step_of_zero_is_named() {
    let Some((_dir, a)) = load() else {
        return;
    };
    let e = a
        .count(
            "strip_sums",
            &BranchPolicy::Max,
            &binding([("n", 10), ("b", 0)]),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("b = 0"), "{e}");
}

#[test]
fn a_tile_bound_branch_is_not_called_data_dependent() {
    let Some((_dir, a)) = load() else {
        return;
    };
    // `i < MIN(ii + b, m)` reads indices and arguments only: not affine, but not data.
    let b = binding([("m", 10), ("n", 7), ("b", 4)]);
    let c = a.count("tiled_transpose", &BranchPolicy::Max, &b).unwrap();
    assert!(
        c.notes.iter().all(|n| !n.contains("depends on data")),
        "{:#?}",
        c.notes
    );
    assert!(
        c.notes.iter().any(|n| n.contains("not an index condition")),
        "{:#?}",
        c.notes
    );
    // A branch on a loaded value still is.
    let d = a
        .count("positives", &BranchPolicy::Max, &binding([("n", 10)]))
        .unwrap();
    assert!(
        d.notes.iter().any(|n| n.contains("depends on data")),
        "{:#?}",
        d.notes
    );
}
