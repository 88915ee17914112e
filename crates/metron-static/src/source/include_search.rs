//! Headers a source includes from a directory its build named with `-I` (a benchmark suite's
//! `#include <polybench.h>` from `utilities/`): the binary's DWARF does not record `-I`, so
//! when clang reports a header not found, it is looked for near the source. The search is
//! bounded (the source's directory and its ancestors up to [`UP`] levels, each with its
//! subdirectories to [`DOWN`] levels), the nearest ancestor with a match decides, and only a
//! single match there is taken: two headers of that name are an ambiguity for `--cflags`.

use std::path::{Path, PathBuf};

/// Ancestor directories searched above the source's own.
const UP: usize = 3;
/// Levels below each searched directory.
const DOWN: usize = 2;
/// Directories read at most in one search (a source in `/` or `$HOME` stays cheap).
const MOST_DIRECTORIES: usize = 2_000;

/// The header name in clang's `fatal error: 'NAME' file not found`.
pub fn missing_header(stderr: &str) -> Option<&str> {
    let (_, after) = stderr.split_once("fatal error: '")?;
    let (name, rest) = after.split_once('\'')?;
    rest.starts_with(" file not found").then_some(name)
}

/// The one directory near `source` from which `#include <header>` resolves (`header` may
/// name subdirectories: `sys/x.h`). The nearest ancestor whose tree has the header decides;
/// two matches there are ambiguous (`None`).
pub fn directory_for(source: &Path, header: &str) -> Option<PathBuf> {
    let start = source.parent()?.canonicalize().ok()?;
    let mut budget = MOST_DIRECTORIES;
    for top in start.ancestors().take(UP + 1) {
        let mut found: Vec<PathBuf> = Vec::new();
        let mut level = vec![top.to_path_buf()];
        for depth in 0..=DOWN {
            let mut next = Vec::new();
            for dir in level {
                budget = budget.checked_sub(1)?;
                if dir.join(header).is_file() && !found.contains(&dir) {
                    found.push(dir.clone());
                }
                if depth < DOWN {
                    next.extend(subdirectories(&dir));
                }
            }
            level = next;
        }
        if !found.is_empty() {
            return single(found);
        }
    }
    None
}

fn single(found: Vec<PathBuf>) -> Option<PathBuf> {
    match <[PathBuf; 1]>::try_from(found) {
        Ok([dir]) => Some(dir),
        Err(_) => None,
    }
}

/// Subdirectories of `dir`, hidden ones and symbolic links left out, in name order.
fn subdirectories(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clangs_message_names_the_header() {
        let e =
            "/x/gemm.c:4:10: fatal error: 'polybench.h' file not found\n#include <polybench.h>\n";
        assert_eq!(missing_header(e), Some("polybench.h"));
        assert_eq!(missing_header("error: unknown type name 'x'"), None);
    }

    #[test]
    fn a_header_is_found_in_a_sibling_tree_once() {
        let root = tempfile::tempdir().unwrap();
        let kernel = root.path().join("linear-algebra/blas/gemm");
        let utilities = root.path().join("utilities");
        std::fs::create_dir_all(&kernel).unwrap();
        std::fs::create_dir_all(&utilities).unwrap();
        std::fs::write(utilities.join("bench.h"), "").unwrap();
        let source = kernel.join("gemm.c");
        std::fs::write(&source, "").unwrap();
        let found = directory_for(&source, "bench.h").unwrap();
        assert_eq!(found, utilities.canonicalize().unwrap());
        assert_eq!(directory_for(&source, "absent.h"), None);
        // A second header of the name as near: ambiguous, left to --cflags.
        let other = root.path().join("other");
        std::fs::create_dir_all(&other).unwrap();
        std::fs::write(other.join("bench.h"), "").unwrap();
        assert_eq!(directory_for(&source, "bench.h"), None);
    }
}
