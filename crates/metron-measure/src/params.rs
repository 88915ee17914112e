//! Parameter sweeps: `--param N=1000,2000,4000` substitutes `{N}` in the command; several
//! parameters give their Cartesian product (000 App. C: an experiment enumerates its `N`).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParamError {
    #[error("--param `{spec}`: expected NAME=V1,V2,... or NAME=FROM..TO[:STEP], numbers such as 1, 0.25 or 1e3 ({why})")]
    Syntax { spec: String, why: String },
    #[error("--param {name} is given twice")]
    Duplicate { name: String },
    #[error("the command uses {{{name}}}, but no --param {name}=... defines it (write {{{{ and }}}} for literal braces)")]
    Unknown { name: String },
    #[error("unbalanced `{{` in `{text}` (write {{{{ for a literal brace)")]
    Unbalanced { text: String },
}

/// One swept parameter and its values, in the order given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Param {
    pub name: String,
    pub values: Vec<String>,
}

impl Param {
    /// Parses `NAME=a,b,c` or an inclusive integer range `NAME=FROM..TO[:STEP]`.
    pub fn parse(spec: &str) -> Result<Param, ParamError> {
        let syntax = |why: &str| ParamError::Syntax {
            spec: spec.to_string(),
            why: why.to_string(),
        };
        let (name, rhs) = spec.split_once('=').ok_or_else(|| syntax("no `=`"))?;
        let name = name.trim();
        if !is_identifier(name) {
            return Err(syntax("the name must be letters, digits and `_`"));
        }
        let values = match rhs.split_once("..") {
            Some((from, to)) => range(from, to).map_err(|why| syntax(&why))?,
            None => rhs.split(',').map(|v| v.trim().to_string()).collect(),
        };
        if values.iter().any(String::is_empty) {
            return Err(syntax("empty value"));
        }
        Ok(Param {
            name: name.to_string(),
            values,
        })
    }
}

/// `FROM..TO[:STEP]`, inclusive. Integers stay integers; decimals (`0..1:0.25`) and exponents
/// (`1e3..4e3:1e3`) are allowed, as hyperfine's `--parameter-scan` with `-D`. Values are
/// computed as FROM + i STEP (no accumulated rounding) and printed with as many decimals as
/// the bounds and step have, so `0.1` steps give `0.3`, not `0.30000000000000004`.
fn range(from: &str, to: &str) -> Result<Vec<String>, String> {
    let (to, step) = match to.split_once(':') {
        Some((t, s)) => (t, s),
        None => (to, "1"),
    };
    let (from, to, step) = (from.trim(), to.trim(), step.trim());
    let num = |s: &str| {
        s.parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("`{s}` is not a number"))
    };
    let (a, b, d) = (num(from)?, num(to)?, num(step)?);
    if d <= 0.0 || a > b {
        return Err("a range needs FROM <= TO and a positive STEP".into());
    }
    // A tolerance of a millionth of a step keeps 0..1:0.1 from losing its last value.
    let count = ((b - a) / d + 1e-6).floor() + 1.0;
    if count > 100_000.0 {
        return Err(format!("{count} values is more than a sweep should have"));
    }
    let decimals = [from, to, step]
        .into_iter()
        .map(decimals)
        .max()
        .unwrap_or(0);
    Ok((0..count as u64)
        .map(|i| format_value(a + i as f64 * d, decimals))
        .collect())
}

/// Digits after the decimal point that `s` needs when written without an exponent:
/// `2.5` 1, `1e3` 0, `2.5e-2` 3.
fn decimals(s: &str) -> usize {
    let lower = s.to_ascii_lowercase();
    let (mantissa, exp) = match lower.split_once('e') {
        Some((m, e)) => (m.to_string(), e.parse::<i64>().unwrap_or(0)),
        None => (lower.clone(), 0),
    };
    let frac = mantissa.split_once('.').map_or(0, |(_, f)| f.len() as i64);
    (frac - exp).clamp(0, 15) as usize
}

