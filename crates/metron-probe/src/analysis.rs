//! Reading, merging and summarising profiles (feature `analysis`): the processing step of
//! 002 §2.7-2.8 and the strategies across ranks and threads of 002 §3.4.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::output::{exclusive_ns, fold_thread, folded_lines, json_string};
use crate::profile::{Profile, ThreadProfile, FORMAT};

pub const SET_FORMAT: &str = "metron-probe-profile-set";

#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}:{column}: not a metron-probe profile: {message}")]
    Parse {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{path}: expected \"format\": \"{FORMAT}\" or \"{SET_FORMAT}\", found {found}")]
    Format { path: PathBuf, found: String },
    #[error("{path}: no metron-probe profiles (*.json) found")]
    Empty { path: PathBuf },
    #[error("{path}: binary data at byte offset {offset} ({what}); expected a metron-probe profile: JSON text with \"format\": \"{FORMAT}\" or \"{SET_FORMAT}\"")]
    Binary {
        path: PathBuf,
        offset: usize,
        what: String,
    },
}

/// Text of a profile file, or where and why it is not text.
fn read_text(path: &Path) -> Result<String, AnalysisError> {
    let bytes = std::fs::read(path).map_err(|source| AnalysisError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let binary = |offset: usize, what: String| AnalysisError::Binary {
        path: path.to_path_buf(),
        offset,
        what,
    };
    if let Some(offset) = bytes.iter().position(|&b| b == 0) {
        return Err(binary(offset, "a NUL byte".into()));
    }
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let byte = e.as_bytes()[offset];
        binary(offset, format!("byte 0x{byte:02x} is not UTF-8"))
    })
}

/// Profiles of several processes (ranks) of one run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProfileSet {
    pub format: String,
    pub profiles: Vec<Profile>,
}

#[derive(Deserialize)]
struct FormatProbe {
    format: Option<String>,
}

/// Reads a profile file, a merged set, or every `*.json` profile in a directory (skipping the
/// `*.trace.json` timelines). Profiles are ordered by rank, then pid.
pub fn load(path: &Path) -> Result<ProfileSet, AnalysisError> {
    let mut profiles = Vec::new();
    if path.is_dir() {
        let entries = std::fs::read_dir(path).map_err(|source| AnalysisError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                let n = p.file_name().map(|n| n.to_string_lossy().into_owned());
                n.is_some_and(|n| n.ends_with(".json") && !n.ends_with(".trace.json"))
            })
            .collect();
        files.sort();
        for f in files {
            profiles.extend(load_file(&f)?);
        }
        if profiles.is_empty() {
            return Err(AnalysisError::Empty {
                path: path.to_path_buf(),
            });
        }
    } else {
        profiles = load_file(path)?;
    }
    profiles.sort_by_key(|p| (p.rank, p.pid));
    Ok(ProfileSet {
        format: SET_FORMAT.to_string(),
        profiles,
    })
}

fn load_file(path: &Path) -> Result<Vec<Profile>, AnalysisError> {
    let text = read_text(path)?;
    let parse_err = |e: serde_json::Error| AnalysisError::Parse {
        path: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    };
    let probe: FormatProbe = serde_json::from_str(&text).map_err(parse_err)?;
    match probe.format.as_deref() {
        Some(FORMAT) => Ok(vec![serde_json::from_str(&text).map_err(parse_err)?]),
        Some(SET_FORMAT) => Ok(serde_json::from_str::<ProfileSet>(&text)
            .map_err(parse_err)?
            .profiles),
        other => Err(AnalysisError::Format {
            path: path.to_path_buf(),
            found: other.map_or("no \"format\" field".to_string(), |f| format!("\"{f}\"")),
        }),
    }
}

/// Combines sets into one (ranks of one job written to different places, or several runs).
pub fn merge(sets: Vec<ProfileSet>) -> ProfileSet {
    let mut profiles: Vec<Profile> = sets.into_iter().flat_map(|s| s.profiles).collect();
    profiles.sort_by_key(|p| (p.rank, p.pid));
    ProfileSet {
        format: SET_FORMAT.to_string(),
        profiles,
    }
}

pub fn to_json(set: &ProfileSet) -> String {
    // Serialising plain structs of numbers and strings cannot fail.
    serde_json::to_string_pretty(set).unwrap_or_default() + "\n"
}

