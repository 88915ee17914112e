//! Branches on loop indices (issue 13): a conditional branch whose condition is an affine
//! comparison (`j <= i`), or a remainder test (`i % 3 == 0`, `switch (i % 4)`), of loop
//! iteration numbers and arguments is no choice for the branch policy. Each arm gets the
//! condition under which it runs, and metron-symbolic counts the points of the nest where the
//! conditions hold, exactly (as it does for metron static, 004 §III.C.3). Conditions on data
//! (no scalar evolution) keep the policy, annotations and profiles.

use std::collections::BTreeMap;

use metron_symbolic::{CmpOp, Condition};

use crate::ir::{split_top, Function, Inst, Instruction};
use crate::scev::Affine;

/// A condition on loop iteration numbers (`k_L`) and arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IndexCondition {
    Affine {
        lhs: Affine,
        op: CmpOp,
        rhs: Affine,
    },
    /// `expr % modulus == residue` (`!=` when negated); C's `%` agrees for `expr >= 0`.
    Modulo {
        expr: Affine,
        modulus: i64,
        residue: i64,
        negated: bool,
    },
}

impl IndexCondition {
    pub fn map(&self, mut f: impl FnMut(&Affine) -> Affine) -> IndexCondition {
        match self {
            IndexCondition::Affine { lhs, op, rhs } => {
                let lhs = f(lhs);
                IndexCondition::Affine {
                    lhs,
                    op: *op,
                    rhs: f(rhs),
                }
            }
            IndexCondition::Modulo {
                expr,
                modulus,
                residue,
                negated,
            } => IndexCondition::Modulo {
                expr: f(expr),
                modulus: *modulus,
                residue: *residue,
                negated: *negated,
            },
        }
    }

    pub fn negate(&self) -> IndexCondition {
        match self.clone() {
            IndexCondition::Affine { lhs, op, rhs } => IndexCondition::Affine {
                lhs,
                op: op.negated(),
                rhs,
            },
            IndexCondition::Modulo {
                expr,
                modulus,
                residue,
                negated,
            } => IndexCondition::Modulo {
                expr,
                modulus,
                residue,
                negated: !negated,
            },
        }
    }

    pub fn to_symbolic(&self) -> Condition {
        match self {
            IndexCondition::Affine { lhs, op, rhs } => Condition::Affine {
                lhs: lhs.to_symbolic(),
                op: *op,
                rhs: rhs.to_symbolic(),
            },
            IndexCondition::Modulo {
                expr,
                modulus,
                residue,
                negated,
            } => Condition::Modulo {
                expr: expr.to_symbolic(),
                modulus: *modulus,
                residue: *residue,
                negated: *negated,
            },
        }
    }

    pub fn from_symbolic(c: &Condition) -> IndexCondition {
        match c {
            Condition::Affine { lhs, op, rhs } => IndexCondition::Affine {
                lhs: Affine::from_symbolic(lhs),
                op: *op,
                rhs: Affine::from_symbolic(rhs),
            },
            Condition::Modulo {
                expr,
                modulus,
                residue,
                negated,
            } => IndexCondition::Modulo {
                expr: Affine::from_symbolic(expr),
                modulus: *modulus,
                residue: *residue,
                negated: *negated,
            },
        }
    }
}

impl std::fmt::Display for IndexCondition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IndexCondition::Affine { lhs, op, rhs } => write!(f, "{lhs} {} {rhs}", op.symbol()),
            IndexCondition::Modulo {
                expr,
                modulus,
                residue,
                negated,
            } => write!(
                f,
                "({expr}) % {modulus} {} {residue}",
                if *negated { "!=" } else { "==" }
            ),
        }
    }
}

