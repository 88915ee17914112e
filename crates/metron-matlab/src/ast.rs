//! Typed AST over the tree-sitter-matlab CST (000 §6.3: HU!M works on the AST). Every node
//! keeps its byte span so that passes can rewrite the source minimally.

use std::fmt;
use std::path::Path;

/// Byte range of a node in the source, with the 1-based line and column of its start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub line: usize,
    pub column: usize,
}

impl Span {
    fn of(node: tree_sitter::Node) -> Span {
        let p = node.start_position();
        Span {
            start: node.start_byte(),
            end: node.end_byte(),
            line: p.row + 1,
            column: p.column + 1,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    Number(f64),
    Str,
    Ident(String),
    /// `end` inside an index.
    End,
    /// A lone `:` argument (all elements of a dimension).
    Colon,
    Binary {
        op: String,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// Prefix `-`, `+`, `~`/`!`.
    Unary {
        op: String,
        operand: Box<Expr>,
    },
    /// `'` or `.'`.
    Postfix {
        op: String,
        operand: Box<Expr>,
    },
    /// `start:stop` or `start:step:stop`.
    Range {
        start: Box<Expr>,
        step: Option<Box<Expr>>,
        stop: Box<Expr>,
    },
    /// The grammar's `function_call`: an index into a variable or a call of a function;
    /// [`crate::resolve`] tells which.
    Apply {
        name: String,
        args: Vec<Expr>,
    },
    Paren(Box<Expr>),
    Matrix(Vec<Vec<Expr>>),
    /// Anything the passes do not look into (cells, fields, lambdas, handles).
    Other(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum StmtKind {
    Assign {
        lhs: Expr,
        /// Targets of `[a, b] = ...` (names only).
        multi: Vec<String>,
        rhs: Expr,
    },
    Expr(Expr),
    For {
        var: String,
        iter: Expr,
        body: Vec<Stmt>,
    },
    While {
        cond: Expr,
        body: Vec<Stmt>,
    },
    /// `if`/`elseif`/`else` clauses; the else clause has no condition.
    If {
        clauses: Vec<(Option<Expr>, Vec<Stmt>)>,
    },
    /// Command syntax: `hold on`, `format long`.
    Command {
        name: String,
    },
    /// `global x y`, `persistent z`.
    Declare {
        names: Vec<String>,
    },
    Other(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    pub name: String,
    pub params: Vec<String>,
    pub outputs: Vec<String>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

/// One parsed `.m` file: script statements (empty for a function file) and functions.
#[derive(Debug, Clone)]
pub struct Program {
    pub source: String,
    pub statements: Vec<Stmt>,
    pub functions: Vec<Function>,
}

impl Program {
    pub fn text(&self, span: Span) -> &str {
        &self.source[span.start..span.end]
    }

    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// The statement lists of the script and of every function, each a separate scope.
    pub fn scopes(&self) -> Vec<Scope<'_>> {
        let mut scopes = Vec::new();
        if !self.statements.is_empty() || self.functions.is_empty() {
            scopes.push(Scope {
                function: None,
                body: &self.statements,
            });
        }
        for f in &self.functions {
            scopes.push(Scope {
                function: Some(f),
                body: &f.body,
            });
        }
        scopes
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Scope<'a> {
    pub function: Option<&'a Function>,
    pub body: &'a [Stmt],
}

/// A parse failure: where, and the offending text.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub struct SyntaxError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub found: String,
    pub expected: String,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: syntax error at `{}`: expected {}",
            self.file, self.line, self.column, self.found, self.expected
        )
    }
}

/// Parses MATLAB source; `file` names the source in error messages.
pub fn parse(source: &str, file: &Path) -> Result<Program, SyntaxError> {
    let file_name = file.display().to_string();
    let mut parser = tree_sitter::Parser::new();
    let language: tree_sitter::Language = tree_sitter_matlab::LANGUAGE.into();
    let fail = |line, column, found: &str, expected: &str| SyntaxError {
        file: file_name.clone(),
        line,
        column,
        found: found.to_string(),
        expected: expected.to_string(),
    };
    parser
        .set_language(&language)
        .map_err(|e| fail(1, 1, "", &format!("a loadable MATLAB grammar ({e})")))?;
    let tree = parser
        .parse(source, None)
        .ok_or_else(|| fail(1, 1, "", "parsable input"))?;
    let root = tree.root_node();
    if let Some((depth, node)) = too_deep(root) {
        let span = Span::of(node);
        return Err(fail(
            span.line,
            span.column,
            &format!("an expression nested {depth} levels deep"),
            &format!("at most {MAX_DEPTH} levels (split the expression into statements)"),
        ));
    }
    if root.has_error() {
        let bad = first_error(root).unwrap_or(root);
        let span = Span::of(bad);
        let found: String = source[span.start..span.end]
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(40)
            .collect();
        let expected = if bad.is_missing() {
            format!("`{}`", bad.kind())
        } else {
            "a MATLAB statement or expression".to_string()
        };
        let found = if found.is_empty() {
            "end of input".to_string()
        } else {
            found
        };
        return Err(fail(span.line, span.column, &found, &expected));
    }
    let lower = Lower { src: source };
    let mut statements = Vec::new();
    let mut functions = Vec::new();
    let mut cursor = root.walk();
    for child in root.named_children(&mut cursor) {
        if child.kind() == "function_definition" {
            functions.push(lower.function(child));
        } else if let Some(s) = lower.stmt(child) {
            statements.push(s);
        }
    }
    Ok(Program {
        source: source.to_string(),
        statements,
        functions,
    })
}

/// Deepest syntax-tree nesting the analyses accept. They recurse over expressions; a
/// generated 30,000-term sum would overflow the stack, so it is refused with a message.
pub const MAX_DEPTH: usize = 500;

/// The depth and a node beyond [`MAX_DEPTH`], found without recursion.
fn too_deep(root: tree_sitter::Node) -> Option<(usize, tree_sitter::Node)> {
    let mut cursor = root.walk();
    let mut depth = 0usize;
    loop {
        if depth > MAX_DEPTH {
            let node = cursor.node();
            // Report the statement's depth as a whole: count on to the deepest leaf.
            let mut deepest = depth;
            let mut c = node.walk();
            let mut d = 0usize;
            loop {
                if c.goto_first_child() {
                    d += 1;
                    deepest = deepest.max(depth + d);
                    continue;
                }
                loop {
                    if d == 0 {
                        return Some((deepest, node));
                    }
                    if c.goto_next_sibling() {
                        break;
                    }
                    c.goto_parent();
                    d -= 1;
                }
            }
        }
        if cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return None;
            }
            depth -= 1;
        }
    }
}

fn first_error(node: tree_sitter::Node) -> Option<tree_sitter::Node> {
    if node.is_error() || node.is_missing() {
        return Some(node);
    }
    let mut cursor = node.walk();
    let children: Vec<_> = node.children(&mut cursor).collect();
    children
        .into_iter()
        .filter(|c| c.has_error() || c.is_missing())
        .find_map(first_error)
}

struct Lower<'s> {
    src: &'s str,
}

impl<'s> Lower<'s> {
    fn text(&self, node: tree_sitter::Node) -> &'s str {
        &self.src[node.start_byte()..node.end_byte()]
    }

