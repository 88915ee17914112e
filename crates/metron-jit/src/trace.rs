//! Traces as the JIT logged them, stored compactly: an operation keeps its interned name, its
//! source location and, for the operations that shape the trace graph, the label token or guard
//! id. Arguments and descriptors are dropped, so memory grows with the number of operations,
//! not with the size of the log.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use serde::Serialize;

/// A fast non-cryptographic hasher (the Fx hash of rustc) for interning short names: the
/// default SipHash costs more than the rest of parsing an operation line.
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        for &b in chunks.remainder() {
            self.add(u64::from(b));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl FxHasher {
    #[inline]
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x517cc1b727220a95);
    }
}

pub type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// Index of an operation name in [`OpNames`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct OpNameId(pub u32);

/// Index of a source location in [`SourceTable`] (stored plus one, so that an
/// `Option<SourceId>` takes four bytes in every operation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct SourceId(std::num::NonZeroU32);

impl SourceId {
    fn new(index: usize) -> Self {
        SourceId(std::num::NonZeroU32::MIN.saturating_add(index as u32))
    }

    pub fn index(self) -> usize {
        self.0.get() as usize - 1
    }
}

/// What an operation means for the trace graph (001 §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Marker {
    /// An ordinary operation.
    Plain,
    /// `label(..., descr=TargetToken(N))`: where counters count and jumps land.
    Label(u64),
    /// `jump(..., descr=TargetToken(N))`; `None` when the descr names no target token.
    Jump(Option<u64>),
    /// A guard with `descr=<Guard0xH>`; the id is the number H.
    Guard(u64),
    /// `finish(...)`: leaves compiled code.
    Finish,
    /// `debug_merge_point(...)`: sets the source location of what follows.
    DebugMergePoint,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Op {
    pub name: OpNameId,
    pub marker: Marker,
    /// The location of the last `debug_merge_point` before this operation.
    pub source: Option<SourceId>,
}

/// How control enters a trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TraceKind {
    /// `# Loop N (...) : loop with K ops`; counted by `entry N`.
    Loop { number: u64 },
    /// `# bridge out of Guard 0xH with K ops`; counted by `bridge D` with D = H.
    Bridge { guard: u64 },
}

#[derive(Debug, Clone)]
pub struct Trace {
    pub kind: TraceKind,
    /// The text in the loop header's parentheses (a source location for PyPy), empty for bridges.
    pub name: String,
    /// The kind word of a loop header: `loop`, `entry bridge`, ...
    pub header_kind: String,
    /// The op count the header declares; the parser checks it against what it read.
    pub declared_ops: Option<usize>,
    pub ops: Vec<Op>,
    /// Line of the header in the log (1-based).
    pub line: usize,
    /// Timestamp of the section that holds the trace.
    pub timestamp: u64,
}

impl Trace {
    pub fn label(&self) -> String {
        match self.kind {
            TraceKind::Loop { number } => numbered("loop ", number, 10),
            TraceKind::Bridge { guard } => numbered("bridge 0x", guard, 16),
        }
    }
}

/// `prefix` followed by `n` in `radix` (10 or 16, lower-case), as `format!("{prefix}{n}")` or
/// `format!("{prefix}{n:x}")` writes it: node and trace names are made once per fragment of
/// a large log, and the formatter cost more than the rest of naming.
pub(crate) fn numbered(prefix: &str, n: u64, radix: u64) -> String {
    let mut s = String::with_capacity(prefix.len() + 20);
    s.push_str(prefix);
    push_number(&mut s, n, radix);
    s
}

/// Appends `n` in `radix` (10 or 16, lower-case) to `s`; see [`numbered`].
pub(crate) fn push_number(s: &mut String, mut n: u64, radix: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b"0123456789abcdef"[(n % radix) as usize];
        n /= radix;
        if n == 0 {
            break;
        }
    }
    s.extend(digits[at..].iter().map(|&d| char::from(d)));
}