/// How one value is chosen from the values of all threads of all ranks (002 §3.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    Min,
    Max,
    Avg,
    Sum,
}

impl Strategy {
    pub fn apply(self, values: &[f64]) -> f64 {
        if values.is_empty() {
            return 0.0;
        }
        match self {
            Strategy::Min => values.iter().copied().fold(f64::INFINITY, f64::min),
            Strategy::Max => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            Strategy::Avg => values.iter().sum::<f64>() / values.len() as f64,
            Strategy::Sum => values.iter().sum(),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Strategy::Min => "min",
            Strategy::Max => "max",
            Strategy::Avg => "avg",
            Strategy::Sum => "sum",
        }
    }
}

impl FromStr for Strategy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "min" => Ok(Strategy::Min),
            "max" => Ok(Strategy::Max),
            "avg" => Ok(Strategy::Avg),
            "sum" => Ok(Strategy::Sum),
            _ => Err(format!("expected min, max, avg or sum, found '{s}'")),
        }
    }
}

/// One thread of one rank: a column of the tables.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unit {
    pub label: String,
    pub rank: Option<u32>,
    pub thread: u32,
}

/// Columns: `r0`, `r1`, ... when every rank has one thread, else `r0.t0`, `r0.t1`, ...
pub fn units(set: &ProfileSet) -> Vec<Unit> {
    let multi = set.profiles.iter().any(|p| p.threads.len() > 1);
    let mut v = Vec::new();
    for (i, p) in set.profiles.iter().enumerate() {
        let rank = match p.rank {
            Some(r) => format!("r{r}"),
            None if set.profiles.len() == 1 => "r0".to_string(),
            None => format!("p{i}"),
        };
        for t in &p.threads {
            v.push(Unit {
                label: if multi {
                    format!("{rank}.t{}", t.index)
                } else {
                    rank.clone()
                },
                rank: p.rank,
                thread: t.index,
            });
        }
    }
    v
}

fn all_threads(set: &ProfileSet) -> impl Iterator<Item = &ThreadProfile> {
    set.profiles.iter().flat_map(|p| p.threads.iter())
}

/// A region across all units. Strategies run over the units where the region appears.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlatRow {
    pub name: String,
    /// Total time per unit, `None` where the region never ran.
    pub per_unit_ns: Vec<Option<f64>>,
    pub across_ns: f64,
    pub count: u64,
    /// Mean per outermost entry over all units: sum of totals / sum of counts.
    pub mean_ns: f64,
    pub min_ns: f64,
    pub max_ns: f64,
    /// Load imbalance: max / avg of the per-unit totals (1 = perfectly balanced).
    pub imbalance: f64,
    pub errors: u64,
    pub open_at_exit: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlatTable {
    pub strategy: String,
    pub units: Vec<Unit>,
    pub rows: Vec<FlatRow>,
}

pub fn flat_table(set: &ProfileSet, strategy: Strategy) -> FlatTable {
    let units = units(set);
    let n = units.len();
    let mut order: Vec<String> = Vec::new();
    let mut rows: HashMap<String, FlatRow> = HashMap::new();
    for (u, t) in all_threads(set).enumerate() {
        for r in &t.regions {
            let row = rows.entry(r.name.clone()).or_insert_with(|| {
                order.push(r.name.clone());
                FlatRow {
                    name: r.name.clone(),
                    per_unit_ns: vec![None; n],
                    across_ns: 0.0,
                    count: 0,
                    mean_ns: 0.0,
                    min_ns: f64::INFINITY,
                    max_ns: 0.0,
                    imbalance: 1.0,
                    errors: 0,
                    open_at_exit: false,
                }
            });
            row.per_unit_ns[u] = Some(row.per_unit_ns[u].unwrap_or(0.0) + r.total_ns);
            row.count += r.count;
            if r.count > 0 {
                row.min_ns = row.min_ns.min(r.min_ns);
            }
            row.max_ns = row.max_ns.max(r.max_ns);
            row.errors += r.errors;
            row.open_at_exit |= r.open_at_exit;
        }
    }
    let rows = order
        .into_iter()
        .filter_map(|name| rows.remove(&name))
        .map(|mut row| {
            let present: Vec<f64> = row.per_unit_ns.iter().flatten().copied().collect();
            row.across_ns = strategy.apply(&present);
            let total: f64 = present.iter().sum();
            row.mean_ns = if row.count > 0 {
                total / row.count as f64
            } else {
                0.0
            };
            if !row.min_ns.is_finite() {
                row.min_ns = 0.0;
            }
            row.imbalance = imbalance(&present);
            row
        })
        .collect();
    FlatTable {
        strategy: strategy.name().to_string(),
        units,
        rows,
    }
}