    fn named(&self, node: tree_sitter::Node<'s>) -> Vec<tree_sitter::Node<'s>> {
        let mut cursor = node.walk();
        node.named_children(&mut cursor)
            .filter(|c| c.kind() != "comment" && c.kind() != "line_continuation")
            .collect()
    }

    fn function(&self, node: tree_sitter::Node<'s>) -> Function {
        let mut f = Function {
            name: node
                .child_by_field_name("name")
                .map(|n| self.text(n).to_string())
                .unwrap_or_default(),
            params: Vec::new(),
            outputs: Vec::new(),
            body: Vec::new(),
            span: Span::of(node),
        };
        for child in self.named(node) {
            match child.kind() {
                "function_output" => f.outputs = self.identifiers(child),
                "function_arguments" => f.params = self.identifiers(child),
                "block" => f.body = self.block(child),
                _ => {}
            }
        }
        f
    }

    fn identifiers(&self, node: tree_sitter::Node<'s>) -> Vec<String> {
        let mut out = Vec::new();
        for c in self.named(node) {
            match c.kind() {
                "identifier" => out.push(self.text(c).to_string()),
                "multioutput_variable" | "function_arguments" => out.extend(self.identifiers(c)),
                _ => {}
            }
        }
        out
    }

    fn block(&self, node: tree_sitter::Node<'s>) -> Vec<Stmt> {
        self.named(node)
            .into_iter()
            .filter_map(|c| self.stmt(c))
            .collect()
    }

    fn stmt(&self, node: tree_sitter::Node<'s>) -> Option<Stmt> {
        let span = Span::of(node);
        let kind = match node.kind() {
            "comment" | "line_continuation" => return None,
            "assignment" => {
                let lhs_node = node.child_by_field_name("left")?;
                let rhs = self.expr(node.child_by_field_name("right")?);
                let multi = if lhs_node.kind() == "multioutput_variable" {
                    self.identifiers(lhs_node)
                } else {
                    Vec::new()
                };
                StmtKind::Assign {
                    lhs: self.expr(lhs_node),
                    multi,
                    rhs,
                }
            }
            "for_statement" => {
                let named = self.named(node);
                let iterator = named.iter().find(|c| c.kind() == "iterator")?;
                let parts = self.named(*iterator);
                let var = self.text(*parts.first()?).to_string();
                let iter = self.expr(*parts.get(1)?);
                let body = named
                    .iter()
                    .find(|c| c.kind() == "block")
                    .map(|b| self.block(*b))
                    .unwrap_or_default();
                StmtKind::For { var, iter, body }
            }
            "while_statement" => {
                let cond = self.expr(node.child_by_field_name("condition")?);
                let body = self
                    .named(node)
                    .into_iter()
                    .find(|c| c.kind() == "block")
                    .map(|b| self.block(b))
                    .unwrap_or_default();
                StmtKind::While { cond, body }
            }
            "if_statement" => {
                let mut clauses = Vec::new();
                let cond = node.child_by_field_name("condition").map(|c| self.expr(c));
                let named = self.named(node);
                let first_body = named
                    .iter()
                    .find(|c| c.kind() == "block")
                    .map(|b| self.block(*b))
                    .unwrap_or_default();
                clauses.push((cond, first_body));
                for c in named {
                    if c.kind() == "elseif_clause" || c.kind() == "else_clause" {
                        let cond = c.child_by_field_name("condition").map(|x| self.expr(x));
                        let body = self
                            .named(c)
                            .into_iter()
                            .find(|b| b.kind() == "block")
                            .map(|b| self.block(b))
                            .unwrap_or_default();
                        clauses.push((cond, body));
                    }
                }
                StmtKind::If { clauses }
            }
            "command" => StmtKind::Command {
                name: self
                    .named(node)
                    .first()
                    .map(|n| self.text(*n).to_string())
                    .unwrap_or_default(),
            },
            "global_operator" | "persistent_operator" => StmtKind::Declare {
                names: self.identifiers(node),
            },
            k if k.ends_with("_statement") || k == "function_definition" => {
                StmtKind::Other(k.to_string())
            }
            _ => StmtKind::Expr(self.expr(node)),
        };
        Some(Stmt { kind, span })
    }

    fn expr(&self, node: tree_sitter::Node<'s>) -> Expr {
        let span = Span::of(node);
        let kind = self.expr_kind(node);
        Expr { kind, span }
    }

    /// Operator text between two operand nodes (the grammar keeps it anonymous).
    fn between(&self, a: tree_sitter::Node, b: tree_sitter::Node) -> String {
        self.src[a.end_byte()..b.start_byte()]
            .replace("...", "")
            .split_whitespace()
            .collect::<String>()
    }

    fn expr_kind(&self, node: tree_sitter::Node<'s>) -> ExprKind {
        let named = self.named(node);
        match node.kind() {
            "number" => self
                .text(node)
                .parse::<f64>()
                .map(ExprKind::Number)
                .unwrap_or_else(|_| ExprKind::Other(self.text(node).to_string())),
            "string" => ExprKind::Str,
            "identifier" => ExprKind::Ident(self.text(node).to_string()),
            "end_keyword" => ExprKind::End,
            "spread_operator" => ExprKind::Colon,
            "binary_operator" | "boolean_operator" | "comparison_operator" if named.len() == 2 => {
                ExprKind::Binary {
                    op: self.between(named[0], named[1]),
                    lhs: Box::new(self.expr(named[0])),
                    rhs: Box::new(self.expr(named[1])),
                }
            }
            "unary_operator" | "not_operator" if named.len() == 1 => ExprKind::Unary {
                op: self.src[node.start_byte()..named[0].start_byte()]
                    .trim()
                    .to_string(),
                operand: Box::new(self.expr(named[0])),
            },
            "postfix_operator" if named.len() == 1 => ExprKind::Postfix {
                op: self.src[named[0].end_byte()..node.end_byte()]
                    .trim()
                    .to_string(),
                operand: Box::new(self.expr(named[0])),
            },
            "range" if named.len() == 2 || named.len() == 3 => {
                let mut parts = named.into_iter().map(|n| Box::new(self.expr(n)));
                let start = parts.next();
                let (a, b) = (parts.next(), parts.next());
                match (start, a, b) {
                    (Some(start), Some(step), Some(stop)) => ExprKind::Range {
                        start,
                        step: Some(step),
                        stop,
                    },
                    (Some(start), Some(stop), None) => ExprKind::Range {
                        start,
                        step: None,
                        stop,
                    },
                    _ => ExprKind::Other("range".into()),
                }
            }
            "function_call" => {
                let name = node.child_by_field_name("name");
                match name {
                    Some(n) if n.kind() == "identifier" => {
                        let args = named
                            .iter()
                            .find(|c| c.kind() == "arguments")
                            .map(|a| self.named(*a).into_iter().map(|x| self.expr(x)).collect())
                            .unwrap_or_default();
                        // `c{1}` is cell indexing, which the passes leave alone.
                        let brace = self.src[n.end_byte()..node.end_byte()]
                            .trim_start()
                            .starts_with('{');
                        if brace {
                            ExprKind::Other("cell_index".into())
                        } else {
                            ExprKind::Apply {
                                name: self.text(n).to_string(),
                                args,
                            }
                        }
                    }
                    _ => ExprKind::Other("function_call".into()),
                }
            }
            "parenthesis" if named.len() == 1 => ExprKind::Paren(Box::new(self.expr(named[0]))),
            "matrix" => ExprKind::Matrix(
                named
                    .into_iter()
                    .filter(|r| r.kind() == "row")
                    .map(|r| self.named(r).into_iter().map(|x| self.expr(x)).collect())
                    .collect(),
            ),
            k => ExprKind::Other(k.to_string()),
        }
    }
}

impl Expr {
    /// Calls `f` on this expression and every subexpression, parents first.
    pub fn walk<'a>(&'a self, f: &mut dyn FnMut(&'a Expr)) {
        f(self);
        match &self.kind {
            ExprKind::Binary { lhs, rhs, .. } => {
                lhs.walk(f);
                rhs.walk(f);
            }
            ExprKind::Unary { operand, .. } | ExprKind::Postfix { operand, .. } => operand.walk(f),
            ExprKind::Paren(e) => e.walk(f),
            ExprKind::Range { start, step, stop } => {
                start.walk(f);
                if let Some(s) = step {
                    s.walk(f);
                }
                stop.walk(f);
            }
            ExprKind::Apply { args, .. } => args.iter().for_each(|a| a.walk(f)),
            ExprKind::Matrix(rows) => rows.iter().flatten().for_each(|a| a.walk(f)),
            _ => {}
        }
    }

