//! Execution regions (000 §3.4): a binary predicate φ(t): T → {0, 1} over the samples of a
//! profile group, and the maximal runs of samples where it holds. Predicates compose
//! (`&&`, `||`, `!`) and are written as text on the command line, e.g. Eq. 3.2:
//!
//! ```text
//! LOADS > 0 && STORES > 0 && ratio(LOADS, STORES) ~ 1 +- 0.1
//! ```
//!
//! Atoms look at one sample i: `EV` is Δ(EV, i), `rate(EV)` is Δ(EV, i)/Δ(T, i), `ratio(A, B)`
//! is Δ(A, i)/Δ(B, i); `before_first(EV)` holds until the first sample where EV counts and
//! `from_first(EV)` from it on (the proxy profile of §3.5).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::profile::ProfileGroup;
use crate::PepError;

/// A per-sample quantity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Quantity {
    Delta { event: String },
    Rate { event: String },
    Ratio { num: String, den: String },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Cmp {
    Gt,
    Ge,
    Lt,
    Le,
    Eq,
}

/// φ: a composable region predicate (000 §3.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Predicate {
    Compare {
        q: Quantity,
        cmp: Cmp,
        value: f64,
    },
    /// |q − target| ≤ tol.
    Approx {
        q: Quantity,
        target: f64,
        tol: f64,
    },
    BeforeFirst {
        event: String,
    },
    FromFirst {
        event: String,
    },
    And {
        all: Vec<Predicate>,
    },
    Or {
        any: Vec<Predicate>,
    },
    Not {
        not: Box<Predicate>,
    },
}

impl Predicate {
    /// The data-copy region of 000 Eq. 3.2: loads > 0 ∧ stores > 0 ∧ loads/stores ≈ 1.
    pub fn data_copy(loads: &str, stores: &str, tol: f64) -> Predicate {
        let d = |e: &str| Quantity::Delta { event: e.into() };
        Predicate::And {
            all: vec![
                Predicate::Compare {
                    q: d(loads),
                    cmp: Cmp::Gt,
                    value: 0.0,
                },
                Predicate::Compare {
                    q: d(stores),
                    cmp: Cmp::Gt,
                    value: 0.0,
                },
                Predicate::Approx {
                    q: Quantity::Ratio {
                        num: loads.into(),
                        den: stores.into(),
                    },
                    target: 1.0,
                    tol,
                },
            ],
        }
    }

    /// φ(t_i) for every sample i of `g`.
    pub fn evaluate(&self, g: &ProfileGroup) -> Result<Vec<bool>, PepError> {
        let ctx = Ctx {
            g,
            dt: g.dt(),
            deltas: g.deltas(),
        };
        self.eval(&ctx)
    }

    fn eval(&self, c: &Ctx) -> Result<Vec<bool>, PepError> {
        let n = c.g.len();
        Ok(match self {
            Predicate::Compare { q, cmp, value } => c
                .quantity(q)?
                .iter()
                .map(|&v| cmp.holds(v, *value))
                .collect(),
            Predicate::Approx { q, target, tol } => c
                .quantity(q)?
                .iter()
                .map(|&v| v.is_finite() && (v - target).abs() <= *tol)
                .collect(),
            Predicate::BeforeFirst { event } | Predicate::FromFirst { event } => {
                let d = &c.deltas[c.g.index(event)?];
                let first = d.iter().position(|&v| v > 0).unwrap_or(n);
                let before = matches!(self, Predicate::BeforeFirst { .. });
                (0..n).map(|i| (i < first) == before).collect()
            }
            Predicate::And { all } => fold(all, c, vec![true; n], |a, b| a && b)?,
            Predicate::Or { any } => fold(any, c, vec![false; n], |a, b| a || b)?,
            Predicate::Not { not } => not.eval(c)?.into_iter().map(|b| !b).collect(),
        })
    }
}

fn fold(
    ps: &[Predicate],
    c: &Ctx,
    init: Vec<bool>,
    f: fn(bool, bool) -> bool,
) -> Result<Vec<bool>, PepError> {
    ps.iter().try_fold(init, |acc, p| {
        Ok(acc
            .into_iter()
            .zip(p.eval(c)?)
            .map(|(a, b)| f(a, b))
            .collect())
    })
}

struct Ctx<'a> {
    g: &'a ProfileGroup,
    dt: Vec<u64>,
    deltas: Vec<Vec<u64>>,
}

