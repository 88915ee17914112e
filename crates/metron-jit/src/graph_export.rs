//! The trace graph of 001 §3.1 (Fig. 1) as output: Graphviz dot or a JSON node/edge list.
//!
//! Nodes are the fragments' start and end points (`e1` loop entries, `b2` bridge entries,
//! `l1` labels, `g2` guards with a bridge, `j1` jumps, `finish`); edges are the fragments,
//! labelled with their frequency, plus the control transfers that join them: a guard to its
//! bridge's entry, a jump to the label it targets.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use serde::Serialize;

use crate::fragment::{FragmentEnd, FragmentStart, TraceGraph};
use crate::log::JitLog;

#[derive(Debug, Clone, Serialize)]
pub struct GraphNode {
    pub id: String,
    /// `entry`, `bridge`, `label`, `guard`, `jump`, `finish` or `end`.
    pub kind: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct GraphEdge {
    pub from: String,
    pub to: String,
    /// `fragment` (with its trace, op count and frequency), `bridge` or `jump`.
    pub kind: &'static str,
    pub trace: Option<String>,
    pub ops: Option<usize>,
    pub frequency: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct GraphExport {
    pub nodes: Vec<GraphNode>,
    pub edges: Vec<GraphEdge>,
}

fn node_kind(name: &str) -> &'static str {
    match name.as_bytes().first() {
        _ if name == "finish" => "finish",
        _ if name == "end" => "end",
        Some(b'e') => "entry",
        Some(b'b') => "bridge",
        Some(b'l') => "label",
        Some(b'g') => "guard",
        Some(b'j') => "jump",
        _ => "other",
    }
}

/// The graph of `graph`'s fragments (built from `log`).
pub fn export(log: &JitLog, graph: &TraceGraph) -> GraphExport {
    let mut nodes: BTreeMap<String, &'static str> = BTreeMap::new();
    let mut edges = Vec::new();
    // the label a token names at each point of the log: jumps go to the latest definition
    let mut label_of: HashMap<u64, String> = HashMap::new();
    for f in &graph.fragments {
        if let FragmentStart::Label(t) = f.start {
            label_of.insert(t, f.start_name.clone());
        }
    }
    for f in &graph.fragments {
        // a finish ends many fragments: one node per trace
        let end = if f.end_name == "finish" || f.end_name == "end" {
            format!("{}@{}", f.end_name, f.trace)
        } else {
            f.end_name.clone()
        };
        nodes.insert(f.start_name.clone(), node_kind(&f.start_name));
        nodes.insert(end.clone(), node_kind(&f.end_name));
        let trace = log.traces.get(f.trace).map(|t| t.label());
        edges.push(GraphEdge {
            from: f.start_name.clone(),
            to: end.clone(),
            kind: "fragment",
            trace,
            ops: Some(f.end_op - f.first_op),
            frequency: f.frequency,
        });
        match f.end {
            FragmentEnd::Guard(_) => {
                let bridge = format!("b{}", &f.end_name[1..]);
                edges.push(transfer(&end, &bridge, "bridge"));
                nodes.insert(bridge, "bridge");
            }
            FragmentEnd::Jump(Some(t)) => {
                if let Some(l) = label_of.get(&t) {
                    edges.push(transfer(&end, l, "jump"));
                }
            }
            _ => {}
        }
    }
    edges.dedup_by(|a, b| a.kind != "fragment" && a.from == b.from && a.to == b.to);
    GraphExport {
        nodes: nodes
            .into_iter()
            .map(|(id, kind)| GraphNode { id, kind })
            .collect(),
        edges,
    }
}

fn transfer(from: &str, to: &str, kind: &'static str) -> GraphEdge {
    GraphEdge {
        from: from.to_string(),
        to: to.to_string(),
        kind,
        trace: None,
        ops: None,
        frequency: None,
    }
}

/// Graphviz dot, in the style of 001 Fig. 1.
pub fn to_dot(g: &GraphExport) -> String {
    let mut o =
        String::from("digraph trace_graph {\n  rankdir=TB;\n  node [fontname=\"monospace\"];\n");
    for n in &g.nodes {
        let shape = match n.kind {
            "entry" | "bridge" => "box",
            "guard" => "diamond",
            "jump" | "finish" | "end" => "doublecircle",
            _ => "circle",
        };
        let _ = writeln!(o, "  \"{}\" [shape={shape}];", n.id);
    }
    for e in &g.edges {
        let label = match (e.kind, e.frequency) {
            ("fragment", Some(n)) => format!("{n} × {} ops", e.ops.unwrap_or(0)),
            ("fragment", None) => format!("? × {} ops", e.ops.unwrap_or(0)),
            (k, _) => k.to_string(),
        };
        let style = if e.kind == "fragment" {
            "solid"
        } else {
            "dashed"
        };
        let _ = writeln!(
            o,
            "  \"{}\" -> \"{}\" [label=\"{label}\", style={style}];",
            e.from, e.to
        );
    }
    o.push_str("}\n");
    o
}