/// max / avg; 1 for a single unit or all zeros.
pub fn imbalance(values: &[f64]) -> f64 {
    let avg = Strategy::Avg.apply(values);
    if avg > 0.0 {
        Strategy::Max.apply(values) / avg
    } else {
        1.0
    }
}

/// A call path across all units, in depth-first order of first appearance.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TreeRow {
    pub depth: u32,
    pub name: String,
    /// Index of the parent row in the same list; `None` for a top-level region. (The full
    /// path would make the output quadratic in the depth; follow `parent` to rebuild it.)
    pub parent: Option<usize>,
    pub inclusive_ns: f64,
    pub exclusive_ns: f64,
    pub count: u64,
    pub per_unit_inclusive_ns: Vec<Option<f64>>,
    pub imbalance: f64,
}

/// A node of the merged call tree: one call path, summed per unit.
struct Merged {
    name: u32,
    parent: Option<usize>,
    depth: u32,
    children: Vec<usize>,
    inclusive: Vec<Option<f64>>,
    exclusive: Vec<Option<f64>>,
    count: u64,
}

/// The call trees of all units merged by call path, in time and memory linear in the size of
/// the profiles: a node is found by (merged parent, interned name) in a hash map, never by
/// comparing paths, so a chain 100,000 deep costs as much as 100,000 siblings.
pub fn call_tree(set: &ProfileSet, strategy: Strategy) -> Vec<TreeRow> {
    let n = units(set).len();
    let mut names: Vec<&str> = Vec::new();
    let mut name_ids: HashMap<&str, u32> = HashMap::new();
    let mut index: HashMap<(usize, u32), usize> = HashMap::new();
    let mut nodes: Vec<Merged> = Vec::new();
    let mut roots: Vec<usize> = Vec::new();
    for (u, t) in all_threads(set).enumerate() {
        let excl = exclusive_ns(&t.tree);
        // Thread node id (1-based, pre-order) -> merged node.
        let mut merged_of: Vec<usize> = Vec::with_capacity(t.tree.len());
        for (i, node) in t.tree.iter().enumerate() {
            let name = *name_ids.entry(node.name.as_str()).or_insert_with(|| {
                names.push(node.name.as_str());
                names.len() as u32 - 1
            });
            let parent = match node.parent {
                0 => None,
                p => merged_of.get(p as usize - 1).copied(),
            };
            let key = (parent.map_or(0, |p| p + 1), name);
            let m = *index.entry(key).or_insert_with(|| {
                let m = nodes.len();
                nodes.push(Merged {
                    name,
                    parent,
                    depth: parent.map_or(0, |p| nodes[p].depth + 1),
                    children: Vec::new(),
                    inclusive: vec![None; n],
                    exclusive: vec![None; n],
                    count: 0,
                });
                match parent {
                    Some(p) => nodes[p].children.push(m),
                    None => roots.push(m),
                }
                m
            });
            let e = &mut nodes[m];
            e.inclusive[u] = Some(e.inclusive[u].unwrap_or(0.0) + node.total_ns);
            e.exclusive[u] = Some(e.exclusive[u].unwrap_or(0.0) + excl[i]);
            e.count += node.count;
            merged_of.push(m);
        }
    }
    // Depth-first, siblings in order of first appearance; an explicit stack, as a recursion
    // would overflow on deep trees.
    let mut rows = Vec::with_capacity(nodes.len());
    let mut row_of = vec![usize::MAX; nodes.len()];
    let mut stack: Vec<usize> = roots.into_iter().rev().collect();
    while let Some(m) = stack.pop() {
        row_of[m] = rows.len();
        let node = &mut nodes[m];
        let inc: Vec<f64> = node.inclusive.iter().flatten().copied().collect();
        let exc: Vec<f64> = node.exclusive.iter().flatten().copied().collect();
        rows.push(TreeRow {
            depth: node.depth,
            name: names[node.name as usize].to_string(),
            parent: node.parent.map(|p| row_of[p]),
            inclusive_ns: strategy.apply(&inc),
            exclusive_ns: strategy.apply(&exc),
            count: node.count,
            imbalance: imbalance(&inc),
            per_unit_inclusive_ns: std::mem::take(&mut node.inclusive),
        });
        stack.extend(node.children.iter().rev());
    }
    rows
}

