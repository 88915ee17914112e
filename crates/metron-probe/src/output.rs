//! Writers for the formats others already read: JSON profile, the thesis's CSV layouts
//! (002 Listings 2.34-2.35), folded stacks (flame graphs, speedscope) and Chrome trace-event
//! JSON (Perfetto). No serde here: this code is linked into users' programs.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::global::ThreadSnapshot;
use crate::profile::{NodeRecord, Profile, ThreadProfile};

pub(crate) fn json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn json_f64(out: &mut String, x: f64) {
    if x.is_finite() {
        let _ = write!(out, "{x}");
    } else {
        out.push_str("null");
    }
}

fn json_opt_u32(out: &mut String, x: Option<u32>) {
    match x {
        Some(v) => {
            let _ = write!(out, "{v}");
        }
        None => out.push_str("null"),
    }
}

/// The JSON profile (field names match the serde derive of `Profile`).
pub fn to_json(p: &Profile) -> String {
    let mut o = String::with_capacity(4096);
    o.push_str("{\n  \"format\": ");
    json_string(&mut o, &p.format);
    let _ = write!(o, ",\n  \"version\": {},\n  \"rank\": ", p.version);
    json_opt_u32(&mut o, p.rank);
    o.push_str(",\n  \"host\": ");
    json_string(&mut o, &p.host);
    let _ = write!(o, ",\n  \"pid\": {},\n  \"cmdline\": [", p.pid);
    for (i, a) in p.cmdline.iter().enumerate() {
        if i > 0 {
            o.push_str(", ");
        }
        json_string(&mut o, a);
    }
    let _ = write!(
        o,
        "],\n  \"start_time_unix_ns\": {},\n  \"clock\": {{\"name\": ",
        p.start_time_unix_ns
    );
    json_string(&mut o, &p.clock.name);
    o.push_str(", \"ticks_per_ns\": ");
    json_f64(&mut o, p.clock.ticks_per_ns);
    o.push_str(", \"calibration\": ");
    json_string(&mut o, &p.clock.calibration);
    o.push_str(", \"granularity_ns\": ");
    json_f64(&mut o, p.clock.granularity_ns);
    let _ = write!(
        o,
        "}},\n  \"call_tree\": {},\n  \"threads\": [",
        p.call_tree
    );
    for (i, t) in p.threads.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        thread_json(&mut o, t);
    }
    o.push_str("\n  ]\n}\n");
    o
}

fn thread_json(o: &mut String, t: &ThreadProfile) {
    let _ = write!(
        o,
        "\n    {{\"index\": {}, \"tid\": {}, \"name\": ",
        t.index, t.tid
    );
    match &t.name {
        Some(n) => json_string(o, n),
        None => o.push_str("null"),
    }
    let _ = write!(
        o,
        ", \"tree_errors\": {}, \"timeline_events\": {}, \"timeline_dropped\": {},\n     \"regions\": [",
        t.tree_errors, t.timeline_events, t.timeline_dropped
    );
    for (i, r) in t.regions.iter().enumerate() {
        o.push_str(if i > 0 { ",\n       " } else { "\n       " });
        o.push_str("{\"name\": ");
        json_string(o, &r.name);
        o.push_str(", \"total_ns\": ");
        json_f64(o, r.total_ns);
        let _ = write!(o, ", \"count\": {}, \"mean_ns\": ", r.count);
        json_f64(o, r.mean_ns);
        o.push_str(", \"min_ns\": ");
        json_f64(o, r.min_ns);
        o.push_str(", \"max_ns\": ");
        json_f64(o, r.max_ns);
        let _ = write!(
            o,
            ", \"errors\": {}, \"open_at_exit\": {}}}",
            r.errors, r.open_at_exit
        );
    }
    o.push_str("],\n     \"tree\": [");
    for (i, n) in t.tree.iter().enumerate() {
        o.push_str(if i > 0 { ",\n       " } else { "\n       " });
        let _ = write!(
            o,
            "{{\"id\": {}, \"parent\": {}, \"depth\": {}, \"name\": ",
            n.id, n.parent, n.depth
        );
        json_string(o, &n.name);
        o.push_str(", \"total_ns\": ");
        json_f64(o, n.total_ns);
        let _ = write!(
            o,
            ", \"count\": {}, \"open_at_exit\": {}}}",
            n.count, n.open_at_exit
        );
    }
    o.push_str("]}");
}

