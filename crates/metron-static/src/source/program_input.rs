//! The sizes a program reads from its command line (`int n = argc > 1 ? atoi(argv[1]) : N;`,
//! `if (argc > 2) m = strtol(argv[2], NULL, 10);`): the integer variables of `main` (locals or
//! globals) assigned a number converted from `argv[k]`. The runs that check `main`'s counts
//! (calibrate) give the program these arguments, as `metron static validate` does, so that a
//! kernel inlined into `main` is checked at many sizes.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{binary, children, decl_name, integer_type, kind, strip};

/// One size read from the command line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgramInput {
    /// The variable `main` stores it in.
    pub name: String,
    /// Its index in `argv` (1 for the first argument).
    pub argv: u32,
}

/// The highest `argv` index read as a size: the runs write every argument up to it.
const MAX_ARGV: u32 = 64;

/// The C library's conversions of a decimal string (C11 7.22.1.2, 7.22.1.4).
const CONVERSIONS: [&str; 7] = [
    "atoi", "atol", "atoll", "strtol", "strtoll", "strtoul", "strtoull",
];

/// The inputs `main`'s `body` reads from `argv` (its second parameter's name). A variable
/// assigned from two different arguments is none: no one index stands for it.
pub fn program_inputs(body: &Value, argv: &str) -> Vec<ProgramInput> {
    let mut found: Vec<(String, bool, std::collections::BTreeSet<u32>)> = Vec::new();
    let mut visit = |name: String, integer: bool, value: &Value| {
        let index = converted_argument(value, argv);
        let at = match found.iter().position(|(n, _, _)| *n == name) {
            Some(at) => at,
            None => {
                found.push((name, integer, Default::default()));
                found.len() - 1
            }
        };
        found[at].2.extend(index);
    };
    walk(body, &mut visit);
    found
        .into_iter()
        .filter(|(_, integer, from)| *integer && from.len() == 1)
        .filter_map(|(name, _, from)| {
            Some(ProgramInput {
                name,
                argv: from.into_iter().next()?,
            })
        })
        .collect()
}

/// Every assignment and initialised declaration under `v`: (name, integer type, value).
fn walk<'a>(v: &'a Value, visit: &mut dyn FnMut(String, bool, &'a Value)) {
    match kind(v) {
        "VarDecl" => {
            if let (Some(name), Some(init)) =
                (v.get("name").and_then(Value::as_str), children(v).first())
            {
                visit(name.to_string(), integer_type(v), init);
            }
        }
        "BinaryOperator" => {
            if let Some(("=", l, r)) = binary(v) {
                if let Some(name) = decl_name(l) {
                    visit(name, integer_type(strip(l)), r);
                }
            }
        }
        _ => {}
    }
    for c in children(v) {
        walk(c, visit);
    }
}

/// `k` when `value` converts `argv[k]` (at any depth: `argc > 1 ? atoi(argv[1]) : N`).
fn converted_argument(value: &Value, argv: &str) -> Option<u32> {
    let v = strip(value);
    if kind(v) == "CallExpr" {
        let [callee, first, ..] = children(v) else {
            return None;
        };
        let name = decl_name(callee)?;
        if CONVERSIONS.contains(&name.as_str()) {
            return argv_element(first, argv);
        }
        return None;
    }
    children(v).iter().find_map(|c| converted_argument(c, argv))
}

/// `k` of `argv[k]` (a literal index).
fn argv_element(e: &Value, argv: &str) -> Option<u32> {
    let e = strip(e);
    let [base, index] = children(e) else {
        return None;
    };
    if kind(e) != "ArraySubscriptExpr" || decl_name(base)? != argv {
        return None;
    }
    let index = strip(index);
    (kind(index) == "IntegerLiteral")
        .then(|| index.get("value")?.as_str()?.parse().ok())
        .flatten()
        .filter(|&k| k <= MAX_ARGV)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The inputs clang's AST of `text` (a whole file) gives.
    fn main_of(text: &str) -> Vec<ProgramInput> {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("p.c");
        std::fs::write(&file, text).unwrap();
        crate::source::parse_file(&file, &[]).unwrap().inputs
    }

    #[test]
    fn sizes_converted_from_argv_are_inputs() {
        let inputs = main_of(
            "#include <stdlib.h>\nint g;\nint main(int argc, char **argv) {\n\
             int n = argc > 1 ? atoi(argv[1]) : 10;\n int m = 4, k;\n\
             if (argc > 2) m = strtol(argv[2], NULL, 10);\n\
             if (argc > 3) { g = (int)atol(argv[3]); }\n\
             k = atoi(argv[1]); k = atoi(argv[2]);\n\
             double x = atof(argv[1]);\n int far = atoi(argv[4000000000]);\n\
             return n + m + g + k + (int)x + far; }\n",
        );
        let got: Vec<(&str, u32)> = inputs.iter().map(|i| (i.name.as_str(), i.argv)).collect();
        // `k` takes two arguments, `x` is no integer and `far`'s index is past any command
        // line the runs would write: none is an input.
        assert_eq!(got, vec![("n", 1), ("m", 2), ("g", 3)]);
    }
}
