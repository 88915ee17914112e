//! Basic instruction analysis (003 §4.1.1): every load and store, with the variable it
//! touches found by following the pointer back through `getelementptr`, casts and constant
//! expressions to its base.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::ir::{Function, Inst};

/// Variable classes of 003 §3.2 (global, argument, local), plus what a pointer can be
/// besides: memory returned by an allocator, a pointer loaded from another variable, or a
/// choice (`phi`/`select`) between several bases.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VariableClass {
    Global,
    Argument,
    Local,
    Heap,
    /// Reached through a pointer read from the named variable (`double **A`, `A[i][j]`).
    Indirect,
    /// A `phi` or `select` of several bases.
    Ambiguous,
    Unknown,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Variable {
    pub name: String,
    pub class: VariableClass,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AccessKind {
    Read,
    Write,
}

/// One memory-accessing instruction.
#[derive(Clone, Debug, Serialize)]
pub struct AccessSite {
    pub block: String,
    pub kind: AccessKind,
    pub variable: Variable,
    pub line: usize,
    /// `memcpy`/`memset`/`memmove`: counted as `bytes` accesses (003 leaves them out).
    pub intrinsic: Option<String>,
    /// SSA value of the intrinsic's length, or its constant.
    pub length: Option<String>,
    /// Part of an `atomicrmw`/`cmpxchg` (a read and a write).
    #[serde(default)]
    pub atomic: bool,
}

/// Finds the variable a pointer value points into.
pub fn resolve_base(f: &Function, ptr: &str) -> Variable {
    let defs = definitions(f);
    let args: BTreeSet<&str> = f.args.iter().map(|(_, n)| n.as_str()).collect();
    let mut seen = BTreeSet::new();
    resolve(ptr, &defs, &args, &mut seen, 0)
}

fn definitions(f: &Function) -> BTreeMap<&str, &Inst> {
    f.blocks
        .iter()
        .flat_map(|b| b.insts.iter())
        .filter_map(|i| i.result.as_deref().map(|r| (r, &i.kind)))
        .collect()
}

const ALLOCATORS: &[&str] = &[
    "malloc",
    "calloc",
    "realloc",
    "aligned_alloc",
    "_Znwm",
    "_Znam",
];

fn resolve(
    v: &str,
    defs: &BTreeMap<&str, &Inst>,
    args: &BTreeSet<&str>,
    seen: &mut BTreeSet<String>,
    depth: usize,
) -> Variable {
    let unknown = || Variable {
        name: v.to_string(),
        class: VariableClass::Unknown,
    };
    if depth > 64 || !seen.insert(v.to_string()) {
        return unknown();
    }
    if let Some(g) = v.strip_prefix('@') {
        return Variable {
            name: g.trim_matches('"').to_string(),
            class: VariableClass::Global,
        };
    }
    if args.contains(v) {
        return Variable {
            name: v.to_string(),
            class: VariableClass::Argument,
        };
    }
    match defs.get(v) {
        Some(Inst::Alloca) => Variable {
            name: v.to_string(),
            class: VariableClass::Local,
        },
        Some(Inst::Derive { base }) => resolve(base, defs, args, seen, depth + 1),
        Some(Inst::Load { ptr }) => {
            let inner = resolve(ptr, defs, args, seen, depth + 1);
            Variable {
                name: format!("*{}", inner.name),
                class: VariableClass::Indirect,
            }
        }
        Some(Inst::Call {
            callee: Some(c), ..
        }) if ALLOCATORS.contains(&c.as_str()) => Variable {
            name: format!("{c}@{v}"),
            class: VariableClass::Heap,
        },
        Some(Inst::Phi { values }) | Some(Inst::Select { values }) => {
            let mut bases: Vec<Variable> = Vec::new();
            for x in values {
                if x == v || x == "undef" || x == "poison" || x == "null" {
                    continue;
                }
                let b = resolve(x, defs, args, &mut seen.clone(), depth + 1);
                // An input that leads back to this phi (a pointer increment) adds no base.
                if b.class != VariableClass::Unknown && !bases.contains(&b) {
                    bases.push(b);
                }
            }
            match bases.len() {
                1 => bases.remove(0),
                0 => unknown(),
                _ => Variable {
                    name: bases
                        .iter()
                        .map(|b| b.name.clone())
                        .collect::<Vec<_>>()
                        .join("|"),
                    class: VariableClass::Ambiguous,
                },
            }
        }
        _ => unknown(),
    }
}

const MEM_INTRINSICS: &[&str] = &["llvm.memcpy", "llvm.memmove", "llvm.memset"];

/// All access sites of a function, in program order.
pub fn access_sites(f: &Function) -> Vec<AccessSite> {
    let mut out = Vec::new();
    for b in &f.blocks {
        for i in &b.insts {
            match &i.kind {
                Inst::Load { ptr } | Inst::Store { ptr } => {
                    let kind = if matches!(i.kind, Inst::Load { .. }) {
                        AccessKind::Read
                    } else {
                        AccessKind::Write
                    };
                    out.push(AccessSite {
                        block: b.label.clone(),
                        kind,
                        variable: resolve_base(f, ptr),
                        line: i.line,
                        intrinsic: None,
                        length: None,
                        atomic: false,
                    });
                }
                Inst::Atomic { ptr } => {
                    // An atomic read-modify-write (or compare-exchange) reads and writes.
                    for kind in [AccessKind::Read, AccessKind::Write] {
                        out.push(AccessSite {
                            block: b.label.clone(),
                            kind,
                            variable: resolve_base(f, ptr),
                            line: i.line,
                            intrinsic: None,
                            length: None,
                            atomic: true,
                        });
                    }
                }
                Inst::Call {
                    callee: Some(c),
                    args,
                } => {
                    let Some(which) = MEM_INTRINSICS.iter().find(|m| c.starts_with(*m)) else {
                        continue;
                    };
                    let name = which.trim_start_matches("llvm.").to_string();
                    let length = args.get(2).cloned();
                    let args: Vec<String> = args
                        .iter()
                        .map(|a| a.trim_start_matches('%').to_string())
                        .collect();
                    let dst = args.first().map(|a| resolve_base(f, a));
                    if let Some(dst) = dst {
                        out.push(AccessSite {
                            block: b.label.clone(),
                            kind: AccessKind::Write,
                            variable: dst,
                            line: i.line,
                            intrinsic: Some(name.clone()),
                            length: length.clone(),
                            atomic: false,
                        });
                    }
                    if name != "memset" {
                        if let Some(src) = args.get(1) {
                            out.push(AccessSite {
                                block: b.label.clone(),
                                kind: AccessKind::Read,
                                variable: resolve_base(f, src),
                                line: i.line,
                                intrinsic: Some(name),
                                length,
                                atomic: false,
                            });
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_module;

    const IR: &str = r#"@G = global [4 x double] zeroinitializer
define void @f(double* %a, double** %pp, i1 %c) {
entry:
  %loc = alloca double, align 8
  %g = getelementptr inbounds [4 x double], [4 x double]* @G, i64 0, i64 1
  %v = load double, double* %g, align 8
  %x = getelementptr inbounds double, double* %a, i64 3
  %b = bitcast double* %x to i64*
  %w = load i64, i64* %b
  store double %v, double* %loc
  %p = load double*, double** %pp
  %q = getelementptr double, double* %p, i64 2
  store double 1.0, double* %q
  %s = select i1 %c, double* %a, double* %loc
  store double 2.0, double* %s
  store double 3.0, double* getelementptr inbounds ([4 x double], [4 x double]* @G, i64 0, i64 2)
  ret void
}
"#;

    #[test]
    fn bases_and_classes() {
        let m = parse_module(IR, "t.ll").unwrap();
        let s = access_sites(&m.functions[0]);
        let got: Vec<(AccessKind, &str, VariableClass)> = s
            .iter()
            .map(|a| (a.kind, a.variable.name.as_str(), a.variable.class.clone()))
            .collect();
        use AccessKind::*;
        use VariableClass::*;
        assert_eq!(
            got,
            vec![
                (Read, "G", Global),
                (Read, "a", Argument),
                (Write, "loc", Local),
                (Read, "pp", Argument),
                (Write, "*pp", Indirect),
                (Write, "a|loc", Ambiguous),
                (Write, "G", Global),
            ]
        );
    }
}
