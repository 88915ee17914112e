//! A streaming reader for PYPYLOG files, as written by
//! `PYPYLOG=jit-log-opt,jit-backend-counts,jit-summary:FILE pypy3 prog.py`.
//!
//! The log is a sequence of sections `[hex-timestamp] {name` ... `[hex-timestamp] name}`.
//! Read here: `jit-log-opt-loop` and `jit-log-opt-bridge` (optimised traces, 001 §3.2),
//! `jit-backend-counts` (entry, label and bridge counters) and `jit-summary`. Other sections
//! are skipped. The reader holds one line at a time; traces are kept in the compact form of
//! [`crate::trace`].

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::JitError;
use crate::trace::{Marker, Op, OpNameId, OpNames, SourceId, SourceTable, Trace, TraceKind};

/// At most this many warnings keep their text; the rest are only counted.
const MAX_WARNINGS: usize = 200;

/// Something the reader could not use, with the line it is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    pub line: Option<usize>,
    pub message: String,
}

/// The counters of `jit-backend-counts`. Ids are the numbers the traces use: loop numbers,
/// target tokens, and guard ids (printed in decimal here, in hex in the traces).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Counters {
    /// `entry N:c`: how often loop N was entered from the interpreter.
    pub entries: HashMap<u64, u64>,
    /// `TargetToken(N):c`: how often label N was reached.
    pub labels: HashMap<u64, u64>,
    /// `bridge D:c`: how often the bridge of guard D ran.
    pub bridges: HashMap<u64, u64>,
    /// False when the log ended inside the section.
    pub complete: bool,
    /// Every counter line in log order: the order in which the backend compiled the traces,
    /// which [`crate::lifetime`] uses to give each trace its own counters.
    pub sequence: Vec<CounterRecord>,
    /// Numbers that name more than one counter line (a freed loop's ids reused); the maps
    /// above add such lines together, the sequence keeps them apart.
    pub reused_numbers: usize,
}

/// One line of `jit-backend-counts`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CounterRecord {
    pub kind: CounterKind,
    pub id: u64,
    pub count: u64,
}

/// One line of `jit-summary`, e.g. `Tracing: 3 0.005401`.
#[derive(Debug, Clone, Serialize)]
pub struct SummaryLine {
    pub key: String,
    pub values: Vec<String>,
}

/// A parsed PYPYLOG.
#[derive(Debug, Clone, Default)]
pub struct JitLog {
    pub path: PathBuf,
    pub traces: Vec<Trace>,
    /// `None` when the log has no `jit-backend-counts` section.
    pub counters: Option<Counters>,
    pub summary: Vec<SummaryLine>,
    pub op_names: OpNames,
    pub sources: SourceTable,
    pub warnings: Vec<Warning>,
    /// Warnings beyond [`MAX_WARNINGS`], counted only.
    pub suppressed_warnings: usize,
    /// Sections seen, by name.
    pub sections: BTreeMap<String, usize>,
    pub bytes: u64,
    pub lines: usize,
    /// Set when the log ends inside a section (a crashed or killed program), or in text that
    /// belongs to no section.
    pub truncated: bool,
    /// The line where the log stops being whole.
    pub truncated_at: Option<usize>,
    /// The most operations the reader held at once: the largest trace, since it hands each
    /// trace on when its section ends. What the consumer keeps is the consumer's business.
    pub max_trace_ops: usize,
}

impl JitLog {
    /// The first value of a `jit-summary` line, e.g. `summary_number("Total # of loops")`.
    pub fn summary_number(&self, key: &str) -> Option<f64> {
        self.summary
            .iter()
            .find(|s| s.key == key)
            .and_then(|s| s.values.first())
            .and_then(|v| v.parse().ok())
    }
}

/// Parses the PYPYLOG file at `path`.
pub fn parse_file(path: &Path) -> Result<JitLog, JitError> {
    let file = File::open(path).map_err(|source| JitError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_reader(BufReader::with_capacity(1 << 16, file), path)
}

/// Parses a PYPYLOG held in memory; `name` stands for the file in messages.
pub fn parse_str(text: &str, name: &str) -> Result<JitLog, JitError> {
    parse_reader(text.as_bytes(), Path::new(name))
}

/// Parses a PYPYLOG from any reader, one line at a time, keeping every trace in memory.
pub fn parse_reader<R: BufRead>(reader: R, path: &Path) -> Result<JitLog, JitError> {
    let mut traces = Vec::new();
    let mut log = read_traces(
        reader,
        path,
        ReadMode::Full,
        |mut trace: Trace, _: &OpNames, _: &SourceTable| {
            trace.ops.shrink_to_fit();
            traces.push(trace);
        },
    )?;
    log.traces = traces;
    Ok(log)
}

/// How much of each trace [`read_traces`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadMode {
    /// Every operation.
    Full,
    /// Headers, counters and summary only: traces reach the consumer without operations and
    /// operation lines are not checked. The first pass of the streaming analysis.
    Headers,
}