/// Folded stacks of all ranks and threads, exclusive nanoseconds; with several ranks each
/// stack starts with `rank N` so a flame graph separates them.
pub fn to_folded(set: &ProfileSet) -> String {
    let mut acc = BTreeMap::new();
    let several = set.profiles.len() > 1;
    for (i, p) in set.profiles.iter().enumerate() {
        let prefix = if several {
            format!("rank_{}", p.rank.map_or(i as u32, |r| r))
        } else {
            String::new()
        };
        for t in &p.threads {
            fold_thread(&t.tree, &prefix, &mut acc);
        }
    }
    folded_lines(&acc)
}

/// Chrome trace-event JSON drawn from the call trees (not a timeline: the probe aggregates).
/// Each node is a complete event as long as its inclusive time, children laid end to end from
/// the parent's start, like the call-stack plot of 002 Figure 2.6; pid = rank, tid = thread.
pub fn to_chrome(set: &ProfileSet) -> String {
    let mut o = String::from("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [");
    let mut first = true;
    for (i, p) in set.profiles.iter().enumerate() {
        let pid = p.rank.unwrap_or(i as u32);
        for t in &p.threads {
            // Next free start per node id (index 0 = root).
            let mut cursor = vec![0.0f64; t.tree.len() + 1];
            let mut start = vec![0.0f64; t.tree.len() + 1];
            for n in &t.tree {
                let parent = n.parent as usize;
                let s = cursor.get(parent).copied().unwrap_or(0.0);
                if let Some(c) = cursor.get_mut(parent) {
                    *c += n.total_ns;
                }
                start[n.id as usize] = s;
                cursor[n.id as usize] = s;
                o.push_str(if first { "\n" } else { ",\n" });
                first = false;
                o.push_str("{\"name\": ");
                json_string(&mut o, &n.name);
                let _ = write!(
                    o,
                    ", \"ph\": \"X\", \"ts\": {:.3}, \"dur\": {:.3}, \"pid\": {pid}, \"tid\": {}, \"args\": {{\"count\": {}}}}}",
                    start[n.id as usize] / 1000.0,
                    n.total_ns / 1000.0,
                    t.tid,
                    n.count
                );
            }
        }
    }
    o.push_str("\n]}\n");
    o
}

/// Long-format CSV, one row per region, rank and thread.
pub fn to_csv(set: &ProfileSet) -> String {
    let mut o = String::from(
        "rank,pid,thread,region,count,total_ms,mean_ms,min_ms,max_ms,errors,open_at_exit\n",
    );
    for p in &set.profiles {
        for t in &p.threads {
            for r in &t.regions {
                let _ = writeln!(
                    o,
                    "{},{},{},{},{},{},{},{},{},{},{}",
                    p.rank.map_or(String::new(), |r| r.to_string()),
                    p.pid,
                    t.index,
                    csv_field(&r.name),
                    r.count,
                    r.total_ns * 1e-6,
                    r.mean_ns * 1e-6,
                    r.min_ns * 1e-6,
                    r.max_ns * 1e-6,
                    r.errors,
                    r.open_at_exit
                );
            }
        }
    }
    o
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The thesis's layouts (002 Listings 2.34-2.35) for all ranks: timers, then call stacks, one
/// line per rank and thread.
pub fn to_thesis_csv(set: &ProfileSet) -> (String, String) {
    let mut timers = String::new();
    let mut stacks = String::new();
    for p in &set.profiles {
        timers.push_str(&crate::output::to_csv_timers(p));
        stacks.push_str(&crate::output::to_csv_callstack(p));
    }
    (timers, stacks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strategies_of_002_section_3_4() {
        let v = [3.0, 1.0, 2.0, 6.0];
        assert_eq!(Strategy::Min.apply(&v), 1.0);
        assert_eq!(Strategy::Max.apply(&v), 6.0);
        assert_eq!(Strategy::Avg.apply(&v), 3.0);
        assert_eq!(Strategy::Sum.apply(&v), 12.0);
        assert_eq!(imbalance(&v), 2.0);
        assert_eq!("avg".parse::<Strategy>(), Ok(Strategy::Avg));
        assert!("median".parse::<Strategy>().is_err());
    }
}
