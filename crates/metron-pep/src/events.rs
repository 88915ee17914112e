//! Event names as `perf list` spells them: generic hardware events, software events and raw
//! `rNNNN` codes; which of them this machine can open; and what to use instead when it
//! cannot. PMU-specific names (`MEM_INST_RETIRED:ALL_LOADS`) go through libpfm4 when
//! libpfm.so.4 is installed ([`crate::libpfm`]).

use perf_event::events::{Hardware, Raw, Software};
use perf_event::Builder;
use serde::{Deserialize, Serialize};

/// Where an event comes from, with its `perf_event_attr.config`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Source {
    Hardware(u64),
    Software(u64),
    Raw(u64),
    /// Encoded by libpfm4: any perf_event type (raw core events, uncore PMUs, perf::...).
    Pmu {
        type_: u32,
        config: u64,
        config1: u64,
        config2: u64,
    },
}

/// A parsed event name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventSpec {
    /// As the user wrote it; also the column name in the trace.
    pub name: String,
    pub source: Source,
    /// perf's `:u` modifier: user space only.
    pub user_only: bool,
}

impl EventSpec {
    pub fn hardware(&self) -> bool {
        match self.source {
            Source::Software(_) => false,
            Source::Pmu { type_, .. } => type_ != 1, // PERF_TYPE_SOFTWARE
            _ => true,
        }
    }

    /// A builder for this event with only its type, config and privilege level set.
    pub fn builder(&self, include_kernel: bool) -> Builder<'static> {
        let mut b = match self.source {
            Source::Hardware(c) => Builder::new(Hardware(c)),
            Source::Software(c) => Builder::new(Software(c)),
            Source::Raw(c) => Builder::new(Raw::new(c)),
            Source::Pmu {
                type_,
                config,
                config1,
                config2,
            } => {
                let mut b = Builder::new(Raw::new(config).config1(config1).config2(config2));
                b.attrs_mut().type_ = type_;
                b
            }
        };
        b.exclude_kernel(self.user_only || !include_kernel);
        b.exclude_hv(true);
        b
    }
}

const HARDWARE: &[(&str, Hardware)] = &[
    ("instructions", Hardware::INSTRUCTIONS),
    ("cycles", Hardware::CPU_CYCLES),
    ("cpu-cycles", Hardware::CPU_CYCLES),
    ("cache-references", Hardware::CACHE_REFERENCES),
    ("cache-misses", Hardware::CACHE_MISSES),
    ("branches", Hardware::BRANCH_INSTRUCTIONS),
    ("branch-instructions", Hardware::BRANCH_INSTRUCTIONS),
    ("branch-misses", Hardware::BRANCH_MISSES),
    ("bus-cycles", Hardware::BUS_CYCLES),
    ("ref-cycles", Hardware::REF_CPU_CYCLES),
    ("stalled-cycles-frontend", Hardware::STALLED_CYCLES_FRONTEND),
    ("stalled-cycles-backend", Hardware::STALLED_CYCLES_BACKEND),
];

const SOFTWARE: &[(&str, Software)] = &[
    ("cpu-clock", Software::CPU_CLOCK),
    ("task-clock", Software::TASK_CLOCK),
    ("page-faults", Software::PAGE_FAULTS),
    ("faults", Software::PAGE_FAULTS),
    ("minor-faults", Software::PAGE_FAULTS_MIN),
    ("major-faults", Software::PAGE_FAULTS_MAJ),
    ("context-switches", Software::CONTEXT_SWITCHES),
    ("cs", Software::CONTEXT_SWITCHES),
    ("cpu-migrations", Software::CPU_MIGRATIONS),
    ("migrations", Software::CPU_MIGRATIONS),
    ("alignment-faults", Software::ALIGNMENT_FAULTS),
    ("emulation-faults", Software::EMULATION_FAULTS),
];

/// Why an event cannot be used, and what to use instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum EventError {
    #[error("unknown event `{name}`: expected a generic hardware event ({}), a software event ({}) or a raw code rNNNN (hex)", hardware_names().join(", "), software_names().join(", "))]
    Unknown { name: String },
    #[error("event `{name}` is a PMU-specific name, which needs libpfm4's tables: install them (apt-get install -y libpfm4) or give its raw code instead, e.g. -e r01c4 (perf list -v or libpfm4's showevtinfo print it)")]
    NeedsLibpfm { name: String },
    #[error("event `{name}`: {reason} (this machine's PMU does not have it, or the name is misspelt); `metron pep events` lists what works here, or give a raw code rNNNN")]
    Libpfm { name: String, reason: String },
    #[error("event `{name}` cannot be opened here: {reason}; {alternative}")]
    Unsupported {
        name: String,
        reason: String,
        alternative: String,
    },
}

pub fn hardware_names() -> Vec<&'static str> {
    HARDWARE.iter().map(|(n, _)| *n).collect()
}

pub fn software_names() -> Vec<&'static str> {
    SOFTWARE.iter().map(|(n, _)| *n).collect()
}

/// Parses one event name.
pub fn parse_event(name: &str) -> Result<EventSpec, EventError> {
    let (base, user_only) = match name.strip_suffix(":u") {
        Some(b) if lookup(b).is_some() => (b, true),
        _ => (name, false),
    };
    if let Some(source) = lookup(base) {
        return Ok(EventSpec {
            name: name.to_string(),
            source,
            user_only,
        });
    }
    if let Some(hex) = name.strip_prefix('r') {
        if !hex.is_empty() && hex.len() <= 16 {
            if let Ok(code) = u64::from_str_radix(hex, 16) {
                return Ok(EventSpec {
                    name: name.to_string(),
                    source: Source::Raw(code),
                    user_only: false,
                });
            }
        }
    }
    if name.contains(':') || name.chars().any(|c| c.is_ascii_uppercase()) {
        return match crate::libpfm::encode(name) {
            None => Err(EventError::NeedsLibpfm { name: name.into() }),
            Some(Err(reason)) => Err(EventError::Libpfm {
                name: name.into(),
                reason,
            }),
            Some(Ok(e)) => Ok(EventSpec {
                name: name.to_string(),
                source: Source::Pmu {
                    type_: e.type_,
                    config: e.config,
                    config1: e.config1,
                    config2: e.config2,
                },
                user_only: false,
            }),
        };
    }
    Err(EventError::Unknown { name: name.into() })
}

