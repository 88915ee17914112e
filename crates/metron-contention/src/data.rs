//! Measurement files for `metron contention fit`: CSV with a header and one row per thread
//! of a co-running group. Required columns: `group`, `t_seq`, `t_par`, `n`. Optional:
//! `threads` (default: rows in the group), `banks` (default 1), `function`.

use std::collections::BTreeMap;

use crate::model::Sample;
use crate::ContentionError;

pub const COLUMNS: &str = "group,function,threads,banks,t_seq,t_par,n";

/// Parses the CSV text; `file` names it in errors.
pub fn parse_samples(text: &str, file: &str) -> Result<Vec<Sample>, ContentionError> {
    let err = |line: usize, message: String| ContentionError::Data {
        file: file.to_string(),
        line,
        message,
    };
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'));
    let (hl, header) = lines
        .next()
        .ok_or_else(|| err(1, "expected a header line with group,t_seq,t_par,n".into()))?;
    let cols: Vec<String> = header
        .split(',')
        .map(|c| c.trim().to_ascii_lowercase())
        .collect();
    let find = |name: &str| cols.iter().position(|c| c == name);
    let need = |name: &str| {
        find(name).ok_or_else(|| {
            err(
                hl + 1,
                format!("missing column `{name}` (have: {})", cols.join(",")),
            )
        })
    };
    let (g, ts, tp, n) = (need("group")?, need("t_seq")?, need("t_par")?, need("n")?);
    let (th, bk, fu) = (find("threads"), find("banks"), find("function"));
    struct Row {
        group: String,
        label: String,
        threads: Option<usize>,
        banks: f64,
        t_seq: f64,
        t_par: f64,
        n: f64,
    }
    let mut rows = Vec::new();
    for (i, line) in lines {
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        if cells.len() != cols.len() {
            return Err(err(
                i + 1,
                format!("expected {} values, found {}", cols.len(), cells.len()),
            ));
        }
        let num = |c: usize, name: &str| -> Result<f64, ContentionError> {
            cells[c]
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| {
                    err(
                        i + 1,
                        format!("column `{name}`: expected a number, found `{}`", cells[c]),
                    )
                })
        };
        let t_seq = num(ts, "t_seq")?;
        let t_par = num(tp, "t_par")?;
        if t_seq <= 0.0 || t_par <= 0.0 {
            return Err(err(
                i + 1,
                format!("times must be positive, found t_seq={t_seq}, t_par={t_par}"),
            ));
        }
        let nv = num(n, "n")?;
        if nv < 0.0 {
            return Err(err(
                i + 1,
                format!("access count n must not be negative, found {nv}"),
            ));
        }
        let threads = match th {
            Some(c) => Some(num(c, "threads")? as usize),
            None => None,
        };
        let banks = match bk {
            Some(c) => num(c, "banks")?,
            None => 1.0,
        };
        rows.push(Row {
            group: cells[g].to_string(),
            label: fu.map(|c| cells[c].to_string()).unwrap_or_default(),
            threads,
            banks,
            t_seq,
            t_par,
            n: nv,
        });
    }
    let mut groups: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, r) in rows.iter().enumerate() {
        groups.entry(r.group.as_str()).or_default().push(i);
    }
    Ok(rows
        .iter()
        .map(|r| {
            let members = &groups[r.group.as_str()];
            let others = members
                .iter()
                .filter(|&&j| !std::ptr::eq(&rows[j], r))
                .map(|&j| (rows[j].n, rows[j].t_seq))
                .collect::<Vec<_>>();
            Sample {
                threads: r.threads.unwrap_or(members.len()),
                t_seq: r.t_seq,
                t_par: r.t_par,
                n: r.n,
                others,
                banks: r.banks,
                label: r.label.clone(),
            }
        })
        .collect())
}

/// Writes samples grouped as they came (each sample's own row; groups must be given).
pub fn write_row(group: &str, s: &Sample) -> String {
    format!(
        "{group},{},{},{},{},{},{}",
        s.label, s.threads, s.banks, s.t_seq, s.t_par, s.n
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_give_the_other_threads() {
        let text = "group,t_seq,t_par,n\na,100,110,10\na,200,205,40\nb,50,50,1\n";
        let s = parse_samples(text, "d.csv").unwrap();
        assert_eq!(s[0].threads, 2);
        assert_eq!(s[0].others, vec![(40.0, 200.0)]);
        assert_eq!(s[1].others, vec![(10.0, 100.0)]);
        assert_eq!(s[2].threads, 1);
    }

    #[test]
    fn bad_rows_name_the_line() {
        let e = parse_samples("group,t_seq,n\n", "d.csv")
            .unwrap_err()
            .to_string();
        assert!(e.contains("d.csv:1") && e.contains("t_par"), "{e}");
        let e = parse_samples("group,t_seq,t_par,n\na,1,x,3\n", "d.csv")
            .unwrap_err()
            .to_string();
        assert!(e.contains("d.csv:2") && e.contains("`x`"), "{e}");
        let e = parse_samples("group,t_seq,t_par,n\na,1,2,3\na,0,2,3\n", "d.csv")
            .unwrap_err()
            .to_string();
        assert!(e.contains("d.csv:3") && e.contains("positive"), "{e}");
        let e = parse_samples("group,t_seq,t_par,n\na,1,2\n", "d.csv")
            .unwrap_err()
            .to_string();
        assert!(e.contains("d.csv:2"), "{e}");
    }
}
