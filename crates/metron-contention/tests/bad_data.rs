//! `metron contention fit` data files (issue 5, bad input): missing columns and non-numeric
//! values are named with their line; zero or negative times are rejected.

use metron_contention::data::parse_samples;

fn error(text: &str) -> String {
    parse_samples(text, "runs.csv").unwrap_err().to_string()
}

#[test]
fn missing_columns_name_the_header_line() {
    let e = error("# measured on the simulator\ngroup,t_seq,t_par\na,1,2\n");
    assert!(
        e.contains("runs.csv:2") && e.contains("missing column `n`"),
        "{e}"
    );
    let e = error("");
    assert!(e.contains("runs.csv:1") && e.contains("header"), "{e}");
}

#[test]
fn non_numeric_values_and_short_rows_name_their_line() {
    let e = error("group,t_seq,t_par,n\na,1,2,3\n\n# gap\na,1,2,many\n");
    assert!(e.contains("runs.csv:5") && e.contains("`many`"), "{e}");
    let e = error("group,t_seq,t_par,n\na,1,NaN,3\n");
    assert!(e.contains("runs.csv:2") && e.contains("`NaN`"), "{e}");
    let e = error("group,t_seq,t_par,n\na,1,2,3\na,1\n");
    assert!(e.contains("runs.csv:3"), "{e}");
}

#[test]
fn zero_and_negative_times_are_rejected() {
    for (row, what) in [
        ("a,0,2,3", "t_seq=0"),
        ("a,-1,2,3", "t_seq=-1"),
        ("a,1,0,3", "t_par=0"),
        ("a,1,-2.5,3", "t_par=-2.5"),
    ] {
        let e = error(&format!("group,t_seq,t_par,n\na,1,2,3\n{row}\n"));
        assert!(
            e.contains("runs.csv:3") && e.contains("positive") && e.contains(what),
            "{row}: {e}"
        );
    }
    let e = error("group,t_seq,t_par,n\na,1,2,-3\n");
    assert!(e.contains("runs.csv:2") && e.contains("negative"), "{e}");
}
