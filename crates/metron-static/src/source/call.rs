//! Calls written in the source (004 §III.C.5): which function is called on which line, and
//! each argument as an affine expression in the caller's variables when it is one, so that a
//! callee's parameters can be bound per call site.

use metron_symbolic::AffineExpr;
use serde_json::Value;

use super::{affine, children, kind, strip, Walk};

/// One call expression of a modelled function.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SourceCall {
    /// The calling function (source name).
    pub function: String,
    /// Line where the call expression begins.
    pub line: u32,
    /// The callee's source name without class or template arguments (`waxpby`, `operator()`).
    pub callee: String,
    /// Arguments in order (the object of a member call excluded): affine in the caller's
    /// parameters, or `None` (a call, array element, loop counter, floating value...).
    pub arguments: Vec<Option<AffineExpr>>,
    /// Arguments that read a counter of an enclosing loop: each call's count differs, and no
    /// single value of the callee's parameter stands for them.
    #[serde(default)]
    pub varying: Vec<VaryingArgument>,
    /// The innermost source loop around the call (index into `SourceModel::loops`).
    #[serde(default)]
    pub in_loop: Option<usize>,
}

/// An argument affine in the counters of the loops around the call (`dot(i, ...)`).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct VaryingArgument {
    pub position: usize,
    /// A counter it reads (for the parameter's name, `n_per_i_LINE`).
    pub counter: String,
    pub value: AffineExpr,
}

impl Walk {
    /// Records a call (clang's children: callee expression, [object,] arguments...).
    pub(super) fn call(&mut self, node: &Value, line: u32) {
        let inner = children(node);
        let Some((callee, skip)) = inner.first().and_then(|c| callee_of(kind(node), c)) else {
            return;
        };
        // A counter of an enclosing loop changes between executions of the call site: the
        // callee's count is then not `times * callee(argument)`.
        let counters: Vec<&str> = self.stack.iter().map(|(_, v)| v.as_str()).collect();
        let counter_of = |e: &AffineExpr| {
            e.terms
                .keys()
                .find(|v| counters.contains(&v.as_str()))
                .cloned()
        };
        let mut varying = Vec::new();
        let mut arguments = Vec::new();
        for (k, a) in inner.iter().skip(skip).enumerate() {
            let e = affine(a);
            match e.as_ref().and_then(|e| Some((counter_of(e)?, e.clone()))) {
                Some((counter, value)) => {
                    varying.push(VaryingArgument {
                        position: k,
                        counter,
                        value,
                    });
                    arguments.push(None);
                }
                None => arguments.push(e),
            }
        }
        self.model.calls.push(SourceCall {
            function: self.function.clone().unwrap_or_default(),
            line,
            callee,
            arguments,
            varying,
            in_loop: self.stack.last().map(|(i, _)| *i),
        });
    }
}

/// The callee's name and how many leading children are not arguments.
fn callee_of(call_kind: &str, first: &Value) -> Option<(String, usize)> {
    let f = strip(first);
    let (name, decl_kind) = match kind(f) {
        "DeclRefExpr" => {
            let d = f.get("referencedDecl")?;
            (
                d.get("name")?.as_str()?,
                d.get("kind").and_then(Value::as_str),
            )
        }
        "MemberExpr" => (f.get("name")?.as_str()?, Some("CXXMethodDecl")),
        _ => return None,
    };
    // `obj(args)` calls `operator()` with the object as its first child.
    let object = call_kind == "CXXOperatorCallExpr" && decl_kind == Some("CXXMethodDecl");
    Some((name.to_string(), 1 + usize::from(object)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ast(call: Value) -> Value {
        serde_json::json!({"kind": "TranslationUnitDecl", "inner": [{
            "kind": "FunctionDecl", "name": "main",
            "loc": {"file": "x.c", "line": 3},
            "range": {"begin": {"line": 3}, "end": {"line": 9}},
            "inner": [{"kind": "CompoundStmt", "inner": [call]}]
        }]})
    }

    fn reference(name: &str, decl_kind: &str) -> Value {
        serde_json::json!({"kind": "DeclRefExpr", "referencedDecl": {"name": name, "kind": decl_kind}})
    }

    #[test]
    fn plain_call_arguments_are_affine_or_none() {
        let call = serde_json::json!({
        "kind": "CallExpr", "range": {"begin": {"line": 5}, "end": {"line": 5}},
        "inner": [
            {"kind": "ImplicitCastExpr", "inner": [reference("scale", "FunctionDecl")]},
            {"kind": "BinaryOperator", "opcode": "*", "inner": [
                {"kind": "IntegerLiteral", "value": "2"},
                {"kind": "ImplicitCastExpr", "inner": [reference("n", "VarDecl")]}]},
            {"kind": "CallExpr", "inner": [reference("atoi", "FunctionDecl")]}
        ]});
        let m = super::super::from_ast(&ast(call), std::path::Path::new("x.c"));
        let c = &m.calls[0];
        assert_eq!(
            (c.function.as_str(), c.line, c.callee.as_str()),
            ("main", 5, "scale")
        );
        assert_eq!(c.arguments.len(), 2);
        let two_n = c.arguments[0].as_ref().unwrap();
        assert_eq!(
            (two_n.constant, two_n.terms.get("n").copied()),
            (0, Some(2))
        );
        assert!(c.arguments[1].is_none());
        // The nested call is recorded too.
        assert_eq!(m.calls[1].callee, "atoi");
    }

    #[test]
    fn call_operator_skips_the_object() {
        let call = serde_json::json!({
        "kind": "CXXOperatorCallExpr", "range": {"begin": {"line": 6}, "end": {"line": 6}},
        "inner": [
            {"kind": "ImplicitCastExpr", "inner": [reference("operator()", "CXXMethodDecl")]},
            reference("A", "VarDecl"),
            {"kind": "IntegerLiteral", "value": "7"}
        ]});
        let m = super::super::from_ast(&ast(call), std::path::Path::new("x.c"));
        assert_eq!(m.calls[0].callee, "operator()");
        assert_eq!(m.calls[0].arguments.len(), 1);
        assert_eq!(m.calls[0].arguments[0].as_ref().unwrap().constant, 7);
    }
}