/// Interned operation names (`int_add`, `guard_true`, ...).
#[derive(Debug, Default, Clone)]
pub struct OpNames {
    names: Vec<String>,
    index: FxMap<String, OpNameId>,
    /// A direct-mapped cache in front of `index` (slot by hash, checked against the name):
    /// a log names about a hundred operations millions of times.
    cache: Vec<u32>,
}

/// Slots of [`OpNames`]'s cache.
const NAME_CACHE: usize = 1024;

impl OpNames {
    /// As [`OpNames::intern`], for a name given as bytes (the parser's hot path).
    pub fn intern_ascii(&mut self, name: &[u8]) -> OpNameId {
        if self.cache.is_empty() {
            self.cache = vec![u32::MAX; NAME_CACHE];
        }
        let mut h = FxHasher::default();
        h.write(name);
        let slot = (h.finish() >> 32) as usize % NAME_CACHE;
        let cached = self.cache[slot];
        if let Some(known) = self.names.get(cached as usize) {
            if known.as_bytes() == name {
                return OpNameId(cached);
            }
        }
        let id = self.intern(&String::from_utf8_lossy(name));
        self.cache[slot] = id.0;
        id
    }

    pub fn intern(&mut self, name: &str) -> OpNameId {
        if let Some(&id) = self.index.get(name) {
            return id;
        }
        let id = OpNameId(self.names.len() as u32);
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), id);
        id
    }

    pub fn name(&self, id: OpNameId) -> &str {
        self.names.get(id.0 as usize).map_or("?", String::as_str)
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (OpNameId, &str)> {
        self.names
            .iter()
            .enumerate()
            .map(|(i, n)| (OpNameId(i as u32), n.as_str()))
    }
}

/// A string many source locations share (a file, a function, an opcode name): a long run has
/// hundreds of thousands of bytecode positions in a few files.
pub type Shared = std::sync::Arc<str>;

/// A Python source position as PyPy writes it in `debug_merge_point`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SourceLocation {
    pub function: Option<Shared>,
    pub file: Option<Shared>,
    /// First line of the function (`co_firstlineno`).
    pub first_line: Option<u32>,
    /// The line of the bytecode (PyPy >= 7 writes it; older logs only have `first_line`).
    pub line: Option<u32>,
    pub bytecode_offset: Option<u32>,
    pub opcode: Option<Shared>,
    /// The text as logged.
    pub raw: Box<str>,
}

impl SourceLocation {
    /// Parses the forms `func;file:first-line~#off OPNAME` (PyPy 7) and
    /// `<code object f. file 'x.py'. line 3> #19 OPNAME` (older PyPy); anything else (other
    /// interpreters built with RPython) keeps just `raw`.
    pub fn parse(raw: &str) -> SourceLocation {
        Self::parse_with(raw, &mut |s: &str| Shared::from(s))
    }

    /// As [`SourceLocation::parse`], taking shared strings from `share`.
    fn parse_with(raw: &str, share: &mut dyn FnMut(&str) -> Shared) -> SourceLocation {
        let mut loc = SourceLocation {
            function: None,
            file: None,
            first_line: None,
            line: None,
            bytecode_offset: None,
            opcode: None,
            raw: raw.into(),
        };
        if let Some(rest) = raw.strip_prefix("<code object ") {
            loc.parse_old(rest, share);
        } else if let Some((func, rest)) = split_byte(raw, b';') {
            loc.parse_new(func, rest, share);
        }
        loc
    }

    fn parse_new(&mut self, func: &str, rest: &str, share: &mut dyn FnMut(&str) -> Shared) {
        let Some((place, bytecode)) = rsplit_byte(rest, b'~') else {
            return;
        };
        let Some((file, lines)) = rsplit_byte(place, b':') else {
            return;
        };
        let (first, line) = match split_byte(lines, b'-') {
            Some((a, b)) => (a.parse().ok(), b.parse().ok()),
            None => (lines.parse().ok(), None),
        };
        self.function = Some(share(func));
        self.file = Some(share(file));
        self.first_line = first;
        self.line = line;
        self.parse_bytecode(bytecode, share);
    }

