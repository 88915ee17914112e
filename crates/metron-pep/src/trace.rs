//! The performance trace file of mPAPI (000 §3.3.3, Listing 3.2), read and written exactly:
//!
//! ```text
//! @trace_start:<env>:<threads>:<process>:<benchmark>:<version>:<N>:<in_process>
//! @perf_events:EV1,EV2,...[,address]
//! <EV1>,<EV2>,...            one row per sample, cumulative counts, sampling event first
//! @trace_end
//! ```
//!
//! A file holds several traces. Event names contain colons (`MEM_INST_RETIRED:ALL_LOADS`), so
//! the header is split on commas only. Columns named in [`EXTRA_COLUMNS`] (the instruction
//! address, the thread id) are carried along but are not events.

use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::PepError;

/// Columns after the events that are not counters (mPAPI's `address`; metron's `tid`).
pub const EXTRA_COLUMNS: &[&str] = &["address", "tid"];

/// The trace name after `@trace_start:` (Listing 3.2 and the long format of App. C.2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceName {
    /// The runtime environment (MATLAB release in the thesis; `metron` for native programs).
    pub env: String,
    pub threads: String,
    pub process: String,
    pub benchmark: String,
    pub version: String,
    /// The data size of the benchmark.
    pub n: String,
    /// Which measurement of this process this is (the trace id, from 1).
    pub in_process: String,
}

/// One trace: a profile group G = (T, {M1..Mg}) in raw cumulative form (000 §3.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    pub name: TraceName,
    /// Event domains, the sampling event first: E(T), E(M1), ..., E(Mg).
    pub events: Vec<String>,
    /// Extra columns after the events, e.g. `address`.
    pub extra: Vec<String>,
    /// One row per sample: `events.len() + extra.len()` values.
    pub rows: Vec<Vec<u64>>,
}

impl Trace {
    /// The column of `event`, if recorded.
    pub fn column(&self, event: &str) -> Option<Vec<u64>> {
        let i = self.events.iter().position(|e| e == event)?;
        Some(self.rows.iter().map(|r| r[i]).collect())
    }

    /// The column of an extra field such as `address`.
    pub fn extra_column(&self, name: &str) -> Option<Vec<u64>> {
        let i = self.extra.iter().position(|e| e == name)?;
        Some(self.rows.iter().map(|r| r[self.events.len() + i]).collect())
    }

    pub fn sampling_event(&self) -> &str {
        &self.events[0]
    }
}

