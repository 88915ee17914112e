//! The profile of one process (one rank): what is written at exit or on flush, in nanoseconds.
//!
//! The core writes JSON by hand so that programs linking the probe pull in no serde; with the
//! `analysis` feature the same types derive serde and are read back (the round trip is tested).

use crate::clock::ClockInfo;
use crate::global::ThreadSnapshot;
use crate::recorder::ROOT;

/// Version of the JSON layout below.
pub const FORMAT: &str = "metron-probe-profile";
pub const FORMAT_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "analysis", derive(serde::Serialize, serde::Deserialize))]
pub struct Profile {
    pub format: String,
    pub version: u32,
    /// MPI rank or Slurm task id; `None` for a lone process.
    pub rank: Option<u32>,
    pub host: String,
    pub pid: u32,
    pub cmdline: Vec<String>,
    /// Start of the process clock, nanoseconds since the Unix epoch.
    pub start_time_unix_ns: u64,
    pub clock: ClockInfo,
    pub call_tree: bool,
    pub threads: Vec<ThreadProfile>,
}

#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "analysis", derive(serde::Serialize, serde::Deserialize))]
pub struct ThreadProfile {
    pub index: u32,
    pub tid: u64,
    pub name: Option<String>,
    pub regions: Vec<RegionRecord>,
    /// Call-context tree in depth-first pre-order; `parent` 0 is the root (not listed).
    pub tree: Vec<NodeRecord>,
    pub tree_errors: u64,
    /// Timeline events kept (Chrome trace written beside the profile) and dropped.
    pub timeline_events: u64,
    pub timeline_dropped: u64,
}

/// Flat timer of one region (002 Listing 2.34 adds total and mean; we add count, min, max).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "analysis", derive(serde::Serialize, serde::Deserialize))]
pub struct RegionRecord {
    pub name: String,
    pub total_ns: f64,
    pub count: u64,
    pub mean_ns: f64,
    pub min_ns: f64,
    pub max_ns: f64,
    pub errors: u64,
    pub open_at_exit: bool,
}

#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "analysis", derive(serde::Serialize, serde::Deserialize))]
pub struct NodeRecord {
    /// 1-based; 0 is the root.
    pub id: u32,
    pub parent: u32,
    pub depth: u32,
    pub name: String,
    pub total_ns: f64,
    pub count: u64,
    pub open_at_exit: bool,
}

/// Process facts recorded in every profile.
#[derive(Debug, Clone)]
pub struct ProcessInfo {
    pub rank: Option<u32>,
    pub host: String,
    pub pid: u32,
    pub cmdline: Vec<String>,
    pub start_time_unix_ns: u64,
}

impl ProcessInfo {
    pub fn current(start_time_unix_ns: u64) -> ProcessInfo {
        ProcessInfo {
            rank: rank_from_env(),
            host: hostname(),
            pid: std::process::id(),
            cmdline: std::env::args_os()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            start_time_unix_ns,
        }
    }
}

/// Rank of this process in a parallel job: the first of `METRON_RANK`, `OMPI_COMM_WORLD_RANK`
/// (Open MPI), `PMI_RANK` (MPICH, Intel MPI) and `SLURM_PROCID` that holds a number.
pub fn rank_from_env() -> Option<u32> {
    [
        "METRON_RANK",
        "OMPI_COMM_WORLD_RANK",
        "PMI_RANK",
        "SLURM_PROCID",
    ]
    .iter()
    .find_map(|v| std::env::var(v).ok()?.trim().parse().ok())
}

fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: buf is writable for its length; gethostname NUL-terminates on success.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return String::new();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// Turns raw thread recorders into a profile in nanoseconds.
pub fn build(
    process: &ProcessInfo,
    clock: ClockInfo,
    call_tree: bool,
    names: &[String],
    threads: &[ThreadSnapshot],
) -> Profile {
    let tpn = clock.ticks_per_ns;
    let ns = |ticks: u64| ticks as f64 / tpn;
    let name_of = |i: u32| {
        names
            .get(i as usize)
            .cloned()
            .unwrap_or_else(|| format!("region#{i}"))
    };
    let threads = threads
        .iter()
        .map(|t| {
            let r = &t.recorder;
            let regions = r
                .regions
                .iter()
                .enumerate()
                .filter(|(_, s)| s.count > 0 || s.errors > 0)
                .map(|(i, s)| RegionRecord {
                    name: name_of(i as u32),
                    total_ns: ns(s.total),
                    count: s.count,
                    mean_ns: if s.count > 0 {
                        ns(s.total) / s.count as f64
                    } else {
                        0.0
                    },
                    min_ns: ns(s.min),
                    max_ns: ns(s.max),
                    errors: s.errors,
                    open_at_exit: s.open_at_exit,
                })
                .collect();
            let mut tree = Vec::new();
            if !r.nodes.is_empty() {
                // Pre-order walk; ids are renumbered so that the file is in reading order.
                let mut stack: Vec<(u32, u32, u32)> = r.nodes[ROOT as usize]
                    .children
                    .iter()
                    .rev()
                    .map(|&(_, n)| (n, 0, 0))
                    .collect();
                while let Some((n, parent_id, depth)) = stack.pop() {
                    let node = &r.nodes[n as usize];
                    let id = tree.len() as u32 + 1;
                    tree.push(NodeRecord {
                        id,
                        parent: parent_id,
                        depth,
                        name: name_of(node.region),
                        total_ns: ns(node.total),
                        count: node.count,
                        open_at_exit: node.open_at_exit,
                    });
                    for &(_, c) in node.children.iter().rev() {
                        stack.push((c, id, depth + 1));
                    }
                }
            }
            let (kept, dropped) = r
                .timeline
                .as_ref()
                .map_or((0, 0), |tl| (tl.events.len() as u64, tl.dropped));
            ThreadProfile {
                index: t.index,
                tid: t.tid,
                name: t.name.clone(),
                regions,
                tree,
                tree_errors: r.tree_errors,
                timeline_events: kept,
                timeline_dropped: dropped,
            }
        })
        .collect();
    Profile {
        format: FORMAT.to_string(),
        version: FORMAT_VERSION,
        rank: process.rank,
        host: process.host.clone(),
        pid: process.pid,
        cmdline: process.cmdline.clone(),
        start_time_unix_ns: process.start_time_unix_ns,
        clock,
        call_tree,
        threads,
    }
}

impl Profile {
    /// Regions left open at exit, or stopped before they were started: what a user must hear about.
    pub fn problems(&self) -> Vec<String> {
        let mut v = Vec::new();
        for t in &self.threads {
            for r in &t.regions {
                if r.errors > 0 {
                    v.push(format!(
                        "thread {}: region '{}' stopped {} time(s) without a start",
                        t.index, r.name, r.errors
                    ));
                }
                if r.open_at_exit {
                    v.push(format!(
                        "thread {}: region '{}' was still open; closed at flush",
                        t.index, r.name
                    ));
                }
            }
            if t.tree_errors > 0 {
                v.push(format!(
                    "thread {}: {} region exit(s) out of nesting order",
                    t.index, t.tree_errors
                ));
            }
        }
        v
    }
}
