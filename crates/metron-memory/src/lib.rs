//! `metron-memory`: how often each function reads and writes each variable, without running
//! the program (003 Ch. 4), and the dynamic ground truth the thesis lacked.
//!
//! Pipeline: [`frontend::prepare`] (clang, canonical `opt` passes, scalar evolution) ->
//! [`ir::parse_module`] -> [`access`] (loads/stores and their base variables) ->
//! [`tree`] (natural loops, access tree) -> [`count`] (trip counts as `metron-symbolic`
//! piecewise polynomials, branch policy, calls) -> [`Analysis`]. [`trace`] instruments the
//! same canonical IR to count accesses at run time.

pub mod access;
pub mod activation;
pub mod branch;
pub mod condition;
pub mod count;
pub mod exit_count;
pub mod explain;
pub mod frontend;
pub mod independent;
pub mod ir;
pub mod loop_profile;
pub mod scev;
pub mod sources;
pub mod split;
pub mod trace;
pub mod tree;

use std::path::Path;

use metron_symbolic::Binding;
use serde::Serialize;

pub use count::{BranchPolicy, FunctionCounts};

#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    #[error("{file}:{line}: {message}")]
    Parse {
        file: String,
        line: usize,
        message: String,
    },
    #[error("{file}: {message}")]
    Io { file: String, message: String },
    #[error("{file}: {message}")]
    Compile { file: String, message: String },
    #[error("{0}")]
    Tool(String),
    #[error("scalar-evolution expression `{expr}`: {message}")]
    Scev { expr: String, message: String },
    #[error("`{expr}` is not an affine count: {reason}")]
    NotAffine { expr: String, reason: String },
    #[error("no function `{name}` in the module (functions: {available})")]
    NoFunction { name: String, available: String },
    #[error("counting: {0}")]
    Symbolic(#[from] metron_symbolic::Error),
    /// A loop count left as a parameter and not given: says why it could not be counted.
    #[error(
        "counting: the trip count `{name}` has no value (give it with --param {name}=N): {why}"
    )]
    TripCount { name: String, why: String },
    /// A derived trip count (a loop stepping by an argument) whose arguments' values make no
    /// finite count, e.g. a step of 0.
    #[error("counting: the derived trip count `{name}` has no value here: {why}")]
    DerivedCount { name: String, why: String },
    #[error("{0}")]
    Run(String),
}

/// A `trip_` parameter without a value is a loop metron could not count: the error carries the
/// note that says why (data-dependent exit, parametric step, ...).
pub fn explain_missing(e: MemoryError, notes: &[String]) -> MemoryError {
    match e {
        MemoryError::Symbolic(metron_symbolic::Error::MissingParameter { name })
            if name.starts_with("trip_") =>
        {
            let why = notes
                .iter()
                .find(|n| n.contains(&name))
                .cloned()
                .unwrap_or_else(|| "scalar evolution could not count the loop".into());
            MemoryError::TripCount { name, why }
        }
        other => other,
    }
}

/// A module prepared for analysis: canonical IR, parsed, with its loop and access model.
pub struct Analysis {
    pub prepared: frontend::Prepared,
    pub module: ir::Module,
    pub model: count::ModuleModel,
    /// Loops whose exit test reads memory (their trip counts come from a profile).
    pub data_loops: Vec<loop_profile::DataLoop>,
    /// Trip counts of data loops fitted from a profile ([`Analysis::use_profile`]).
    pub trips: Vec<loop_profile::TripFit>,
    _workdir: Option<tempfile::TempDir>,
}

impl Analysis {
    /// Compiles and models `source` (.c, .ll or .bc) with the pass `pipeline`.
    pub fn load(source: &Path, pipeline: &str) -> Result<Analysis, MemoryError> {
        Self::load_build(&sources::BuildInput::single(source), pipeline)
    }

    /// Compiles (several files, flags, a compilation database) and models the module.
    pub fn load_build(
        input: &sources::BuildInput,
        pipeline: &str,
    ) -> Result<Analysis, MemoryError> {
        let dir = tempfile::tempdir().map_err(|e| MemoryError::Io {
            file: "temporary directory".into(),
            message: e.to_string(),
        })?;
        let prepared = frontend::prepare_build(input, pipeline, dir.path())?;
        let module = ir::parse_module(&prepared.ir, &prepared.canonical_ll.display().to_string())?;
        let scev = scev::parse_output(&prepared.scev);
        let mut model = count::ModuleModel::build(&module, &scev)?;
        let data_loops = loop_profile::data_loops(&module, &model, &scev, &prepared.ir);
        loop_profile::explain(&mut model, &data_loops);
        Ok(Analysis {
            prepared,
            module,
            model,
            data_loops,
            trips: Vec::new(),
            _workdir: Some(dir),
        })
    }

