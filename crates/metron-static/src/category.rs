//! The architecture description file (004 §III.C.6): mnemonics -> instruction categories
//! (Intel SDM Vol. 1 Ch. 5 groups, names as in 004 Table II), and the roll-ups users ask for.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::binary::Instruction;
use crate::error::{Result, StaticError};

/// The bundled x86-64 description.
pub const X86_64: &str = include_str!("../arch/x86_64.toml");

/// Category of mnemonics nothing in the description names.
pub const UNCATEGORIZED: &str = "Uncategorized";

#[derive(Debug, Clone, Deserialize)]
struct CategoryEntry {
    name: String,
    #[serde(default)]
    fp: bool,
    #[serde(default)]
    fp_move: bool,
    mnemonics: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
struct ArchFile {
    name: String,
    #[serde(default)]
    vector_bytes: Option<u32>,
    #[serde(default)]
    cache_line_bytes: Option<u32>,
    category: Vec<CategoryEntry>,
}

/// What a mnemonic is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Class {
    pub category: String,
    pub fp: bool,
    pub fp_move: bool,
}

/// A parsed architecture description.
#[derive(Debug, Clone)]
pub struct Architecture {
    pub name: String,
    pub vector_bytes: Option<u32>,
    pub cache_line_bytes: Option<u32>,
    classes: BTreeMap<String, Class>,
    /// Category names in file order.
    pub categories: Vec<String>,
}

impl Architecture {
    pub fn x86_64() -> Architecture {
        // The bundled file is checked by a test; a failure here is a build defect.
        Architecture::parse(X86_64, Path::new("arch/x86_64.toml"))
            .unwrap_or_else(|e| panic!("bundled architecture file is invalid: {e}"))
    }

    pub fn load(path: &Path) -> Result<Architecture> {
        let text = std::fs::read_to_string(path).map_err(|source| StaticError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Architecture::parse(&text, path)
    }

    pub fn parse(text: &str, path: &Path) -> Result<Architecture> {
        let file: ArchFile = toml::from_str(text).map_err(|e| StaticError::Parse {
            path: path.to_path_buf(),
            line: e
                .span()
                .map(|s| text[..s.start.min(text.len())].lines().count().max(1))
                .unwrap_or(0),
            message: format!("expected an architecture description: {}", e.message()),
        })?;
        let mut classes = BTreeMap::new();
        let mut categories = Vec::new();
        for c in &file.category {
            categories.push(c.name.clone());
            for m in &c.mnemonics {
                classes.entry(m.to_lowercase()).or_insert(Class {
                    category: c.name.clone(),
                    fp: c.fp,
                    fp_move: c.fp_move,
                });
            }
        }
        Ok(Architecture {
            name: file.name,
            vector_bytes: file.vector_bytes,
            cache_line_bytes: file.cache_line_bytes,
            classes,
            categories,
        })
    }

    /// The class of a mnemonic; VEX forms inherit their legacy form's group as "AVX ...".
    pub fn classify(&self, mnemonic: &str) -> Class {
        if let Some(c) = self.classes.get(mnemonic) {
            return c.clone();
        }
        if let Some(legacy) = mnemonic.strip_prefix('v').and_then(|m| self.classes.get(m)) {
            let group = legacy
                .category
                .split_once(' ')
                .map_or(legacy.category.as_str(), |(_, rest)| rest);
            return Class {
                category: format!("AVX {group}"),
                ..legacy.clone()
            };
        }
        Class {
            category: UNCATEGORIZED.to_string(),
            fp: false,
            fp_move: false,
        }
    }
}

/// Counts of one region (function, loop, block) by mnemonic, category and roll-up.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Counts {
    pub total: f64,
    pub by_mnemonic: BTreeMap<String, f64>,
    pub by_category: BTreeMap<String, f64>,
    /// Roll-ups: `fp_ops`, `fp_moves`, `loads`, `stores`, `branches`.
    pub rollups: BTreeMap<String, f64>,
}

