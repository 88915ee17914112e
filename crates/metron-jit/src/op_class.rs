//! Operation classes (001 §3.3, Table 3), read from an editable table: one `operation class`
//! pair per line. The default table (`data/op_classes.txt`) is compiled in.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::Serialize;

use crate::error::JitError;

/// The default table, covering RPython's whole resoperation list.
pub const DEFAULT_TABLE: &str = include_str!("../data/op_classes.txt");

/// Operations the paper does not cost: debug markers (001 Eq. 2) and jumps/labels (001 §3.3).
pub const DEBUG: &str = "debug";
pub const CONTROL: &str = "control";
/// Where operations missing from the table go; they are reported, never dropped.
pub const OTHER: &str = "other";

/// Index of a class in [`OpClassTable::classes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct ClassId(pub usize);

#[derive(Debug, Clone)]
pub struct OpClassTable {
    classes: Vec<String>,
    by_op: HashMap<String, ClassId>,
}

impl OpClassTable {
    /// The compiled-in table.
    pub fn default_table() -> Self {
        // The embedded table is tested to parse; an error here is a build defect.
        Self::parse(DEFAULT_TABLE, Path::new("<default op_classes.txt>"))
            .unwrap_or_else(|e| panic!("embedded class table is invalid: {e}"))
    }

    /// Reads a user table from `path`.
    pub fn from_file(path: &Path) -> Result<Self, JitError> {
        let text = crate::error::read_text(path)?;
        Self::parse(&text, path)
    }

    /// Parses `operation class` lines; `#` starts a comment.
    pub fn parse(text: &str, path: &Path) -> Result<Self, JitError> {
        let mut table = OpClassTable {
            classes: Vec::new(),
            by_op: HashMap::new(),
        };
        for name in [DEBUG, CONTROL, OTHER] {
            table.class_id(name);
        }
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
            let (Some(op), Some(class), None) = (words.next(), words.next(), words.next()) else {
                return Err(err(format!(
                    "expected `operation class` (two words, e.g. `int_add numeric`), found `{line}`"
                )));
            };
            let id = table.class_id(class);
            if let Some(prev) = table.by_op.insert(op.to_string(), id) {
                if prev != id {
                    return Err(err(format!(
                        "operation `{op}` is listed twice, as `{}` and as `{class}`",
                        table.classes[prev.0]
                    )));
                }
            }
        }
        Ok(table)
    }

    fn class_id(&mut self, name: &str) -> ClassId {
        if let Some(i) = self.classes.iter().position(|c| c == name) {
            return ClassId(i);
        }
        self.classes.push(name.to_string());
        ClassId(self.classes.len() - 1)
    }

    /// The class of `op`, or `None` when the table does not list it (then it counts as `other`).
    pub fn lookup(&self, op: &str) -> Option<ClassId> {
        self.by_op.get(op).copied()
    }

    pub fn class_of(&self, op: &str) -> ClassId {
        self.lookup(op).unwrap_or_else(|| self.other())
    }

    pub fn other(&self) -> ClassId {
        ClassId(2)
    }

    pub fn debug(&self) -> ClassId {
        ClassId(0)
    }

    pub fn control(&self) -> ClassId {
        ClassId(1)
    }

    pub fn classes(&self) -> &[String] {
        &self.classes
    }

    pub fn name(&self, id: ClassId) -> &str {
        self.classes.get(id.0).map_or(OTHER, String::as_str)
    }

    pub fn id(&self, name: &str) -> Option<ClassId> {
        self.classes.iter().position(|c| c == name).map(ClassId)
    }

    /// Operations per class, for listing the table.
    pub fn ops_by_class(&self) -> BTreeMap<&str, Vec<&str>> {
        let mut out: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (op, id) in &self.by_op {
            out.entry(self.name(*id)).or_default().push(op);
        }
        for ops in out.values_mut() {
            ops.sort_unstable();
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expands RPython's `NAME/arity/result` entries the way `resoperation.setup()` does.
    fn rpython_op_names() -> Vec<String> {
        let text = include_str!("../tests/fixtures/resoperation_oplist.txt");
        let mut names = Vec::new();
        for entry in text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .flat_map(str::split_whitespace)
        {
            let parts: Vec<&str> = entry.split('/').collect();
            assert_eq!(parts.len(), 3, "{entry}");
            let (name, results) = (parts[0].to_lowercase(), parts[2]);
            if results.len() == 1 {
                names.push(name);
            } else {
                for r in results.chars() {
                    names.push(format!("{name}_{r}"));
                }
            }
        }
        names
    }

    #[test]
    fn default_table_covers_every_rpython_operation() {
        let table = OpClassTable::default_table();
        let names = rpython_op_names();
        assert!(names.len() > 230, "{}", names.len());
        let missing: Vec<_> = names.iter().filter(|n| table.lookup(n).is_none()).collect();
        assert!(missing.is_empty(), "missing: {missing:?}");
    }

    #[test]
    fn table_3_examples_are_in_their_classes() {
        // 001 Table 3: debug merge point, int add ovf, guard true, new with vtable,
        // arraylen gc, getfield gc (PyPy logs print the typed getfield_gc_i/_r/_f).
        let t = OpClassTable::default_table();
        let class = |op: &str| t.name(t.class_of(op)).to_string();
        assert_eq!(class("debug_merge_point"), "debug");
        assert_eq!(class("int_add_ovf"), "numeric");
        assert_eq!(class("guard_true"), "guard");
        assert_eq!(class("new_with_vtable"), "alloc");
        assert_eq!(class("arraylen_gc"), "array");
        assert_eq!(class("getfield_gc_i"), "object");
        assert_eq!(class("jump"), "control");
        assert_eq!(class("call_i"), "call");
        assert_eq!(class("strlen"), "string");
        assert_eq!(class("no_such_op"), "other");
    }

    #[test]
    fn user_table_errors_name_file_and_line() {
        let err = OpClassTable::parse("int_add numeric\nint_sub\n", Path::new("my.txt"))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("my.txt:2: expected `operation class`"),
            "{err}"
        );
        let err = OpClassTable::parse("a x\na y\n", Path::new("my.txt"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("my.txt:2: operation `a` is listed twice"),
            "{err}"
        );
    }

    #[test]
    fn user_table_may_define_new_classes() {
        let t = OpClassTable::parse("int_add cheap # comment\n", Path::new("t")).unwrap();
        assert_eq!(t.name(t.class_of("int_add")), "cheap");
        assert_eq!(t.class_of("int_sub"), t.other());
    }
}
