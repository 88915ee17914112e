//! A reader for textual LLVM IR (`.ll`), enough of it for memory-access analysis: globals,
//! functions, arguments, basic blocks, and the instructions that move or derive pointers and
//! transfer control. Everything else is kept as `Other` so that no input is rejected for
//! containing an instruction we do not care about.
//!
//! Why our own reader instead of the `llvm-ir` crate: it links libLLVM (build time and the
//! static-Polly link trap on Debian), while the handful of instruction forms we need have a
//! stable textual syntax across LLVM 12-17, typed and opaque pointers alike.

use std::collections::BTreeMap;

use crate::MemoryError;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Inst {
    Load {
        ptr: String,
    },
    Store {
        ptr: String,
    },
    /// `atomicrmw` and `cmpxchg`: a read and a write of `ptr`.
    Atomic {
        ptr: String,
    },
    /// `getelementptr` and pointer casts: the result points into `base`.
    Derive {
        base: String,
    },
    Phi {
        values: Vec<String>,
    },
    Select {
        values: Vec<String>,
    },
    Alloca,
    /// Arguments keep their sigil (`%0` is a value, `0` a literal).
    Call {
        callee: Option<String>,
        args: Vec<String>,
    },
    Br {
        targets: Vec<String>,
    },
    Ret,
    Other,
}

#[derive(Clone, Debug)]
pub struct Instruction {
    pub result: Option<String>,
    pub kind: Inst,
    /// 1-based line in the `.ll` file.
    pub line: usize,
    pub text: String,
}

#[derive(Clone, Debug)]
pub struct Block {
    pub label: String,
    pub insts: Vec<Instruction>,
}

