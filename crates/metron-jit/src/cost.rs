//! Trace cost models CM0, CMC and CMW (001 §4.1, Eqs. 1-3), the whole-program cost Γ
//! (001 Eq. 4) summed over fragments, and the breakdown of Γ by Python source line.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use serde::Serialize;

use crate::error::JitError;
use crate::fragment::{self, Fragment, TraceGraph};
use crate::log::JitLog;
use crate::op_class::{ClassId, OpClassTable};
use crate::trace::{FxMap, OpNames, Shared, SourceId, SourceTable, Trace};

/// Weights of CMW per operation class (001 Eq. 3), in the unit of the calibration that
/// produced them (seconds per operation after `metron jit calibrate`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Weights {
    pub per_class: BTreeMap<String, f64>,
    /// Where the weights come from, for reports.
    pub origin: String,
    /// What Γ is measured in under these weights (`s` after `metron jit calibrate`).
    pub unit: String,
}

impl Weights {
    /// 001 Eq. 7: the paper's fit for Pycket on a 2.0 GHz Xeon (numeric, alloc and guard only;
    /// object and array came out as zero). A placeholder until calibrated on this machine.
    pub fn paper_eq7() -> Self {
        let per_class = [
            ("numeric", 4.884e-4),
            ("alloc", 4.797e-3),
            ("guard", 4.623e-4),
        ]
        .into_iter()
        .map(|(c, w)| (c.to_string(), w))
        .collect();
        Weights {
            per_class,
            origin: "001 Eq. 7 (Pycket, Xeon 2.0 GHz)".to_string(),
            unit: "001 Eq. 7 units (Pycket's seconds on a 2016 Xeon, not this machine's)"
                .to_string(),
        }
    }

    /// Reads `class weight` lines (`#` comments).
    pub fn from_file(path: &Path) -> Result<Self, JitError> {
        let text = crate::error::read_text(path)?;
        Self::parse(&text, path)
    }

    pub fn parse(text: &str, path: &Path) -> Result<Self, JitError> {
        let mut per_class = BTreeMap::new();
        // `metron jit calibrate` writes `# seconds per operation`
        let unit = if text
            .lines()
            .any(|l| l.starts_with('#') && l.contains("seconds per operation"))
        {
            "s"
        } else {
            "units of the weights"
        };
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let err = |what: String| JitError::Table {
                path: path.to_path_buf(),
                line: i + 1,
                what,
            };
            let mut words = line.split_whitespace();
            let (Some(class), Some(w), None) = (words.next(), words.next(), words.next()) else {
                return Err(err(format!(
                    "expected `class weight` (e.g. `numeric 4.884e-4`), found `{line}`"
                )));
            };
            let w: f64 = w.parse().map_err(|_| {
                err(format!(
                    "expected a number as the weight of `{class}`, found `{w}`"
                ))
            })?;
            if !(w.is_finite() && w >= 0.0) {
                return Err(err(format!(
                    "weight of `{class}` must be a finite number >= 0 (001 §4.3.2), found {w}"
                )));
            }
            per_class.insert(class.to_string(), w);
        }
        if per_class.is_empty() {
            return Err(JitError::Table {
                path: path.to_path_buf(),
                line: text.lines().count().max(1),
                what: "no weights: expected lines of `class weight` (e.g. `numeric 4.884e-4`)"
                    .to_string(),
            });
        }
        Ok(Weights {
            per_class,
            origin: path.display().to_string(),
            unit: unit.to_string(),
        })
    }

    /// Checks that every class the weights name is in `classes` (a misspelt class would
    /// silently weigh nothing).
    pub fn check_classes(&self, classes: &OpClassTable) -> Result<(), String> {
        let known: Vec<&str> = (0..classes.classes().len())
            .map(|c| classes.name(ClassId(c)))
            .collect();
        for class in self.per_class.keys() {
            if !known.contains(&class.as_str()) {
                return Err(format!(
                    "{}: unknown operation class `{class}`: expected one of {}",
                    self.origin,
                    known.join(", ")
                ));
            }
        }
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "model", rename_all = "lowercase")]
pub enum CostModel {
    /// 001 Eq. 1: every trace (here: fragment) costs 1.
    Cm0,
    /// 001 Eq. 2: one per non-debug operation; jumps and labels are ignored (001 §3.3).
    Cmc,
    /// 001 Eq. 3: a weight per operation class.
    Cmw(Weights),
}