fn format_value(v: f64, decimals: usize) -> String {
    let s = format!("{v:.decimals$}");
    // `-0` is not what anyone typed.
    if s.trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.')
    {
        s.trim_start_matches('-').to_string()
    } else {
        s
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// All parameter bindings, first parameter outermost.
pub fn cartesian(params: &[Param]) -> Vec<Vec<(String, String)>> {
    params.iter().fold(vec![Vec::new()], |acc, p| {
        acc.iter()
            .flat_map(|prefix| {
                p.values.iter().map(move |v| {
                    let mut b = prefix.clone();
                    b.push((p.name.clone(), v.clone()));
                    b
                })
            })
            .collect()
    })
}

/// Checks that `params` has no name twice.
pub fn check_unique(params: &[Param]) -> Result<(), ParamError> {
    for (i, p) in params.iter().enumerate() {
        if params[..i].iter().any(|q| q.name == p.name) {
            return Err(ParamError::Duplicate {
                name: p.name.clone(),
            });
        }
    }
    Ok(())
}

/// Replaces every `{NAME}` in `text` by its value. `{{` and `}}` are literal braces; braces
/// around anything that is not an identifier (`{}`, `{print $1}`) are left alone, so that
/// `find -exec` and awk programs need no escaping. An identifier without a binding is an
/// error: a typo must not silently run the wrong command.
pub fn substitute(text: &str, binding: &[(String, String)]) -> Result<String, ParamError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..1]);
            rest = &tail[2..];
            continue;
        }
        if let Some(after) = tail.strip_prefix('}') {
            out.push('}');
            rest = after;
            continue;
        }
        match tail[1..].find('}') {
            Some(end) if is_identifier(&tail[1..1 + end]) => {
                let name = &tail[1..1 + end];
                let value = binding
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, v)| v)
                    .ok_or_else(|| ParamError::Unknown {
                        name: name.to_string(),
                    })?;
                out.push_str(value);
                rest = &tail[end + 2..];
            }
            Some(_) => {
                out.push('{');
                rest = &tail[1..];
            }
            None => {
                return Err(ParamError::Unbalanced {
                    text: text.to_string(),
                })
            }
        }
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn parses_lists_and_ranges() {
        assert_eq!(
            Param::parse("N=1000,2000,4000").unwrap().values,
            ["1000", "2000", "4000"]
        );
        assert_eq!(Param::parse("T=1..4").unwrap().values, ["1", "2", "3", "4"]);
        assert_eq!(Param::parse("T=0..10:5").unwrap().values, ["0", "5", "10"]);
        // hyperfine's -P/-D: decimal steps and exponent notation.
        assert_eq!(
            Param::parse("X=0..1:0.25").unwrap().values,
            ["0.00", "0.25", "0.50", "0.75", "1.00"]
        );
        assert_eq!(
            Param::parse("X=0..0.3:0.1").unwrap().values,
            ["0.0", "0.1", "0.2", "0.3"]
        );
        assert_eq!(
            Param::parse("N=1e3..4e3:1e3").unwrap().values,
            ["1000", "2000", "3000", "4000"]
        );
        assert_eq!(
            Param::parse("N=-1..1:0.5").unwrap().values,
            ["-1.0", "-0.5", "0.0", "0.5", "1.0"]
        );
        assert_eq!(Param::parse("N=1..2.5").unwrap().values, ["1.0", "2.0"]);
        for bad in [
            "N",
            "=1",
            "N=",
            "N=1,,2",
            "1N=3",
            "N=5..1",
            "N=1..x",
            "N=1..4:0",
            "N=0..1:-1",
            "N=0..inf",
            "N=0..1e9:1e-3",
        ] {
            assert!(Param::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn cartesian_product_first_parameter_outermost() {
        let ps = [
            Param::parse("A=1,2").unwrap(),
            Param::parse("B=x,y,z").unwrap(),
        ];
        let all = cartesian(&ps);
        assert_eq!(all.len(), 6);
        assert_eq!(all[0], b(&[("A", "1"), ("B", "x")]));
        assert_eq!(all[5], b(&[("A", "2"), ("B", "z")]));
        assert_eq!(cartesian(&[]), vec![Vec::<(String, String)>::new()]);
    }

    #[test]
    fn substitution() {
        let bind = b(&[("N", "100"), ("M", "7")]);
        assert_eq!(substitute("./a {N} {M}{N}", &bind).unwrap(), "./a 100 7100");
        assert_eq!(
            substitute("awk '{print $1}'", &bind).unwrap(),
            "awk '{print $1}'"
        );
        assert_eq!(
            substitute("find -exec rm {} ;", &bind).unwrap(),
            "find -exec rm {} ;"
        );
        assert_eq!(substitute("{{N}}", &bind).unwrap(), "{N}");
        assert_eq!(
            substitute("x {K}", &bind).unwrap_err(),
            ParamError::Unknown { name: "K".into() }
        );
        assert!(substitute("x {N", &bind).is_err());
    }
}
