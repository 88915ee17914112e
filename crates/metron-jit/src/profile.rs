//! What one recorded run says about a whole program, beyond 001 Eq. 4's Γ: the JIT's warm-up
//! (`jit-summary`), the calls from compiled code back into the interpreter, and the garbage
//! collector's work (`gc-minor` / `gc-collect-*` sections). 001 §4.3.2 blames its one outlier
//! (trav2) on time spent outside compiled code; these are the measurable parts of that time.
//!
//! The log parser ([`crate::log`]) skips GC sections, so [`scan_gc`] reads their timestamps in
//! a pass of its own; it only looks at section start and end lines.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::cost::CostModel;
use crate::error::JitError;
use crate::op_class::OpClassTable;
use crate::stream::analyze_file;

/// PYPYLOG sections for whole-program prediction: the analysis' sections plus the GC's
/// (`gc-collect` matches every `gc-collect-*` section by prefix).
pub const PREDICT_SECTIONS: &str = "jit-log-opt,jit-backend-counts,jit-summary,gc-minor,gc-collect";

/// The collector's work in one run, from the `gc-minor` and `gc-collect-step` sections.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GcProfile {
    pub minor_collections: u64,
    pub major_steps: u64,
    /// Time inside those sections, seconds (timestamps converted with the run's own tick
    /// rate: ticks from the first timestamp to `jit-summary` over its `TOTAL` seconds).
    pub seconds: f64,
    /// False when the log has no GC sections at all (recorded without them).
    pub recorded: bool,
}

/// One program's run, as the whole-program model sees it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProgramProfile {
    /// Executed operations per class (001 Eq. 6's features).
    pub executed_ops: BTreeMap<String, u64>,
    /// Γ under CM0: fragment executions (001 Eq. 1 and 4).
    pub gamma_cm0: f64,
    /// Γ under CMC: executed non-debug operations (001 Eq. 2 and 4).
    pub gamma_cmc: f64,
    /// Executed `call_may_force_*`: calls out of compiled code that may run the interpreter
    /// (a Python function without a compiled loop, a recursive call not inlined).
    pub residual_calls: u64,
    /// `jit-summary` Tracing and Backend seconds: the JIT's warm-up.
    pub tracing_seconds: f64,
    pub backend_seconds: f64,
    /// Loops and bridges compiled.
    pub traces_compiled: u64,
    /// Traces given up (`abort: ...` lines): their code stays interpreted.
    pub traces_aborted: u64,
    pub gc: GcProfile,
}

impl ProgramProfile {
    /// Profiles the PYPYLOG at `path` (recorded with at least `jit-log-opt`,
    /// `jit-backend-counts` and `jit-summary`; GC sections are optional).
    pub fn from_log(path: &Path, classes: &OpClassTable) -> Result<Self, JitError> {
        let streamed = analyze_file(path, classes, &CostModel::Cmc)?;
        let a = &streamed.analysis;
        if !a.has_counters {
            return Err(JitError::Spec {
                path: path.to_path_buf(),
                what: format!(
                    "no jit-backend-counts section: record with PYPYLOG={PREDICT_SECTIONS}:FILE"
                ),
            });
        }
        let summary = |key: &str, i: usize| -> Option<f64> {
            let line = streamed.log.summary.iter().find(|s| s.key == key)?;
            line.values.get(i)?.parse().ok()
        };
        let (Some(tracing_seconds), Some(backend_seconds)) =
            (summary("Tracing", 1), summary("Backend", 1))
        else {
            return Err(JitError::Spec {
                path: path.to_path_buf(),
                what: format!(
                    "no jit-summary Tracing/Backend lines: record with PYPYLOG={PREDICT_SECTIONS}:FILE"
                ),
            });
        };
        let aborted: f64 = streamed
            .log
            .summary
            .iter()
            .filter(|s| s.key.starts_with("abort"))
            .filter_map(|s| s.values.first()?.parse::<f64>().ok())
            .sum();
        let residual_calls = a
            .op_histogram
            .iter()
            .filter(|o| o.name.starts_with("call_may_force"))
            .map(|o| o.executed)
            .sum();
        Ok(ProgramProfile {
            executed_ops: a.executed_ops.clone(),
            gamma_cm0: a.fragments.iter().filter_map(|f| f.frequency).sum::<u64>() as f64,
            gamma_cmc: a.gamma.unwrap_or(0.0),
            residual_calls,
            tracing_seconds,
            backend_seconds,
            traces_compiled: (streamed.loops + streamed.bridges) as u64,
            traces_aborted: aborted as u64,
            gc: scan_gc(path)?,
        })
    }
}