impl CostModel {
    pub fn name(&self) -> &'static str {
        match self {
            CostModel::Cm0 => "CM0",
            CostModel::Cmc => "CMC",
            CostModel::Cmw(_) => "CMW",
        }
    }

    /// The cost of one operation of class `class`; CM0 prices fragments, not operations.
    fn op_cost(&self, classes: &OpClassTable, class: ClassId) -> f64 {
        match self {
            CostModel::Cm0 => 0.0,
            CostModel::Cmc => {
                if class == classes.debug() || class == classes.control() {
                    0.0
                } else {
                    1.0
                }
            }
            CostModel::Cmw(w) => {
                if class == classes.debug() {
                    0.0
                } else {
                    w.per_class.get(classes.name(class)).copied().unwrap_or(0.0)
                }
            }
        }
    }
}

/// How many bytecode positions a fragment's breakdown lists (the costliest).
pub const SOURCES_PER_FRAGMENT: usize = 8;

/// A Python source position that cost accrues to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct SourceKey {
    pub file: String,
    pub function: String,
    pub line: Option<u32>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SourceCost {
    #[serde(flatten)]
    pub key: SourceKey,
    /// Σ frequency × γ of the operations at this line (or static γ without counters).
    pub cost: f64,
    /// Share of Γ in percent.
    pub share: f64,
    /// Executed operations per class at this line, by class name.
    pub ops: ClassCounts<u64>,
}

/// A string that many fragments share (a file, a function, a class name): a log of hundreds
/// of MB has tens of thousands of fragments, and owned copies would dominate the analysis's
/// memory. Serialises as a plain string.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SharedStr(Arc<str>);