    /// Takes the data loops' trip counts from a profile's `loop` and `activation` lines;
    /// returns notes on the loops it could not use.
    pub fn use_profile(&mut self, text: &str, file: &str) -> Result<Vec<String>, MemoryError> {
        let (loops, activations) = loop_profile::read_profile(text, file)?;
        let (fits, notes) = loop_profile::fit(&self.data_loops, &loops, &activations);
        self.trips = fits;
        Ok(notes)
    }

    /// Edge probabilities from the source's `#pragma metron branch(P)` / `// metron: branch(P)`
    /// annotations (C input only; IR has no source to read), with notes on the ones that no
    /// branch carries.
    pub fn annotation_probabilities(
        &self,
    ) -> Result<(std::collections::BTreeMap<String, f64>, Vec<String>), MemoryError> {
        let src = &self.prepared.source;
        if self.prepared.clang_flags.is_empty() {
            return Ok((Default::default(), Vec::new()));
        }
        let text = std::fs::read_to_string(src).map_err(|e| MemoryError::Io {
            file: src.display().to_string(),
            message: e.to_string(),
        })?;
        let annotations = branch::source_annotations(&text, &src.display().to_string())?;
        Ok(branch::annotated_probabilities(
            &annotations,
            &self.module,
            &self.prepared.ir,
        ))
    }

    /// Names of the functions defined in the module.
    pub fn functions(&self) -> Vec<String> {
        self.model.functions.keys().cloned().collect()
    }

    pub fn count(
        &self,
        function: &str,
        policy: &BranchPolicy,
        binding: &Binding,
    ) -> Result<FunctionCounts, MemoryError> {
        let mut counts =
            count::count_function(&self.model, function, policy, binding).map_err(|e| {
                let notes: Vec<String> = self
                    .model
                    .functions
                    .values()
                    .flat_map(|f| f.notes.iter().cloned())
                    .collect();
                explain_missing(e, &notes)
            })?;
        loop_profile::apply(&mut counts, &self.trips, binding);
        Ok(counts)
    }

    /// The report of one function: counts, loops and the tree, ready for JSON.
    pub fn report(
        &self,
        function: &str,
        policy: &BranchPolicy,
        binding: &Binding,
    ) -> Result<FunctionReport, MemoryError> {
        let counts = self.count(function, policy, binding)?;
        let f = &self.model.functions[function];
        Ok(FunctionReport {
            loops: f.loops.clone(),
            tree: tree_json(f, &f.tree),
            recursive: self.model.recursive.contains(function),
            calls: f.calls.clone(),
            counts,
        })
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct FunctionReport {
    pub counts: FunctionCounts,
    pub loops: Vec<count::LoopReport>,
    pub calls: Vec<count::CallSite>,
    pub recursive: bool,
    pub tree: serde_json::Value,
}

/// The access tree with block names and per-block access counts (003 Fig. 4.1).
pub fn tree_json(f: &count::FunctionModel, nodes: &[tree::TreeNode]) -> serde_json::Value {
    use serde_json::json;
    let children: Vec<serde_json::Value> = nodes
        .iter()
        .map(|n| match n {
            tree::TreeNode::Leaf { block } => {
                let label = &f.block_names[*block];
                let reads = f.sites.iter().filter(|s| &s.block == label && s.kind == access::AccessKind::Read).count();
                let writes = f.sites.iter().filter(|s| &s.block == label && s.kind == access::AccessKind::Write).count();
                json!({"node": "leaf", "block": label, "reads": reads, "writes": writes})
            }
            tree::TreeNode::Loop { loop_index, body } => {
                let l = &f.loops[*loop_index];
                let trip = if l.stride == 1 {
                    format!("{} + 1", l.backedge_taken)
                } else {
                    format!("floor(({}) / {}) + 1", l.backedge_taken, l.stride)
                };
                // (a max/min bound prints as `max(a, b) + 1`)
                json!({"node": "loop", "header": l.header, "trip_count": trip, "body": tree_json(f, body)})
            }
            tree::TreeNode::IfElse { block, arms, .. } => json!({
                "node": "if_else",
                "block": f.block_names[*block],
                "arms": arms.iter().map(|a| tree_json(f, a)).collect::<Vec<_>>(),
            }),
        })
        .collect();
    json!({"node": "sequence", "children": children})
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A missing `trip_` parameter says why the loop has none; other errors pass through.
    #[test]
    fn missing_trip_parameter_names_its_reason() {
        let missing = |name: &str| {
            MemoryError::Symbolic(metron_symbolic::Error::MissingParameter { name: name.into() })
        };
        let notes = vec![
            "loop %w.body: its exit test compares a value loaded from memory; trip_w_body"
                .to_string(),
        ];
        let e = explain_missing(missing("trip_w_body"), &notes).to_string();
        assert!(
            e.contains("--param trip_w_body=N") && e.contains("loaded from memory"),
            "{e}"
        );
        let e = explain_missing(missing("n"), &notes).to_string();
        assert!(!e.contains("loaded from memory"), "{e}");
    }
}