fn ms(ns: f64) -> f64 {
    ns * 1e-6
}

/// 002 Listing 2.34, `NAME;X;Y;` with X the total and Y the mean in ms: one line per thread,
/// regions in registration order (002 Listing 2.36 wraps such a line in print).
pub fn to_csv_timers(p: &Profile) -> String {
    let mut o = String::new();
    for t in &p.threads {
        for r in &t.regions {
            let _ = write!(o, "{};{};{};", r.name, ms(r.total_ns), ms(r.mean_ns));
        }
        o.push('\n');
    }
    o
}

/// 002 Listing 2.35, `INDENT;NAME;X;` with X the inclusive total in ms, in depth-first order
/// so that "order imposes child-parent relation" (002 §2.7): one line per thread.
pub fn to_csv_callstack(p: &Profile) -> String {
    let mut o = String::new();
    for t in &p.threads {
        for n in &t.tree {
            let _ = write!(o, "{};{};{};", n.depth, n.name, ms(n.total_ns));
        }
        o.push('\n');
    }
    o
}

/// Exclusive time per node (inclusive minus children), clamped at 0 against rounding.
pub fn exclusive_ns(tree: &[NodeRecord]) -> Vec<f64> {
    let mut excl: Vec<f64> = tree.iter().map(|n| n.total_ns).collect();
    for n in tree {
        if n.parent > 0 {
            if let Some(p) = excl.get_mut(n.parent as usize - 1) {
                *p -= n.total_ns;
            }
        }
    }
    excl.iter().map(|x| x.max(0.0)).collect()
}

/// `a;b;c value` lines with exclusive nanoseconds, summed over threads, for flamegraph.pl,
/// inferno and speedscope.
pub fn to_folded(p: &Profile) -> String {
    let mut acc: BTreeMap<String, f64> = BTreeMap::new();
    for t in &p.threads {
        fold_thread(&t.tree, "", &mut acc);
    }
    folded_lines(&acc)
}

pub(crate) fn fold_thread(tree: &[NodeRecord], prefix: &str, acc: &mut BTreeMap<String, f64>) {
    let excl = exclusive_ns(tree);
    let mut paths: Vec<String> = Vec::with_capacity(tree.len());
    for n in tree {
        let name = n.name.replace([';', ' '], "_");
        let path = if n.parent == 0 {
            if prefix.is_empty() {
                name
            } else {
                format!("{prefix};{name}")
            }
        } else {
            format!("{};{}", paths[n.parent as usize - 1], name)
        };
        *acc.entry(path.clone()).or_insert(0.0) += excl[n.id as usize - 1];
        paths.push(path);
    }
}

pub(crate) fn folded_lines(acc: &BTreeMap<String, f64>) -> String {
    let mut o = String::new();
    for (path, v) in acc {
        let v = v.round() as u64;
        if v > 0 {
            let _ = writeln!(o, "{path} {v}");
        }
    }
    o
}

/// Chrome trace-event JSON of the timeline buffers: `B`/`E` events in microseconds since the
/// clock's start, `pid` = rank, `tid` = OS thread id.
pub fn timeline_chrome(
    threads: &[ThreadSnapshot],
    names: &[String],
    ticks_per_ns: f64,
    start_ticks: u64,
    rank: Option<u32>,
) -> String {
    let pid = rank.unwrap_or(0);
    let mut o = String::from("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [");
    let mut first = true;
    for t in threads {
        let Some(tl) = &t.recorder.timeline else {
            continue;
        };
        for e in &tl.events {
            o.push_str(if first { "\n" } else { ",\n" });
            first = false;
            let us = e.ticks.saturating_sub(start_ticks) as f64 / ticks_per_ns / 1000.0;
            o.push_str("{\"name\": ");
            json_string(
                &mut o,
                names.get(e.region as usize).map_or("?", |s| s.as_str()),
            );
            let _ = write!(
                o,
                ", \"ph\": \"{}\", \"ts\": {:.3}, \"pid\": {}, \"tid\": {}}}",
                if e.begin { 'B' } else { 'E' },
                us,
                pid,
                t.tid
            );
        }
    }
    o.push_str("\n]}\n");
    o
}
