//! The crate's one error type.

/// Errors from building, counting, evaluating and emitting symbolic counts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("parameter `{name}` has no value (expected an integer binding for `{name}`)")]
    MissingParameter { name: String },
    #[error("expected an integer value, got {value}")]
    NotInteger { value: String },
    #[error("invalid loop nest: {message}")]
    InvalidNest { message: String },
    #[error("cannot parse `{input}` at column {column}: expected {expected}")]
    Parse {
        input: String,
        column: usize,
        expected: String,
    },
    #[error("loop variable `{var}` has no {side} bound, so the count is infinite")]
    Unbounded { var: String, side: String },
    #[error("counting gave up: {message}")]
    TooComplex { message: String },
    #[error("integer overflow in {context}")]
    Overflow { context: String },
    #[error("brute-force enumeration stopped after {limit} loop iterations")]
    TooManyPoints { limit: u64 },
    #[error("`{name}` is not a valid Python identifier (expected letters, digits and `_`, not a keyword)")]
    InvalidIdentifier { name: String },
    #[error("invalid symbolic JSON: {message}")]
    Json { message: String },
}