impl Ctx<'_> {
    fn delta(&self, e: &str) -> Result<&[u64], PepError> {
        Ok(&self.deltas[self.g.index(e)?])
    }

    fn quantity(&self, q: &Quantity) -> Result<Vec<f64>, PepError> {
        let div = |a: &[u64], b: &[u64]| -> Vec<f64> {
            a.iter()
                .zip(b)
                .map(|(&x, &y)| {
                    if y == 0 {
                        f64::NAN
                    } else {
                        x as f64 / y as f64
                    }
                })
                .collect()
        };
        Ok(match q {
            Quantity::Delta { event } => self.delta(event)?.iter().map(|&v| v as f64).collect(),
            Quantity::Rate { event } => div(self.delta(event)?, &self.dt),
            Quantity::Ratio { num, den } => div(self.delta(num)?, self.delta(den)?),
        })
    }
}

impl Cmp {
    fn holds(self, a: f64, b: f64) -> bool {
        match self {
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Eq => a == b,
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Eq => "==",
        }
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Quantity::Delta { event } => write!(f, "{event}"),
            Quantity::Rate { event } => write!(f, "rate({event})"),
            Quantity::Ratio { num, den } => write!(f, "ratio({num}, {den})"),
        }
    }
}

impl fmt::Display for Predicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let join = |f: &mut fmt::Formatter<'_>, ps: &[Predicate], op: &str| {
            let parts: Vec<String> = ps.iter().map(|p| format!("({p})")).collect();
            f.write_str(&parts.join(op))
        };
        match self {
            Predicate::Compare { q, cmp, value } => write!(f, "{q} {} {value}", cmp.symbol()),
            Predicate::Approx { q, target, tol } => write!(f, "{q} ~ {target} +- {tol}"),
            Predicate::BeforeFirst { event } => write!(f, "before_first({event})"),
            Predicate::FromFirst { event } => write!(f, "from_first({event})"),
            Predicate::And { all } => join(f, all, " && "),
            Predicate::Or { any } => join(f, any, " || "),
            Predicate::Not { not } => write!(f, "!({not})"),
        }
    }
}

/// A maximal run of samples i..=j where φ holds, spanning (start_time, end_time] of T.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Region {
    pub first_sample: usize,
    pub last_sample: usize,
    pub start_time: u64,
    pub end_time: u64,
}

impl Region {
    /// The region's length in units of the sampling event (cycles, instructions, ns).
    pub fn length(&self) -> u64 {
        self.end_time - self.start_time
    }

    pub fn samples(&self) -> usize {
        self.last_sample - self.first_sample + 1
    }
}

/// The maximal runs of `mask`, keeping those of at least `min_samples` samples.
pub fn regions(g: &ProfileGroup, mask: &[bool], min_samples: usize) -> Vec<Region> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < mask.len() {
        if !mask[i] {
            i += 1;
            continue;
        }
        let start = i;
        while i < mask.len() && mask[i] {
            i += 1;
        }
        if i - start >= min_samples.max(1) {
            out.push(region_of(g, start, i - 1));
        }
    }
    out
}

/// `mask` with every run of at most `max_gap` false samples between two true ones made true:
/// a sample in which the program made no progress (its vCPU preempted by the host while
/// cpu-clock went on, say) should not cut a region in two.
pub fn close_gaps(mask: &[bool], max_gap: usize) -> Vec<bool> {
    let mut out = mask.to_vec();
    let mut last_true: Option<usize> = None;
    for (i, &m) in mask.iter().enumerate() {
        if !m {
            continue;
        }
        if let Some(j) = last_true {
            if i - j - 1 <= max_gap {
                out[j + 1..i].iter_mut().for_each(|b| *b = true);
            }
        }
        last_true = Some(i);
    }
    out
}

pub(crate) fn region_of(g: &ProfileGroup, first: usize, last: usize) -> Region {
    Region {
        first_sample: first,
        last_sample: last,
        start_time: g.start_time(first),
        end_time: g.times[last],
    }
}

/// Proxy-profile cost (000 §3.5): a region's length in the sampling event divided by the
/// elements it processes (e.g. cycles per copied element and slice).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProxyCost {
    pub region: Region,
    pub elements: f64,
    pub per_element: f64,
}

pub fn proxy_cost(region: &Region, elements: f64) -> Option<ProxyCost> {
    (elements > 0.0).then(|| ProxyCost {
        region: region.clone(),
        elements,
        per_element: region.length() as f64 / elements,
    })
}