    fn parse_old(&mut self, rest: &str, share: &mut dyn FnMut(&str) -> Shared) {
        // `f. file '/x.py'. line 3> #19 FOR_ITER` (the logger turns commas into dots)
        let Some((head, bytecode)) = rest.split_once("> ") else {
            return;
        };
        let Some((func, tail)) = head.split_once(". file '") else {
            return;
        };
        let Some((file, line)) = tail.rsplit_once("'. line ") else {
            return;
        };
        self.function = Some(share(func));
        self.file = Some(share(file));
        self.first_line = line.trim().parse().ok();
        self.parse_bytecode(bytecode, share);
    }

    fn parse_bytecode(&mut self, text: &str, share: &mut dyn FnMut(&str) -> Shared) {
        let text = text.trim();
        let Some(text) = text.strip_prefix('#') else {
            return;
        };
        let (off, op) = split_byte(text, b' ').unwrap_or((text, ""));
        self.bytecode_offset = off.parse().ok();
        if !op.is_empty() {
            self.opcode = Some(share(op));
        }
    }

    /// `file:line` (or the best that is known) for tables.
    pub fn short(&self) -> String {
        match (&self.file, self.line.or(self.first_line)) {
            (Some(f), Some(l)) => format!("{f}:{l}"),
            (Some(f), None) => f.to_string(),
            _ => self.raw.to_string(),
        }
    }
}

/// `s.split_once(c)` for an ASCII `c`, found with memchr (a new source location is cut at
/// four such places, and the `char` searcher cost more than the rest of reading it).
fn split_byte(s: &str, c: u8) -> Option<(&str, &str)> {
    let i = memchr::memchr(c, s.as_bytes())?;
    // `c` is ASCII, so `i` and `i + 1` are char boundaries
    Some((&s[..i], &s[i + 1..]))
}

/// `s.rsplit_once(c)` for an ASCII `c`; see [`split_byte`].
fn rsplit_byte(s: &str, c: u8) -> Option<(&str, &str)> {
    let i = memchr::memrchr(c, s.as_bytes())?;
    Some((&s[..i], &s[i + 1..]))
}

/// Interned source locations. The index is keyed by a hash of the text, checked against the
/// stored text, so that each location's text is held once.
#[derive(Debug, Default, Clone)]
pub struct SourceTable {
    locations: Vec<SourceLocation>,
    /// text hash → the first id with that hash; later ids with the same hash (collisions)
    /// are in `collisions`.
    index: FxMap<u64, SourceId>,
    collisions: FxMap<Box<str>, SourceId>,
    shared: FxMap<Shared, ()>,
    /// A direct-mapped cache in front of `shared` (slot by length and first byte): new
    /// locations mostly repeat the file, function and opcode of the one before.
    recent: Vec<Option<Shared>>,
    /// Recently interned texts by hash slot: (hash, id).
    seen: Vec<(u64, Option<SourceId>)>,
}

/// Slots of [`SourceTable`]'s cache of recent locations.
const SEEN_CACHE: usize = 4096;

/// Slots of [`SourceTable`]'s cache of shared strings.
const SHARED_CACHE: usize = 64;

impl SourceTable {
    pub fn intern(&mut self, raw: &str) -> SourceId {
        self.intern_hashed(raw, Self::hash(raw.as_bytes()))
    }

    /// As [`SourceTable::intern`] for text given as bytes, checked for UTF-8 only when it is
    /// new; `None` when it is not UTF-8.
    pub fn intern_bytes(&mut self, raw: &[u8]) -> Option<SourceId> {
        let hash = Self::hash(raw);
        if self.seen.is_empty() {
            self.seen = vec![(0, None); SEEN_CACHE];
        }
        // a trace's merge points come back in the bridges compiled soon after it: a small
        // table of recent ones answers most lookups without probing the large index
        let slot = (hash >> 40) as usize % SEEN_CACHE;
        if let (h, Some(id)) = self.seen[slot] {
            if h == hash && self.locations[id.index()].raw.as_bytes() == raw {
                return Some(id);
            }
        }
        let id = match self.index.get(&hash) {
            Some(&id) if self.locations[id.index()].raw.as_bytes() == raw => id,
            _ => self.intern_hashed(std::str::from_utf8(raw).ok()?, hash),
        };
        self.seen[slot] = (hash, Some(id));
        Some(id)
    }

