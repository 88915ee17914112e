//! A small recursive-descent parser for affine expressions, bounds and conditions, so that
//! callers and tests can write nests the way the source reads (`min(6 - i, 3)`, `j % 4 != 0`).

use crate::error::Error;
use crate::nest::{AffineExpr, Bound, CmpOp, Condition};

pub(crate) struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Parser<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Parser { text, pos: 0 }
    }

    fn error(&self, expected: &str) -> Error {
        Error::Parse {
            input: self.text.to_string(),
            column: self.pos + 1,
            expected: expected.to_string(),
        }
    }

    fn skip_ws(&mut self) {
        while let Some(c) = self.rest().chars().next().filter(|c| c.is_whitespace()) {
            self.pos += c.len_utf8();
        }
    }

    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_ws();
        if self.rest().starts_with(token) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    pub(crate) fn end(&mut self) -> Result<(), Error> {
        self.skip_ws();
        if self.rest().is_empty() {
            Ok(())
        } else {
            Err(self.error("end of input"))
        }
    }

    fn integer(&mut self) -> Result<Option<i64>, Error> {
        self.skip_ws();
        let len = self
            .rest()
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if len == 0 {
            return Ok(None);
        }
        let v = self.rest()[..len]
            .parse::<i64>()
            .map_err(|_| self.error("an integer that fits in 64 bits"))?;
        self.pos += len;
        Ok(Some(v))
    }

    fn identifier(&mut self) -> Option<&'a str> {
        self.skip_ws();
        let rest = self.rest();
        let len = rest
            .char_indices()
            .take_while(|(i, c)| {
                c.is_ascii_alphabetic() || *c == '_' || (*i > 0 && c.is_ascii_digit())
            })
            .count();
        if len == 0 {
            return None;
        }
        self.pos += len;
        Some(&rest[..len])
    }

    pub(crate) fn affine(&mut self) -> Result<AffineExpr, Error> {
        let mut e = self.term()?;
        loop {
            if self.eat("+") {
                e = e.plus_scaled(&self.term()?, 1)?;
            } else if self.eat("-") {
                e = e.plus_scaled(&self.term()?, -1)?;
            } else {
                return Ok(e);
            }
        }
    }

    fn term(&mut self) -> Result<AffineExpr, Error> {
        let negative = self.eat("-");
        let mut e = self.factor()?;
        while self.eat("*") {
            let rhs = self.factor()?;
            e = if rhs.terms.is_empty() {
                AffineExpr::constant(0).plus_scaled(&e, rhs.constant)?
            } else if e.terms.is_empty() {
                AffineExpr::constant(0).plus_scaled(&rhs, e.constant)?
            } else {
                return Err(self.error("an affine expression (a product needs a constant factor)"));
            };
        }
        if negative {
            e = AffineExpr::constant(0).plus_scaled(&e, -1)?;
        }
        Ok(e)
    }

    fn factor(&mut self) -> Result<AffineExpr, Error> {
        if let Some(v) = self.integer()? {
            return Ok(AffineExpr::constant(v));
        }
        if self.eat("(") {
            let e = self.affine()?;
            if !self.eat(")") {
                return Err(self.error("`)`"));
            }
            return Ok(e);
        }
        match self.identifier() {
            Some(name) => Ok(AffineExpr::var(name)),
            None => Err(self.error("an integer, a name or `(`")),
        }
    }

    pub(crate) fn bound(&mut self) -> Result<Bound, Error> {
        let save = self.pos;
        let kind = self.identifier();
        if matches!(kind, Some("max") | Some("min")) && self.eat("(") {
            let mut exprs = vec![self.affine()?];
            while self.eat(",") {
                exprs.push(self.affine()?);
            }
            if !self.eat(")") {
                return Err(self.error("`,` or `)`"));
            }
            return Ok(if kind == Some("max") {
                Bound::Max(exprs)
            } else {
                Bound::Min(exprs)
            });
        }
        self.pos = save;
        Ok(Bound::single(self.affine()?))
    }

    pub(crate) fn condition(&mut self) -> Result<Condition, Error> {
        let lhs = self.affine()?;
        if self.eat("%") {
            let modulus = self
                .integer()?
                .ok_or_else(|| self.error("a positive integer modulus"))?;
            let negated = if self.eat("==") {
                false
            } else if self.eat("!=") {
                true
            } else {
                return Err(self.error("`==` or `!=` after the modulus"));
            };
            let neg = self.eat("-");
            let residue = self
                .integer()?
                .ok_or_else(|| self.error("an integer residue"))?;
            return Ok(Condition::Modulo {
                expr: lhs,
                modulus,
                residue: if neg { -residue } else { residue },
                negated,
            });
        }
        let ops = [
            ("<=", CmpOp::Le),
            (">=", CmpOp::Ge),
            ("==", CmpOp::Eq),
            ("!=", CmpOp::Ne),
            ("<", CmpOp::Lt),
            (">", CmpOp::Gt),
        ];
        for (tok, op) in ops {
            if self.eat(tok) {
                let rhs = self.affine()?;
                return Ok(Condition::Affine { lhs, op, rhs });
            }
        }
        Err(self.error("a comparison (<, <=, >, >=, ==, !=) or `%`"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_affine_forms() {
        let e = AffineExpr::parse("2*i + 3 - (n - 1)*4 - j").unwrap();
        assert_eq!(e.terms.get("i"), Some(&2));
        assert_eq!(e.terms.get("n"), Some(&-4));
        assert_eq!(e.terms.get("j"), Some(&-1));
        assert_eq!(e.constant, 7);
        assert!(AffineExpr::parse("i*j").is_err());
        let err = AffineExpr::parse("i + ").unwrap_err().to_string();
        assert!(err.contains("column"), "{err}");
        // multi-byte whitespace and stray characters are errors or spaces, never panics
        assert_eq!(AffineExpr::parse("n\u{a0}+ 1").unwrap().constant, 1);
        assert!(AffineExpr::parse("n + é").is_err());
    }

    #[test]
    fn parses_bounds_and_conditions() {
        assert_eq!(
            Bound::parse("min(6 - i, 3)").unwrap(),
            Bound::Min(vec![
                AffineExpr::parse("6 - i").unwrap(),
                AffineExpr::constant(3)
            ])
        );
        assert_eq!(
            Bound::parse("maxi").unwrap(),
            Bound::single(AffineExpr::var("maxi"))
        );
        assert!(matches!(
            Condition::parse("j % 4 != 0").unwrap(),
            Condition::Modulo {
                modulus: 4,
                residue: 0,
                negated: true,
                ..
            }
        ));
        assert!(matches!(
            Condition::parse("j > 4").unwrap(),
            Condition::Affine { op: CmpOp::Gt, .. }
        ));
    }
}