impl Block {
    pub fn successors(&self) -> Vec<String> {
        match self.insts.last().map(|i| &i.kind) {
            Some(Inst::Br { targets }) => targets.clone(),
            _ => Vec::new(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    /// `(type, name)` of each argument; the name without `%`.
    pub args: Vec<(String, String)>,
    pub blocks: Vec<Block>,
    pub line: usize,
}

impl Function {
    pub fn block_index(&self) -> BTreeMap<&str, usize> {
        self.blocks
            .iter()
            .enumerate()
            .map(|(i, b)| (b.label.as_str(), i))
            .collect()
    }
}

#[derive(Clone, Debug, Default)]
pub struct Module {
    pub globals: Vec<String>,
    pub functions: Vec<Function>,
}

impl Module {
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }
}

/// Splits at top-level commas (outside (), [], {}, <> and quotes).
pub fn split_top(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut quoted = false;
    let mut cur = String::new();
    for ch in s.chars() {
        match ch {
            '"' => quoted = !quoted,
            '(' | '[' | '{' | '<' if !quoted => depth += 1,
            ')' | ']' | '}' | '>' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// The value named by a typed operand: `double* %p` -> `%p`, `i64 0` -> `0`; a constant
/// expression such as `getelementptr (... @A ...)` resolves to the first global it names.
pub fn operand_value(op: &str) -> String {
    let op = op.trim();
    if op.contains('(') {
        if let Some(g) = first_global(op) {
            return g;
        }
    }
    op.split_whitespace().last().unwrap_or("").to_string()
}

fn first_global(s: &str) -> Option<String> {
    let at = s.find('@')?;
    let rest = &s[at..];
    let end = rest[1..]
        .find(|c: char| !(c.is_alphanumeric() || "._$-\"".contains(c)))
        .map(|e| e + 1)
        .unwrap_or(rest.len());
    Some(rest[..end].to_string())
}

/// Drops `, !dbg !12`-style attachments and a trailing comment.
fn strip_metadata(line: &str) -> &str {
    let mut s = line;
    if let Some(c) = find_unquoted(s, ';') {
        s = &s[..c];
    }
    let bytes = s.as_bytes();
    let mut depth = 0i32;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'(' | b'[' | b'{' | b'<' => depth += 1,
            b')' | b']' | b'}' | b'>' => depth -= 1,
            b',' if depth == 0 && s[i + 1..].trim_start().starts_with('!') => {
                return s[..i].trim_end();
            }
            _ => {}
        }
    }
    s.trim_end()
}

fn find_unquoted(s: &str, needle: char) -> Option<usize> {
    let mut quoted = false;
    for (i, ch) in s.char_indices() {
        if ch == '"' {
            quoted = !quoted;
        } else if ch == needle && !quoted {
            return Some(i);
        }
    }
    None
}

fn parse_err(file: &str, line: usize, expected: &str, got: &str) -> MemoryError {
    MemoryError::Parse {
        file: file.to_string(),
        line,
        message: format!("expected {expected}, found `{}`", got.trim()),
    }
}

/// Parses a textual LLVM IR module. `file` names the input in errors.
pub fn parse_module(text: &str, file: &str) -> Result<Module, MemoryError> {
    let mut module = Module::default();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    let mut saw_anything = false;
    while i < lines.len() {
        let line = lines[i].trim();
        if line.starts_with('@') {
            if let Some(g) = first_global(line) {
                module.globals.push(g.trim_start_matches('@').to_string());
            }
            saw_anything = true;
        } else if line.starts_with("define ") {
            let (f, next) = parse_function(&lines, i, file)?;
            module.functions.push(f);
            saw_anything = true;
            i = next;
            continue;
        } else if line.starts_with("source_filename")
            || line.starts_with("target ")
            || line.starts_with("declare ")
            || line.starts_with("; ModuleID")
        {
            saw_anything = true;
        }
        i += 1;
    }
    if !saw_anything {
        return Err(MemoryError::Parse {
            file: file.into(),
            line: 1,
            message: "expected textual LLVM IR (a `define`, `declare`, `target` or global line); is this an .ll file?".into(),
        });
    }
    Ok(module)
}

fn parse_function(
    lines: &[&str],
    start: usize,
    file: &str,
) -> Result<(Function, usize), MemoryError> {
    let header = lines[start].trim();
    let at = header
        .find('@')
        .ok_or_else(|| parse_err(file, start + 1, "`define ... @name(...)`", header))?;
    let open = header[at..]
        .find('(')
        .map(|p| p + at)
        .ok_or_else(|| parse_err(file, start + 1, "an argument list", header))?;
    let name = header[at + 1..open].trim_matches('"').to_string();
    let close = matching_paren(header, open)
        .ok_or_else(|| parse_err(file, start + 1, "a closing `)`", header))?;
    let mut args = Vec::new();
    let mut unnamed = 0usize;
    for a in split_top(&header[open + 1..close]) {
        if a == "..." {
            continue;
        }
        let last = a.split_whitespace().last().unwrap_or("");
        if let Some(n) = last.strip_prefix('%') {
            // Numbered arguments (`%0`) take the numbers before the implicit entry label.
            if n.chars().all(|c| c.is_ascii_digit()) {
                unnamed += 1;
            }
            args.push((a.clone(), n.trim_matches('"').to_string()));
        } else {
            args.push((a.clone(), unnamed.to_string()));
            unnamed += 1;
        }
    }
    let mut blocks: Vec<Block> = Vec::new();
    let mut i = start + 1;
    let mut pending: Option<Block> = None;
    loop {
        if i >= lines.len() {
            return Err(parse_err(
                file,
                i,
                "`}` closing the function",
                "end of file",
            ));
        }
        let raw = lines[i];
        let line = raw.trim();
        if line == "}" {
            if let Some(b) = pending.take() {
                blocks.push(b);
            }
            return Ok((
                Function {
                    name,
                    args,
                    blocks,
                    line: start + 1,
                },
                i + 1,
            ));
        }
        if line.is_empty() || line.starts_with(';') {
            i += 1;
            continue;
        }
        if let Some(label) = block_label(line) {
            if let Some(b) = pending.take() {
                blocks.push(b);
            }
            pending = Some(Block {
                label,
                insts: Vec::new(),
            });
            i += 1;
            continue;
        }
        // A switch's case table spans lines until its `]`.
        let mut stmt = strip_metadata(line).to_string();
        let first_line = i;
        if stmt.starts_with("switch") || stmt.contains("= switch") {
            while !stmt.contains(']') && i + 1 < lines.len() {
                i += 1;
                stmt.push(' ');
                stmt.push_str(strip_metadata(lines[i].trim()));
            }
        }
        let block = pending.get_or_insert_with(|| Block {
            label: unnamed.to_string(),
            insts: Vec::new(),
        });
        block
            .insts
            .push(parse_instruction(&stmt, first_line + 1, file)?);
        i += 1;
    }
}

fn block_label(line: &str) -> Option<String> {
    let code = match find_unquoted(line, ';') {
        Some(c) => line[..c].trim(),
        None => line,
    };
    let label = code.strip_suffix(':')?;
    if label.contains(' ') && !label.starts_with('"') {
        return None;
    }
    Some(label.trim_matches('"').to_string())
}

fn matching_paren(s: &str, open: usize) -> Option<usize> {
    let mut depth = 0;
    for (i, ch) in s[open..].char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

fn value_name(v: &str) -> String {
    v.trim_start_matches('%').trim_matches('"').to_string()
}

pub fn parse_instruction(stmt: &str, line: usize, file: &str) -> Result<Instruction, MemoryError> {
    let (result, rhs) = match stmt.split_once(" = ") {
        Some((lhs, rhs)) if lhs.trim_start().starts_with('%') => {
            (Some(value_name(lhs.trim())), rhs.trim())
        }
        _ => (None, stmt.trim()),
    };
    let mut words = rhs.split_whitespace();
    let mut op = words.next().unwrap_or("");
    while matches!(op, "tail" | "musttail" | "notail") {
        op = words.next().unwrap_or("");
    }
    let after_op = rhs[rhs.find(op).map(|p| p + op.len()).unwrap_or(0)..].trim();
    let ops = || split_top(after_op);
    let kind = match op {
        "load" => {
            let o = ops();
            let ptr = o
                .get(1)
                .ok_or_else(|| parse_err(file, line, "`load T, T* %ptr`", stmt))?;
            Inst::Load {
                ptr: value_name(&operand_value(strip_ordering(ptr))),
            }
        }
        "store" => {
            let o = ops();
            let ptr = o
                .get(1)
                .ok_or_else(|| parse_err(file, line, "`store T %v, T* %ptr`", stmt))?;
            Inst::Store {
                ptr: value_name(&operand_value(strip_ordering(ptr))),
            }
        }
        "atomicrmw" | "cmpxchg" => {
            let ptr = atomic_pointer(after_op).ok_or_else(|| {
                parse_err(
                    file,
                    line,
                    "`atomicrmw OP T* %ptr, T %v ORDERING` or `cmpxchg T* %ptr, ...`",
                    stmt,
                )
            })?;
            Inst::Atomic {
                ptr: value_name(&operand_value(&ptr)),
            }
        }
        "getelementptr" => {
            let o = ops();
            let base = o
                .get(1)
                .ok_or_else(|| parse_err(file, line, "`getelementptr T, T* %base, ...`", stmt))?;
            Inst::Derive {
                base: value_name(&operand_value(base)),
            }
        }
        "bitcast" | "addrspacecast" => {
            let src = after_op
                .rsplit_once(" to ")
                .map(|(a, _)| a)
                .ok_or_else(|| parse_err(file, line, "`bitcast T %v to U`", stmt))?;
            Inst::Derive {
                base: value_name(&operand_value(src)),
            }
        }
        "phi" => {
            let mut values = Vec::new();
            for part in split_top(after_op) {
                let Some(open) = part.find('[') else { continue };
                let inner = part[open + 1..].trim_end().trim_end_matches(']');
                let v = split_top(inner);
                values.push(value_name(&operand_value(
                    v.first().map(String::as_str).unwrap_or(""),
                )));
            }
            Inst::Phi { values }
        }
        "select" => {
            let o = ops();
            Inst::Select {
                values: o
                    .iter()
                    .skip(1)
                    .map(|v| value_name(&operand_value(v)))
                    .collect(),
            }
        }
        "alloca" => Inst::Alloca,
        "call" | "invoke" => {
            let callee = first_global_call(rhs);
            let args = rhs
                .find(&format!("@{}(", callee.clone().unwrap_or_default()))
                .and_then(|p| {
                    let open = rhs[p..].find('(')? + p;
                    let close = matching_paren(rhs, open)?;
                    Some(split_top(&rhs[open + 1..close]))
                })
                .unwrap_or_default()
                .iter()
                .map(|a| operand_value(a))
                .collect();
            Inst::Call { callee, args }
        }
        "br" => Inst::Br {
            targets: labels_in(after_op),
        },
        "switch" => Inst::Br {
            targets: labels_in(after_op),
        },
        "ret" | "unreachable" | "resume" => Inst::Ret,
        _ => Inst::Other,
    };
    Ok(Instruction {
        result,
        kind,
        line,
        text: stmt.to_string(),
    })
}

/// `i32* %p seq_cst` -> `i32* %p`: the ordering (and scope) of an atomic load or store.
pub fn strip_ordering(op: &str) -> &str {
    let mut s = op.trim();
    loop {
        let Some((head, last)) = s.rsplit_once(' ') else {
            return s;
        };
        let ordering = matches!(
            last,
            "unordered" | "monotonic" | "acquire" | "release" | "acq_rel" | "seq_cst"
        ) || last.starts_with("syncscope(");
        if !ordering {
            return s;
        }
        s = head.trim_end();
    }
}

/// The typed pointer operand of `atomicrmw [volatile] OP T* %p, ...` or
/// `cmpxchg [weak] [volatile] T* %p, ...` (text after the opcode).
pub fn atomic_pointer(after_op: &str) -> Option<String> {
    let first = split_top(after_op).into_iter().next()?;
    let words: Vec<&str> = first
        .split_whitespace()
        .filter(|w| !matches!(*w, "weak" | "volatile"))
        .collect();
    // atomicrmw: `add i32* %p` (operation first); cmpxchg: `i32* %p`; opaque: `ptr %p`.
    let n = words.len();
    (n >= 2).then(|| format!("{} {}", words[n - 2], words[n - 1]))
}

fn first_global_call(rhs: &str) -> Option<String> {
    let mut s = rhs;
    // The callee is the last `@name(` before the argument list; attributes come before it.
    while let Some(at) = s.find('@') {
        let rest = &s[at + 1..];
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || "._$-\"".contains(c)))
            .unwrap_or(rest.len());
        if rest[end..].starts_with('(') {
            return Some(rest[..end].trim_matches('"').to_string());
        }
        s = &rest[end..];
    }
    None
}

fn labels_in(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(p) = rest.find("label ") {
        let after = rest[p + 6..].trim_start();
        let tok: String = after
            .chars()
            .take_while(|c| !c.is_whitespace() && *c != ',' && *c != ']')
            .collect();
        let name = value_name(&tok);
        if !out.contains(&name) {
            out.push(name);
        }
        rest = &after[tok.len()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operands_and_instructions() {
        let i =
            parse_instruction("%5 = load double, double* %arrayidx, align 8", 3, "t.ll").unwrap();
        assert_eq!(
            i.kind,
            Inst::Load {
                ptr: "arrayidx".into()
            }
        );
        let s = parse_instruction(
            "store double %add, double* getelementptr inbounds ([4 x double], [4 x double]* @A, i64 0, i64 1), align 8",
            1,
            "t.ll",
        )
        .unwrap();
        assert_eq!(s.kind, Inst::Store { ptr: "@A".into() });
        let g = parse_instruction(
            "%arrayidx8 = getelementptr inbounds [64 x double], [64 x double]* %arrayidx6, i64 0, i64 %indvars.iv",
            1,
            "t.ll",
        )
        .unwrap();
        assert_eq!(
            g.kind,
            Inst::Derive {
                base: "arrayidx6".into()
            }
        );
        let b = parse_instruction("br i1 %c, label %a, label %b.x", 1, "t.ll").unwrap();
        assert_eq!(
            b.kind,
            Inst::Br {
                targets: vec!["a".into(), "b.x".into()]
            }
        );
        let c = parse_instruction(
            "%call = call double @helper(double* noundef %x, i32 noundef %i.03)",
            1,
            "t.ll",
        )
        .unwrap();
        assert_eq!(
            c.kind,
            Inst::Call {
                callee: Some("helper".into()),
                args: vec!["%x".into(), "%i.03".into()]
            }
        );
        let p = parse_instruction("%p = phi double* [ %a, %x ], [ @G, %y ]", 1, "t.ll").unwrap();
        assert_eq!(
            p.kind,
            Inst::Phi {
                values: vec!["a".into(), "@G".into()]
            }
        );
        let o = parse_instruction("%p = load ptr, ptr %q, align 8", 1, "t.ll").unwrap();
        assert_eq!(o.kind, Inst::Load { ptr: "q".into() });
    }

    #[test]
    fn module_with_numbered_blocks() {
        let text = "define i32 @f(i32 %0) {\n  %2 = icmp sgt i32 %0, 0\n  br i1 %2, label %3, label %4\n\n3:\n  br label %4\n\n4:                                ; preds = %3, %1\n  ret i32 0\n}\n";
        let m = parse_module(text, "t.ll").unwrap();
        let f = &m.functions[0];
        assert_eq!(f.blocks.len(), 3);
        assert_eq!(f.blocks[0].label, "1");
        assert_eq!(
            f.blocks[0].successors(),
            vec!["3".to_string(), "4".to_string()]
        );
        assert_eq!(f.blocks[2].label, "4");
    }

    #[test]
    fn garbage_is_named() {
        let e = parse_module("hello world\n", "x.ll").unwrap_err();
        assert!(e.to_string().contains("x.ll"), "{e}");
        let e = parse_module("define void @f() {\n  ret void\n", "y.ll").unwrap_err();
        assert!(e.to_string().contains("y.ll"), "{e}");
    }
}