impl SharedStr {
    pub fn new(s: &str) -> Self {
        SharedStr(Arc::from(s))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for SharedStr {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for SharedStr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for SharedStr {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

/// Operations per class of one fragment, sorted by class name; serialises as a map. Kept as
/// (class index, count) pairs over the class names all fragments share: a long run has 140 k
/// fragments, and a name per pair was most of their memory.
#[derive(Debug, Clone, Default)]
pub struct ClassCounts<N = u32> {
    names: Arc<[SharedStr]>,
    counts: Vec<(u32, N)>,
}

impl<N> ClassCounts<N> {
    pub fn get(&self, class: &str) -> Option<&N> {
        self.counts
            .binary_search_by(|(c, _)| self.names[*c as usize].as_str().cmp(class))
            .ok()
            .map(|i| &self.counts[i].1)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&SharedStr, &N)> {
        self.counts
            .iter()
            .map(|(c, n)| (&self.names[*c as usize], n))
    }

    pub fn len(&self) -> usize {
        self.counts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }
}

impl<N: PartialEq> PartialEq for ClassCounts<N> {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl<N: Serialize> Serialize for ClassCounts<N> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter().map(|(c, n)| (c.as_str(), n)))
    }
}

/// A bytecode position in the source, shared by the breakdowns of every fragment that has
/// operations there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BytecodePosition {
    /// Shared with the source table: a long run has hundreds of thousands of positions.
    pub file: Shared,
    pub function: Shared,
    pub line: Option<u32>,
    pub bytecode_offset: Option<u32>,
    pub opcode: Option<Shared>,
}

/// One line of a fragment's breakdown: a bytecode position and what its operations cost.
/// Serialises flat: `file`, `function`, `line`, `bytecode_offset`, `opcode`, `gamma`, `ops`.
#[derive(Debug, Clone)]
pub struct BytecodeCost {
    pub position: Arc<BytecodePosition>,
    /// γ of the operations at this position, per execution of the fragment.
    pub gamma: f64,
    pub ops: u32,
}

impl Serialize for BytecodeCost {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let p = &*self.position;
        let mut st = s.serialize_struct("BytecodeCost", 7)?;
        st.serialize_field("file", &*p.file)?;
        st.serialize_field("function", &*p.function)?;
        st.serialize_field("line", &p.line)?;
        st.serialize_field("bytecode_offset", &p.bytecode_offset)?;
        st.serialize_field("opcode", &p.opcode.as_deref())?;
        st.serialize_field("gamma", &self.gamma)?;
        st.serialize_field("ops", &self.ops)?;
        st.end()
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct FragmentCost {
    pub name: String,
    pub trace: String,
    pub frequency: Option<u64>,
    /// Operations per class (static, one execution).
    pub ops: ClassCounts,
    /// γ of one execution.
    pub gamma: f64,
    /// frequency × γ; `None` when the frequency is unknown.
    pub cost: Option<f64>,
    pub share: Option<f64>,
    /// Where in the Python source the operations come from, costliest first (at most
    /// [`SOURCES_PER_FRAGMENT`]).
    pub sources: Vec<BytecodeCost>,
    /// A structural hash of the operation-name sequence, stable across runs (ids are not).
    pub shape: String,
    /// Where the fragment starts in the source (its first operation's position).
    pub starts_at: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct TraceCost {
    pub trace: String,
    pub name: String,
    pub ops: usize,
    /// Static γ of the whole trace, one pass through all its operations.
    pub gamma: f64,
}

/// One bar of 001 Fig. 3: how often an operation occurs in the traces and is executed.
#[derive(Debug, Clone, Serialize)]
pub struct OpCount {
    pub name: String,
    pub class: String,
    /// Occurrences in the logged traces.
    pub in_traces: u64,
    /// Σ over fragments of frequency × occurrences (0 without counters).
    pub executed: u64,
}

/// The analysis of one log under one cost model.
#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    pub model: CostModel,
    pub traces: usize,
    pub has_counters: bool,
    /// Γ (001 Eq. 4), summed over fragments with a known frequency; `None` without counters.
    pub gamma: Option<f64>,
    /// Executed operations per class, Σ frequency × count: the regression features of 001 §4.3.
    pub executed_ops: BTreeMap<String, u64>,
    pub fragments: Vec<FragmentCost>,
    /// Static costs per trace, the only costs a log without counters allows.
    pub trace_costs: Vec<TraceCost>,
    pub source_lines: Vec<SourceCost>,
    /// Operations missing from the class table (counted as `other`), with static counts.
    pub unknown_ops: BTreeMap<String, u64>,
    /// Operations by name, most executed first (by static count without counters): 001 Fig. 3.
    pub op_histogram: Vec<OpCount>,
    /// How the counters were matched to traces (crate::lifetime); `None` without counters.
    pub counter_use: Option<crate::lifetime::CounterUse>,
    pub warnings: Vec<String>,
}

/// A [`SourceKey`] borrowed from the source table, ordered as `SourceKey` is.
struct SourceKeyRef<'a> {
    file: &'a str,
    function: &'a str,
    line: Option<u32>,
}

impl SourceKeyRef<'_> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // the table shares equal strings, so the same address is the same text (no memcmp
        // of the same path for every pair of a hundred thousand lines)
        let text = |a: &str, b: &str| {
            if std::ptr::eq(a, b) {
                std::cmp::Ordering::Equal
            } else {
                a.cmp(b)
            }
        };
        text(self.file, other.file)
            .then_with(|| text(self.function, other.function))
            .then(self.line.cmp(&other.line))
    }
}

fn source_key_ref(sources: &SourceTable, id: Option<SourceId>) -> SourceKeyRef<'_> {
    match id.and_then(|s| sources.get(s)) {
        Some(loc) => SourceKeyRef {
            file: loc.file.as_deref().unwrap_or(&loc.raw),
            function: loc.function.as_deref().unwrap_or_default(),
            line: loc.line.or(loc.first_line),
        },
        None => SourceKeyRef {
            file: "<unknown>",
            function: "",
            line: None,
        },
    }
}

fn shape_hash(names: impl Iterator<Item = u64>) -> String {
    // FNV-1a over a per-name hash: independent of interning order, so runs compare.
    let mut h: u64 = 0xcbf29ce484222325;
    for n in names {
        h ^= n;
        h = h.wrapping_mul(0x100000001b3);
    }
    // `format!("{h:016x}")` without the formatter: one per fragment
    let mut hex = [0u8; 16];
    for (i, d) in hex.iter_mut().enumerate() {
        *d = b"0123456789abcdef"[(h >> (4 * (15 - i))) as usize & 15];
    }
    String::from_utf8_lossy(&hex).into_owned()
}

fn name_hash(name: &str) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

/// The `by_source` slot of a source location (0 for an unknown one).
fn line_slot(line_of: &[u32], src: Option<SourceId>) -> usize {
    src.and_then(|s| line_of.get(s.index()))
        .map_or(0, |&l| l as usize)
}