/// `icmp` predicates as mathematical comparisons: signed and unsigned alike, since the
/// compared indices and sizes are non-negative.
fn predicate(p: &str) -> Option<CmpOp> {
    Some(match p {
        "eq" => CmpOp::Eq,
        "ne" => CmpOp::Ne,
        "slt" | "ult" => CmpOp::Lt,
        "sle" | "ule" => CmpOp::Le,
        "sgt" | "ugt" => CmpOp::Gt,
        "sge" | "uge" => CmpOp::Ge,
        _ => return None,
    })
}

/// An integer operand of a comparison: affine, or `x % m` of an affine `x`.
enum Operand {
    Aff(Affine),
    Rem(Affine, i64),
}

/// What is known of the SSA values of one function.
pub struct Values<'a> {
    defs: BTreeMap<&'a str, &'a Instruction>,
    /// An integer value (`%x`, `7`) as an affine form, when scalar evolution gives one.
    affine: &'a dyn Fn(&str) -> Option<Affine>,
    /// An integer value as a max of mins of affine forms (`MAX(i, j)`), when it is one.
    bound: Option<&'a BoundOf<'a>>,
}

/// An integer value as a max of mins, when it is one.
pub type BoundOf<'a> = dyn Fn(&str) -> Option<metron_symbolic::MaxOfMins> + 'a;

