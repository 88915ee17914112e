//! The instruction tree and instruction chain (000 §4.2, §4.5): Algorithm 1 (merging two
//! instruction blocks), Algorithm 2 (the minimal instruction tree) and the chain (§4.5.2).

use std::collections::BTreeSet;

use serde::Serialize;

use crate::ast::{Expr, ExprKind, Program};
use crate::classification::{operator_instruction, Classification, CompilationMode};
use crate::resolve::Names;

/// One call of a built-in or user-defined function (000 Listing 6.2's `Instruction`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Instruction {
    pub opcode: String,
    pub mode: CompilationMode,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "node", rename_all = "snake_case")]
pub enum NodeKind {
    /// Γ with its multiset of instructions, set of references and set of slices (§4.2).
    Block {
        instructions: Vec<Instruction>,
        references: BTreeSet<String>,
        slices: BTreeSet<String>,
    },
    /// □ array reference: no execution region of its own (§4.5.1 step 3).
    Reference { name: String },
    /// ■ array slice: a data copy that never merges (§4.5).
    Slice { text: String },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Node {
    pub kind: NodeKind,
    pub children: Vec<usize>,
    #[serde(skip)]
    pub parent: Option<usize>,
}

/// An instruction tree in an arena; `root` is `None` for an expression without instructions.
#[derive(Debug, Clone, Serialize)]
pub struct InstructionTree {
    pub nodes: Vec<Node>,
    pub root: Option<usize>,
}

/// How names in an expression resolve: variables (references or slices when indexed) versus
/// functions, and which functions are user-defined.
#[derive(Debug, Clone)]
pub struct Context<'a> {
    pub classification: &'a Classification,
    /// `None` for a bare expression: then a name applied to arguments is a function only when
    /// it is a known built-in or listed in `user_functions`.
    pub names: Option<&'a Names>,
    pub user_functions: BTreeSet<String>,
}

impl Context<'_> {
    fn is_variable(&self, name: &str) -> bool {
        match self.names {
            Some(names) => names.is_variable(name),
            None => !self.classification.is_builtin(name) && !self.user_functions.contains(name),
        }
    }

    fn instruction(&self, name: &str) -> Instruction {
        let user = self.user_functions.contains(name)
            || (self.names.is_some() && !self.classification.is_builtin(name));
        Instruction {
            opcode: name.to_string(),
            mode: self.classification.mode(name, user),
        }
    }
}

/// Block of one instruction, or a chain element.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ChainItem {
    Block {
        instructions: Vec<String>,
        /// A scalar-mode function shares the block with other instructions (§7.1.2).
        scalar_mode: bool,
    },
    Copy {
        slice: String,
    },
}

impl std::fmt::Display for ChainItem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChainItem::Block { instructions, .. } => write!(f, "{{{}}}", instructions.join(", ")),
            ChainItem::Copy { .. } => write!(f, "copy"),
        }
    }
}