/// Analyses `log` under `model`: fragments, frequencies, γ per fragment, Γ, source lines.
pub fn analyze(log: &JitLog, classes: &OpClassTable, model: &CostModel) -> Analysis {
    let graph = fragment::build(log);
    analyze_graph(log, &graph, classes, model)
}

pub fn analyze_graph(
    log: &JitLog,
    graph: &TraceGraph,
    classes: &OpClassTable,
    model: &CostModel,
) -> Analysis {
    let mut acc = CostAccumulator::new(classes, model);
    let mut rest = &graph.fragments[..];
    for (ti, trace) in log.traces.iter().enumerate() {
        let n = rest.iter().take_while(|f| f.trace == ti).count();
        let (mine, others) = rest.split_at(n);
        rest = others;
        let entry_source = graph.entry_source.get(ti).copied().flatten();
        acc.add_trace(trace, mine, entry_source, &log.op_names, &log.sources);
    }
    let mut analysis = acc.finish(graph.has_counters, graph.warnings.clone(), &log.sources);
    analysis.counter_use = graph.counter_use.clone();
    analysis
}

/// Sums costs one trace at a time, so that a trace's operations can be dropped once its
/// fragments are summarised (001 Eqs. 1-4 per fragment, Γ and the source lines at the end).
pub struct CostAccumulator<'m> {
    classes: &'m OpClassTable,
    model: &'m CostModel,
    /// Per interned op name: class, name hash (for shapes), whether the table knows it.
    op_class: Vec<ClassId>,
    op_hash: Vec<u64>,
    op_known: Vec<bool>,
    /// Per interned op name: occurrences in traces, and executions (001 Fig. 3).
    op_static: Vec<u64>,
    op_executed: Vec<u64>,
    op_names: Vec<String>,
    /// Per source location id: the hash of its text, for fragment shapes.
    source_hash: Vec<u64>,
    unknown_ops: BTreeMap<String, u64>,
    executed: Vec<u64>,
    /// Σ over fragments, per source line: CM0's cost (other models' costs follow from the ops at
    /// the end), executed ops per class, and the first source id seen. Keyed by
    /// id while summing; ids that name the same line merge into SourceKeys at the end.
    /// Indexed by source line (see `line_of`); line 0 is `<unknown>`. Keyed by line rather
    /// than by bytecode position: a long run has several positions per line.
    by_source: Vec<(f64, Option<SourceId>)>,
    /// The executed ops per class of `by_source`'s lines, `classes` per line, row by row (one
    /// allocation, not one per line: a long run has a hundred thousand lines).
    line_ops: Vec<u64>,
    /// Per source location id: its line's index in `by_source`.
    line_of: Vec<u32>,
    line_index: FxMap<(crate::trace::Shared, crate::trace::Shared, Option<u32>), u32>,
    /// As `line_index` for positions with a file and a function, keyed by the shared strings'
    /// addresses (the source table shares equal strings).
    line_index_shared: FxMap<(ByAddress, ByAddress, Option<u32>), u32>,
    fragments: Vec<FragmentCost>,
    trace_costs: Vec<TraceCost>,
    class_names: Arc<[SharedStr]>,
    /// `model.op_cost` per class, looked up once rather than per operation.
    class_cost: Vec<f64>,
    /// Class indices in the order of their names (a fragment's [`ClassCounts`] order).
    classes_by_name: Vec<usize>,
    /// Per-fragment counts, reused between fragments (no allocation per fragment).
    scratch: FragmentScratch,

    /// Per source location (index 0 for none, else id + 1): file, function and opcode, shared
    /// by every fragment's breakdown. A vector, not a map: a long run has 500 k positions.
    positions: Vec<Option<Arc<BytecodePosition>>>,
}

/// A shared string compared and hashed by its address: the source table hands out one
/// [`crate::trace::Shared`] per distinct text, and holding it keeps the address from reuse.
struct ByAddress(crate::trace::Shared);

impl PartialEq for ByAddress {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for ByAddress {}

impl std::hash::Hash for ByAddress {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (Arc::as_ptr(&self.0) as *const u8 as usize).hash(h);
    }
}