/// Reads a trace file.
pub fn read_file(path: &Path) -> Result<Vec<Trace>, PepError> {
    let text = std::fs::read_to_string(path).map_err(|source| PepError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse(&text).map_err(|e| e.in_file(path))
}

/// Writes traces to a file in the layout of Listing 3.2.
pub fn write_file(path: &Path, traces: &[Trace]) -> Result<(), PepError> {
    std::fs::write(path, to_string(traces)).map_err(|source| PepError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// A malformed line: where and what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

impl ParseError {
    fn new(line: usize, message: impl Into<String>) -> Self {
        ParseError {
            line,
            message: message.into(),
        }
    }

    fn in_file(self, path: &Path) -> PepError {
        PepError::Parse {
            path: path.to_path_buf(),
            line: self.line,
            message: self.message,
        }
    }
}

/// The trace being read: its header line and what has been read so far.
struct Open {
    start_line: usize,
    trace: Trace,
    have_events: bool,
}

/// Parses the text of a trace file. Blank lines are ignored.
pub fn parse(text: &str) -> Result<Vec<Trace>, ParseError> {
    let mut traces = Vec::new();
    let mut open: Option<Open> = None;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix("@trace_start:") {
            if let Some(o) = &open {
                return Err(ParseError::new(
                    n,
                    format!(
                        "@trace_start before the @trace_end of the trace started at line {}",
                        o.start_line
                    ),
                ));
            }
            open = Some(Open {
                start_line: n,
                trace: Trace {
                    name: parse_name(rest, n)?,
                    events: Vec::new(),
                    extra: Vec::new(),
                    rows: Vec::new(),
                },
                have_events: false,
            });
        } else if let Some(rest) = line.strip_prefix("@perf_events:") {
            let o = open.as_mut().ok_or_else(|| {
                ParseError::new(
                    n,
                    "@perf_events outside a trace (no @trace_start before it)",
                )
            })?;
            if o.have_events {
                return Err(ParseError::new(
                    n,
                    "a second @perf_events line in one trace",
                ));
            }
            let (events, extra) = parse_events(rest, n)?;
            o.trace.events = events;
            o.trace.extra = extra;
            o.have_events = true;
        } else if line == "@trace_end" {
            let o = open
                .take()
                .ok_or_else(|| ParseError::new(n, "@trace_end without a @trace_start"))?;
            if !o.have_events {
                return Err(ParseError::new(n, "trace without a @perf_events line"));
            }
            traces.push(o.trace);
        } else if line.starts_with('@') {
            return Err(ParseError::new(
                n,
                format!(
                    "unknown keyword `{line}`: expected @trace_start, @perf_events or @trace_end"
                ),
            ));
        } else {
            let o = open.as_mut().ok_or_else(|| {
                ParseError::new(n, "a row outside a trace (no @trace_start before it)")
            })?;
            if !o.have_events {
                return Err(ParseError::new(n, "a row before the @perf_events line"));
            }
            let row = parse_row(line, &o.trace, n)?;
            o.trace.rows.push(row);
        }
    }
    if let Some(o) = open {
        return Err(ParseError::new(
            text.lines().count().max(1),
            format!(
                "missing @trace_end for the trace started at line {}",
                o.start_line
            ),
        ));
    }
    Ok(traces)
}

fn parse_name(rest: &str, n: usize) -> Result<TraceName, ParseError> {
    let f: Vec<&str> = rest.split(':').collect();
    if f.len() != 7 {
        return Err(ParseError::new(
            n,
            format!(
                "@trace_start needs 7 fields env:threads:process:benchmark:version:N:in_process, found {}",
                f.len()
            ),
        ));
    }
    Ok(TraceName {
        env: f[0].into(),
        threads: f[1].into(),
        process: f[2].into(),
        benchmark: f[3].into(),
        version: f[4].into(),
        n: f[5].into(),
        in_process: f[6].into(),
    })
}

fn parse_events(rest: &str, n: usize) -> Result<(Vec<String>, Vec<String>), ParseError> {
    let names: Vec<String> = rest.split(',').map(|s| s.trim().to_string()).collect();
    if names.iter().any(|s| s.is_empty()) {
        return Err(ParseError::new(n, "an empty event name in @perf_events"));
    }
    let first_extra = names
        .iter()
        .position(|s| EXTRA_COLUMNS.contains(&s.as_str()))
        .unwrap_or(names.len());
    let (events, extra) = names.split_at(first_extra);
    if let Some(e) = extra.iter().find(|e| !EXTRA_COLUMNS.contains(&e.as_str())) {
        return Err(ParseError::new(
            n,
            format!("event `{e}` after the extra columns; events come first"),
        ));
    }
    if events.is_empty() {
        return Err(ParseError::new(
            n,
            "@perf_events names no event (the sampling event comes first)",
        ));
    }
    Ok((events.to_vec(), extra.to_vec()))
}

fn parse_row(line: &str, trace: &Trace, n: usize) -> Result<Vec<u64>, ParseError> {
    let width = trace.events.len() + trace.extra.len();
    let cells: Vec<&str> = line.split(',').collect();
    if cells.len() != width {
        return Err(ParseError::new(
            n,
            format!(
                "{} values, expected {width} (one per column of @perf_events)",
                cells.len()
            ),
        ));
    }
    let row = cells
        .iter()
        .enumerate()
        .map(|(c, s)| {
            s.trim().parse::<u64>().map_err(|_| {
                let col = trace
                    .events
                    .iter()
                    .chain(&trace.extra)
                    .nth(c)
                    .map_or("", String::as_str);
                ParseError::new(
                    n,
                    format!(
                        "`{}` in column {} ({col}) is not a non-negative integer",
                        s.trim(),
                        c + 1
                    ),
                )
            })
        })
        .collect::<Result<Vec<u64>, _>>()?;
    if let Some(prev) = trace.rows.last() {
        check_cumulative(prev, &row, trace, n)?;
    }
    Ok(row)
}

/// Counters only count up, and the sampling time is strictly increasing (000 §3.3).
fn check_cumulative(prev: &[u64], row: &[u64], trace: &Trace, n: usize) -> Result<(), ParseError> {
    if row[0] <= prev[0] {
        return Err(ParseError::new(
            n,
            format!(
                "sampling time {} of {} does not increase (previous row: {})",
                row[0], trace.events[0], prev[0]
            ),
        ));
    }
    for (c, e) in trace.events.iter().enumerate().skip(1) {
        if row[c] < prev[c] {
            return Err(ParseError::new(
                n,
                format!(
                    "{e} decreases from {} to {}: rows hold cumulative counts",
                    prev[c], row[c]
                ),
            ));
        }
    }
    Ok(())
}

/// The text of a trace file.
pub fn to_string(traces: &[Trace]) -> String {
    let mut s = String::new();
    for t in traces {
        let n = &t.name;
        let _ = writeln!(
            s,
            "@trace_start:{}:{}:{}:{}:{}:{}:{}",
            n.env, n.threads, n.process, n.benchmark, n.version, n.n, n.in_process
        );
        let cols: Vec<&str> = t
            .events
            .iter()
            .chain(&t.extra)
            .map(String::as_str)
            .collect();
        let _ = writeln!(s, "@perf_events:{}", cols.join(","));
        for r in &t.rows {
            let cells: Vec<String> = r.iter().map(u64::to_string).collect();
            let _ = writeln!(s, "{}", cells.join(","));
        }
        s.push_str("@trace_end\n");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const LISTING_3_2: &str = "@trace_start:R2018b:1:1:striad:vec_01:1000000:2
@perf_events:INST_RETIRED:ANY_P,FP_ARITH_INST_RETIRED:128B_PACKED_DOUBLE,MEM_INST_RETIRED:ALL_LOADS,MEM_INST_RETIRED:ALL_STORES
62593,2790,18189,9392
162592,17072,39626,16533
262518,31345,61027,23669
362593,45638,82351,30816
462593,59922,103787,37958
@trace_end
";

    #[test]
    fn listing_3_2_reads_and_writes_back_identically() {
        let t = parse(LISTING_3_2).unwrap();
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].name.benchmark, "striad");
        assert_eq!(t[0].name.version, "vec_01");
        assert_eq!(t[0].events.len(), 4);
        assert_eq!(t[0].events[2], "MEM_INST_RETIRED:ALL_LOADS");
        assert_eq!(t[0].rows[4], vec![462593, 59922, 103787, 37958]);
        assert_eq!(to_string(&t), LISTING_3_2);
    }

    fn err(text: &str) -> ParseError {
        parse(text).unwrap_err()
    }

    #[test]
    fn malformed_files_fail_at_their_line() {
        let head = "@trace_start:e:1:1:b:v:10:1\n@perf_events:cpu-clock,page-faults\n";
        let e = err(&format!("{head}10,1\n20,2,3\n@trace_end\n"));
        assert_eq!(e.line, 4);
        assert!(e.message.contains("3 values, expected 2"), "{e}");
        let e = err(&format!("{head}10,x\n@trace_end\n"));
        assert_eq!(e.line, 3);
        assert!(e.message.contains("`x` in column 2 (page-faults)"), "{e}");
        let e = err(&format!("{head}10,1\n20,2\n"));
        assert_eq!(e.line, 4);
        assert!(e.message.contains("missing @trace_end"), "{e}");
        let e = err(&format!("{head}10,1\n{head}"));
        assert_eq!(e.line, 4);
        let e = err(&format!("{head}10,1\n10,2\n@trace_end\n"));
        assert_eq!(e.line, 4);
        assert!(e.message.contains("does not increase"), "{e}");
        let e = err(&format!("{head}10,5\n20,2\n@trace_end\n"));
        assert!(e.message.contains("page-faults decreases"), "{e}");
        let e = err("@trace_start:a:b\n");
        assert_eq!(e.line, 1);
        assert!(e.message.contains("7 fields"), "{e}");
        let e = err("1,2\n");
        assert!(e.message.contains("outside a trace"), "{e}");
        let e = err("@trace_start:e:1:1:b:v:10:1\n1,2\n");
        assert_eq!(e.line, 2);
        assert!(e.message.contains("before the @perf_events"), "{e}");
        let e = err(&format!("{head}-3,1\n@trace_end\n"));
        assert!(e.message.contains("not a non-negative integer"), "{e}");
    }

    #[test]
    fn extra_columns_are_not_events() {
        let t = parse(
            "@trace_start:e:1:1:b:v:10:1\n@perf_events:A:X,B:Y,address\n1,0,4096\n2,1,4100\n@trace_end\n",
        )
        .unwrap();
        assert_eq!(t[0].events, vec!["A:X", "B:Y"]);
        assert_eq!(t[0].extra, vec!["address"]);
        assert_eq!(t[0].extra_column("address").unwrap(), vec![4096, 4100]);
        let e = err("@trace_start:e:1:1:b:v:10:1\n@perf_events:address,A\n@trace_end\n");
        assert!(e.message.contains("after the extra columns"), "{e}");
    }
}