/// The chain written as in 000 Fig. 4.9: `copy, copy, {.*}, {cos, ./}, {compute}, {+}`.
pub fn chain_string(chain: &[ChainItem]) -> String {
    chain
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl InstructionTree {
    /// Steps 2 and 3 of §4.5.1: AST to the maximal instruction tree, with reference leaves
    /// folded into their blocks.
    pub fn maximal(expr: &Expr, program_text: &str, cx: &Context) -> InstructionTree {
        let mut tree = InstructionTree {
            nodes: Vec::new(),
            root: None,
        };
        tree.root = tree.build(expr, program_text, cx);
        if let Some(root) = tree.root {
            tree.fold_references(root);
        }
        tree
    }

    /// Steps 2-4: the minimal instruction tree.
    pub fn minimal(expr: &Expr, program_text: &str, cx: &Context) -> InstructionTree {
        let mut tree = Self::maximal(expr, program_text, cx);
        if let Some(root) = tree.root {
            tree.build_minimal(root);
        }
        tree
    }

    fn push(&mut self, kind: NodeKind, children: Vec<usize>) -> usize {
        let id = self.nodes.len();
        for &c in &children {
            self.nodes[c].parent = Some(id);
        }
        self.nodes.push(Node {
            kind,
            children,
            parent: None,
        });
        id
    }

    fn block(&mut self, instruction: Instruction, children: Vec<usize>) -> usize {
        self.push(
            NodeKind::Block {
                instructions: vec![instruction],
                references: BTreeSet::new(),
                slices: BTreeSet::new(),
            },
            children,
        )
    }

    fn build(&mut self, e: &Expr, text: &str, cx: &Context) -> Option<usize> {
        let op_block = |tree: &mut Self, name: &str, args: Vec<&Expr>| {
            let children: Vec<usize> = args
                .into_iter()
                .filter_map(|a| tree.build(a, text, cx))
                .collect();
            let instruction = cx.instruction(name);
            Some(tree.block(instruction, children))
        };
        match &e.kind {
            ExprKind::Paren(inner) => self.build(inner, text, cx),
            ExprKind::Number(_) | ExprKind::Str | ExprKind::End | ExprKind::Colon => None,
            ExprKind::Ident(name) if cx.user_functions.contains(name) => {
                op_block(self, name, Vec::new())
            }
            ExprKind::Ident(name) if cx.names.is_some() && !cx.is_variable(name) => {
                op_block(self, name, Vec::new())
            }
            ExprKind::Ident(name) => {
                Some(self.push(NodeKind::Reference { name: name.clone() }, Vec::new()))
            }
            ExprKind::Apply { name, .. } if cx.is_variable(name) => Some(self.push(
                NodeKind::Slice {
                    text: text[e.span.start..e.span.end].to_string(),
                },
                Vec::new(),
            )),
            ExprKind::Apply { name, args } => op_block(self, name, args.iter().collect()),
            ExprKind::Binary { op, lhs, rhs } => {
                op_block(self, &operator_instruction(op, false), vec![lhs, rhs])
            }
            ExprKind::Unary { op, operand } => {
                op_block(self, &operator_instruction(op, true), vec![operand])
            }
            ExprKind::Postfix { op, operand } => op_block(self, op, vec![operand]),
            ExprKind::Range { start, step, stop } => {
                let mut parts = vec![start.as_ref()];
                parts.extend(step.as_deref());
                parts.push(stop);
                op_block(self, ":", parts)
            }
            ExprKind::Matrix(rows) => op_block(self, "[]", rows.iter().flatten().collect()),
            ExprKind::Other(_) => None,
        }
    }

    fn fold_references(&mut self, id: usize) {
        let children = self.nodes[id].children.clone();
        let mut kept = Vec::new();
        for c in children {
            if let NodeKind::Reference { name } = &self.nodes[c].kind {
                let name = name.clone();
                if let NodeKind::Block { references, .. } = &mut self.nodes[id].kind {
                    references.insert(name);
                    continue;
                }
            }
            if let NodeKind::Slice { text } = &self.nodes[c].kind {
                let text = text.clone();
                if let NodeKind::Block { slices, .. } = &mut self.nodes[id].kind {
                    slices.insert(text);
                }
            }
            self.fold_references(c);
            kept.push(c);
        }
        self.nodes[id].children = kept;
    }

    // 000 Algorithm 2, CANMERGE
    fn can_merge(&self, id: usize) -> bool {
        match &self.nodes[id].kind {
            NodeKind::Block { instructions, .. } => instructions
                .iter()
                .all(|i| i.mode == CompilationMode::Combinable),
            _ => false,
        }
    }

    fn has_right_sibling(&self, id: usize, parent: usize) -> bool {
        self.nodes[parent].children.last() != Some(&id)
    }

    // 000 Algorithm 2, BUILDMINIMALTREE: post-order, children right to left; a node merges into
    // its parent when both are combinable and it has no right sibling.
    fn build_minimal(&mut self, id: usize) {
        let reversed: Vec<usize> = self.nodes[id].children.iter().rev().copied().collect();
        for c in reversed {
            self.build_minimal(c);
        }
        let Some(parent) = self.nodes[id].parent else {
            return;
        };
        if self.can_merge(id) && self.can_merge(parent) && !self.has_right_sibling(id, parent) {
            self.merge_into_parent(id, parent);
        }
    }

    // 000 Algorithm 1 plus lines 10-12 of Algorithm 2 (children move to the parent's end,
    // which is where the merged node stood since it had no right sibling).
    fn merge_into_parent(&mut self, id: usize, parent: usize) {
        let node = std::mem::replace(
            &mut self.nodes[id].kind,
            NodeKind::Reference {
                name: String::new(),
            },
        );
        if let (
            NodeKind::Block {
                instructions: i2,
                references: r2,
                slices: s2,
            },
            NodeKind::Block {
                instructions,
                references,
                slices,
            },
        ) = (node, &mut self.nodes[parent].kind)
        {
            instructions.extend(i2); // multiset sum
            references.extend(r2);
            slices.extend(s2);
        }
        let children = std::mem::take(&mut self.nodes[id].children);
        self.nodes[parent].children.retain(|&c| c != id);
        for &c in &children {
            self.nodes[c].parent = Some(parent);
        }
        self.nodes[parent].children.extend(children);
        self.nodes[id].parent = None;
    }

    /// §4.5.2: the post-order flattening of the tree.
    pub fn chain(&self, cx: &Context) -> Vec<ChainItem> {
        let mut out = Vec::new();
        if let Some(root) = self.root {
            self.flatten(root, cx, &mut out);
        }
        out
    }

    fn flatten(&self, id: usize, cx: &Context, out: &mut Vec<ChainItem>) {
        for &c in &self.nodes[id].children {
            self.flatten(c, cx, out);
        }
        match &self.nodes[id].kind {
            NodeKind::Block { instructions, .. } => {
                let scalar_mode = instructions.len() > 1
                    && instructions
                        .iter()
                        .any(|i| cx.classification.forces_scalar_mode(&i.opcode));
                out.push(ChainItem::Block {
                    instructions: instructions.iter().map(|i| i.opcode.clone()).collect(),
                    scalar_mode,
                });
            }
            NodeKind::Slice { text } => out.push(ChainItem::Copy {
                slice: text.clone(),
            }),
            NodeKind::Reference { .. } => {}
        }
    }

    /// The tree drawn in ASCII, one node a line.
    pub fn ascii(&self) -> String {
        let mut out = String::new();
        if let Some(root) = self.root {
            self.draw(root, "", true, true, &mut out);
        }
        out
    }

    fn draw(&self, id: usize, prefix: &str, last: bool, top: bool, out: &mut String) {
        let label = match &self.nodes[id].kind {
            NodeKind::Block {
                instructions,
                references,
                ..
            } => {
                let ins: Vec<_> = instructions.iter().map(|i| i.opcode.as_str()).collect();
                let refs: Vec<_> = references.iter().map(String::as_str).collect();
                if refs.is_empty() {
                    format!("● {{{}}}", ins.join(", "))
                } else {
                    format!("● {{{}}}  refs: {}", ins.join(", "), refs.join(", "))
                }
            }
            NodeKind::Slice { text } => format!("■ copy {text}"),
            NodeKind::Reference { name } => format!("□ {name}"),
        };
        let branch = if top {
            ""
        } else if last {
            "└─ "
        } else {
            "├─ "
        };
        out.push_str(&format!("{prefix}{branch}{label}\n"));
        let child_prefix = if top {
            String::new()
        } else if last {
            format!("{prefix}   ")
        } else {
            format!("{prefix}│  ")
        };
        let n = self.nodes[id].children.len();
        for (k, &c) in self.nodes[id].children.iter().enumerate() {
            self.draw(c, &child_prefix, k + 1 == n, false, out);
        }
    }

    pub fn block_count(&self) -> usize {
        self.reachable()
            .iter()
            .filter(|&&i| matches!(self.nodes[i].kind, NodeKind::Block { .. }))
            .count()
    }

    fn reachable(&self) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack: Vec<usize> = self.root.into_iter().collect();
        while let Some(i) = stack.pop() {
            out.push(i);
            stack.extend(self.nodes[i].children.iter().copied());
        }
        out
    }
}