/// Streams a PYPYLOG: each trace goes to `on_trace`, with the name and source tables as they
/// stand, as soon as its section ends, and is not kept. The returned log holds everything
/// else (counters, summary, warnings) and no traces; memory is bounded by the largest trace.
pub fn read_traces<R, F>(
    mut reader: R,
    path: &Path,
    mode: ReadMode,
    on_trace: F,
) -> Result<JitLog, JitError>
where
    R: BufRead,
    F: FnMut(Trace, &OpNames, &SourceTable),
{
    let mut parser = Parser::new(path, mode, on_trace);
    let io_error = |source| JitError::Io {
        path: path.to_path_buf(),
        source,
    };
    // Lines are cut out of large blocks in place (memchr), never copied one by one.
    let mut buf = vec![0u8; 1 << 20];
    let (mut start, mut end) = (0usize, 0usize);
    loop {
        // every whole line of the block, with one searcher over the block
        let base = start;
        for i in memchr::memchr_iter(b'\n', &buf[base..end]) {
            parser.raw_line(&buf[start..base + i], true)?;
            start = base + i + 1;
        }
        parser.log.bytes += (start - base) as u64;
        if start > 0 {
            buf.copy_within(start..end, 0);
            end -= start;
            start = 0;
        }
        if end == buf.len() {
            buf.resize(buf.len() * 2, 0); // a line longer than the block
        }
        let n = loop {
            match reader.read(&mut buf[end..]) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                r => break r.map_err(io_error)?,
            }
        };
        if n == 0 {
            if end > 0 {
                parser.log.bytes += end as u64;
                parser.raw_line(&buf[..end], false)?;
            }
            break;
        }
        end += n;
    }
    parser.finish()
}

struct OpenSection {
    name: String,
    kind: SectionKind,
    line: usize,
}

/// The sections the reader reads, decided once per section rather than per line.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SectionKind {
    Trace,
    Counts,
    Summary,
    Other,
}

impl SectionKind {
    fn of(name: &str) -> Self {
        match name {
            "jit-log-opt-loop" | "jit-log-opt-bridge" => SectionKind::Trace,
            "jit-backend-counts" => SectionKind::Counts,
            "jit-summary" => SectionKind::Summary,
            _ => SectionKind::Other,
        }
    }
}

struct Parser<F> {
    log: JitLog,
    mode: ReadMode,
    on_trace: F,
    stack: Vec<OpenSection>,
    trace: Option<Trace>,
    source: Option<SourceId>,
    timestamp: u64,
    counters: Option<Counters>,
    seen_section: bool,
    last_line_incomplete: bool,
    /// The first line of text outside any section since the last section start.
    outside_since: Option<usize>,
}

enum SectionLine<'a> {
    Start(u64, &'a str),
    End(u64, &'a str),
}

fn section_line(text: &str) -> Option<SectionLine<'_>> {
    let rest = text.strip_prefix('[')?;
    // a trace's input arguments `[p0, i1, ...]` start with `[` too: the hex stamp is checked
    // before looking for `] ` (the string searcher's set-up cost more than the rest)
    let hex = rest.bytes().take_while(u8::is_ascii_hexdigit).count();
    if hex == 0 || !rest[hex..].starts_with("] ") {
        return None;
    }
    let (stamp, rest) = (&rest[..hex], &rest[hex + 2..]);
    if stamp.is_empty() || !stamp.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let stamp = u64::from_str_radix(stamp, 16).ok()?;
    let is_name = |s: &str| !s.is_empty() && !s.contains(char::is_whitespace);
    if let Some(name) = rest.strip_prefix('{') {
        return is_name(name).then_some(SectionLine::Start(stamp, name));
    }
    let name = rest.strip_suffix('}')?;
    is_name(name).then_some(SectionLine::End(stamp, name))
}

impl<F: FnMut(Trace, &OpNames, &SourceTable)> Parser<F> {
    fn new(path: &Path, mode: ReadMode, on_trace: F) -> Self {
        Parser {
            log: JitLog {
                path: path.to_path_buf(),
                ..JitLog::default()
            },
            mode,
            on_trace,
            stack: Vec::new(),
            trace: None,
            source: None,
            timestamp: 0,
            counters: None,
            seen_section: false,
            last_line_incomplete: false,
            outside_since: None,
        }
    }

    fn warn(&mut self, line: Option<usize>, message: String) {
        if self.log.warnings.len() < MAX_WARNINGS {
            self.log.warnings.push(Warning { line, message });
        } else {
            self.log.suppressed_warnings += 1;
        }
    }

    /// Inside a trace section, past the first section start.
    fn in_trace(&self) -> bool {
        self.seen_section
            && self
                .stack
                .last()
                .is_some_and(|s| s.kind == SectionKind::Trace)
    }

    /// One line without its `\n`; `complete` is false for a last line the log cuts short.
    fn raw_line(&mut self, mut line: &[u8], complete: bool) -> Result<(), JitError> {
        if let Some(rest) = line.strip_suffix(b"\r") {
            line = rest;
        }
        // Operation lines (headers start `#`, section lines `[`) are nearly all of a log: they
        // are read from the bytes, without UTF-8 validation of arguments and fail-args. The
        // first pass keeps only labels and guards; the second falls back to the `&str` parser,
        // which words the warning, only when the byte parser does not accept the line.
        if self.in_trace() && !matches!(line.first(), Some(b'[' | b'#')) {
            match self.mode {
                ReadMode::Headers => {
                    self.skeleton_line(line, complete);
                    return Ok(());
                }
                ReadMode::Full if complete && self.trace.is_some() => {
                    if let Some(op) = parse_op_bytes(line) {
                        if self.push_op(op) {
                            self.log.lines += 1;
                            self.last_line_incomplete = false;
                            return Ok(());
                        }
                    }
                }
                ReadMode::Full => {}
            }
        }
        // Validating first is several times faster than the lossy path on clean logs.
        match std::str::from_utf8(line) {
            Ok(text) => self.line(text, complete),
            Err(_) => self.line(&String::from_utf8_lossy(line), complete),
        }
    }