/// One fragment's operation counts per (bytecode position, class), kept between fragments:
/// positions are found through a table indexed by source id and stamped with the fragment's
/// number, so nothing is cleared or allocated per fragment.
#[derive(Default)]
struct FragmentScratch {
    /// Per class: operations in the fragment.
    counts: Vec<u32>,
    /// The fragment's positions in the order of their first operation.
    slots: Vec<Option<SourceId>>,
    /// `slots.len() × classes` counts, row by row.
    slot_counts: Vec<u32>,
    /// Per source id (0 for none, else index + 1): the fragment that last saw it, and its slot.
    stamp: Vec<(u32, u32)>,
    epoch: u32,
    ranked: Vec<(Option<SourceId>, (f64, u32))>,
}

impl FragmentScratch {
    fn start(&mut self, n_classes: usize) {
        self.counts.clear();
        self.counts.resize(n_classes, 0);
        self.slots.clear();
        self.slot_counts.clear();
        self.ranked.clear();
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.stamp.iter_mut().for_each(|s| *s = (0, 0));
            self.epoch = 1;
        }
    }

    /// The slot of `src` in this fragment, opened if new.
    fn slot(&mut self, src: Option<SourceId>, n_classes: usize) -> usize {
        let at = src.map_or(0, |s| s.index() + 1);
        if at >= self.stamp.len() {
            self.stamp.resize(at + 1, (0, 0));
        }
        let entry = &mut self.stamp[at];
        if entry.0 != self.epoch {
            *entry = (self.epoch, self.slots.len() as u32);
            self.slots.push(src);
            self.slot_counts
                .resize(self.slot_counts.len() + n_classes, 0);
        }
        entry.1 as usize
    }
}

impl<'m> CostAccumulator<'m> {
    pub fn new(classes: &'m OpClassTable, model: &'m CostModel) -> Self {
        CostAccumulator {
            classes,
            model,
            op_class: Vec::new(),
            op_hash: Vec::new(),
            op_known: Vec::new(),
            op_static: Vec::new(),
            op_executed: Vec::new(),
            op_names: Vec::new(),
            source_hash: Vec::new(),
            unknown_ops: BTreeMap::new(),
            executed: vec![0; classes.classes().len()],
            by_source: vec![(0.0, None)],
            line_ops: vec![0; classes.classes().len()],
            line_of: Vec::new(),
            line_index: FxMap::default(),
            line_index_shared: FxMap::default(),
            fragments: Vec::new(),
            trace_costs: Vec::new(),
            class_names: classes
                .classes()
                .iter()
                .enumerate()
                .map(|(c, _)| SharedStr::new(classes.name(ClassId(c))))
                .collect(),
            positions: Vec::new(),
            scratch: FragmentScratch::default(),
            classes_by_name: {
                let mut order: Vec<usize> = (0..classes.classes().len()).collect();
                order.sort_by(|&a, &b| classes.name(ClassId(a)).cmp(classes.name(ClassId(b))));
                order
            },
            class_cost: (0..classes.classes().len())
                .map(|c| model.op_cost(classes, ClassId(c)))
                .collect(),
        }
    }

    fn learn_names(&mut self, names: &OpNames, sources: &SourceTable) {
        for (_, name) in names.iter().skip(self.op_class.len()) {
            self.op_class.push(self.classes.class_of(name));
            self.op_hash.push(name_hash(name));
            self.op_known.push(self.classes.lookup(name).is_some());
            self.op_static.push(0);
            self.op_executed.push(0);
            self.op_names.push(name.to_string());
        }
        let n_classes = self.executed.len();
        for loc in &sources.locations()[self.source_hash.len()..] {
            self.source_hash.push(name_hash(&loc.raw).rotate_left(17));
            let next = self.by_source.len() as u32;
            let line_no = loc.line.or(loc.first_line);
            let line = match (&loc.file, &loc.function) {
                // the table shares equal strings, so their addresses name them: no string
                // is hashed (a long run has hundreds of thousands of positions)
                (Some(file), Some(function)) if !function.is_empty() => *self
                    .line_index_shared
                    .entry((
                        ByAddress(file.clone()),
                        ByAddress(function.clone()),
                        line_no,
                    ))
                    .or_insert(next),
                _ => {
                    let key = (
                        loc.file.clone().unwrap_or_else(|| loc.raw.as_ref().into()),
                        loc.function.clone().unwrap_or_else(|| "".into()),
                        line_no,
                    );
                    *self.line_index.entry(key).or_insert(next)
                }
            };
            if line == next {
                self.by_source.push((0.0, None));
                self.line_ops.resize(self.line_ops.len() + n_classes, 0);
            }
            self.line_of.push(line);
        }
    }