impl<'a> Values<'a> {
    pub fn new(f: &'a Function, affine: &'a dyn Fn(&str) -> Option<Affine>) -> Values<'a> {
        let defs = f
            .blocks
            .iter()
            .flat_map(|b| b.insts.iter())
            .filter_map(|i| i.result.as_deref().map(|r| (r, i)))
            .collect();
        Values {
            defs,
            affine,
            bound: None,
        }
    }

    /// Also reads comparisons of max/min values (`MAX(i, j) > i - 1`), which are decided when
    /// one side's extreme settles them for every point (`max(1, j - i + 1) > 0`).
    pub fn with_bounds(mut self, bound: &'a BoundOf<'a>) -> Self {
        self.bound = Some(bound);
        self
    }

    fn max_of_mins(&self, typed: &str) -> Option<metron_symbolic::MaxOfMins> {
        let v = typed.split_whitespace().last()?;
        if let Some(a) = self.value(v, 0) {
            return Some(metron_symbolic::MaxOfMins::affine(a.to_symbolic()));
        }
        (self.bound?)(v)
    }

    /// `a OP b` for max/min operands when it holds everywhere or nowhere: with
    /// `d = a - b = max_i min_j d_ij` (normal form), a term that is one constant satisfying
    /// `d OP 0` makes it always true; every term holding a constant that fails makes it
    /// always false.
    fn decided(&self, a: &str, op: CmpOp, b: &str) -> Option<bool> {
        let (x, y) = (self.max_of_mins(a)?, self.max_of_mins(b)?);
        let (d, op) = match op {
            CmpOp::Gt | CmpOp::Ge => (x.add(&y.scale(-1).ok()?).ok()?, op),
            CmpOp::Lt => (y.add(&x.scale(-1).ok()?).ok()?, CmpOp::Gt),
            CmpOp::Le => (y.add(&x.scale(-1).ok()?).ok()?, CmpOp::Ge),
            _ => return None,
        };
        let constant = |e: &metron_symbolic::AffineExpr| e.terms.is_empty().then_some(e.constant);
        if d.0
            .iter()
            .any(|t| t.len() == 1 && constant(&t[0]).is_some_and(|c| op.holds(c, 0)))
        {
            return Some(true);
        }
        d.0.iter()
            .all(|t| {
                t.iter()
                    .any(|e| constant(e).is_some_and(|c| !op.holds(c, 0)))
            })
            .then_some(false)
    }

    fn def(&self, v: &str) -> Option<&'a Instruction> {
        self.defs
            .get(v.trim_start_matches('%').trim_matches('"'))
            .copied()
    }

    /// `(opcode, operands)` of the instruction defining `v`, flags and types dropped.
    fn op_of(&self, v: &str) -> Option<(String, Vec<String>)> {
        let i = self.def(v)?;
        let rhs = i.text.split_once(" = ")?.1.trim();
        let (op, rest) = rhs.split_once(' ')?;
        Some((op.to_string(), split_top(rest)))
    }

    fn operand(&self, typed: &str) -> Option<Operand> {
        let v = typed.split_whitespace().last()?;
        if let Some((op, args)) = self.op_of(v) {
            if op == "srem" || op == "urem" {
                let x = args.first()?.split_whitespace().last()?.to_string();
                let m: i64 = args.get(1)?.trim().parse().ok()?;
                return (m > 0).then_some(Operand::Rem((self.affine)(&x)?, m));
            }
        }
        self.value(v, 0).map(Operand::Aff)
    }

    /// An integer value as an affine form: scalar evolution's, or, for a `phi` at the join of
    /// a `?:` whose arms are the same form (`MIN(n + 1, n + 1)`), that form (SCEV leaves
    /// such phis unknown).
    fn value(&self, v: &str, depth: usize) -> Option<Affine> {
        if let Some(a) = (self.affine)(v) {
            return Some(a);
        }
        let (op, args) = self.op_of(v)?;
        if op != "phi" || depth > 4 {
            return None;
        }
        // `phi i32 [ %a, %x ], [ %b, %y ]`
        let mut forms = args.iter().map(|part| {
            let inner = part.split_once('[')?.1.trim_end().trim_end_matches(']');
            let value = split_top(inner).first()?.clone();
            self.value(&value, depth + 1)
        });
        let first = forms.next()??;
        forms.all(|f| f.as_ref() == Some(&first)).then_some(first)
    }

    /// The condition that the `i1` value `v` is true.
    fn truth(&self, v: &str, depth: usize) -> Option<IndexCondition> {
        if depth > 8 {
            return None;
        }
        let (op, args) = self.op_of(v)?;
        if op == "xor" {
            // `!c` is `xor i1 %c, true`.
            let c = args.first()?.split_whitespace().last()?.to_string();
            if args.get(1).map(|s| s.trim()) == Some("true") {
                return Some(self.truth(&c, depth + 1)?.negate());
            }
            return None;
        }
        if op != "icmp" {
            return None;
        }
        // `icmp PRED TYPE A, B`: the first operand carries predicate and type.
        let mut words = args.first()?.split_whitespace();
        let pred = predicate(words.next()?)?;
        let ty = words.next()?;
        let a = format!("{ty} {}", words.next()?);
        let b = args.get(1)?;
        if let (Some(x), Some(y)) = (self.operand(&a), self.operand(b)) {
            if let Some(c) = comparison(x, pred, y) {
                return Some(c);
            }
        }
        let holds = self.decided(&a, pred, b)?;
        Some(IndexCondition::Affine {
            lhs: Affine::constant(0),
            op: if holds { CmpOp::Eq } else { CmpOp::Ne },
            rhs: Affine::constant(0),
        })
    }
}

fn comparison(a: Operand, op: CmpOp, b: Operand) -> Option<IndexCondition> {
    let modulo = |x: Affine, m: i64, r: Option<i64>, op: CmpOp| {
        let residue = r.filter(|r| (0..m).contains(r))?;
        let negated = match op {
            CmpOp::Eq => false,
            CmpOp::Ne => true,
            _ => return None,
        };
        Some(IndexCondition::Modulo {
            expr: x,
            modulus: m,
            residue,
            negated,
        })
    };
    match (a, b) {
        (Operand::Aff(lhs), Operand::Aff(rhs)) => Some(IndexCondition::Affine { lhs, op, rhs }),
        (Operand::Rem(x, m), Operand::Aff(c)) | (Operand::Aff(c), Operand::Rem(x, m)) => {
            modulo(x, m, c.as_constant(), op)
        }
        _ => None,
    }
}

