//! The calibrations this process already made. Recording a branch profile builds the program's
//! model once per probe and pass (`branch_profile::record_all`), and each build calibrates
//! every function again; a function whose inputs did not change (its own branches were not
//! probed) gets the same answer. A four-deep nest at clang -O3 was calibrated eight times in
//! one `validate` (four minutes; 35 s once).
//!
//! What is kept is the runs and the refits ([`Checks`]); how a profile or `br_prob` weighs
//! the blocks on data is done after, every time. The key hashes (two independent 64-bit
//! hashes) everything the checks read, written out whole: the machine code of every function
//! and the read-only data (the runs enter callees and load constants), the counts to check,
//! and the source with the probabilities of branches outside the function and its callees
//! left out (those are what the probes change) and without its profile (read after the
//! checks only).

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write;
use std::hash::Hasher;
use std::sync::{Mutex, OnceLock};

use metron_symbolic::Piecewise;

use super::{Checks, NotChecked, Target};
use crate::source::SourceModel;

/// Calibrations kept at most: a process that analyses many binaries (the tests) starts over
/// past this many.
const KEPT: usize = 256;

type Found = Result<Checks, NotChecked>;
type Key = (u64, u64);
/// The counts after the checks, and what the checks found.
type Memo = Mutex<HashMap<Key, (Vec<Piecewise>, Found)>>;

fn memo() -> &'static Memo {
    static MEMO: OnceLock<Memo> = OnceLock::new();
    MEMO.get_or_init(Default::default)
}

/// What `memo` holds under `key`, or `make()` kept there (the whole memo is let go once it
/// holds `kept` entries). A poisoned lock only costs the reuse.
fn remembered<V: Clone>(
    memo: &Mutex<HashMap<Key, V>>,
    key: Key,
    kept: usize,
    make: impl FnOnce() -> V,
) -> V {
    if let Some(found) = memo.lock().ok().and_then(|m| m.get(&key).cloned()) {
        return found;
    }
    let made = make();
    if let Ok(mut m) = memo.lock() {
        if m.len() >= kept {
            m.clear();
        }
        m.insert(key, made.clone());
    }
    made
}

/// `check(target, counts)`, or what it gave last time on the same inputs.
pub(super) fn checked(
    target: &Target,
    counts: &mut [Piecewise],
    check: impl FnOnce(&Target, &mut [Piecewise]) -> Found,
) -> Found {
    let key = key(target, counts);
    let (after, found) = remembered(memo(), key, KEPT, || {
        let mut after = counts.to_vec();
        let found = check(target, &mut after);
        (after, found)
    });
    counts.clone_from_slice(&after);
    found
}

/// Term lists kept at most (a four-deep nest's wide list holds about a thousand counts).
const TERMS_KEPT: usize = 32;

fn terms_memo() -> &'static Mutex<HashMap<Key, Vec<Piecewise>>> {
    static MEMO: OnceLock<Mutex<HashMap<Key, Vec<Piecewise>>>> = OnceLock::new();
    MEMO.get_or_init(Default::default)
}

/// The `which` term list of `terms` (`make()`), or the one made last time from the same
/// inputs. A function whose own branch is probed is calibrated anew for each probe
/// ([`checked`]'s key holds its probabilities), but its terms, the costly part (a four-deep
/// nest inlined into `main`: a thousand symbolic counts, over a minute), follow the
/// probabilities of branches on data outside every loop only in scale
/// ([`without_odds_outside_loops`]).
/// Nest 3018 at clang -O3 probes `main`'s two `argc` tests.
pub(super) fn terms(
    terms: &super::Terms,
    which: &str,
    make: impl FnOnce() -> Vec<Piecewise>,
) -> Vec<Piecewise> {
    let mut k = Digest::default();
    let _ = write!(k, "{which}|{:?}", without_odds_outside_loops(terms.source));
    let _ = write!(k, "|{:?}", terms.frames);
    let _ = write!(k, "|{:?}|{:?}", terms.thresholds, terms.compared);
    remembered(terms_memo(), (k.0.finish(), k.1.finish()), TERMS_KEPT, make)
}

/// `source` without the probabilities of the branches on data outside every loop, and without
/// its profile (no term family reads it). Such a probability scales the counts in its arms
/// (`branch::guarded_count`), a term's scale, which a fit's coefficient takes up; the
/// probes of a profile set it to 0.5, 1 and 0 in turn (`branch_profile::estimate`). The
/// probability of a branch the sizes decide (`if (n > 8)`, annotated) is kept: it stands for
/// the condition.
fn without_odds_outside_loops(source: &SourceModel) -> SourceModel {
    without_odds(source, |_, parent_loop, on_data| {
        parent_loop.is_none() && on_data
    })
}

