//! Minimal-edit rewriting: a pass records replacements of byte ranges; everything outside
//! them (comments, blank lines, layout) is copied byte for byte.

use crate::ast::Span;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

#[derive(Debug, Default, Clone)]
pub struct Rewriter {
    edits: Vec<Edit>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("overlapping edits at bytes {first}..{second}")]
pub struct Overlap {
    pub first: usize,
    pub second: usize,
}

impl Rewriter {
    pub fn replace(&mut self, span: Span, text: impl Into<String>) {
        self.edits.push(Edit {
            start: span.start,
            end: span.end,
            text: text.into(),
        });
    }

    /// Inserts `text` at byte `at` (before whatever starts there).
    pub fn insert(&mut self, at: usize, text: impl Into<String>) {
        self.edits.push(Edit {
            start: at,
            end: at,
            text: text.into(),
        });
    }

    pub fn edits(&self) -> &[Edit] {
        &self.edits
    }

    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// Applies the edits; overlapping replacements are a bug of the pass, reported.
    pub fn apply(&self, source: &str) -> Result<String, Overlap> {
        let mut edits = self.edits.clone();
        edits.sort_by_key(|e| (e.start, e.end));
        let mut out = String::with_capacity(source.len());
        let mut pos = 0;
        for e in &edits {
            if e.start < pos {
                return Err(Overlap {
                    first: pos,
                    second: e.start,
                });
            }
            out.push_str(&source[pos..e.start]);
            out.push_str(&e.text);
            pos = e.end;
        }
        out.push_str(&source[pos..]);
        Ok(out)
    }
}

/// The whitespace that starts the line holding byte `at`, if only whitespace precedes `at`
/// on that line (a statement that starts its line can get new lines inserted before it).
pub fn line_indent(source: &str, at: usize) -> Option<&str> {
    let line_start = source[..at].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let before = &source[line_start..at];
    before
        .chars()
        .all(|c| c == ' ' || c == '\t')
        .then_some(before)
}