    /// Adds a parsed operation to the open trace; `false` when a merge point's text is not
    /// UTF-8 (the caller then reads the line the lossy way).
    fn push_op(&mut self, op: OpLine<'_>) -> bool {
        let (name, marker) = match op {
            OpLine::End => return true,
            OpLine::Op { name, marker, dmp } => {
                if let Some(raw) = dmp {
                    self.source = Some(self.log.sources.intern(raw));
                }
                (self.log.op_names.intern(name), marker)
            }
            OpLine::Bytes { name, marker, dmp } => {
                if let Some(raw) = dmp {
                    match self.log.sources.intern_bytes(raw) {
                        Some(id) => self.source = Some(id),
                        None => return false,
                    }
                }
                (self.log.op_names.intern_ascii(name), marker)
            }
        };
        if let Some(trace) = self.trace.as_mut() {
            trace.ops.push(Op {
                name,
                marker,
                source: self.source,
            });
        }
        true
    }

    /// An operation line in the first pass: only a label or a guard is kept.
    fn skeleton_line(&mut self, line: &[u8], complete: bool) {
        self.log.lines += 1;
        self.last_line_incomplete = !complete;
        let Some(trace) = self.trace.as_mut() else {
            return;
        };
        let name = op_name_bytes(line);
        let is_label = name.starts_with(b"label(");
        if !(is_label || name.starts_with(b"guard_") || name.starts_with(b"vec_guard_")) {
            return;
        }
        let marker = if is_label {
            target_token_bytes(line).map(Marker::Label)
        } else {
            guard_descr_bytes(line).map(Marker::Guard)
        };
        if let Some(marker) = marker {
            trace.ops.push(Op {
                name: OpNameId(0),
                marker,
                source: None,
            });
        }
    }

    fn line(&mut self, text: &str, complete: bool) -> Result<(), JitError> {
        self.log.lines += 1;
        let lineno = self.log.lines;
        self.last_line_incomplete = !complete;
        if !self.seen_section {
            if text.trim().is_empty() {
                return Ok(());
            }
            match section_line(text) {
                Some(SectionLine::Start(..)) => self.seen_section = true,
                _ => {
                    let found: String = text.chars().take(80).collect();
                    return Err(JitError::NotPypylog {
                        path: self.log.path.clone(),
                        line: lineno,
                        found: found.escape_debug().to_string(),
                    });
                }
            }
        }
        if !complete {
            // A line cut short by a crash is never trusted; finish() reports it.
            return Ok(());
        }
        match section_line(text) {
            Some(SectionLine::Start(stamp, name)) => self.start_section(stamp, name, lineno),
            Some(SectionLine::End(stamp, name)) => self.end_section(stamp, name, lineno),
            None => self.content(text, lineno),
        }
        Ok(())
    }

    fn start_section(&mut self, stamp: u64, name: &str, lineno: usize) {
        self.outside_since = None;
        match self.log.sections.get_mut(name) {
            Some(n) => *n += 1,
            None => {
                self.log.sections.insert(name.to_string(), 1);
            }
        }
        self.timestamp = stamp;
        if name == "jit-backend-counts" {
            self.counters.get_or_insert_with(Counters::default).complete = false;
        }
        self.stack.push(OpenSection {
            name: name.to_string(),
            kind: SectionKind::of(name),
            line: lineno,
        });
    }

    fn end_section(&mut self, _stamp: u64, name: &str, lineno: usize) {
        match self.stack.last() {
            Some(open) if open.name == name => {}
            Some(open) => {
                let msg = format!(
                    "section end `{name}}}` does not match the open section `{{{}` of line {}",
                    open.name, open.line
                );
                self.warn(Some(lineno), msg);
                if !self.stack.iter().any(|s| s.name == name) {
                    return;
                }
            }
            None => {
                self.warn(
                    Some(lineno),
                    format!("section end `{name}}}` without a section start"),
                );
                return;
            }
        }
        while let Some(open) = self.stack.pop() {
            if open.name == name {
                break;
            }
        }
        match SectionKind::of(name) {
            SectionKind::Trace => self.finish_trace(),
            SectionKind::Counts => {
                if let Some(c) = self.counters.as_mut() {
                    c.complete = true;
                }
            }
            _ => {}
        }
    }

    fn content(&mut self, text: &str, lineno: usize) {
        let Some(section) = self.stack.last() else {
            if !text.trim().is_empty() {
                self.outside_since.get_or_insert(lineno);
                self.warn(
                    Some(lineno),
                    "text outside any section, skipped".to_string(),
                );
            }
            return;
        };
        match section.kind {
            SectionKind::Trace => self.trace_line(text, lineno),
            SectionKind::Counts => self.counter_line(text, lineno),
            SectionKind::Summary => self.summary_line(text),
            SectionKind::Other => {}
        }
    }

    fn trace_line(&mut self, text: &str, lineno: usize) {
        if let Some(header) = text.strip_prefix("# ") {
            return self.trace_header(header, lineno);
        }
        if text.starts_with('[') || text.trim().is_empty() || self.mode == ReadMode::Headers {
            return; // the input arguments `[p0, p1]`
        }
        if self.trace.is_none() {
            if text.starts_with('#') {
                return;
            }
            return self.warn(
                Some(lineno),
                "operation before any `# Loop` or `# bridge out of Guard` header, skipped"
                    .to_string(),
            );
        }
        match parse_op(text) {
            Ok(op) => {
                self.push_op(op);
            }
            Err(expected) => self.warn(
                Some(lineno),
                format!("expected {expected}, found `{}`", clip(text)),
            ),
        }
    }

