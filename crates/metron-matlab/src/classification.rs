//! Function classification per runtime (000 Table 4.3, §4.4, §7.1.2), read from
//! `data/functions.toml`.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

const BUILTIN_TABLE: &str = include_str!("../data/functions.toml");

/// How the JIT treats one instruction (000 Listing 6.2's `CompilationMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CompilationMode {
    Single,
    Combinable,
    /// User-defined functions are never combinable (§4.4.2).
    UserDefined,
    /// A built-in not in Table 4.3: treated as single, the conservative choice.
    Unlisted,
}

#[derive(Debug, Clone, Deserialize)]
struct Table {
    runtime: BTreeMap<String, RuntimeEntry>,
}

#[derive(Debug, Clone, Deserialize)]
struct RuntimeEntry {
    description: String,
    single: Vec<String>,
    combinable: Vec<String>,
    scalar_mode: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Classification {
    pub runtime: String,
    pub description: String,
    single: BTreeSet<String>,
    combinable: BTreeSet<String>,
    scalar_mode: BTreeSet<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ClassificationError {
    #[error("{file}: {message}")]
    Malformed { file: String, message: String },
    #[error("unknown runtime `{0}`; expected one of: {1}")]
    UnknownRuntime(String, String),
}

impl Classification {
    /// The built-in table for `runtime` (`r2015b`, `r2018b`, `octave`).
    pub fn builtin(runtime: &str) -> Result<Classification, ClassificationError> {
        Self::from_toml(BUILTIN_TABLE, "data/functions.toml", runtime)
    }

    pub fn runtimes() -> Vec<String> {
        toml::from_str::<Table>(BUILTIN_TABLE)
            .map(|t| t.runtime.keys().cloned().collect())
            .unwrap_or_default()
    }

    pub fn from_toml(
        text: &str,
        file: &str,
        runtime: &str,
    ) -> Result<Classification, ClassificationError> {
        let table: Table = toml::from_str(text).map_err(|e| ClassificationError::Malformed {
            file: file.to_string(),
            message: e.to_string(),
        })?;
        let known = table.runtime.keys().cloned().collect::<Vec<_>>().join(", ");
        let entry = table
            .runtime
            .get(runtime)
            .ok_or_else(|| ClassificationError::UnknownRuntime(runtime.to_string(), known))?;
        Ok(Classification {
            runtime: runtime.to_string(),
            description: entry.description.clone(),
            single: entry.single.iter().cloned().collect(),
            combinable: entry.combinable.iter().cloned().collect(),
            scalar_mode: entry.scalar_mode.iter().cloned().collect(),
        })
    }

    /// Whether `name` is a built-in this table knows (either group).
    pub fn is_builtin(&self, name: &str) -> bool {
        self.single.contains(name)
            || self.combinable.contains(name)
            || KNOWN_BUILTINS.contains(&name)
    }

    pub fn mode(&self, name: &str, user_defined: bool) -> CompilationMode {
        if user_defined {
            CompilationMode::UserDefined
        } else if self.combinable.contains(name) {
            CompilationMode::Combinable
        } else if self.single.contains(name) {
            CompilationMode::Single
        } else {
            CompilationMode::Unlisted
        }
    }

    pub fn forces_scalar_mode(&self, name: &str) -> bool {
        self.scalar_mode.contains(name)
    }

    pub fn combinable_is_empty(&self) -> bool {
        self.combinable.is_empty()
    }
}

/// Built-in functions outside Table 4.3 that the front end must not mistake for user code.
pub const KNOWN_BUILTINS: &[&str] = &[
    "numel",
    "length",
    "size",
    "disp",
    "fprintf",
    "printf",
    "sprintf",
    "error",
    "isempty",
    "any",
    "all",
    "find",
    "reshape",
    "repmat",
    "linspace",
    "tic",
    "toc",
    "eye",
    "true",
    "false",
    "pi",
    "inf",
    "Inf",
    "nan",
    "NaN",
    "eps",
    "floor",
    "abs",
    "norm",
    "dot",
    "cross",
    "cat",
    "horzcat",
    "vertcat",
    "mat2str",
    "num2str",
    "isfield",
    "struct",
    "cell",
    "exist",
    "nargin",
    "nargout",
    "hypot",
    "conj",
    "logical",
    "double",
    "single",
    "int32",
    "uint8",
    "magic",
    "triu",
    "tril",
    "diag",
    "trace",
    "kron",
    "circshift",
    "sort",
    "unique",
    "mldivide",
    "mrdivide",
    "mpower",
];

/// The instruction name of an operator as Table 4.3 writes it.
pub fn operator_instruction(op: &str, unary: bool) -> String {
    match (op, unary) {
        ("-", true) => "uminus".into(),
        ("+", true) => "uplus".into(),
        _ => op.to_string(),
    }
}
