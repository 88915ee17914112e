//! The C ABI of `include/metron_pep.h`: counting and sampling from inside a program, as mPAPI
//! gave MATLAB (000 App. B). The Octave MEX functions in `octave/` call it.
//!
//! One session at a time per process (a mutex guards it). Counters observe the calling
//! thread only, as mPAPI's profiles did (000 §3.5: "only for the single thread execution"),
//! which also keeps metron's own reader thread out of the counts. Every function returns 0
//! on success and -1 on failure, with the reason in [`metron_pep_last_error`].

use std::ffi::{c_char, c_int, CStr, CString};
use std::path::PathBuf;
use std::sync::Mutex;

use crate::events::parse_event;
use crate::record::{open_groups, Drain, GroupSpec, OpenGroups, Target};
use crate::trace::TraceName;

enum Session {
    Counting {
        names: Vec<String>,
        groups: OpenGroups,
    },
    Tracing {
        spec: GroupSpec,
        file: PathBuf,
        name: String,
        drain: Drain,
    },
}

struct State {
    session: Option<Session>,
    last_error: CString,
    /// Traces written by this process so far (the trace name's in_process field).
    traces: usize,
    /// The latest counting-mode result, read by index after metron_pep_counters_stop.
    counts: Vec<(CString, u64)>,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

fn with_state<T>(f: impl FnOnce(&mut State) -> Result<T, String>) -> Result<T, ()> {
    let mut guard = STATE.lock().unwrap_or_else(|p| p.into_inner());
    let state = guard.get_or_insert_with(|| State {
        session: None,
        last_error: CString::default(),
        traces: 0,
        counts: Vec::new(),
    });
    f(state).map_err(|e| {
        state.last_error = CString::new(e.replace('\0', " ")).unwrap_or_default();
    })
}

/// # Safety
/// `p` is null or a NUL-terminated string.
unsafe fn text(p: *const c_char, what: &str) -> Result<String, String> {
    if p.is_null() {
        return Err(format!("{what}: a null pointer"));
    }
    // SAFETY: the caller passes a NUL-terminated string.
    Ok(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

fn spec(sample: &str, threshold: u64, events: &str) -> Result<GroupSpec, String> {
    let members = events
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|e| parse_event(e).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(GroupSpec {
        sample: parse_event(sample).map_err(|e| e.to_string())?,
        threshold,
        members,
        address: false,
        inherit: false,
    })
}

fn start(groups: &mut OpenGroups) -> Result<(), String> {
    for g in &mut groups.groups {
        g.leader
            .as_counter_mut()
            .enable()
            .map_err(|e| format!("enabling the group: {e}"))?;
    }
    Ok(())
}

/// Starts counting `events` (comma-separated) on the calling thread. The first event leads
/// the group; there is no sampling.
///
/// # Safety
/// `events` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn metron_pep_counters_start(events: *const c_char) -> c_int {
    let r = with_state(|s| {
        if s.session.is_some() {
            return Err("a measurement is already running: stop it first".into());
        }
        // SAFETY: forwarded from the caller.
        let events = unsafe { text(events, "events") }?;
        let (first, rest) = events.split_once(',').unwrap_or((&events, ""));
        let spec = spec(first.trim(), 0, rest)?;
        let names = spec.event_names();
        let mut groups = open_groups(&spec, Target::Myself).map_err(|e| e.to_string())?;
        start(&mut groups)?;
        s.session = Some(Session::Counting { names, groups });
        Ok(())
    });
    if r.is_ok() {
        0
    } else {
        -1
    }
}

/// Stops counting; returns the number of events, whose names and values
/// [`metron_pep_count_name`] and [`metron_pep_count_value`] then give.
#[no_mangle]
pub extern "C" fn metron_pep_counters_stop() -> c_int {
    let r = with_state(|s| match s.session.take() {
        Some(Session::Counting { names, mut groups }) => {
            let totals = groups.totals();
            s.counts = names
                .into_iter()
                .zip(totals)
                .map(|(n, v)| (CString::new(n).unwrap_or_default(), v))
                .collect();
            Ok(s.counts.len() as c_int)
        }
        other => {
            s.session = other;
            Err("metron_pep_counters_stop without metron_pep_counters_start".into())
        }
    });
    r.unwrap_or(-1)
}

/// The name of event `i` of the last counting result (valid until the next stop).
#[no_mangle]
pub extern "C" fn metron_pep_count_name(i: c_int) -> *const c_char {
    with_state(|s| {
        s.counts
            .get(i as usize)
            .map(|(n, _)| n.as_ptr())
            .ok_or_else(|| format!("no event {i}"))
    })
    .unwrap_or(std::ptr::null())
}

/// The value of event `i` of the last counting result.
#[no_mangle]
pub extern "C" fn metron_pep_count_value(i: c_int) -> u64 {
    with_state(|s| {
        s.counts
            .get(i as usize)
            .map(|(_, v)| *v)
            .ok_or_else(|| format!("no event {i}"))
    })
    .unwrap_or(0)
}

/// Starts a trace (000 App. B.1.3: trace_register + tic): the group led by `sample`
/// overflowing every `threshold`, with `events` (comma-separated) as members, appended to
/// `file` under the benchmark name `name` when stopped.
///
/// # Safety
/// The strings are NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn metron_pep_trace_start(
    sample: *const c_char,
    threshold: u64,
    events: *const c_char,
    file: *const c_char,
    name: *const c_char,
) -> c_int {
    let r = with_state(|s| {
        if s.session.is_some() {
            return Err("a measurement is already running: stop it first".into());
        }
        if threshold == 0 {
            return Err("the sampling threshold must be positive".into());
        }
        // SAFETY: forwarded from the caller.
        let (sample, events, file, name) = unsafe {
            (
                text(sample, "sample")?,
                text(events, "events")?,
                text(file, "file")?,
                if name.is_null() {
                    "trace".into()
                } else {
                    text(name, "name")?
                },
            )
        };
        let spec = spec(&sample, threshold, &events)?;
        let mut groups = open_groups(&spec, Target::Myself).map_err(|e| e.to_string())?;
        start(&mut groups)?;
        s.session = Some(Session::Tracing {
            spec,
            file: file.into(),
            name,
            drain: Drain::start(groups),
        });
        Ok(())
    });
    if r.is_ok() {
        0
    } else {
        -1
    }
}

/// Stops the trace and appends it to its file; returns the number of samples.
#[no_mangle]
pub extern "C" fn metron_pep_trace_stop() -> c_int {
    let r = with_state(|s| match s.session.take() {
        Some(Session::Tracing {
            spec,
            file,
            name,
            drain,
        }) => {
            let (collector, groups) = drain.finish().map_err(|e| e.to_string())?;
            drop(groups);
            s.traces += 1;
            let trace_name = TraceName {
                env: "octave".into(),
                threads: "1".into(),
                process: std::process::id().to_string(),
                benchmark: name,
                version: "default".into(),
                n: "0".into(),
                in_process: s.traces.to_string(),
            };
            let rows = collector.rows();
            let trace = crate::record::trace_of(
                trace_name,
                &spec.event_names(),
                false,
                rows.combined.iter().map(|(v, _)| v.clone()).collect(),
            );
            let n = trace.rows.len();
            append(&file, &trace).map_err(|e| e.to_string())?;
            Ok(n as c_int)
        }
        other => {
            s.session = other;
            Err("metron_pep_trace_stop without metron_pep_trace_start".into())
        }
    });
    r.unwrap_or(-1)
}

fn append(file: &std::path::Path, t: &crate::trace::Trace) -> std::io::Result<()> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)?;
    f.write_all(crate::trace::to_string(std::slice::from_ref(t)).as_bytes())
}