    fn trace_header(&mut self, header: &str, lineno: usize) {
        let parsed = if let Some(rest) = header.strip_prefix("Loop ") {
            parse_loop_header(rest)
        } else if let Some(rest) = header.strip_prefix("bridge out of Guard ") {
            parse_bridge_header(rest)
        } else {
            return; // other comments
        };
        let Some((kind, name, header_kind, declared)) = parsed else {
            let msg = format!(
                "expected a header `# Loop N (...) : loop with K ops` or \
                 `# bridge out of Guard 0xH with K ops`, found `# {}`",
                clip(header)
            );
            return self.warn(Some(lineno), msg);
        };
        self.finish_trace();
        // Ops before the first debug_merge_point belong to where the trace starts: the loop's
        // own location, or for a bridge the location of the guard it leaves from (set later).
        self.source = (!name.is_empty()).then(|| self.log.sources.intern(&name));
        self.trace = Some(Trace {
            kind,
            name,
            header_kind,
            declared_ops: declared,
            // the header's count, bounded against a corrupt header; the second pass's traces
            // then grow without reallocating
            ops: match self.mode {
                ReadMode::Full => Vec::with_capacity(declared.unwrap_or(0).min(1 << 14)),
                ReadMode::Headers => Vec::new(),
            },
            line: lineno,
            timestamp: self.timestamp,
        });
    }

    fn finish_trace(&mut self) {
        let Some(trace) = self.trace.take() else {
            return;
        };
        self.log.max_trace_ops = self.log.max_trace_ops.max(trace.ops.len());
        if let Some(declared) = trace.declared_ops.filter(|_| self.mode == ReadMode::Full) {
            if declared != trace.ops.len() {
                let msg = format!(
                    "{} declares {declared} ops but {} were read",
                    trace.label(),
                    trace.ops.len()
                );
                self.warn(Some(trace.line), msg);
            }
        }
        self.source = None;
        (self.on_trace)(trace, &self.log.op_names, &self.log.sources);
    }

    fn counter_line(&mut self, text: &str, lineno: usize) {
        let counters = self.counters.get_or_insert_with(Counters::default);
        match parse_counter(text) {
            Some((kind, id, count)) => {
                let map = match kind {
                    CounterKind::Entry => &mut counters.entries,
                    CounterKind::Label => &mut counters.labels,
                    CounterKind::Bridge => &mut counters.bridges,
                };
                match map.entry(id) {
                    std::collections::hash_map::Entry::Occupied(mut e) => {
                        counters.reused_numbers += 1;
                        *e.get_mut() = e.get().saturating_add(count);
                    }
                    std::collections::hash_map::Entry::Vacant(e) => {
                        e.insert(count);
                    }
                }
                counters.sequence.push(CounterRecord { kind, id, count });
            }
            None if text.trim().is_empty() => {}
            None => self.warn(
                Some(lineno),
                format!(
                    "expected a counter `entry N:c`, `TargetToken(N):c` or `bridge D:c`, found `{}`",
                    clip(text)
                ),
            ),
        }
    }

    fn summary_line(&mut self, text: &str) {
        if let Some((key, values)) = text.rsplit_once(':') {
            self.log.summary.push(SummaryLine {
                key: key.trim().to_string(),
                values: values.split_whitespace().map(str::to_string).collect(),
            });
        }
    }

    fn finish(mut self) -> Result<JitLog, JitError> {
        if !self.seen_section {
            return Err(JitError::Empty {
                path: self.log.path.clone(),
            });
        }
        let lines = self.log.lines;
        if let Some(from) = self.outside_since {
            self.log.truncated = true;
            self.log.truncated_at = Some(from);
            self.warn(
                Some(from),
                format!(
                    "log is truncated: from line {from} to its end it is text outside any section"
                ),
            );
        }
        if self.last_line_incomplete {
            self.log.truncated = true;
            self.log.truncated_at.get_or_insert(lines);
            self.warn(
                Some(lines),
                format!("log stops in the middle of line {lines}; that line was ignored"),
            );
        }
        if let Some(t) = &self.trace {
            self.log.max_trace_ops = self.log.max_trace_ops.max(t.ops.len());
        }
        if let Some(open) = self.stack.last() {
            self.log.truncated = true;
            self.log.truncated_at.get_or_insert(lines);
            let lost = match &self.trace {
                Some(t) => format!(
                    "; the incomplete {} (line {}) was dropped",
                    t.label(),
                    t.line
                ),
                None => String::new(),
            };
            let msg = format!(
                "log is truncated: it ends at line {lines} inside section `{{{}` opened at line {}{lost}",
                open.name, open.line
            );
            self.warn(Some(lines), msg);
            self.trace = None;
        }
        self.log.counters = self.counters;
        Ok(self.log)
    }
}

fn clip(text: &str) -> String {
    let mut s: String = text.chars().take(100).collect();
    if s.len() < text.len() {
        s.push_str("...");
    }
    s
}

/// `N (NAME) : KIND with K ops`; NAME may itself hold parentheses and colons.
fn parse_loop_header(rest: &str) -> Option<(TraceKind, String, String, Option<usize>)> {
    let (number, rest) = rest.split_once(' ')?;
    let number = number.parse().ok()?;
    let (name, tail) = match rest.rsplit_once(") : ") {
        Some((n, t)) => (n.strip_prefix('(').unwrap_or(n), t),
        None => ("", rest.strip_prefix(": ").unwrap_or(rest)),
    };
    let (kind, declared) = split_with_ops(tail);
    Some((
        TraceKind::Loop { number },
        name.to_string(),
        kind.to_string(),
        declared,
    ))
}

