//! Bad input to `metron memory` and `metron contention` (issue 13): exit 2 with the reason.

use std::process::Command;

fn metron(args: &[&str], dir: &std::path::Path) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_metron"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const SRC: &str = "double A[8];\nvoid k(int n) { for (int i = 0; i < n; i++) A[i] = 1; }\n\
int main(int c, char **v) { double *p = 0; if (c > 2) return (int)p[7]; k(4); return 0; }\n";

#[test]
fn bad_input_exits_2_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let (code, err) = metron(&["contention", "simulate", "--cores", "0"], dir.path());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--cores 0"), "{err}");
    let (code, err) = metron(&["contention", "simulate", "--accesses", "0"], dir.path());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--accesses 0"), "{err}");
    if metron_measure::tool::testing::require_all(&[
        &metron_measure::tool::CLANG,
        &metron_measure::tool::OPT,
    ])
    .is_none()
    {
        return;
    }
    std::fs::write(dir.path().join("k.c"), SRC).unwrap();
    let (code, err) = metron(
        &["memory", "analyze", "k.c", "-f", "k", "-p", "m=4"],
        dir.path(),
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--param m: no such parameter") && err.contains("n"),
        "{err}"
    );
    let (code, err) = metron(
        &[
            "memory",
            "validate",
            "k.c",
            "-f",
            "k",
            "-p",
            "n=4",
            "--no-independent",
            "--",
            "a",
            "b",
        ],
        dir.path(),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("killed by signal 11 (SIGSEGV)"), "{err}");
    let (code, err) = metron(
        &[
            "memory",
            "validate",
            "k.c",
            "-f",
            "k",
            "-p",
            "n=4",
            "--no-independent",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
}

/// knapsack's shape: the inner loop exits on loaded data. Without a profile `validate` names it
/// by file:line (exit 2); with the profile of a run at another size it predicts, and with the
/// profile of the same run it is exact (static = traced, exit 0).
const EXITS_ON_DATA: &str = "#include <stdlib.h>\n\
void k(int items, int cap, const int *wt, long *acc)\n\
{\n\
    for (int i = 0; i < items; i++)\n\
        for (int w = cap; w >= wt[i]; w--)\n\
            acc[w] += acc[w - wt[i]];\n\
}\n\
void twice(int n, double *x) { for (int i = 0; i < n; i++) x[i] += 1.0; }\n\
int main(int c, char **v)\n\
{\n\
    int items = atoi(v[1]), cap = atoi(v[2]);\n\
    int *wt = malloc(sizeof(int) * items);\n\
    long *acc = calloc(cap + 1, sizeof(long));\n\
    double x[64] = {0};\n\
    for (int i = 0; i < items; i++) wt[i] = i % 5 + 1;\n\
    k(items, cap, wt, acc);\n\
    twice(40, x);\n\
    twice(24, x);\n\
    return (int)(acc[cap] & 1);\n\
}\n";

#[test]
fn profiles_give_data_exits_a_count_and_validate_sums_activations() {
    if metron_measure::tool::testing::require_all(&[
        &metron_measure::tool::CLANG,
        &metron_measure::tool::OPT,
    ])
    .is_none()
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("d.c"), EXITS_ON_DATA).unwrap();
    let validate = |extra: &[&str], args: [&str; 2]| {
        let mut a = vec![
            "memory",
            "validate",
            "d.c",
            "-f",
            "k",
            "-p",
            "items=20",
            "-p",
            "cap=50",
            "--no-independent",
        ];
        a.extend_from_slice(extra);
        a.extend(["--", args[0], args[1]]);
        metron(&a, dir.path())
    };
    let (code, err) = validate(&[], ["20", "50"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("d.c:5") && err.contains("--write-branch-profile"),
        "{err}"
    );
    let (code, err) = metron(
        &[
            "memory",
            "trace",
            "d.c",
            "-f",
            "k",
            "--write-branch-profile",
            "p",
            "--",
            "20",
            "50",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(dir.path().join("p")).unwrap();
    // 4 cycles of weights 1..5: 20 · (50 + 1 − 3) = 960 iterations, reached once per item.
    assert!(
        text.contains("loop k for.body4 20 960") || text.contains(" 20 960\n"),
        "{text}"
    );
    assert!(text.contains("activation k 1 cap=50 items=20"), "{text}");
    let (code, err) = validate(&["--branch-profile", "p"], ["20", "50"]);
    assert_eq!(code, 0, "{err}");
    // `twice` runs for n = 40 and n = 24: 2 · 64 accesses = 128, equal to the trace.
    let (code, err) = metron(
        &[
            "memory",
            "validate",
            "d.c",
            "-f",
            "twice",
            "-p",
            "n=40",
            "--no-independent",
            "--",
            "1",
            "1",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("2 argument sets"), "{err}");
}