    fn hash(raw: &[u8]) -> u64 {
        let mut h = FxHasher::default();
        h.write(raw);
        h.finish()
    }

    fn intern_hashed(&mut self, raw: &str, hash: u64) -> SourceId {
        if let Some(&id) = self.index.get(&hash) {
            if &*self.locations[id.index()].raw == raw {
                return id;
            }
            if let Some(&id) = self.collisions.get(raw) {
                return id;
            }
        }
        let id = SourceId::new(self.locations.len());
        let shared = &mut self.shared;
        if self.recent.is_empty() {
            self.recent = vec![None; SHARED_CACHE];
        }
        let recent = &mut self.recent;
        let mut share = |s: &str| {
            let slot = (s.len() * 31 + usize::from(s.as_bytes().first().copied().unwrap_or(0)))
                % SHARED_CACHE;
            if let Some(k) = recent[slot].as_ref().filter(|k| &***k == s) {
                return k.clone();
            }
            let k = match shared.get_key_value(s) {
                Some((k, _)) => k.clone(),
                None => {
                    let k = Shared::from(s);
                    shared.insert(k.clone(), ());
                    k
                }
            };
            recent[slot] = Some(k.clone());
            k
        };
        self.locations
            .push(SourceLocation::parse_with(raw, &mut share));
        match self.index.entry(hash) {
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(id);
            }
            std::collections::hash_map::Entry::Occupied(_) => {
                self.collisions.insert(raw.into(), id);
            }
        }
        id
    }

    pub fn get(&self, id: SourceId) -> Option<&SourceLocation> {
        self.locations.get(id.index())
    }

    /// All locations, in the order of their ids.
    pub fn locations(&self) -> &[SourceLocation] {
        &self.locations
    }

    pub fn len(&self) -> usize {
        self.locations.len()
    }

    pub fn is_empty(&self) -> bool {
        self.locations.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_pypy7_location() {
        let l = SourceLocation::parse("inner;/tmp/pj/nested.py:5-8~#18 BINARY_MODULO");
        assert_eq!(l.function.as_deref(), Some("inner"));
        assert_eq!(l.file.as_deref(), Some("/tmp/pj/nested.py"));
        assert_eq!(l.first_line, Some(5));
        assert_eq!(l.line, Some(8));
        assert_eq!(l.bytecode_offset, Some(18));
        assert_eq!(l.opcode.as_deref(), Some("BINARY_MODULO"));
        assert_eq!(l.short(), "/tmp/pj/nested.py:8");
    }

    #[test]
    fn parses_old_pypy_location() {
        let l = SourceLocation::parse("<code object f. file '/tmp/x.py'. line 3> #19 FOR_ITER");
        assert_eq!(l.function.as_deref(), Some("f"));
        assert_eq!(l.file.as_deref(), Some("/tmp/x.py"));
        assert_eq!(l.first_line, Some(3));
        assert_eq!(l.line, None);
        assert_eq!(l.bytecode_offset, Some(19));
        assert_eq!(l.opcode.as_deref(), Some("FOR_ITER"));
    }

    #[test]
    fn numbered_writes_what_the_formatter_writes() {
        for n in [0u64, 1, 9, 10, 255, 4096, 140179952508960, u64::MAX] {
            assert_eq!(numbered("l", n, 10), format!("l{n}"));
            assert_eq!(numbered("bridge 0x", n, 16), format!("bridge 0x{n:x}"));
        }
    }

    #[test]
    fn keeps_racket_location_raw() {
        let l = SourceLocation::parse("(+ iter 1)");
        assert_eq!(l.file, None);
        assert_eq!(l.short(), "(+ iter 1)");
    }
}