/// `0xH with K ops`
fn parse_bridge_header(rest: &str) -> Option<(TraceKind, String, String, Option<usize>)> {
    let (guard, tail) = rest.split_once(' ').unwrap_or((rest, ""));
    let guard = parse_guard_number(guard)?;
    let declared = tail
        .strip_prefix("with ")
        .and_then(|t| t.strip_suffix(" ops"))
        .and_then(|k| k.parse().ok());
    Some((
        TraceKind::Bridge { guard },
        String::new(),
        "bridge".to_string(),
        declared,
    ))
}

fn split_with_ops(tail: &str) -> (&str, Option<usize>) {
    match tail.rsplit_once(" with ") {
        Some((kind, ops)) => (kind, ops.strip_suffix(" ops").and_then(|k| k.parse().ok())),
        None => (tail, None),
    }
}

/// Guard numbers: `0x7fda261deec0` in traces; old logs wrote small decimal numbers.
fn parse_guard_number(text: &str) -> Option<u64> {
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

enum OpLine<'a> {
    End,
    Op {
        name: &'a str,
        marker: Marker,
        dmp: Option<&'a str>,
    },
    /// As `Op`, from [`parse_op_bytes`]: the name is ASCII, the merge-point text not yet
    /// checked for UTF-8.
    Bytes {
        name: &'a [u8],
        marker: Marker,
        dmp: Option<&'a [u8]>,
    },
}

/// `s.split_once(pat)` for a short ASCII `pat`, found with memchr: the general string
/// searcher's set-up costs more than the search on lines this short.
fn split_at<'a>(s: &'a str, pat: &str) -> Option<(&'a str, &'a str)> {
    let (b, p) = (s.as_bytes(), pat.as_bytes());
    let mut from = 0;
    while let Some(i) = memchr::memchr(p[0], &b[from..]) {
        let i = from + i;
        if b[i..].starts_with(p) {
            return Some((&s[..i], &s[i + p.len()..]));
        }
        from = i + 1;
    }
    None
}

/// One operation line: `[+offset: ][result = ]name(args[, descr=...])[ [failargs]]`.
fn parse_op(text: &str) -> Result<OpLine<'_>, &'static str> {
    let mut body = text;
    if let Some(rest) = body.strip_prefix('+') {
        let (offset, rest) = split_at(rest, ": ").ok_or("an offset `+N: ` before the operation")?;
        if !offset.bytes().all(|b| b.is_ascii_digit()) {
            return Err("a decimal offset after `+`");
        }
        body = rest;
    }
    if body.starts_with("--end of the loop--") {
        return Ok(OpLine::End);
    }
    let paren = body
        .find('(')
        .ok_or("an operation `name(args)` or `result = name(args)`")?;
    let head = &body[..paren];
    let name = match split_at(head, " = ") {
        Some((result, name)) => {
            if !is_ident(result) {
                return Err("a result variable such as `i5` before ` = `");
            }
            name
        }
        None => head,
    };
    if !is_ident(name) {
        return Err("an operation name of lower-case letters, digits and `_`");
    }
    let args = &body[paren + 1..];
    let mut dmp = None;
    let marker = match name {
        "label" => Marker::Label(target_token(args).ok_or("`label(..., descr=TargetToken(N))`")?),
        "jump" => Marker::Jump(target_token(args)),
        "finish" => Marker::Finish,
        "debug_merge_point" => {
            dmp = Some(quoted(args).ok_or("`debug_merge_point(0, 0, '...')`")?);
            Marker::DebugMergePoint
        }
        _ if name.starts_with("guard_") || name.starts_with("vec_guard_") => {
            Marker::Guard(guard_descr(args).ok_or("a guard with `descr=<Guard0xH>`")?)
        }
        _ => Marker::Plain,
    };
    Ok(OpLine::Op { name, marker, dmp })
}

/// The bytes from an operation's name on: past `+offset: ` and `result = `.
fn op_name_bytes(line: &[u8]) -> &[u8] {
    let mut b = line;
    if b.first() == Some(&b'+') {
        if let Some(i) = b.iter().position(|&c| c == b' ') {
            b = &b[i + 1..];
        }
    }
    let n = b.iter().take_while(|&&c| WORD[usize::from(c)]).count();
    match b[n..].strip_prefix(b" = ") {
        Some(rest) => rest,
        None => b,
    }
}

/// `[A-Za-z0-9_]` as a table: the first pass looks at every operation's first bytes.
static WORD: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || b == b'_';
        c += 1;
    }
    t
};

/// `[a-z0-9_]`: the characters of result variables and operation names ([`is_ident`]).
static IDENT: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_';
        c += 1;
    }
    t
};

/// A hex (`0x...`) or decimal number as [`parse_guard_number`] reads it, without going
/// through `&str`: `None` where that gives an error.
fn guard_number_bytes(b: &[u8]) -> Option<u64> {
    let (digits, radix) = match b.strip_prefix(b"0x") {
        Some(hex) => (hex, 16),
        None => (b, 10),
    };
    let digits = digits.strip_prefix(b"+").unwrap_or(digits);
    if digits.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    for &c in digits {
        let d = (c as char).to_digit(radix)?;
        v = v.checked_mul(u64::from(radix))?.checked_add(u64::from(d))?;
    }
    Some(v)
}