/// The conditions under which each successor of the terminator of `block` is taken, by
/// successor label; `None` when the branch depends on data (or a `switch` sends several
/// values to one target, a disjunction).
pub fn successor_conditions(
    values: &Values,
    term: &Instruction,
) -> Option<BTreeMap<String, Vec<IndexCondition>>> {
    let Inst::Br { targets } = &term.kind else {
        return None;
    };
    let text = term.text.trim();
    if let Some(rest) = text.strip_prefix("br ") {
        if targets.len() != 2 {
            return None;
        }
        let cond = split_top(rest)
            .first()?
            .split_whitespace()
            .last()?
            .to_string();
        // A condition folded to a constant (`MIN(a, a)`'s `a < a`) is a condition too.
        let constant = |holds: bool| IndexCondition::Affine {
            lhs: Affine::constant(0),
            op: if holds { CmpOp::Eq } else { CmpOp::Ne },
            rhs: Affine::constant(0),
        };
        let c = match cond.as_str() {
            "true" => constant(true),
            "false" => constant(false),
            _ => values.truth(&cond, 0)?,
        };
        return Some(BTreeMap::from([
            (targets[0].clone(), vec![c.clone()]),
            (targets[1].clone(), vec![c.negate()]),
        ]));
    }
    let rest = text.strip_prefix("switch ")?;
    let (head, table) = rest.split_once('[')?;
    let parts = split_top(head);
    let x = values.operand(parts.first()?)?;
    let default = targets.first()?.clone();
    let mut out: BTreeMap<String, Vec<IndexCondition>> = BTreeMap::new();
    let mut others = Vec::new();
    let table = table.rsplit_once(']').map(|(t, _)| t).unwrap_or(table);
    let words: Vec<&str> = table.split_whitespace().collect();
    // `i32 0, label %a  i32 1, label %b`: type, value, `label`, target.
    for case in words.chunks(4) {
        let [_, value, _, target] = case else {
            return None;
        };
        let v: i64 = value.trim_end_matches(',').parse().ok()?;
        let target = target.trim_start_matches('%').trim_matches('"').to_string();
        let eq = match &x {
            Operand::Aff(a) => comparison(
                Operand::Aff(a.clone()),
                CmpOp::Eq,
                Operand::Aff(Affine::constant(v)),
            )?,
            Operand::Rem(a, m) => comparison(
                Operand::Rem(a.clone(), *m),
                CmpOp::Eq,
                Operand::Aff(Affine::constant(v)),
            )?,
        };
        if target == default || out.contains_key(&target) {
            return None;
        }
        others.push(eq.negate());
        out.insert(target, vec![eq]);
    }
    out.insert(default, others);
    Some(out)
}