impl Counts {
    /// Adds `times` executions of `instruction`.
    pub fn add(&mut self, arch: &Architecture, instruction: &Instruction, times: f64) {
        let name = instruction.name();
        let class = arch.classify(&name);
        self.total += times;
        *self.by_mnemonic.entry(format!("x86_{name}")).or_default() += times;
        *self.by_category.entry(class.category).or_default() += times;
        let mut roll = |k: &str, v: f64| *self.rollups.entry(k.to_string()).or_default() += v;
        roll("fp_ops", if class.fp { times } else { 0.0 });
        roll("fp_moves", if class.fp_move { times } else { 0.0 });
        roll("loads", times * f64::from(instruction.loads));
        roll("stores", times * f64::from(instruction.stores));
        let branch = matches!(
            instruction.flow,
            iced_x86::FlowControl::ConditionalBranch
                | iced_x86::FlowControl::UnconditionalBranch
                | iced_x86::FlowControl::IndirectBranch
        );
        roll("branches", if branch { times } else { 0.0 });
    }

    /// Adds `times` executions of an instruction known by mnemonic only (a PLT stub's
    /// `jmp [GOT]`: one load, a branch).
    pub fn add_plt(&mut self, arch: &Architecture, mnemonic: iced_x86::Mnemonic, times: f64) {
        let name = crate::binary::mnemonic_name(mnemonic);
        let class = arch.classify(&name);
        self.total += times;
        *self.by_mnemonic.entry(format!("x86_{name}")).or_default() += times;
        *self.by_category.entry(class.category).or_default() += times;
        let mut roll = |k: &str, v: f64| *self.rollups.entry(k.to_string()).or_default() += v;
        let jmp = mnemonic == iced_x86::Mnemonic::Jmp;
        roll("loads", if jmp { times } else { 0.0 });
        roll("branches", if jmp { times } else { 0.0 });
    }

    pub fn merge(&mut self, other: &Counts) {
        self.total += other.total;
        for (k, v) in &other.by_mnemonic {
            *self.by_mnemonic.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &other.by_category {
            *self.by_category.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &other.rollups {
            *self.rollups.entry(k.clone()).or_default() += v;
        }
    }

    /// 004 §IV.D.2: instruction-based arithmetic intensity, FP arithmetic over FP data movement.
    pub fn arithmetic_intensity(&self) -> Option<f64> {
        let moves = self.rollups.get("fp_moves").copied().unwrap_or(0.0);
        (moves > 0.0).then(|| self.rollups.get("fp_ops").copied().unwrap_or(0.0) / moves)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_description_has_about_sixty_categories_without_duplicates() {
        let a = Architecture::x86_64();
        assert!(a.categories.len() >= 45, "{}", a.categories.len());
        let unique: std::collections::BTreeSet<_> = a.categories.iter().collect();
        assert_eq!(unique.len(), a.categories.len());
    }

    #[test]
    fn classifies_table_ii_groups_and_vex_forms() {
        let a = Architecture::x86_64();
        assert_eq!(
            a.classify("addsd").category,
            "SSE2 packed arithmetic instruction"
        );
        assert!(a.classify("mulpd").fp);
        assert_eq!(
            a.classify("movsd").category,
            "SSE2 data movement instruction"
        );
        assert_eq!(
            a.classify("jne").category,
            "Integer control transfer instruction"
        );
        assert_eq!(a.classify("cdqe").category, "64-bit mode instruction");
        let v = a.classify("vmulpd");
        assert_eq!(v.category, "AVX packed arithmetic instruction");
        assert!(v.fp);
        assert_eq!(a.classify("vfmadd231pd").category, "FMA instruction");
        assert_eq!(a.classify("frobnicate").category, UNCATEGORIZED);
    }

    #[test]
    fn intensity_is_the_table_ii_ratio() {
        // 004 §IV.D.2: 1.93E8 / 3.67E8 = 0.53 for cg_solve.
        let mut c = Counts::default();
        c.rollups.insert("fp_ops".into(), 1.93e8);
        c.rollups.insert("fp_moves".into(), 3.67e8);
        let ai = c.arithmetic_intensity().unwrap();
        assert!((ai - 0.53).abs() < 0.005, "{ai}");
    }

    #[test]
    fn bad_toml_names_file_and_line() {
        let e = Architecture::parse(
            "name = \"x\"\n[[category]]\nname = 3\n",
            Path::new("a.toml"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("a.toml:3:"), "{e}");
    }
}
