//! Reader of callgrind's output format (valgrind docs, "Callgrind Format Specification") with
//! `--dump-instr=yes`: the execution count (`Ir`) of every instruction, the ground truth the
//! static model is validated against (Mira used TAU/PAPI, 004 §IV).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::{Result, StaticError};

/// Per-instruction execution counts of one object file, at run-time addresses.
#[derive(Debug, Clone, Default)]
pub struct ObjectCounts {
    /// Run-time address -> executions.
    pub instructions: BTreeMap<u64, u64>,
    /// Run-time address -> callgrind's function name there.
    pub function_of: BTreeMap<u64, String>,
}

/// A parsed callgrind profile.
#[derive(Debug, Clone, Default)]
pub struct Profile {
    /// Object path (`ob=`) -> counts.
    pub objects: BTreeMap<String, ObjectCounts>,
    /// `totals:` or `summary:` of the `Ir` event.
    pub total: Option<u64>,
}

impl Profile {
    pub fn load(path: &Path) -> Result<Profile> {
        let text = std::fs::read_to_string(path).map_err(|source| StaticError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Profile::parse(&text, path)
    }

    /// Counts of the object whose path is `binary` (or has the same file name).
    pub fn object(&self, binary: &Path) -> Option<&ObjectCounts> {
        let canonical = std::fs::canonicalize(binary).unwrap_or_else(|_| binary.to_path_buf());
        self.objects
            .iter()
            .find(|(ob, _)| Path::new(ob) == canonical)
            .or_else(|| {
                self.objects
                    .iter()
                    .find(|(ob, _)| Path::new(ob).file_name() == binary.file_name())
            })
            .map(|(_, c)| c)
    }

    /// Files the counts of object `from` under `to` (a stand-in copy of a binary, run in its
    /// place, reported as the binary).
    pub fn rename_object(&mut self, from: &Path, to: &Path) {
        let from = from.display().to_string();
        if let Some(counts) = self.objects.remove(&from) {
            self.objects.insert(to.display().to_string(), counts);
        }
    }

    pub fn parse(text: &str, path: &Path) -> Result<Profile> {
        Parser::new(path).run(text)
    }
}

struct Parser {
    path: PathBuf,
    names: BTreeMap<(char, u64), String>,
    positions: Vec<String>,
    ir_column: Option<usize>,
    object: String,
    function: String,
    last: Vec<u64>,
    skip_next_cost: bool,
}

impl Parser {
    fn new(path: &Path) -> Parser {
        Parser {
            path: path.to_path_buf(),
            names: BTreeMap::new(),
            positions: vec!["line".to_string()],
            ir_column: None,
            object: String::new(),
            function: String::new(),
            last: Vec::new(),
            skip_next_cost: false,
        }
    }

    fn error(&self, line: usize, message: String) -> StaticError {
        StaticError::Parse {
            path: self.path.clone(),
            line,
            message,
        }
    }

    fn run(mut self, text: &str) -> Result<Profile> {
        let mut profile = Profile::default();
        for (index, raw) in text.lines().enumerate() {
            let line_no = index + 1;
            let line = raw.trim_end();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(rest) = line.strip_prefix("positions:") {
                self.positions = rest.split_whitespace().map(str::to_string).collect();
                if !self.positions.iter().any(|p| p == "instr") {
                    return Err(self.error(
                        line_no,
                        "positions do not include `instr`; run callgrind with --dump-instr=yes"
                            .into(),
                    ));
                }
                self.last = vec![0; self.positions.len()];
            } else if let Some(rest) = line.strip_prefix("events:") {
                self.ir_column = rest.split_whitespace().position(|e| e == "Ir");
                if self.ir_column.is_none() {
                    return Err(self.error(line_no, "events do not include `Ir`".into()));
                }
            } else if let Some(rest) = line
                .strip_prefix("totals:")
                .or_else(|| line.strip_prefix("summary:"))
            {
                let column = self.ir_column.unwrap_or(0);
                profile.total = rest
                    .split_whitespace()
                    .nth(column)
                    .and_then(|v| v.parse().ok());
            } else if let Some(rest) = line.strip_prefix("ob=") {
                self.object = self.name('o', rest, line_no)?;
            } else if let Some(rest) = line.strip_prefix("fn=") {
                self.function = self.name('n', rest, line_no)?;
            } else if let Some(rest) = line.strip_prefix("cob=") {
                self.name('o', rest, line_no)?;
            } else if let Some(rest) = line.strip_prefix("cfn=") {
                self.name('n', rest, line_no)?;
            } else if let Some(rest) = line
                .strip_prefix("fl=")
                .or_else(|| line.strip_prefix("fi="))
                .or_else(|| line.strip_prefix("fe="))
                .or_else(|| line.strip_prefix("cfi="))
                .or_else(|| line.strip_prefix("cfl="))
            {
                self.name('f', rest, line_no)?;
            } else if line.starts_with("calls=") {
                // The next cost line is the call's inclusive cost, not the call instruction's.
                self.skip_next_cost = true;
            } else if line.starts_with("jump=") || line.starts_with("jcnd=") {
                // Jump lines carry their own position; callgrind's next cost line is relative
                // to the position before them, which we keep.
            } else if line.starts_with(|c: char| c.is_ascii_digit() || "+-*".contains(c)) {
                self.cost_line(line, line_no, &mut profile)?;
            } else if line.contains(':') {
                // Header lines (version, creator, cmd, desc, ...).
            } else {
                return Err(self.error(line_no, format!("unexpected line `{line}`")));
            }
        }
        if self.ir_column.is_none() {
            return Err(self.error(0, "no `events:` line; not a callgrind profile".into()));
        }
        Ok(profile)
    }