fn lookup(name: &str) -> Option<Source> {
    HARDWARE
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, h)| Source::Hardware(h.0))
        .or_else(|| {
            SOFTWARE
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, s)| Source::Software(s.0))
        })
}

/// What to record instead of an event this machine lacks.
pub fn alternative(spec: &EventSpec) -> String {
    match spec.source {
        Source::Software(_) => "no alternative: this kernel lacks the software event".into(),
        Source::Hardware(c)
            if [
                Hardware::CPU_CYCLES.0,
                Hardware::REF_CPU_CYCLES.0,
                Hardware::BUS_CYCLES.0,
                Hardware::INSTRUCTIONS.0,
            ]
            .contains(&c) =>
        {
            "use cpu-clock (software, nanoseconds of CPU time) as the sampling event, or record on a machine with a PMU (bare metal, or a VM with a virtual PMU)".into()
        }
        _ => "no software event counts this; sample on cpu-clock with page-faults/task-clock members here, or record on a machine with a PMU".into(),
    }
}

/// Whether `spec` can be opened on this machine (on metron itself, disabled).
pub fn probe(spec: &EventSpec) -> Result<(), EventError> {
    let mut b = spec.builder(true);
    b.observe_self().any_cpu().enabled(false);
    let first = b.build();
    let result = first.or_else(|_| {
        let mut b = spec.builder(false);
        b.observe_self().any_cpu().enabled(false);
        b.build()
    });
    result.map(|_| ()).map_err(|e| unsupported(spec, &e))
}

pub(crate) fn unsupported(spec: &EventSpec, e: &std::io::Error) -> EventError {
    EventError::Unsupported {
        name: spec.name.clone(),
        reason: metron_measure::counters::explain_open_error(spec.hardware(), e),
        alternative: alternative(spec),
    }
}

/// `metron pep events`: what this machine supports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventList {
    /// Whether any generic hardware event opens: false on a VM without a (virtual) PMU.
    pub pmu: bool,
    pub perf_event_paranoid: Option<i32>,
    pub events: Vec<EventStatus>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventStatus {
    pub name: String,
    pub kind: String,
    pub supported: bool,
    pub reason: Option<String>,
}

pub fn list_events() -> EventList {
    let mut events = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (name, kind) in HARDWARE
        .iter()
        .map(|(n, h)| (*n, Source::Hardware(h.0)))
        .chain(SOFTWARE.iter().map(|(n, s)| (*n, Source::Software(s.0))))
    {
        if !seen.insert(kind) {
            continue; // an alias
        }
        let spec = EventSpec {
            name: name.into(),
            source: kind,
            user_only: false,
        };
        let r = probe(&spec);
        events.push(EventStatus {
            name: name.into(),
            kind: if spec.hardware() {
                "hardware"
            } else {
                "software"
            }
            .into(),
            supported: r.is_ok(),
            reason: r.err().map(|e| match e {
                EventError::Unsupported { reason, .. } => reason,
                other => other.to_string(),
            }),
        });
    }
    EventList {
        pmu: events.iter().any(|e| e.kind == "hardware" && e.supported),
        perf_event_paranoid: std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
            .ok()
            .and_then(|s| s.trim().parse().ok()),
        events,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_as_perf_spells_them() {
        assert_eq!(
            parse_event("cpu-clock").unwrap().source,
            Source::Software(0)
        );
        let u = parse_event("instructions:u").unwrap();
        assert!(u.user_only && u.hardware());
        assert_eq!(parse_event("r01c4").unwrap().source, Source::Raw(0x1c4));
        // libpfm4 (scripts/install-deps) knows perf's own events on every machine...
        assert!(
            crate::libpfm::available(),
            "libpfm.so.4 is needed; install it with: apt-get install -y libpfm4"
        );
        let pf = parse_event("perf::PERF_COUNT_SW_PAGE_FAULTS").unwrap();
        assert_eq!(
            pf.source,
            Source::Pmu {
                type_: 1,
                config: Software::PAGE_FAULTS.0,
                config1: 0,
                config2: 0
            }
        );
        assert!(!pf.hardware());
        probe(&pf).unwrap();
        // ...and Skylake's load event only where that PMU is; elsewhere it says why.
        match parse_event("MEM_INST_RETIRED:ALL_LOADS") {
            Ok(e) => assert!(e.hardware()),
            Err(e) => assert!(e.to_string().contains("libpfm4"), "{e}"),
        }
        let e = parse_event("pagefaults").unwrap_err().to_string();
        assert!(e.contains("page-faults") && e.contains("rNNNN"), "{e}");
    }

    #[test]
    fn software_events_open_and_the_list_says_whether_there_is_a_pmu() {
        let l = list_events();
        let cpu = l.events.iter().find(|e| e.name == "cpu-clock").unwrap();
        assert!(cpu.supported, "{cpu:?}");
        let hw = l.events.iter().filter(|e| e.kind == "hardware");
        assert_eq!(l.pmu, hw.clone().any(|e| e.supported));
        for e in hw.filter(|e| !e.supported) {
            assert!(e.reason.as_deref().is_some_and(|r| !r.is_empty()));
        }
    }
}