/// Why the last call failed (valid until the next failing call).
#[no_mangle]
pub extern "C" fn metron_pep_last_error() -> *const c_char {
    let mut guard = STATE.lock().unwrap_or_else(|p| p.into_inner());
    match guard.as_mut() {
        Some(s) => s.last_error.as_ptr(),
        None => c"".as_ptr(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn busy() -> f64 {
        let mut v = vec![0.0f64; 1 << 16];
        for r in 0..300 {
            for (i, x) in v.iter_mut().enumerate() {
                *x = *x * 0.5 + (i ^ r) as f64;
            }
        }
        v.iter().sum()
    }

    #[test]
    fn counting_and_tracing_through_the_c_abi() {
        let c = CString::new("task-clock,page-faults").unwrap();
        assert_eq!(unsafe { metron_pep_counters_start(c.as_ptr()) }, 0);
        assert!(busy() > 0.0);
        assert_eq!(metron_pep_counters_stop(), 2);
        let name = unsafe { CStr::from_ptr(metron_pep_count_name(1)) };
        assert_eq!(name.to_str().unwrap(), "page-faults");
        assert!(
            metron_pep_count_value(0) > 1_000_000,
            "task-clock {}",
            metron_pep_count_value(0)
        );
        assert!(
            metron_pep_count_value(1) >= 16,
            "the 512 KiB vector faults in"
        );
        assert_eq!(metron_pep_counters_stop(), -1);
        let err = unsafe { CStr::from_ptr(metron_pep_last_error()) };
        assert!(err.to_str().unwrap().contains("without"), "{err:?}");

        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("t.trace");
        let f = CString::new(file.to_str().unwrap()).unwrap();
        let (s, e, n) = (c"cpu-clock", c"task-clock", c"busy");
        for _ in 0..2 {
            let r = unsafe {
                metron_pep_trace_start(s.as_ptr(), 1_000_000, e.as_ptr(), f.as_ptr(), n.as_ptr())
            };
            assert_eq!(r, 0);
            assert!(busy() > 0.0);
            assert!(metron_pep_trace_stop() > 0);
        }
        let traces = crate::trace::read_file(&file).unwrap();
        assert_eq!(traces.len(), 2);
        assert_eq!(traces[1].name.in_process, "2");
        assert_eq!(traces[0].events, vec!["cpu-clock", "task-clock"]);
    }
}