    fn cost_of(&self, class: ClassId) -> f64 {
        self.class_cost[class.0]
    }

    /// Adds one trace and its fragments (from [`fragment::FragmentBuilder`]).
    pub fn add_trace(
        &mut self,
        trace: &Trace,
        fragments: &[Fragment],
        entry_source: Option<SourceId>,
        names: &OpNames,
        sources: &SourceTable,
    ) {
        self.learn_names(names, sources);
        for op in &trace.ops {
            self.op_static[op.name.0 as usize] += 1;
            if !self.op_known[op.name.0 as usize] {
                *self
                    .unknown_ops
                    .entry(names.name(op.name).to_string())
                    .or_insert(0) += 1;
            }
        }
        let label = trace.label();
        for f in fragments {
            let mut cost = self.fragment(trace, f, entry_source, sources);
            cost.trace.clone_from(&label);
            self.fragments.push(cost);
        }
        let name = if trace.name.is_empty() {
            // a bridge: where its guard is
            entry_source
                .and_then(|s| sources.get(s))
                .map(|l| format!("from {}", l.short()))
                .unwrap_or_default()
        } else {
            trace.name.clone()
        };
        self.trace_costs.push(TraceCost {
            trace: label,
            name,
            ops: trace.ops.len(),
            gamma: match self.model {
                CostModel::Cm0 => 1.0,
                _ => trace
                    .ops
                    .iter()
                    .map(|o| self.cost_of(self.op_class[o.name.0 as usize]))
                    .sum(),
            },
        });
    }

