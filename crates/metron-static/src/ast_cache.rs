//! The AST cache (issue 4: "Cache it"): the `SourceModel` read from clang's JSON AST, so that a
//! second analysis of the same source neither runs clang nor parses its output.
//!
//! Key: FNV-1a of the source's bytes, the clang arguments and clang's own path, size and
//! modification time. An entry is two files: `KEY.deps` lists every file the AST mentions
//! (headers) with size and modification time, and the entry is used only while all of them are
//! unchanged; `KEY.model` is a header line (format version and the identity of the metron
//! executable that wrote it, since the model depends on how this build reads the AST) followed
//! by the model as JSON. A stale, foreign or corrupt entry is ignored and rewritten. Directory:
//! `$METRON_CACHE_DIR`, else `$XDG_CACHE_HOME/metron/static-ast`, else
//! `~/.cache/metron/static-ast`; `METRON_CACHE_DIR=off` disables it. Failures to read or write
//! the cache fall back to running clang.

use std::collections::BTreeSet;
use std::hash::Hasher;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use serde_json::Value;

// Generic over the model it keeps (the source layer's `SourceModel`), so that the cache sits
// below the source layer that uses it.

/// First word of a model file's header; the number changes when the file layout does.
/// (Format 1 cached clang's JSON text as `KEY.json`.)
const FORMAT: &str = "metron-static-ast-model 2";

pub struct Entry {
    model: PathBuf,
    deps: PathBuf,
    /// The header line a usable model file starts with.
    header: String,
}

fn directory() -> Option<PathBuf> {
    match std::env::var_os("METRON_CACHE_DIR") {
        Some(d) if d == "off" => None,
        Some(d) => Some(PathBuf::from(d)),
        None => std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))
            .map(|c| c.join("metron").join("static-ast")),
    }
}

/// `size mtime` of a file, as a stamp.
fn stamp(path: &Path) -> Option<String> {
    let m = std::fs::metadata(path).ok()?;
    let t = m
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    Some(format!("{} {}", m.len(), t.as_nanos()))
}

/// The running executable, so that a rebuilt metron (whose AST reading may differ) does not
/// trust models an older build wrote.
fn executable_identity() -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    Some(format!("{} {}", stamp(&exe)?, exe.display()))
}

impl Entry {
    pub fn new(file: &Path, args: &[String], clang: &Path) -> Option<Entry> {
        let dir = directory()?;
        let mut h = fnv::FnvHasher::default();
        h.write(&std::fs::read(file).ok()?);
        for a in args {
            h.write(a.as_bytes());
            h.write_u8(0);
        }
        h.write(clang.display().to_string().as_bytes());
        h.write(stamp(clang)?.as_bytes());
        let key = format!("{:016x}", h.finish());
        Some(Entry {
            model: dir.join(format!("{key}.model")),
            deps: dir.join(format!("{key}.deps")),
            header: format!("{FORMAT} {}", executable_identity()?),
        })
    }

    /// An entry for a result computed from bytes other than a source file (the readings of
    /// `loop_copy::ivar`, from a function's machine code): `key` is everything it depends on.
    pub fn for_bytes(kind: &str, key: &[u8]) -> Option<Entry> {
        let dir = directory()?;
        let mut h = fnv::FnvHasher::default();
        h.write(key);
        let key = format!("{kind}-{:016x}", h.finish());
        Some(Entry {
            model: dir.join(format!("{key}.model")),
            deps: dir.join(format!("{key}.deps")),
            header: format!("{FORMAT} {}", executable_identity()?),
        })
    }

    /// The cached model, if the entry exists, was written by this build and every file it
    /// depends on is unchanged.
    pub fn load<M: serde::de::DeserializeOwned>(&self) -> Option<M> {
        let deps = std::fs::read_to_string(&self.deps).ok()?;
        for line in deps.lines() {
            let (recorded, path) = line.split_once('\t')?;
            if stamp(Path::new(path))?.as_str() != recorded {
                return None;
            }
        }
        let mut reader = BufReader::new(std::fs::File::open(&self.model).ok()?);
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        if header.trim_end_matches('\n') != self.header {
            return None;
        }
        serde_json::from_reader(reader).ok()
    }

    /// Writes the entry; `files` are those the AST mentions (see [`mentioned_files`]).
    pub fn store<M: serde::Serialize>(&self, model: &M, files: &BTreeSet<String>) {
        let deps: String = files
            .iter()
            .filter_map(|f| stamp(Path::new(f)).map(|s| format!("{s}\t{f}\n")))
            .collect();
        let Some(dir) = self.model.parent() else {
            return;
        };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        // Format 1's copy of clang's JSON (often hundreds of MB) is no longer read.
        let _ = std::fs::remove_file(self.model.with_extension("json"));
        // Write then rename, so that a concurrent reader never sees half a file.
        let tmp = self.model.with_extension(temporary_suffix());
        let written = std::fs::File::create(&tmp).ok().and_then(|f| {
            let mut w = BufWriter::new(f);
            writeln!(w, "{}", self.header).ok()?;
            serde_json::to_writer(&mut w, model).ok()?;
            w.flush().ok()
        });
        if written.is_some() && std::fs::rename(&tmp, &self.model).is_ok() {
            let tmp = self.deps.with_extension(temporary_suffix());
            if std::fs::write(&tmp, deps).is_ok() {
                let _ = std::fs::rename(&tmp, &self.deps);
            }
        } else {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

/// A temporary file's extension that no other writer uses: the process id alone is shared by
/// the threads of one process (tests, `--jobs`), which would write into the same file.
fn temporary_suffix() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("tmp{}-{n}", std::process::id())
}

/// Every `file` named in an AST node's locations (the source and the headers it includes).
pub fn mentioned_files(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(f)) = m.get("file") {
                if !out.contains(f) {
                    out.insert(f.clone());
                }
            }
            for (k, c) in m {
                // Type strings and names hold no locations; skip the bulk quickly.
                if k != "type" {
                    mentioned_files(c, out);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|c| mentioned_files(c, out)),
        _ => {}
    }
}
