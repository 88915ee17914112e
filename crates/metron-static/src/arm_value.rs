//! Which block of a `?:` computes which arm, from what the blocks compute rather than from
//! where they are laid out. A `MIN`/`MAX` macro's parts all carry the macro's position, so
//! columns cannot tell its arms apart; gcc -O0 usually lets the then arm fall through, but it
//! canonicalises some conditions (`n < i + 2` to `n <= i + 1`, jumping to the then arm) and
//! lays the else arm out first. At -O0 an arm's block evaluates its expression with one
//! instruction per load or operation, so an arm that is a bare variable (`n`) takes fewer
//! instructions than one with arithmetic (`i + 2`): when the layout's guess gives the
//! simpler expression the longer block, the guess is the wrong way round.

use metron_symbolic::AffineExpr;

use crate::binary::Instruction;

/// Loads and operations -O0 code spends on `e`: a load per variable, an operation per extra
/// term, per coefficient other than 1 and for a constant added to variables.
fn cost(e: &AffineExpr) -> usize {
    let vars = e.terms.values().filter(|&&c| c != 0).count();
    let scaled = e.terms.values().filter(|&&c| c != 0 && c != 1).count();
    let added = usize::from(vars > 0 && e.constant != 0);
    vars.max(1) + vars.saturating_sub(1) + scaled + added
}

/// Instructions of an arm's block that compute its value (a closing `jmp` to the join
/// is layout, not value).
fn computing(block: &[Instruction]) -> usize {
    let jumps = block
        .last()
        .is_some_and(|i| i.flow == iced_x86::FlowControl::UnconditionalBranch);
    block.len() - usize::from(jumps)
}

/// Whether the blocks guessed as (then, else) compute (else, then) instead: their sizes
/// order the opposite way to the costs of the arms' expressions.
pub fn swapped(
    (then_expr, else_expr): (&AffineExpr, &AffineExpr),
    (then_block, else_block): (&[Instruction], &[Instruction]),
) -> bool {
    let (ct, ce) = (cost(then_expr), cost(else_expr));
    let (st, se) = (computing(then_block), computing(else_block));
    (ct < ce && st > se) || (ct > ce && st < se)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn costs_order_expressions_by_the_work_o0_code_does() {
        let e = |s: &str| AffineExpr::parse(s).unwrap();
        assert_eq!(cost(&e("n")), 1);
        assert_eq!(cost(&e("7")), 1);
        assert_eq!(cost(&e("i + 2")), 2);
        assert_eq!(cost(&e("i + j")), 3);
        assert_eq!(cost(&e("2*i - 1")), 3);
    }
}
