//! Where a caller's arrays come from (`double *a = malloc(...)`): the order in which it
//! allocates them decides their order in memory, and so which way a compiler's runtime alias
//! test goes in a kernel it passes them to. The runs of the machine code (`calibrate`) lay
//! the kernel's array arguments out in this order.

use serde_json::Value;

use super::{children, decl_name, kind, Walk};

/// A pointer variable assigned the result of an allocator, in source order.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Allocation {
    /// The allocating function (source name).
    pub function: String,
    pub variable: String,
    pub line: u32,
}

impl Walk {
    /// Records `v = alloc(...)`, `T *v = alloc(...)` and `posix_memalign(&v, ...)`.
    pub(super) fn allocation(&mut self, node: &Value, line: u32) {
        let variable = match kind(node) {
            "VarDecl" => children(node)
                .first()
                .filter(|init| allocator_call(init).is_some())
                .and_then(|_| node.get("name")?.as_str().map(str::to_string)),
            "BinaryOperator" if node.get("opcode").and_then(Value::as_str) == Some("=") => {
                match children(node) {
                    [l, r] if allocator_call(r).is_some() => decl_name(l),
                    _ => None,
                }
            }
            "CallExpr" => match allocator_call(node) {
                Some(("posix_memalign", call)) => children(call)
                    .get(1)
                    .map(through_casts)
                    .filter(|a| a.get("opcode").and_then(Value::as_str) == Some("&"))
                    .and_then(|a| decl_name(children(a).first()?)),
                _ => None,
            },
            _ => None,
        };
        if let Some(variable) = variable {
            self.model.allocations.push(Allocation {
                function: self.function.clone().unwrap_or_default(),
                variable,
                line,
            });
        }
    }
}

/// The allocator `v` calls (through casts), and the call: the C library's and any function
/// named as one (`xmalloc`, `alloc_matrix`, `polybench_alloc_data`).
fn allocator_call(v: &Value) -> Option<(&str, &Value)> {
    let call = through_casts(v);
    if kind(call) != "CallExpr" {
        return None;
    }
    let callee = through_casts(children(call).first()?);
    let name = callee.get("referencedDecl")?.get("name")?.as_str()?;
    let lower = name.to_ascii_lowercase();
    (lower.contains("alloc") || lower == "posix_memalign").then_some((name, call))
}

/// `v` without parentheses and casts of any type (`(double *)malloc(...)`, `(void **)&a`).
fn through_casts(mut v: &Value) -> &Value {
    while matches!(
        kind(v),
        "ImplicitCastExpr" | "ParenExpr" | "CStyleCastExpr" | "ConstantExpr"
    ) {
        match children(v).first() {
            Some(c) => v = c,
            None => break,
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use crate::source::from_ast;
    use serde_json::{json, Value};

    fn call(name: &str, args: Vec<Value>) -> Value {
        let mut inner = vec![json!({"kind": "ImplicitCastExpr", "inner": [
            {"kind": "DeclRefExpr", "referencedDecl": {"name": name, "kind": "FunctionDecl"}}]})];
        inner.extend(args);
        json!({"kind": "CallExpr", "range": {"begin": {"line": 0}}, "inner": inner})
    }

    fn var(name: &str) -> Value {
        json!({"kind": "DeclRefExpr", "referencedDecl": {"name": name, "kind": "VarDecl"}})
    }

    /// Declarations, assignments through casts, `posix_memalign` and named allocators count;
    /// other calls and assignments do not.
    #[test]
    fn allocations_are_read_in_source_order() {
        let cast = |v: Value| json!({"kind": "CStyleCastExpr", "inner": [v]});
        let body = vec![
            json!({"kind": "VarDecl", "name": "a", "loc": {"file": "k.c", "line": 4},
                   "inner": [cast(call("malloc", vec![]))]}),
            json!({"kind": "VarDecl", "name": "n", "loc": {"line": 5},
                   "inner": [call("atoi", vec![])]}),
            json!({"kind": "BinaryOperator", "opcode": "=", "loc": {"line": 6},
                   "inner": [var("c"), call("xmalloc", vec![])]}),
            json!({"kind": "BinaryOperator", "opcode": "=", "loc": {"line": 7},
                   "inner": [var("d"), var("c")]}),
            json!({"kind": "CallExpr", "loc": {"line": 8}, "inner": [
                json!({"kind": "DeclRefExpr", "referencedDecl": {"name": "posix_memalign"}}),
                cast(json!({"kind": "UnaryOperator", "opcode": "&", "inner": [var("b")]})),
            ]}),
        ];
        let ast = json!({"kind": "TranslationUnitDecl", "inner": [{
            "kind": "FunctionDecl", "name": "main", "loc": {"file": "k.c", "line": 3},
            "inner": [{"kind": "CompoundStmt", "inner": body}]}]});
        let model = from_ast(&ast, std::path::Path::new("k.c"));
        let got: Vec<&str> = model
            .allocations
            .iter()
            .map(|a| a.variable.as_str())
            .collect();
        assert_eq!(got, ["a", "c", "b"]);
        assert!(model.allocations.iter().all(|a| a.function == "main"));
    }
}