/// `c ? x : y` where `c` compares `x` with `y` (the `MAX`/`MIN` macros, `a > b ? a : b`): the
/// join's phi (or the select) is `(x smax y)` or `(x smin y)`, written as SCEV text for the
/// value so that bounds and guards using it are read like LLVM's own `smax` (scalar evolution
/// leaves such phis unknown). `same(a, x)` says whether two operands are the same integer.
pub fn conditional_extremes(
    f: &Function,
    same: &dyn Fn(&str, &str) -> bool,
) -> BTreeMap<String, String> {
    let values = Values::new(f, &|_| None);
    let mut branches: BTreeMap<(String, String), String> = BTreeMap::new();
    for b in &f.blocks {
        let Some(t) = b.insts.last() else { continue };
        if let (Inst::Br { targets }, Some(rest)) = (&t.kind, t.text.trim().strip_prefix("br i1 "))
        {
            if let ([x, y], Some(c)) = (targets.as_slice(), rest.split(',').next()) {
                branches.insert((x.clone(), y.clone()), c.trim().to_string());
            }
        }
    }
    let word = |s: &str| s.split_whitespace().last().unwrap_or("").to_string();
    let mut out = BTreeMap::new();
    for i in f.blocks.iter().flat_map(|b| b.insts.iter()) {
        let Some(r) = &i.result else { continue };
        let rhs = i.text.split_once(" = ").map(|x| x.1.trim()).unwrap_or("");
        let (cond, x, y) = if let Some(p) = rhs.strip_prefix("phi ") {
            let incoming: Vec<(String, String)> = split_top(p.split_once(' ').map_or("", |x| x.1))
                .iter()
                .filter_map(|part| {
                    let inner = part.split_once('[')?.1.trim_end().trim_end_matches(']');
                    let v = split_top(inner);
                    Some((
                        v.first()?.trim().to_string(),
                        v.get(1)?.trim().trim_start_matches('%').to_string(),
                    ))
                })
                .collect();
            let [(x, bx), (y, by)] = incoming.as_slice() else {
                continue;
            };
            match (
                branches.get(&(bx.clone(), by.clone())),
                branches.get(&(by.clone(), bx.clone())),
            ) {
                (Some(c), _) => (c.clone(), x.clone(), y.clone()),
                (_, Some(c)) => (c.clone(), y.clone(), x.clone()),
                _ => continue,
            }
        } else if let Some(p) = rhs.strip_prefix("select ") {
            let parts = split_top(p);
            let [c, x, y] = parts.as_slice() else {
                continue;
            };
            (word(c), word(x), word(y))
        } else {
            continue;
        };
        let Some((op, args)) = values.op_of(&cond) else {
            continue;
        };
        let mut words = args
            .first()
            .map(|a| a.split_whitespace())
            .into_iter()
            .flatten();
        let (Some(pred), _, Some(a)) = (words.next(), words.next(), words.next()) else {
            continue;
        };
        let (Some(p), Some(b)) = (predicate(pred), args.get(1).map(|b| word(b))) else {
            continue;
        };
        if op != "icmp" {
            continue;
        }
        let larger_first = matches!(p, CmpOp::Gt | CmpOp::Ge);
        let smaller_first = matches!(p, CmpOp::Lt | CmpOp::Le);
        let ext = if same(a, &x) && same(&b, &y) {
            (larger_first, smaller_first)
        } else if same(a, &y) && same(&b, &x) {
            (smaller_first, larger_first)
        } else {
            continue;
        };
        let name = match ext {
            (true, _) => "smax",
            (_, true) => "smin",
            _ => continue,
        };
        out.insert(r.clone(), format!("({x} {name} {y})"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_module;

    #[test]
    fn switch_on_a_remainder() {
        let ir = "define void @sw(i32 %n) {\nfor.body:\n  %indvars.iv = phi i64 [ 0, %x ], [ 1, %y ]\n  %0 = trunc i64 %indvars.iv to i32\n  %rem.urem = urem i32 %0, 4\n  switch i32 %rem.urem, label %sw.default [\n    i32 0, label %sw.bb\n    i32 1, label %sw.bb1\n  ], !dbg !90\nsw.bb:\n  ret void\nsw.bb1:\n  ret void\nsw.default:\n  ret void\n}\n";
        let m = parse_module(ir, "t.ll").unwrap();
        let f = &m.functions[0];
        let aff = |v: &str| (v == "%0").then(|| Affine::symbol("k"));
        let values = Values::new(f, &aff);
        let c = successor_conditions(&values, f.blocks[0].insts.last().unwrap()).unwrap();
        let text: Vec<String> = c
            .iter()
            .map(|(t, v)| {
                format!(
                    "{t}: {}",
                    v.iter()
                        .map(|x| x.to_string())
                        .collect::<Vec<_>>()
                        .join(" and ")
                )
            })
            .collect();
        assert_eq!(
            text,
            vec![
                "sw.bb: (k) % 4 == 0",
                "sw.bb1: (k) % 4 == 1",
                "sw.default: (k) % 4 != 0 and (k) % 4 != 1"
            ]
        );
    }
}
