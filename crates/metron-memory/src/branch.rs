//! Per-branch probabilities for the branch policy (issue 5: "from annotations or from a
//! profile"). Both end up as probabilities of CFG edges `function:branch_block->successor`,
//! which [`crate::count::weights`] applies to the if-else arm starting at that successor.
//!
//! * A **profile** is what `metron memory trace` counts at every conditional `br`: how often
//!   it ran and how often its condition was true. Text file, one branch a line:
//!   `function block true_target false_target taken not_taken` (`#` starts a comment).
//! * An **annotation** is a line `#pragma metron branch(P)` or a comment `// metron: branch(P)`
//!   right before an `if` in the C source: P is the probability that its condition is true.
//!   It is mapped to the IR through debug line info (`!dbg` of the `br` = the `if`'s line).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::ir::{split_top, Inst, Module};
use crate::MemoryError;

/// One conditional branch of the module, numbered in module order (the trace runtime's ids).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BranchSite {
    pub function: String,
    pub block: String,
    /// Operand of `br i1 COND, ...` with its type (`i1 %cmp`).
    pub condition: String,
    pub true_target: String,
    pub false_target: String,
    /// 1-based line of the `br` in the `.ll` text.
    pub line: usize,
}

/// Every two-way conditional `br` of the module, in module order.
pub fn branch_sites(module: &Module) -> Vec<BranchSite> {
    let mut out = Vec::new();
    for f in &module.functions {
        for b in &f.blocks {
            let Some(term) = b.insts.last() else { continue };
            let Inst::Br { targets } = &term.kind else {
                continue;
            };
            if targets.len() != 2 {
                continue;
            }
            let Some(rest) = term.text.trim().strip_prefix("br ") else {
                continue;
            };
            let parts = split_top(rest);
            let Some(cond) = parts.first().filter(|c| c.starts_with("i1 ")) else {
                continue;
            };
            out.push(BranchSite {
                function: f.name.clone(),
                block: b.label.clone(),
                condition: cond.trim().to_string(),
                true_target: targets[0].clone(),
                false_target: targets[1].clone(),
                line: term.line,
            });
        }
    }
    out
}

/// Key of the edge `block -> target` of `function` in a probability map.
pub fn edge_key(function: &str, block: &str, target: &str) -> String {
    format!("{function}:{block}->{target}")
}

/// One profiled branch: how often it ran with its condition true and false.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProfiledBranch {
    pub site: BranchSite,
    pub taken: u64,
    pub not_taken: u64,
}

/// The profile file text (see the module comment).
pub fn profile_text(branches: &[ProfiledBranch]) -> String {
    let mut s = String::from(
        "# metron branch profile: function block true_target false_target taken not_taken\n",
    );
    for b in branches {
        s.push_str(&format!(
            "{} {} {} {} {} {}\n",
            b.site.function,
            b.site.block,
            b.site.true_target,
            b.site.false_target,
            b.taken,
            b.not_taken
        ));
    }
    s
}

/// Reads a profile into edge probabilities. Branches that never ran are left out (the policy
/// then shares their arms equally).
pub fn read_profile(text: &str, file: &str) -> Result<BTreeMap<String, f64>, MemoryError> {
    let mut p = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        // `loop` and `activation` lines are `loop_profile`'s.
        if line.is_empty() || line.starts_with("loop ") || line.starts_with("activation ") {
            continue;
        }
        let w: Vec<&str> = line.split_whitespace().collect();
        let err = |message: String| MemoryError::Parse {
            file: file.into(),
            line: i + 1,
            message,
        };
        if w.len() != 6 {
            return Err(err(format!(
                "expected `function block true_target false_target taken not_taken`, found {} fields",
                w.len()
            )));
        }
        let count = |s: &str| {
            s.parse::<u64>().map_err(|_| {
                err(format!(
                    "expected a non-negative integer count, found `{s}`"
                ))
            })
        };
        let (taken, not_taken) = (count(w[4])?, count(w[5])?);
        let total = taken as f64 + not_taken as f64;
        if total == 0.0 || w[2] == w[3] {
            continue;
        }
        p.insert(edge_key(w[0], w[1], w[2]), taken as f64 / total);
        p.insert(edge_key(w[0], w[1], w[3]), not_taken as f64 / total);
    }
    Ok(p)
}

/// Reads a profile file (see [`read_profile`]).
pub fn read_profile_file(path: &Path) -> Result<BTreeMap<String, f64>, MemoryError> {
    let text = std::fs::read_to_string(path).map_err(|e| MemoryError::Io {
        file: path.display().to_string(),
        message: e.to_string(),
    })?;
    read_profile(&text, &path.display().to_string())
}

/// A source annotation: probability `p` that the condition of the `if` on `line` is true.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Annotation {
    pub line: usize,
    pub probability: f64,
}