/// Reads the GC sections' timestamps. `[hex] {gc-minor` opens, `[hex] gc-minor}` closes;
/// nested sections (`gc-minor-walkroots`) are inside and not counted twice.
pub fn scan_gc(path: &Path) -> Result<GcProfile, JitError> {
    let io = |source| JitError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut scan = GcScan::default();
    for line in BufReader::with_capacity(1 << 16, file).split(b'\n') {
        scan.line(&line.map_err(io)?);
    }
    Ok(scan.finish())
}

#[derive(Default)]
struct GcScan {
    first_tick: Option<u64>,
    summary_tick: Option<u64>,
    total_seconds: Option<f64>,
    in_summary: bool,
    open: Option<u64>,
    ticks: u64,
    minor: u64,
    major: u64,
}

impl GcScan {
    fn line(&mut self, line: &[u8]) {
        if self.in_summary && line.starts_with(b"TOTAL:") {
            let text = String::from_utf8_lossy(&line[6..]);
            self.total_seconds = text.trim().parse().ok();
        }
        let Some((tick, rest)) = timestamped(line) else {
            return;
        };
        self.first_tick.get_or_insert(tick);
        match rest {
            b"{jit-summary" => {
                self.summary_tick = Some(tick);
                self.in_summary = true;
            }
            b"jit-summary}" => self.in_summary = false,
            b"{gc-minor" | b"{gc-collect-step" => self.open = Some(tick),
            b"gc-minor}" | b"gc-collect-step}" => {
                if let Some(start) = self.open.take() {
                    self.ticks += tick.saturating_sub(start);
                    if rest == b"gc-minor}" {
                        self.minor += 1;
                    } else {
                        self.major += 1;
                    }
                }
            }
            _ => {}
        }
    }

    fn finish(self) -> GcProfile {
        let rate = match (self.first_tick, self.summary_tick, self.total_seconds) {
            (Some(a), Some(b), Some(t)) if b > a && t > 0.0 => (b - a) as f64 / t,
            _ => f64::NAN,
        };
        let seconds = if self.ticks == 0 {
            0.0
        } else {
            self.ticks as f64 / rate
        };
        GcProfile {
            minor_collections: self.minor,
            major_steps: self.major,
            seconds: if seconds.is_finite() { seconds } else { 0.0 },
            recorded: self.minor + self.major > 0,
        }
    }
}

/// `[18b482a99c62] {gc-minor` -> (0x18b482a99c62, b"{gc-minor")
fn timestamped(line: &[u8]) -> Option<(u64, &[u8])> {
    let rest = line.strip_prefix(b"[")?;
    let close = rest.iter().position(|&b| b == b']')?;
    let tick = u64::from_str_radix(std::str::from_utf8(&rest[..close]).ok()?, 16).ok()?;
    let name = rest[close + 1..].trim_ascii();
    Some((tick, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gc_time_uses_the_runs_own_tick_rate() {
        // 1000 ticks per second: first tick 0x1000, jit-summary 2 s later (TOTAL 2.0);
        // two minor collections of 100 and 50 ticks and a major step of 250 ticks
        let log = "[1000] {gc-set-nursery-size\nnursery size: 1\n[1001] gc-set-nursery-size}\n\
                   [1100] {gc-minor\n[1101] {gc-minor-walkroots\n[1102] gc-minor-walkroots}\n\
                   [1164] gc-minor}\n[1200] {gc-minor\n[1232] gc-minor}\n\
                   [1300] {gc-collect-step\n[13fa] gc-collect-step}\n\
                   [17d0] {jit-summary\nTracing: \t1\t0.1\nTOTAL:      \t\t2.000000\n[17d1] jit-summary}\n";
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        std::fs::write(&path, log).unwrap();
        let gc = scan_gc(&path).unwrap();
        assert_eq!((gc.minor_collections, gc.major_steps), (2, 1));
        // 0x17d0 − 0x1000 = 2000 ticks over 2 s: 1000 ticks/s; 100 + 50 + 250 ticks = 0.4 s
        assert!((gc.seconds - 0.4).abs() < 1e-12, "{}", gc.seconds);
        assert!(gc.recorded);
    }

    #[test]
    fn a_log_without_gc_sections_has_no_gc_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        std::fs::write(&path, "[10] {jit-summary\nTOTAL: 1.0\n[20] jit-summary}\n").unwrap();
        assert_eq!(scan_gc(&path).unwrap(), GcProfile::default());
    }
}