    /// `(id) name` defines a compressed name, `(id)` refers to it, a bare name is itself.
    fn name(&mut self, kind: char, text: &str, line: usize) -> Result<String> {
        let text = text.trim();
        let Some(rest) = text.strip_prefix('(') else {
            return Ok(text.to_string());
        };
        let close = rest
            .find(')')
            .ok_or_else(|| self.error(line, format!("expected `(id)` or a name in `{text}`")))?;
        // `(below main)` is a bare name; only `(digits)` is a compressed reference.
        let Ok(id) = rest[..close].parse::<u64>() else {
            return Ok(text.to_string());
        };
        let name = rest[close + 1..].trim();
        if name.is_empty() {
            self.names
                .get(&(kind, id))
                .cloned()
                .ok_or_else(|| self.error(line, format!("name ({id}) used before definition")))
        } else {
            self.names.insert((kind, id), name.to_string());
            Ok(name.to_string())
        }
    }

    fn cost_line(&mut self, line: &str, line_no: usize, profile: &mut Profile) -> Result<()> {
        let mut fields = line.split_whitespace();
        if self.last.len() != self.positions.len() {
            self.last = vec![0; self.positions.len()];
        }
        let mut position = self.last.clone();
        for slot in position.iter_mut() {
            let f = fields
                .next()
                .ok_or_else(|| self.error(line_no, "missing position".into()))?;
            *slot = self.subposition(f, *slot, line_no)?;
        }
        let column = self.ir_column.unwrap_or(0);
        let ir: u64 = match fields.nth(column) {
            Some(v) => v
                .parse()
                .map_err(|_| self.error(line_no, format!("expected a count, found `{v}`")))?,
            None => 0,
        };
        self.last = position.clone();
        if std::mem::take(&mut self.skip_next_cost) {
            return Ok(());
        }
        let instr_at = self
            .positions
            .iter()
            .position(|p| p == "instr")
            .unwrap_or(0);
        let address = position[instr_at];
        let counts = profile.objects.entry(self.object.clone()).or_default();
        *counts.instructions.entry(address).or_default() += ir;
        counts
            .function_of
            .entry(address)
            .or_insert_with(|| self.function.clone());
        Ok(())
    }

    fn subposition(&self, f: &str, previous: u64, line: usize) -> Result<u64> {
        let bad = || self.error(line, format!("expected a position, found `{f}`"));
        if f == "*" {
            return Ok(previous);
        }
        let number = |s: &str| -> Option<u64> {
            match s.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16).ok(),
                None => s.parse().ok(),
            }
        };
        if let Some(d) = f.strip_prefix('+') {
            return previous
                .checked_add(number(d).ok_or_else(bad)?)
                .ok_or_else(bad);
        }
        if let Some(d) = f.strip_prefix('-') {
            return previous
                .checked_sub(number(d).ok_or_else(bad)?)
                .ok_or_else(bad);
        }
        number(f).ok_or_else(bad)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Hand-written in the format of the valgrind manual; counts worked out by hand.
    const SAMPLE: &str = "version: 1
creator: callgrind-3.19.0
positions: instr line
events: Ir
summary: 29
ob=(1) /tmp/prog
fl=(1) prog.c
fn=(1) main
0x1000 3 1
+4 * 10
+2 4 10
cfl=(1)
cfn=(2) f
calls=10 0x2000 9
* * 500
+5 * 1
fn=(2)
0x2000 9 7
";

    #[test]
    fn parses_relative_positions_and_skips_inclusive_call_costs() {
        let p = Profile::parse(SAMPLE, Path::new("x")).unwrap();
        let o = &p.objects["/tmp/prog"];
        let want: BTreeMap<u64, u64> = [
            (0x1000, 1),
            (0x1004, 10),
            (0x1006, 10),
            (0x100b, 1),
            (0x2000, 7),
        ]
        .into();
        assert_eq!(o.instructions, want);
        assert_eq!(o.function_of[&0x2000], "f");
        assert_eq!(p.total, Some(29));
    }

    #[test]
    fn bad_count_names_file_and_line() {
        let text = "positions: instr\nevents: Ir\n0x10 x\n";
        let e = Profile::parse(text, Path::new("cg.out"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("cg.out:3:"), "{e}");
    }

    #[test]
    fn missing_instr_positions_is_explained() {
        let e = Profile::parse("positions: line\nevents: Ir\n", Path::new("a"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("--dump-instr=yes"), "{e}");
    }
}
