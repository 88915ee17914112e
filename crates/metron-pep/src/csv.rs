//! The long-format CSV of the performance-profile mode (000 App. C.3): the header of Listing
//! C.2 with `trace_id` and `time` added, one row per sample and member event, plus `delta`
//! (Δ of the value, 000 §3.3) so the file plots without further processing. The runtime
//! column is named `env` (C.2's `matlab`) since metron profiles any program.

use std::fmt::Write as _;

use crate::profile::delta;
use crate::trace::Trace;

pub const HEADER: &str =
    "trace_id,env,threads,process,benchmark,version,metrics,N,in_process,time,value,delta";

/// Traces numbered from 1 in file order.
pub fn to_long_csv(traces: &[Trace]) -> String {
    let mut s = String::from(HEADER);
    s.push('\n');
    for (id, t) in traces.iter().enumerate() {
        let n = &t.name;
        let times: Vec<u64> = t.rows.iter().map(|r| r[0]).collect();
        for (j, event) in t.events.iter().enumerate().skip(1) {
            let values: Vec<u64> = t.rows.iter().map(|r| r[j]).collect();
            for ((time, value), d) in times.iter().zip(&values).zip(delta(&values)) {
                let _ = writeln!(
                    s,
                    "{},{},{},{},{},{},{},{},{},{time},{value},{d}",
                    id + 1,
                    field(&n.env),
                    field(&n.threads),
                    field(&n.process),
                    field(&n.benchmark),
                    field(&n.version),
                    field(event),
                    field(&n.n),
                    field(&n.in_process),
                );
            }
        }
    }
    s
}

/// RFC 4180 quoting where a field needs it.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