fn is_ident(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

fn target_token(args: &str) -> Option<u64> {
    target_token_bytes(args.as_bytes())
}

fn guard_descr(args: &str) -> Option<u64> {
    guard_descr_bytes(args.as_bytes())
}

/// What follows the last `descr=` + `tail` in `hay`. `tail` holds no `=`, so every
/// occurrence of the pattern has its own `=`: scanning those from the end finds the last one
/// (a guard's descr comes before its fail-args, a label's at the end of its arguments).
fn after_last_descr<'a>(hay: &'a [u8], tail: &[u8]) -> Option<&'a [u8]> {
    let mut end = hay.len();
    while let Some(i) = memchr::memrchr(b'=', &hay[..end]) {
        if hay[..i].ends_with(b"descr") && hay[i + 1..].starts_with(tail) {
            return Some(&hay[i + 1 + tail.len()..]);
        }
        end = i;
    }
    None
}

/// The text up to the first `stop` (all of `rest` without one), if it is UTF-8.
fn until(rest: &[u8], stop: u8) -> Option<&str> {
    let end = memchr::memchr(stop, rest).unwrap_or(rest.len());
    std::str::from_utf8(&rest[..end]).ok()
}

fn target_token_bytes(args: &[u8]) -> Option<u64> {
    let rest = after_last_descr(args, b"TargetToken(")?;
    parse_signed_as_u64(until(rest, b')')?)
}

fn guard_descr_bytes(args: &[u8]) -> Option<u64> {
    let rest = after_last_descr(args, b"<Guard")?;
    let end = memchr::memchr(b'>', rest).unwrap_or(rest.len());
    guard_number_bytes(&rest[..end])
}

/// [`parse_op`] on the raw bytes of a line, for the lines it accepts: the same grammar and
/// result without validating the whole line as UTF-8 (only the name, ids and merge-point text
/// are looked at). `None` for anything else, which then goes through [`parse_op`] for its
/// warning; `tests` check the two agree on every line of real logs and on mutations of them.
///
/// One left-to-right scan: `[+digits: ][ident = ]ident(`. An identifier holds no space, `=`
/// or `(`, so where [`parse_op`] splits at the first `(` and the first ` = ` this finds the
/// same places.
fn parse_op_bytes(line: &[u8]) -> Option<OpLine<'_>> {
    let mut i = 0;
    if line.first() == Some(&b'+') {
        i = 1 + line[1..].iter().take_while(|b| b.is_ascii_digit()).count();
        if line.get(i..i + 2) != Some(b": ") {
            return None;
        }
        i += 2;
    }
    let body = &line[i..];
    if body.starts_with(b"--end of the loop--") {
        return Some(OpLine::End);
    }
    let mut end = ident_len(body);
    let mut start = 0;
    if body[end..].starts_with(b" = ") {
        if end == 0 {
            return None;
        }
        start = end + 3;
        end = start + ident_len(&body[start..]);
    }
    if end == start || body.get(end) != Some(&b'(') {
        return None;
    }
    let args = &body[end + 1..];
    let name = &body[start..end];
    let mut dmp = None;
    let marker = match name {
        b"label" => Marker::Label(target_token_bytes(args)?),
        b"jump" => Marker::Jump(target_token_bytes(args)),
        b"finish" => Marker::Finish,
        b"debug_merge_point" => {
            let start = memchr::memchr(b'\'', args)?;
            let end = memchr::memrchr(b'\'', args)?;
            if end <= start {
                return None;
            }
            dmp = Some(&args[start + 1..end]);
            Marker::DebugMergePoint
        }
        _ if name.starts_with(b"guard_") || name.starts_with(b"vec_guard_") => {
            Marker::Guard(guard_descr_bytes(args)?)
        }
        _ => Marker::Plain,
    };
    Some(OpLine::Bytes { name, marker, dmp })
}

/// The length of the identifier (`[a-z0-9_]*`, as [`is_ident`]) at the start of `b`.
fn ident_len(b: &[u8]) -> usize {
    b.iter().take_while(|&&c| IDENT[usize::from(c)]).count()
}

/// The quoted string of `debug_merge_point(0, 0, '...')`, which may itself hold quotes.
fn quoted(args: &str) -> Option<&str> {
    let start = args.find('\'')?;
    let end = args.rfind('\'')?;
    (end > start).then(|| &args[start + 1..end])
}

/// RPython prints ids as signed or unsigned words depending on the version.
fn parse_signed_as_u64(text: &str) -> Option<u64> {
    text.parse::<u64>()
        .ok()
        .or_else(|| text.parse::<i64>().ok().map(|v| v as u64))
}

/// What a counter counts: a loop's entry, a label, or a bridge's entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CounterKind {
    Entry,
    Label,
    Bridge,
}