    /// Strips redundant parentheses.
    pub fn unparen(&self) -> &Expr {
        match &self.kind {
            ExprKind::Paren(e) => e.unparen(),
            _ => self,
        }
    }
}

impl Stmt {
    /// Every expression directly in this statement (not in nested bodies).
    pub fn exprs(&self) -> Vec<&Expr> {
        match &self.kind {
            StmtKind::Assign { lhs, rhs, .. } => vec![lhs, rhs],
            StmtKind::Expr(e) => vec![e],
            StmtKind::For { iter, .. } => vec![iter],
            StmtKind::While { cond, .. } => vec![cond],
            StmtKind::If { clauses } => clauses.iter().filter_map(|c| c.0.as_ref()).collect(),
            _ => Vec::new(),
        }
    }

    /// Nested statement lists.
    pub fn bodies(&self) -> Vec<&[Stmt]> {
        match &self.kind {
            StmtKind::For { body, .. } | StmtKind::While { body, .. } => vec![body],
            StmtKind::If { clauses } => clauses.iter().map(|c| c.1.as_slice()).collect(),
            _ => Vec::new(),
        }
    }
}

/// Calls `f` on every statement of `body`, nested ones included, parents first.
pub fn walk_stmts<'a>(body: &'a [Stmt], f: &mut dyn FnMut(&'a Stmt)) {
    for s in body {
        f(s);
        for b in s.bodies() {
            walk_stmts(b, f);
        }
    }
}

/// A `.m` file's text. MATLAB files are often Latin-1 (comments with `é`, `°`); bytes that
/// are not UTF-8 are read as Latin-1, and [`SourceFile::encode`] writes text back the same way.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub text: String,
    pub latin1: bool,
}

impl SourceFile {
    pub fn read(path: &Path) -> std::io::Result<SourceFile> {
        let bytes = std::fs::read(path)?;
        Ok(match String::from_utf8(bytes) {
            Ok(text) => SourceFile {
                text,
                latin1: false,
            },
            Err(e) => SourceFile {
                text: e.into_bytes().iter().map(|&b| b as char).collect(),
                latin1: true,
            },
        })
    }

    /// `text` in this file's encoding (characters beyond Latin-1, which no pass writes,
    /// become `?`).
    pub fn encode(&self, text: &str) -> Vec<u8> {
        if self.latin1 {
            text.chars()
                .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
                .collect()
        } else {
            text.as_bytes().to_vec()
        }
    }
}