    fn fragment(
        &mut self,
        trace: &Trace,
        f: &Fragment,
        entry_source: Option<SourceId>,
        sources: &SourceTable,
    ) -> FragmentCost {
        let classes = self.classes;
        let n_classes = self.executed.len();
        let ops = &trace.ops[f.first_op..f.end_op];
        let op_source = |k: usize| ops[k].source.or(entry_source);
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.start(n_classes);
        let mut gamma = 0.0;
        for (k, op) in ops.iter().enumerate() {
            let class = self.op_class[op.name.0 as usize];
            scratch.counts[class.0] += 1;
            if let Some(freq) = f.frequency {
                let e = &mut self.op_executed[op.name.0 as usize];
                *e = e.saturating_add(freq);
            }
            gamma += self.class_cost[class.0];
            let slot = scratch.slot(op_source(k), n_classes);
            scratch.slot_counts[slot * n_classes + class.0] += 1;
        }
        // 001 Eq. 3 summed in a fixed order: positions in the order of their first operation
        // in the fragment, classes in class-table order (docs/jit.md, "Throughput").
        let mut ranked = std::mem::take(&mut scratch.ranked);
        for (i, &src) in scratch.slots.iter().enumerate() {
            let mut g = 0.0;
            let mut n_ops = 0u32;
            let row = &scratch.slot_counts[i * n_classes..(i + 1) * n_classes];
            for (c, &n) in row.iter().enumerate().filter(|(_, n)| **n > 0) {
                let class = ClassId(c);
                let cost = self.cost_of(class) * f64::from(n);
                g += cost;
                if class != classes.debug() {
                    n_ops += n;
                }
                if let Some(freq) = f.frequency {
                    let at = line_slot(&self.line_of, src);
                    let line = &mut self.by_source[at];
                    line.1 = line.1.or(src);
                    let ops = &mut self.line_ops[at * n_classes + c];
                    *ops = ops.saturating_add(freq.saturating_mul(u64::from(n)));
                }
            }
            ranked.push((src, (g, n_ops)));
        }
        if matches!(self.model, CostModel::Cm0) {
            gamma = 1.0; // 001 Eq. 1; attributed to where the fragment starts
            let src = if ops.is_empty() {
                entry_source
            } else {
                op_source(0)
            };
            let slot = scratch.slot(src, n_classes);
            if slot == ranked.len() {
                ranked.push((src, (0.0, 0)));
            }
            ranked[slot].1 .0 += 1.0;
            if let Some(n) = f.frequency {
                let line = &mut self.by_source[line_slot(&self.line_of, src)];
                line.1 = line.1.or(src);
                line.0 += n as f64;
            }
        }
        let cost = f.frequency.map(|n| n as f64 * gamma);
        if let Some(n) = f.frequency {
            for (class, c) in scratch.counts.iter().enumerate() {
                self.executed[class] =
                    self.executed[class].saturating_add(n.saturating_mul(u64::from(*c)));
            }
        }
        let counts = std::mem::take(&mut scratch.counts);
        self.scratch = scratch;
        // a total order (positions are distinct), so an unstable sort gives the same ranking
        ranked.sort_unstable_by(|a, b| b.1 .0.total_cmp(&a.1 .0).then(a.0.cmp(&b.0)));
        ranked.truncate(SOURCES_PER_FRAGMENT);
        let top_sources: Vec<BytecodeCost> = ranked
            .drain(..)
            .map(|(src, (g, n))| {
                let at = src.map_or(0, |s| s.index() + 1);
                if at >= self.positions.len() {
                    self.positions.resize(at + 1, None);
                }
                let position = self.positions[at]
                    .get_or_insert_with(|| {
                        let loc = src.and_then(|s| sources.get(s));
                        Arc::new(BytecodePosition {
                            file: loc
                                .map(|l| l.file.clone().unwrap_or_else(|| l.raw.as_ref().into()))
                                .unwrap_or_else(|| "<unknown>".into()),
                            function: loc
                                .and_then(|l| l.function.clone())
                                .unwrap_or_else(|| "".into()),
                            line: loc.and_then(|l| l.line.or(l.first_line)),
                            bytecode_offset: loc.and_then(|l| l.bytecode_offset),
                            opcode: loc.and_then(|l| l.opcode.clone()),
                        })
                    })
                    .clone();
                BytecodeCost {
                    position,
                    gamma: g,
                    ops: n,
                }
            })
            .collect();
        self.scratch.ranked = ranked;
        // Sources are part of a fragment's shape: two loops with the same operations in
        // different functions are different fragments. Ids (tokens, guards) are not.
        let source_hash = |id: Option<SourceId>| {
            id.and_then(|s| self.source_hash.get(s.index()).copied())
                .unwrap_or(0)
        };
        // the first merge point in the fragment: a label's own position is the previous
        // bytecode's (the merge point before it)
        let first_dmp = ops
            .iter()
            .position(|o| o.marker == crate::trace::Marker::DebugMergePoint);
        let starts_at = first_dmp
            .or((!ops.is_empty()).then_some(0))
            .and_then(op_source)
            .or(entry_source)
            .and_then(|s| sources.get(s))
            .map(|l| match (&l.function, l.line.or(l.first_line)) {
                (Some(func), Some(line)) => {
                    let mut s = String::with_capacity(func.len() + 11);
                    s.push_str(func);
                    s.push(':');
                    crate::trace::push_number(&mut s, u64::from(line), 10);
                    s
                }
                _ => l.short(),
            })
            .unwrap_or_default();
        let result = FragmentCost {
            starts_at,
            name: f.name(),
            trace: String::new(), // the trace's label, set by the caller
            frequency: f.frequency,
            // classes visited in name order: sorted without sorting
            ops: ClassCounts {
                names: self.class_names.clone(),
                counts: {
                    let mut v = Vec::with_capacity(counts.iter().filter(|&&n| n > 0).count());
                    v.extend(
                        self.classes_by_name
                            .iter()
                            .filter(|&&c| counts[c] > 0)
                            .map(|&c| (c as u32, counts[c])),
                    );
                    v
                },
            },
            gamma,
            cost,
            share: None,
            sources: top_sources,
            shape: shape_hash(
                ops.iter()
                    .map(|o| self.op_hash[o.name.0 as usize] ^ source_hash(o.source)),
            ),
        };
        self.scratch.counts = counts;
        result
    }