fn parse_counter(text: &str) -> Option<(CounterKind, u64, u64)> {
    let (key, count) = text.trim().rsplit_once(':')?;
    let count = count.trim().parse().ok()?;
    if let Some(n) = key.strip_prefix("entry ") {
        return Some((CounterKind::Entry, parse_signed_as_u64(n.trim())?, count));
    }
    if let Some(n) = key.strip_prefix("bridge ") {
        return Some((CounterKind::Bridge, parse_signed_as_u64(n.trim())?, count));
    }
    let n = key.strip_prefix("TargetToken(")?.strip_suffix(')')?;
    Some((CounterKind::Label, parse_signed_as_u64(n)?, count))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = "\
[8a6af8093f] {jit-log-opt-loop
# Loop 1 (inner;/t.py:5-7~#4 LOAD_FAST) : loop with 6 ops
[p0, p1]
+280: p2 = getfield_gc_r(p0, descr=<FieldP pypy.interpreter.pyframe.PyFrame.inst_pycode 64>)
+335: label(p0, p1, p2, descr=TargetToken(140574919194352))
debug_merge_point(0, 0, 'inner;/t.py:5-7~#8 COMPARE_OP')
+463: i25 = int_lt(i23, i24)
+466: guard_true(i25, descr=<Guard0x7fda261deec0>) [p0, p2]
+712: jump(p0, p1, p2, descr=TargetToken(140574919194352))
+736: --end of the loop--
[8a6b04bc5d] jit-log-opt-loop}
[8a6b4d6fb1] {jit-log-opt-bridge
# bridge out of Guard 0x7fda261deec0 with 2 ops
[p0, p1]
i7 = int_lt(i4, i5)
finish(p11, descr=<DoneWithThisFrameDescrRef object at 0x7fda2953d6c0>)
[8a6b4e766f] jit-log-opt-bridge}
[8a6c8e0c69] {jit-backend-counts
entry 1:2000
TargetToken(140574919194352):3996959
bridge 140574919093952:1800
[8a6c8e1dfb] jit-backend-counts}
";

    #[test]
    fn reads_loops_bridges_and_counters() {
        let log = parse_str(SMALL, "small.log").unwrap();
        assert!(log.warnings.is_empty(), "{:?}", log.warnings);
        assert_eq!(log.traces.len(), 2);
        let lp = &log.traces[0];
        assert_eq!(lp.kind, TraceKind::Loop { number: 1 });
        assert_eq!(lp.name, "inner;/t.py:5-7~#4 LOAD_FAST");
        assert_eq!(lp.header_kind, "loop");
        assert_eq!(lp.ops.len(), 6);
        assert_eq!(lp.ops[1].marker, Marker::Label(140574919194352));
        assert_eq!(lp.ops[4].marker, Marker::Guard(0x7fda261deec0));
        assert_eq!(lp.ops[5].marker, Marker::Jump(Some(140574919194352)));
        assert_eq!(log.op_names.name(lp.ops[3].name), "int_lt");
        // the guard's id is hex in the trace and decimal in the counters: the same number
        assert_eq!(0x7fda261deec0_u64, 140574919093952);
        let br = &log.traces[1];
        assert_eq!(
            br.kind,
            TraceKind::Bridge {
                guard: 0x7fda261deec0
            }
        );
        assert_eq!(br.ops[1].marker, Marker::Finish);
        let c = log.counters.as_ref().unwrap();
        assert!(c.complete);
        assert_eq!(c.entries[&1], 2000);
        assert_eq!(c.labels[&140574919194352], 3996959);
        assert_eq!(c.bridges[&140574919093952], 1800);
        assert_eq!(log.sections["jit-log-opt-loop"], 1);
    }

    #[test]
    fn source_of_ops_follows_debug_merge_points() {
        let log = parse_str(SMALL, "small.log").unwrap();
        let lp = &log.traces[0];
        let first = log.sources.get(lp.ops[0].source.unwrap()).unwrap();
        assert_eq!(first.line, Some(7)); // from the loop header
        let cmp = log.sources.get(lp.ops[3].source.unwrap()).unwrap();
        assert_eq!(cmp.opcode.as_deref(), Some("COMPARE_OP"));
    }

    #[test]
    fn rejects_a_file_that_is_not_a_pypylog() {
        let err = parse_str("hello world\n", "notes.txt").unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with("notes.txt:1: not a PYPYLOG file"), "{msg}");
        assert!(msg.contains("hello world"), "{msg}");
        let err = parse_str("", "empty.log").unwrap_err();
        assert!(err.to_string().contains("empty file"));
    }

    #[test]
    fn truncated_log_keeps_complete_traces_and_says_where_it_stopped() {
        // cut inside the bridge section, in the middle of a line
        let cut = SMALL.find("i7 = int_lt(i4").unwrap() + 5;
        let log = parse_str(&SMALL[..cut], "crash.log").unwrap();
        assert!(log.truncated);
        assert_eq!(log.traces.len(), 1, "only the complete loop survives");
        assert!(log.counters.is_none());
        let texts: Vec<_> = log.warnings.iter().map(|w| w.message.as_str()).collect();
        assert!(
            texts.iter().any(|m| m
                .contains("inside section `{jit-log-opt-bridge` opened at line 12")
                && m.contains("bridge 0x7fda261deec0")),
            "{texts:?}"
        );
        assert!(
            texts.iter().any(|m| m.contains("middle of line 15")),
            "{texts:?}"
        );
    }

    #[test]
    fn truncated_counters_are_marked_incomplete() {
        let cut = SMALL.find("bridge 1405").unwrap();
        let log = parse_str(&SMALL[..cut], "crash.log").unwrap();
        let c = log.counters.unwrap();
        assert!(!c.complete);
        assert_eq!(c.entries[&1], 2000);
        assert!(c.bridges.is_empty());
    }

    #[test]
    fn malformed_lines_become_warnings_with_line_numbers() {
        let text = SMALL
            .replace("+463: i25 = int_lt(i23, i24)", "+463 i25 = int_lt")
            .replace("entry 1:2000", "entry one:2000");
        let log = parse_str(&text, "bad.log").unwrap();
        let w: Vec<_> = log
            .warnings
            .iter()
            .map(|w| (w.line, w.message.clone()))
            .collect();
        assert!(
            w.iter()
                .any(|(l, m)| *l == Some(7) && m.contains("expected an offset")),
            "{w:?}"
        );
        assert!(
            w.iter()
                .any(|(l, m)| *l == Some(19) && m.contains("expected a counter")),
            "{w:?}"
        );
        assert!(
            w.iter()
                .any(|(_, m)| m.contains("declares 6 ops but 5 were read")),
            "{w:?}"
        );
    }

    /// What [`parse_op`] makes of a line, in the byte parser's terms; `None` for an error.
    fn slow(line: &[u8]) -> Option<(Vec<u8>, Marker, Option<Vec<u8>>)> {
        match parse_op(&String::from_utf8_lossy(line)).ok()? {
            OpLine::End => Some((b"<end>".to_vec(), Marker::Plain, None)),
            OpLine::Op { name, marker, dmp } => {
                Some((name.into(), marker, dmp.map(|d| d.as_bytes().to_vec())))
            }
            OpLine::Bytes { .. } => unreachable!(),
        }
    }

    fn fast(line: &[u8]) -> Option<(Vec<u8>, Marker, Option<Vec<u8>>)> {
        match parse_op_bytes(line)? {
            OpLine::End => Some((b"<end>".to_vec(), Marker::Plain, None)),
            OpLine::Bytes { name, marker, dmp } => {
                let dmp = match dmp {
                    // the caller falls back to parse_op for merge points that are not UTF-8
                    Some(d) => Some(std::str::from_utf8(d).ok()?.as_bytes().to_vec()),
                    None => None,
                };
                Some((name.to_vec(), marker, dmp))
            }
            OpLine::Op { .. } => unreachable!(),
        }
    }

    #[test]
    fn byte_parser_agrees_with_the_str_parser() {
        // every operation line of a real log and of the paper fixture, and each of them with
        // one byte replaced by one of the grammar's delimiters (or invalid UTF-8), or cut short
        let mut lines: Vec<Vec<u8>> = Vec::new();
        for name in ["pypy_nested.log", "paper_fig1.log"] {
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures")
                .join(name);
            let text = std::fs::read(path).unwrap();
            lines.extend(
                text.split(|&b| b == b'\n')
                    .filter(|l| !l.is_empty() && !matches!(l[0], b'[' | b'#'))
                    .map(<[u8]>::to_vec),
            );
        }
        lines.extend(SMALL.lines().map(|l| l.as_bytes().to_vec()));
        assert!(lines.len() > 150, "{}", lines.len());
        let mut accepted = 0;
        let mut checked = 0;
        for line in &lines {
            let mut variants = vec![line.clone()];
            for at in 0..line.len().min(48) {
                variants.push(line[..at].to_vec());
                for b in [
                    b' ', b'(', b')', b'=', b'+', b':', b'\'', b'<', b'>', b'x', b'0', 0xff,
                ] {
                    let mut v = line.clone();
                    v[at] = b;
                    variants.push(v);
                }
            }
            for v in variants {
                checked += 1;
                if let Some(got) = fast(&v) {
                    accepted += 1;
                    assert_eq!(Some(got), slow(&v), "{}", String::from_utf8_lossy(&v));
                }
            }
        }
        // the byte parser takes the well-formed lines, not just the easy ones
        for line in &lines {
            assert_eq!(
                fast(line).is_some(),
                slow(line).is_some(),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        assert!(accepted * 4 > checked, "{accepted} of {checked}");
    }

    #[test]
    fn guard_numbers_from_bytes_as_from_str() {
        for t in [
            "0x7fda261deec0",
            "0x",
            "0x+5",
            "0x-5",
            "17",
            "+17",
            "-1",
            "",
            "+",
            "0xffffffffffffffff",
            "0x10000000000000000",
            "18446744073709551615",
            "18446744073709551616",
            "0xg1",
            "0X10",
            "1 2",
            "0x7FDA",
        ] {
            assert_eq!(
                guard_number_bytes(t.as_bytes()),
                parse_guard_number(t),
                "{t:?}"
            );
        }
        assert_eq!(guard_number_bytes(b"0x1\xff"), None);
    }

    #[test]
    fn op_forms() {
        let ok = |t: &str| match parse_op(t).unwrap() {
            OpLine::Op { name, marker, .. } => (name.to_string(), marker),
            OpLine::End | OpLine::Bytes { .. } => ("<end>".to_string(), Marker::Plain),
        };
        assert_eq!(ok("i5 = int_add(i4, 1)"), ("int_add".into(), Marker::Plain));
        assert_eq!(
            ok("+12: setfield_gc(p0, 1, descr=<FieldU x 81>)").0,
            "setfield_gc"
        );
        assert_eq!(
            ok("guard_value(i5, 3, descr=<Guard0x10>) [p0]").1,
            Marker::Guard(16)
        );
        assert_eq!(
            ok("guard_true(i1, descr=<Guard5>) [p0]").1,
            Marker::Guard(5)
        );
        assert_eq!(
            ok("jump(i15, descr=TargetToken(-12))").1,
            Marker::Jump(Some(-12_i64 as u64))
        );
        assert_eq!(ok("jump(p0, descr=<Loop0>)").1, Marker::Jump(None));
        assert_eq!(ok("+304: --end of the loop--").0, "<end>");
        assert!(parse_op("label(p0)").is_err());
        assert!(parse_op("Hello(").is_err());
        assert!(parse_op("+x: int_add(i1)").is_err());
        match parse_op("debug_merge_point(0, 0, '<code object f. file 'x'. line 3> #1 X')").unwrap()
        {
            OpLine::Op { dmp, .. } => {
                assert_eq!(dmp, Some("<code object f. file 'x'. line 3> #1 X"))
            }
            OpLine::End | OpLine::Bytes { .. } => panic!(),
        }
    }
}