/// `source` without its profile and without the probabilities of the branches `blank` picks
/// by (function, enclosing loop, whether the condition is on data rather than the sizes).
fn without_odds(
    source: &SourceModel,
    blank: impl Fn(&str, Option<usize>, bool) -> bool,
) -> SourceModel {
    let mut s = source.clone();
    s.data_shares = None;
    for c in s.ifs.iter_mut() {
        if blank(&c.function, c.parent_loop, c.condition.is_err()) {
            c.probability = None;
        }
    }
    for c in s.conditionals.iter_mut() {
        if blank(&c.function, c.parent_loop, c.condition.is_err()) {
            c.probability = None;
        }
    }
    s
}

/// Two independent 64-bit hashes of what is written to it: the key's text is written out
/// whole but not kept (a large binary's read-only data runs to megabytes).
#[derive(Default)]
struct Digest(fnv::FnvHasher, std::collections::hash_map::DefaultHasher);

impl Write for Digest {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.write(s.as_bytes());
        self.1.write(s.as_bytes());
        Ok(())
    }
}

fn key(target: &Target, counts: &[Piecewise]) -> (u64, u64) {
    let mut k = Digest::default();
    let b = target.binary;
    for f in &b.functions {
        let _ = write!(k, "{:x}:{:x};", f.address, f.code_hash());
    }
    let _ = write!(k, "{:?}{:?}{:?}", b.read_only, b.variables, b.arrays);
    let _ = write!(k, "|{:x}|{counts:?}", target.function.address);
    let _ = write!(
        k,
        "|{:?}",
        relevant(target.source, target.function.source_name())
    );
    let take: std::collections::BTreeMap<_, _> = target.assumed.take.iter().collect();
    let _ = write!(k, "|{:?}|{take:?}", target.derived);
    let _ = write!(k, "|{:?}|{:?}", target.assumed.fixed, target.by_data_mean);
    (k.0.finish(), k.1.finish())
}

/// `source` without the probabilities of the branches outside `function` and the functions
/// it calls, directly or not.
fn relevant(source: &SourceModel, function: &str) -> SourceModel {
    let mut called = BTreeSet::from([function.to_string()]);
    loop {
        let more: Vec<String> = source
            .calls
            .iter()
            .filter(|c| called.contains(&c.function) && !called.contains(&c.callee))
            .map(|c| c.callee.clone())
            .collect();
        if more.is_empty() {
            break;
        }
        called.extend(more);
    }
    without_odds(source, |f, _, _| !called.contains(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The term lists' key sees the probability of a branch on data inside a loop, and of one
    /// outside every loop not at all.
    #[test]
    fn the_odds_of_a_branch_on_data_outside_loops_leave_the_terms_key() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("k.c");
        let code = "int kernel(int n, int *a) { int s = 0;\n\
                      if (a[0] > 0) s = 1;\n\
                      for (int i = 0; i < n; i++) { if (a[i] > 0) s += i; }\n\
                      return s; }\n";
        std::fs::write(&file, code).unwrap();
        let source = crate::source::parse_file(&file, &[]).unwrap();
        assert_eq!(source.ifs.len(), 2);
        let at = |outside: Option<f64>, inside: Option<f64>| {
            let mut s = source.clone();
            for c in &mut s.ifs {
                c.probability = match c.parent_loop {
                    None => outside,
                    Some(_) => inside,
                };
            }
            format!("{:?}", without_odds_outside_loops(&s))
        };
        assert_eq!(at(Some(0.25), Some(0.5)), at(Some(1.0), Some(0.5)));
        assert_eq!(at(None, Some(0.5)), at(Some(0.0), Some(0.5)));
        assert_ne!(at(Some(0.25), Some(0.5)), at(Some(0.25), Some(0.75)));
    }

    /// A probe of `main`'s branch leaves the kernel's key as it was; one of the kernel's or
    /// of a function the kernel calls does not.
    #[test]
    fn only_the_branches_of_the_function_and_its_callees_are_in_its_key() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("k.c");
        let code = "static int clip(int v) { if (v > 9) return 9; return v; }\n\
                    int kernel(int n, int *a) { int s = 0;\n\
                      for (int i = 0; i < n; i++) { if (a[i] > 0) s += clip(a[i]); }\n\
                      return s; }\n\
                    int main(int argc, char **argv) { int a[4] = {1, -2, 30, 4};\n\
                      if (argc > 1) return 1;\n\
                      return kernel(4, a); }\n";
        std::fs::write(&file, code).unwrap();
        let mut source = crate::source::parse_file(&file, &[]).unwrap();
        for c in &mut source.ifs {
            c.probability = Some(0.25);
        }
        let kept = |s: &SourceModel| -> Vec<(String, Option<f64>)> {
            s.ifs
                .iter()
                .map(|c| (c.function.clone(), c.probability))
                .collect()
        };
        let mut got = kept(&relevant(&source, "kernel"));
        got.sort_by(|a, b| a.0.cmp(&b.0));
        let want = [("clip", Some(0.25)), ("kernel", Some(0.25)), ("main", None)];
        let want: Vec<(String, Option<f64>)> =
            want.iter().map(|(f, p)| (f.to_string(), *p)).collect();
        assert_eq!(got, want);
        assert!(kept(&relevant(&source, "main"))
            .iter()
            .all(|(_, p)| p.is_some()));
    }
}
