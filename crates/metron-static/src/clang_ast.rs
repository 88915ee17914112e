//! Running clang's JSON AST dump and reading it one top-level declaration at a time.
//!
//! clang prints ~150 KB of JSON per small C function (every node with its full location), so
//! a 10 MB binary's source dumps to more than a gigabyte; as one `serde_json::Value` that is
//! about five times as much memory. Reading clang's pipe as a stream and handing each child
//! of the `TranslationUnitDecl` to the caller, then dropping it, keeps memory at one
//! declaration and overlaps parsing with clang's printing.

use std::io::{BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};

use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::error::{Result, StaticError};
use metron_measure::tool::{Tool, ToolError};

/// Runs `clang` with `args` (an `-ast-dump=json` command line for `file`) and calls `visit`
/// with every top-level node of the translation unit, in print order.
pub fn dump(clang: &Tool, args: &[String], file: &Path, visit: impl FnMut(Value)) -> Result<()> {
    let path = clang.locate()?;
    let shown = || {
        std::iter::once(clang.program.to_string())
            .chain(args.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut child = Command::new(&path)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| ToolError::Run {
            program: clang.program.to_string(),
            source,
        })?;
    // Drain stderr on the side, so that clang never blocks on a full diagnostics pipe.
    let stderr = child.stderr.take().map(|mut e| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = e.read_to_string(&mut text);
            text
        })
    });
    let parsed = match child.stdout.take() {
        Some(out) => top_level_nodes(BufReader::with_capacity(1 << 20, out), visit),
        None => Ok(()),
    };
    let status = child.wait().map_err(|source| ToolError::Run {
        program: clang.program.to_string(),
        source,
    })?;
    let stderr = stderr
        .and_then(|h| h.join().ok())
        .unwrap_or_default()
        .trim()
        .to_string();
    if !status.success() {
        return Err(ToolError::Failed {
            command: shown(),
            status: status.to_string(),
            stderr,
        }
        .into());
    }
    parsed.map_err(|e| StaticError::Parse {
        path: file.to_path_buf(),
        line: 0,
        message: format!("clang's JSON AST did not parse: {e}"),
    })
}

/// Reads a JSON AST (`{"kind": "TranslationUnitDecl", ..., "inner": [...]}`) from `reader`,
/// calling `visit` with each element of the root's `inner` in order. The root's other keys are
/// skipped: clang prints them as empty locations.
pub fn top_level_nodes(reader: impl Read, mut visit: impl FnMut(Value)) -> serde_json::Result<()> {
    let mut de = serde_json::Deserializer::from_reader(reader);
    Root(&mut visit).deserialize(&mut de)?;
    de.end()
}

struct Root<'a, F>(&'a mut F);

impl<'de, F: FnMut(Value)> DeserializeSeed<'de> for Root<'_, F> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, F: FnMut(Value)> Visitor<'de> for Root<'_, F> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("clang's JSON AST: an object with an `inner` array")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key == "inner" {
                map.next_value_seed(Children(&mut *self.0))?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

struct Children<'a, F>(&'a mut F);

impl<'de, F: FnMut(Value)> DeserializeSeed<'de> for Children<'_, F> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, F: FnMut(Value)> Visitor<'de> for Children<'_, F> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an array of declarations")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<(), A::Error> {
        while let Some(node) = seq.next_element::<Value>()? {
            (self.0)(node);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_level_nodes_come_in_order_and_other_root_keys_are_skipped() {
        let text = r#"{"id": "0x1", "kind": "TranslationUnitDecl", "loc": {},
            "range": {"begin": {}, "end": {}},
            "inner": [{"kind": "TypedefDecl", "inner": [{"kind": "BuiltinType"}]},
                      {"kind": "FunctionDecl", "name": "f"}]}"#;
        let mut kinds = Vec::new();
        top_level_nodes(text.as_bytes(), |n| {
            kinds.push(n["kind"].as_str().unwrap_or("").to_string())
        })
        .unwrap();
        assert_eq!(kinds, ["TypedefDecl", "FunctionDecl"]);
    }

    #[test]
    fn truncated_or_trailing_garbage_is_an_error() {
        let mut n = 0;
        assert!(
            top_level_nodes(r#"{"inner": [{"kind": "A"}, {"ki"#.as_bytes(), |_| n += 1).is_err()
        );
        assert!(top_level_nodes(r#"{"inner": []} x"#.as_bytes(), |_| n += 1).is_err());
        assert!(top_level_nodes(r#"[1, 2]"#.as_bytes(), |_| n += 1).is_err());
        assert_eq!(n, 1);
    }
}