/// Finds `#pragma metron branch(P)` / `// metron: branch(P)` and the line of the statement
/// that follows (blank and comment lines skipped).
pub fn source_annotations(source: &str, file: &str) -> Result<Vec<Annotation>, MemoryError> {
    let lines: Vec<&str> = source.lines().collect();
    let mut out = Vec::new();
    for (i, raw) in lines.iter().enumerate() {
        let t = raw.trim();
        let arg = t
            .strip_prefix("#pragma metron branch(")
            .or_else(|| {
                t.strip_prefix("//")
                    .map(str::trim_start)
                    .and_then(|c| c.strip_prefix("metron: branch("))
            })
            .and_then(|r| r.split_once(')'))
            .map(|(a, _)| a.trim());
        let Some(arg) = arg else { continue };
        let err = |message: String| MemoryError::Parse {
            file: file.into(),
            line: i + 1,
            message,
        };
        let p: f64 = arg
            .parse()
            .ok()
            .filter(|p: &f64| (0.0..=1.0).contains(p))
            .ok_or_else(|| err(format!("expected a probability in [0, 1], found `{arg}`")))?;
        let next = (i + 1..lines.len()).find(|&j| {
            let s = lines[j].trim();
            !s.is_empty() && !s.starts_with("//") && !s.starts_with("#pragma metron")
        });
        match next {
            Some(j) if lines[j].trim_start().starts_with("if") => out.push(Annotation {
                line: j + 1,
                probability: p,
            }),
            _ => return Err(err("expected an `if` statement on the next line".into())),
        }
    }
    Ok(out)
}

/// `!N = !DILocation(line: L, ...)` of the module text: metadata id -> source line.
pub fn debug_lines(ir: &str) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for line in ir.lines() {
        let Some((id, rest)) = line.split_once(" = ") else {
            continue;
        };
        if !id.starts_with('!') {
            continue;
        }
        let rest = rest.trim_start_matches("distinct ");
        if let Some(args) = rest.strip_prefix("!DILocation(") {
            let l = args
                .split(',')
                .find_map(|a| a.trim().strip_prefix("line: "))
                .and_then(|v| v.trim().parse().ok());
            if let Some(l) = l {
                out.insert(id.trim().to_string(), l);
            }
        }
    }
    out
}

/// Edge probabilities of the annotated branches, and a note for each annotation that no
/// conditional branch of the IR carries (or that several do: `&&`/`||` conditions).
pub fn annotated_probabilities(
    annotations: &[Annotation],
    module: &Module,
    ir: &str,
) -> (BTreeMap<String, f64>, Vec<String>) {
    let lines = debug_lines(ir);
    let text: Vec<&str> = ir.lines().collect();
    // The reader drops attachments, so the `!dbg` of a branch is read from its raw line.
    let source_line = |s: &BranchSite| {
        let raw = text.get(s.line.checked_sub(1)?)?;
        let id = raw
            .split(", ")
            .find_map(|p| p.trim().strip_prefix("!dbg "))?;
        lines.get(id.trim()).copied()
    };
    let sites = branch_sites(module);
    let mut p = BTreeMap::new();
    let mut notes = Vec::new();
    for a in annotations {
        let at: Vec<&BranchSite> = sites
            .iter()
            .filter(|s| source_line(s) == Some(a.line))
            .collect();
        let Some(first) = at.first() else {
            notes.push(format!(
                "annotation for the `if` on source line {}: no conditional branch of the IR is on that line (compiled without -g?)",
                a.line
            ));
            continue;
        };
        if at.len() > 1 {
            notes.push(format!(
                "annotation for the `if` on source line {}: {} branches on that line (`&&`/`||`?); applied to the first, in block `{}`",
                a.line,
                at.len(),
                first.block
            ));
        }
        p.insert(
            edge_key(&first.function, &first.block, &first.true_target),
            a.probability,
        );
        p.insert(
            edge_key(&first.function, &first.block, &first.false_target),
            1.0 - a.probability,
        );
    }
    (p, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_round_trips_and_bad_lines_are_named() {
        let p = read_profile(
            "# c\nbranchy for.body if.then if.else 30 70\nf a b c 0 0\n",
            "p.txt",
        )
        .unwrap();
        assert_eq!(p["branchy:for.body->if.then"], 0.3);
        assert_eq!(p["branchy:for.body->if.else"], 0.7);
        assert_eq!(p.len(), 2);
        let e = read_profile("f a b c 1\n", "p.txt")
            .unwrap_err()
            .to_string();
        assert!(e.contains("p.txt:1") && e.contains("found 5 fields"), "{e}");
        let e = read_profile("\nf a b c 1 x\n", "p.txt")
            .unwrap_err()
            .to_string();
        assert!(e.contains("p.txt:2") && e.contains("`x`"), "{e}");
    }

    #[test]
    fn annotations_find_the_next_if() {
        let src = "int f(int x) {\n  #pragma metron branch(0.3)\n  if (x) return 1;\n  // metron: branch(1)\n\n  if (x > 2) return 2;\n  return 0;\n}\n";
        let a = source_annotations(src, "a.c").unwrap();
        assert_eq!(
            a,
            vec![
                Annotation {
                    line: 3,
                    probability: 0.3
                },
                Annotation {
                    line: 6,
                    probability: 1.0
                }
            ]
        );
        let e = source_annotations("// metron: branch(1.5)\nif (x) y;\n", "a.c")
            .unwrap_err()
            .to_string();
        assert!(e.contains("a.c:1") && e.contains("[0, 1]"), "{e}");
        let e = source_annotations("#pragma metron branch(0.5)\nx = 1;\n", "a.c")
            .unwrap_err()
            .to_string();
        assert!(e.contains("a.c:1") && e.contains("`if`"), "{e}");
    }

    #[test]
    fn debug_locations_give_lines() {
        let ir = "!52 = !DILocation(line: 59, column: 9, scope: !40)\n!7 = distinct !DILocation(line: 3, scope: !1)\n!8 = !{}\n";
        let l = debug_lines(ir);
        assert_eq!(l["!52"], 59);
        assert_eq!(l["!7"], 3);
        assert_eq!(l.len(), 2);
    }
}