/// The model of one assignment in a file.
#[derive(Debug, Clone, Serialize)]
pub struct AssignmentModel {
    pub line: usize,
    pub statement: String,
    pub tree: String,
    pub chain: Vec<ChainItem>,
    pub chain_text: String,
}

/// Models every assignment of every scope in `program` (000 §4.1: expressions in assignments).
pub fn model_program(program: &Program, classification: &Classification) -> Vec<AssignmentModel> {
    let user: BTreeSet<String> = program.functions.iter().map(|f| f.name.clone()).collect();
    let mut out = Vec::new();
    for scope in program.scopes() {
        let names = Names::of_scope(&scope);
        let cx = Context {
            classification,
            names: Some(&names),
            user_functions: user.clone(),
        };
        crate::ast::walk_stmts(scope.body, &mut |s| {
            if let crate::ast::StmtKind::Assign { rhs, .. } = &s.kind {
                let tree = InstructionTree::minimal(rhs, &program.source, &cx);
                let chain = tree.chain(&cx);
                out.push(AssignmentModel {
                    line: s.span.line,
                    statement: program.text(s.span).trim_end_matches(';').to_string(),
                    tree: tree.ascii(),
                    chain_text: chain_string(&chain),
                    chain,
                });
            }
        });
    }
    out.sort_by_key(|m| m.line);
    out
}

/// Models one bare expression; `user_functions` names the user-defined functions in it.
pub fn model_expression(
    expression: &str,
    classification: &Classification,
    user_functions: &[String],
) -> Result<(InstructionTree, Vec<ChainItem>), crate::SyntaxError> {
    let source = format!("__metron_expr = {expression};\n");
    const WRAPPER: usize = "__metron_expr = ".len();
    let program =
        crate::parse(&source, std::path::Path::new("<expression>")).map_err(|mut e| {
            e.column = e.column.saturating_sub(WRAPPER).max(1);
            e
        })?;
    let cx = Context {
        classification,
        names: None,
        user_functions: user_functions.iter().cloned().collect(),
    };
    let rhs = program.statements.first().and_then(|s| match &s.kind {
        crate::ast::StmtKind::Assign { rhs, .. } => Some(rhs),
        _ => None,
    });
    let Some(rhs) = rhs else {
        return Err(crate::SyntaxError {
            file: "<expression>".into(),
            line: 1,
            column: 1,
            found: expression.to_string(),
            expected: "one MATLAB expression".into(),
        });
    };
    let tree = InstructionTree::minimal(rhs, &program.source, &cx);
    let chain = tree.chain(&cx);
    Ok((tree, chain))
}