/// Parses the predicate language of this module's documentation.
pub fn parse_predicate(text: &str) -> Result<Predicate, PepError> {
    let tokens = tokenize(text).map_err(|m| PepError::Predicate {
        text: text.into(),
        message: m,
    })?;
    let mut p = Parser { t: &tokens, i: 0 };
    let r = p.or().and_then(|e| match p.peek() {
        None => Ok(e),
        Some(t) => Err(format!("unexpected `{t}` after a complete predicate")),
    });
    r.map_err(|m| PepError::Predicate {
        text: text.into(),
        message: m,
    })
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Sym(&'static str),
    Num(f64),
    Name(String),
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Sym(s) => f.write_str(s),
            Tok::Num(n) => write!(f, "{n}"),
            Tok::Name(n) => f.write_str(n),
        }
    }
}

const SYMBOLS: &[&str] = &[
    "&&", "||", ">=", "<=", "==", "+-", "!", "(", ")", ",", ">", "<", "~",
];

fn tokenize(s: &str) -> Result<Vec<Tok>, String> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let name_char = |c: u8| c.is_ascii_alphanumeric() || b"_:.-*/".contains(&c);
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if let Some(sym) = SYMBOLS.iter().find(|t| s[i..].starts_with(**t)) {
            out.push(Tok::Sym(sym));
            i += sym.len();
        } else if c.is_ascii_digit() || c == b'.' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.') {
                i += 1;
            }
            let text = &s[start..i];
            out.push(Tok::Num(
                text.parse()
                    .map_err(|_| format!("`{text}` is not a number"))?,
            ));
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && name_char(b[i]) {
                i += 1;
            }
            out.push(Tok::Name(s[start..i].to_string()));
        } else {
            return Err(format!(
                "unexpected character `{}` at column {}",
                c as char,
                i + 1
            ));
        }
    }
    Ok(out)
}