    /// The source lines with executed operations, costliest first (ties by file, function and
    /// line, then in order of appearance, as a stable sort by those would give).
    fn source_lines(&self, gamma_total: Option<f64>, sources: &SourceTable) -> Vec<SourceCost> {
        let n_classes = self.class_cost.len();
        let debug = self.classes.debug();
        // (cost, line index): a line's cost from its executed operations per class, in class
        // order, so lines with the same operations tie exactly
        let mut lines: Vec<(f64, usize)> = self
            .by_source
            .iter()
            .zip(self.line_ops.chunks_exact(n_classes.max(1)))
            .enumerate()
            .filter(|(_, ((cm0, _), ops))| *cm0 != 0.0 || ops.iter().any(|n| *n > 0))
            .map(|(i, ((cm0, _), ops))| {
                let weighted = ops
                    .iter()
                    .zip(&self.class_cost)
                    .map(|(&n, &w)| n as f64 * w)
                    .fold(0.0, |a, b| a + b);
                (cm0 + weighted, i)
            })
            .collect();
        let keys: Vec<SourceKeyRef> = (0..self.by_source.len())
            .map(|i| source_key_ref(sources, self.by_source[i].1))
            .collect();
        // a total order (the index last), so the unstable sort is the stable one
        lines.sort_unstable_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then_with(|| keys[a.1].cmp(&keys[b.1]))
                .then(a.1.cmp(&b.1))
        });
        let share = |cost: f64| {
            gamma_total
                .filter(|t| *t > 0.0)
                .map_or(0.0, |t| 100.0 * cost / t)
        };
        lines
            .into_iter()
            .map(|(cost, i)| {
                let ops = &self.line_ops[i * n_classes..(i + 1) * n_classes];
                let k = &keys[i];
                SourceCost {
                    key: SourceKey {
                        file: k.file.to_string(),
                        function: k.function.to_string(),
                        line: k.line,
                    },
                    cost,
                    share: share(cost),
                    ops: ClassCounts {
                        names: self.class_names.clone(),
                        counts: self
                            .classes_by_name
                            .iter()
                            .filter(|&&c| ops[c] > 0 && ClassId(c) != debug)
                            .map(|&c| (c as u32, ops[c]))
                            .collect(),
                    },
                }
            })
            .collect()
    }

    /// Γ, shares and source lines once every trace is in; `warnings` are the fragment
    /// builder's.
    pub fn finish(
        mut self,
        has_counters: bool,
        mut warnings: Vec<String>,
        sources: &SourceTable,
    ) -> Analysis {
        let classes = self.classes;
        let mut fragments = std::mem::take(&mut self.fragments);
        let gamma_total =
            has_counters.then(|| fragments.iter().filter_map(|f| f.cost).sum::<f64>());
        if let Some(total) = gamma_total.filter(|t| *t > 0.0) {
            for f in &mut fragments {
                f.share = f.cost.map(|c| 100.0 * c / total);
            }
        }
        let source_lines = self.source_lines(gamma_total, sources);
        if !has_counters {
            warnings.push(
                "the log has no jit-backend-counts section, so fragment frequencies and Γ cannot \
                 be computed; only static per-trace costs are shown (record with \
                 PYPYLOG=jit-log-opt,jit-backend-counts,jit-summary:FILE)"
                    .to_string(),
            );
        }
        if !self.unknown_ops.is_empty() {
            let list: Vec<_> = self
                .unknown_ops
                .iter()
                .map(|(n, c)| format!("{n} ({c})"))
                .collect();
            warnings.push(format!(
                "operations missing from the class table, counted as `other`: {}",
                list.join(", ")
            ));
        }
        let mut op_histogram: Vec<OpCount> = self
            .op_names
            .into_iter()
            .enumerate()
            .filter(|(i, _)| self.op_static[*i] > 0)
            .map(|(i, name)| OpCount {
                class: classes.name(self.op_class[i]).to_string(),
                name,
                in_traces: self.op_static[i],
                executed: self.op_executed[i],
            })
            .collect();
        op_histogram.sort_by(|a, b| {
            (b.executed, b.in_traces, &a.name).cmp(&(a.executed, a.in_traces, &b.name))
        });
        Analysis {
            op_histogram,
            model: self.model.clone(),
            traces: self.trace_costs.len(),
            has_counters,
            gamma: gamma_total,
            executed_ops: self
                .executed
                .into_iter()
                .enumerate()
                .filter(|(_, n)| *n > 0)
                .map(|(c, n)| (classes.name(ClassId(c)).to_string(), n))
                .collect(),
            fragments,
            trace_costs: self.trace_costs,
            source_lines,
            unknown_ops: self.unknown_ops,
            counter_use: None,
            warnings,
        }
    }
}
