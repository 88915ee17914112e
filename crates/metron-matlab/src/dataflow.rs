//! Reaching definitions and def-use chains over the structured AST (000 §6.3, after Cetus):
//! `if` joins its branches, loops iterate to a fixpoint around the back edge.

use std::collections::{BTreeMap, BTreeSet};

use crate::ast::{ExprKind, Scope, Stmt, StmtKind};

/// A definition: the byte offset of the defining statement (or the function header for
/// parameters) and the variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Def {
    pub at: usize,
}

pub type State = BTreeMap<String, BTreeSet<Def>>;

#[derive(Debug, Clone, Default)]
pub struct ReachingDefinitions {
    /// The definitions reaching the start of each statement (keyed by its start byte).
    pub before: BTreeMap<usize, State>,
    /// Variables each definition writes.
    pub defines: BTreeMap<Def, Vec<String>>,
}

impl ReachingDefinitions {
    pub fn of_scope(scope: &Scope) -> ReachingDefinitions {
        let mut rd = ReachingDefinitions::default();
        let mut entry = State::new();
        if let Some(f) = scope.function {
            let def = Def { at: f.span.start };
            for p in &f.params {
                entry.entry(p.clone()).or_default().insert(def);
            }
            rd.defines.insert(def, f.params.clone());
        }
        rd.block(scope.body, entry);
        rd
    }

    /// Definitions of `var` reaching the statement starting at byte `stmt`.
    pub fn reaching(&self, stmt: usize, var: &str) -> BTreeSet<Def> {
        self.before
            .get(&stmt)
            .and_then(|s| s.get(var))
            .cloned()
            .unwrap_or_default()
    }

    fn block(&mut self, body: &[Stmt], mut state: State) -> State {
        for s in body {
            state = self.stmt(s, state);
        }
        state
    }

    fn record(&mut self, s: &Stmt, state: &State) {
        let slot = self.before.entry(s.span.start).or_default();
        for (var, defs) in state {
            slot.entry(var.clone())
                .or_default()
                .extend(defs.iter().copied());
        }
    }

    fn stmt(&mut self, s: &Stmt, mut state: State) -> State {
        self.record(s, &state);
        let def = Def { at: s.span.start };
        match &s.kind {
            StmtKind::Assign { lhs, multi, .. } => {
                let mut vars = multi.clone();
                match &lhs.unparen().kind {
                    // A whole-variable assignment kills earlier definitions.
                    ExprKind::Ident(n) => {
                        state.insert(n.clone(), BTreeSet::new());
                        vars.push(n.clone());
                    }
                    // An element assignment adds to them (the rest of the array survives).
                    ExprKind::Apply { name, .. } => vars.push(name.clone()),
                    _ => {}
                }
                for m in multi {
                    state.insert(m.clone(), BTreeSet::new());
                }
                for v in &vars {
                    state.entry(v.clone()).or_default().insert(def);
                }
                self.defines.insert(def, vars);
                state
            }
            StmtKind::Declare { names } => {
                for n in names {
                    state.entry(n.clone()).or_default().insert(def);
                }
                self.defines.insert(def, names.clone());
                state
            }
            StmtKind::If { clauses } => {
                let has_else = clauses.iter().any(|c| c.0.is_none());
                let mut out = if has_else {
                    State::new()
                } else {
                    state.clone()
                };
                for (_, body) in clauses {
                    join(&mut out, &self.block(body, state.clone()));
                }
                out
            }
            StmtKind::For { var, body, .. } => {
                self.defines.insert(def, vec![var.clone()]);
                self.looping(state, body, Some((var, def)))
            }
            StmtKind::While { body, .. } => self.looping(state, body, None),
            _ => state,
        }
    }

    fn looping(&mut self, entry: State, body: &[Stmt], var: Option<(&String, Def)>) -> State {
        let mut head = entry.clone();
        loop {
            let mut inside = head.clone();
            if let Some((v, d)) = var {
                inside.insert(v.clone(), [d].into_iter().collect());
            }
            let out = self.block(body, inside);
            let mut next = entry.clone();
            join(&mut next, &out);
            if next == head {
                // The loop may run zero times: its exit sees the entry and the body's end.
                let mut exit = head;
                if let Some((v, d)) = var {
                    exit.entry(v.clone()).or_default().insert(d);
                }
                return exit;
            }
            head = next;
        }
    }
}

fn join(into: &mut State, other: &State) {
    for (var, defs) in other {
        into.entry(var.clone())
            .or_default()
            .extend(defs.iter().copied());
    }
}