struct Parser<'a> {
    t: &'a [Tok],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.t.get(self.i)
    }

    fn eat(&mut self, sym: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Sym(s)) if *s == sym) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, sym: &str) -> Result<(), String> {
        if self.eat(sym) {
            Ok(())
        } else {
            Err(match self.peek() {
                Some(t) => format!("expected `{sym}`, found `{t}`"),
                None => format!("expected `{sym}` at the end"),
            })
        }
    }

    fn or(&mut self) -> Result<Predicate, String> {
        let mut any = vec![self.and()?];
        while self.eat("||") {
            any.push(self.and()?);
        }
        Ok(if any.len() == 1 {
            any.remove(0)
        } else {
            Predicate::Or { any }
        })
    }

    fn and(&mut self) -> Result<Predicate, String> {
        let mut all = vec![self.unary()?];
        while self.eat("&&") {
            all.push(self.unary()?);
        }
        Ok(if all.len() == 1 {
            all.remove(0)
        } else {
            Predicate::And { all }
        })
    }

    fn unary(&mut self) -> Result<Predicate, String> {
        if self.eat("!") {
            return Ok(Predicate::Not {
                not: Box::new(self.unary()?),
            });
        }
        if self.eat("(") {
            let e = self.or()?;
            self.expect(")")?;
            return Ok(e);
        }
        self.atom()
    }

    fn name(&mut self) -> Result<String, String> {
        match self.t.get(self.i) {
            Some(Tok::Name(n)) => {
                self.i += 1;
                Ok(n.clone())
            }
            Some(t) => Err(format!("expected an event name, found `{t}`")),
            None => Err("expected an event name at the end".into()),
        }
    }

    fn number(&mut self) -> Result<f64, String> {
        match self.t.get(self.i) {
            Some(Tok::Num(n)) => {
                self.i += 1;
                Ok(*n)
            }
            Some(t) => Err(format!("expected a number, found `{t}`")),
            None => Err("expected a number at the end".into()),
        }
    }

    fn atom(&mut self) -> Result<Predicate, String> {
        let head = self.name()?;
        let call = self.eat("(");
        let q = match (head.as_str(), call) {
            ("before_first" | "from_first", true) => {
                let event = self.name()?;
                self.expect(")")?;
                return Ok(if head == "before_first" {
                    Predicate::BeforeFirst { event }
                } else {
                    Predicate::FromFirst { event }
                });
            }
            ("rate", true) => {
                let event = self.name()?;
                self.expect(")")?;
                Quantity::Rate { event }
            }
            ("ratio", true) => {
                let num = self.name()?;
                self.expect(",")?;
                let den = self.name()?;
                self.expect(")")?;
                Quantity::Ratio { num, den }
            }
            (f, true) => {
                return Err(format!(
                    "unknown function `{f}`: expected rate, ratio, before_first or from_first"
                ))
            }
            (_, false) => Quantity::Delta { event: head },
        };
        self.comparison(q)
    }

    fn comparison(&mut self, q: Quantity) -> Result<Predicate, String> {
        if self.eat("~") {
            let target = self.number()?;
            let tol = if self.eat("+-") {
                self.number()?
            } else {
                0.1 * target.abs()
            };
            return Ok(Predicate::Approx { q, target, tol });
        }
        let cmp = [
            (">=", Cmp::Ge),
            ("<=", Cmp::Le),
            ("==", Cmp::Eq),
            (">", Cmp::Gt),
            ("<", Cmp::Lt),
        ]
        .into_iter()
        .find(|(s, _)| self.eat(s))
        .map(|(_, c)| c)
        .ok_or_else(|| match self.peek() {
            Some(t) => {
                format!("expected a comparison (>, >=, <, <=, ==, ~) after `{q}`, found `{t}`")
            }
            None => format!("expected a comparison (>, >=, <, <=, ==, ~) after `{q}`"),
        })?;
        Ok(Predicate::Compare {
            q,
            cmp,
            value: self.number()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(loads: &[u64], stores: &[u64], flops: &[u64]) -> ProfileGroup {
        let cum = |d: &[u64]| {
            d.iter()
                .scan(0, |s, &x| {
                    *s += x;
                    Some(*s)
                })
                .collect::<Vec<u64>>()
        };
        ProfileGroup {
            time_event: "cycles".into(),
            times: (1..=loads.len() as u64).map(|i| i * 100).collect(),
            events: vec!["LD".into(), "ST".into(), "FP".into()],
            measures: vec![cum(loads), cum(stores), cum(flops)],
        }
    }

    #[test]
    fn eq_3_2_finds_the_copy_and_not_the_computation() {
        // samples: scalar loop (loads 3x stores), copy (1:1), compute (flops), store tail.
        let g = group(
            &[30, 30, 50, 52, 49, 40, 40, 0],
            &[10, 10, 50, 50, 50, 10, 10, 40],
            &[0, 0, 0, 0, 0, 90, 90, 0],
        );
        let phi = Predicate::data_copy("LD", "ST", 0.1);
        let r = regions(&g, &phi.evaluate(&g).unwrap(), 1);
        assert_eq!(
            r,
            vec![Region {
                first_sample: 2,
                last_sample: 4,
                start_time: 200,
                end_time: 500
            }]
        );
        let parsed = parse_predicate("LD > 0 && ST > 0 && ratio(LD, ST) ~ 1 +- 0.1").unwrap();
        assert_eq!(parsed, phi);
        // §3.5's proxy profile: from the start until the first flop.
        let copy = regions(
            &g,
            &parse_predicate("before_first(FP)")
                .unwrap()
                .evaluate(&g)
                .unwrap(),
            1,
        );
        assert_eq!(copy[0].length(), 500);
        let cost = proxy_cost(&copy[0], 250.0).unwrap();
        assert_eq!(cost.per_element, 2.0);
    }

    #[test]
    fn short_gaps_close_and_long_ones_stay() {
        let m = [true, false, true, false, false, false, true, false];
        assert_eq!(
            close_gaps(&m, 1),
            vec![true, true, true, false, false, false, true, false]
        );
        assert_eq!(
            close_gaps(&m, 3),
            vec![true, true, true, true, true, true, true, false]
        );
        assert_eq!(close_gaps(&m, 0), m.to_vec());
    }

    #[test]
    fn predicates_compose_and_bad_ones_say_where() {
        let g = group(&[1, 0, 5, 5], &[0, 0, 0, 9], &[0, 0, 0, 0]);
        let m = |s: &str| parse_predicate(s).unwrap().evaluate(&g).unwrap();
        assert_eq!(m("LD > 0"), vec![true, false, true, true]);
        assert_eq!(m("!(LD > 0) || ST >= 9"), vec![false, true, false, true]);
        assert_eq!(m("rate(LD) >= 0.05"), vec![false, false, true, true]);
        assert_eq!(m("from_first(ST)"), vec![false, false, false, true]);
        for (bad, want) in [
            ("LD >", "expected a number"),
            ("LD 3", "expected a comparison"),
            ("foo(LD) > 1", "unknown function `foo`"),
            ("LD > 0 &&", "expected an event name"),
            ("(LD > 0", "expected `)`"),
            ("LD $ 3", "unexpected character `$`"),
        ] {
            let e = parse_predicate(bad).unwrap_err().to_string();
            assert!(e.contains(want), "{bad}: {e}");
        }
        let e = parse_predicate("NOPE > 0")
            .unwrap()
            .evaluate(&g)
            .unwrap_err();
        assert!(e.to_string().contains("NOPE"), "{e}");
    }
}
