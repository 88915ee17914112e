//! `metron doctor`: every external tool of the [catalogue](super::catalogue) as this machine
//! resolves it, and which counters perf_event offers, so that a user sees in one place what
//! metron can and cannot do here and how to fix it.

use serde::Serialize;

use super::{Resolved, Tool, ALL};
use crate::counters::{Availability, CounterSet, DEFAULT};

/// One tool, resolved or not.
#[derive(Debug, Clone, Serialize)]
pub struct ToolStatus {
    pub program: &'static str,
    pub purpose: &'static str,
    pub needed_by: &'static [&'static str],
    /// Where the tool was found and its version, by the one rule (`tool` module doc).
    pub resolved: Option<Resolved>,
    /// Why it was not found (missing, or a version metron does not accept).
    pub problem: Option<String>,
    pub install: String,
}

/// What `metron doctor` reports.
#[derive(Debug, Clone, Serialize)]
pub struct Doctor {
    pub tools: Vec<ToolStatus>,
    /// The default counter set as perf_event opens it on this machine (no PMU on most
    /// virtual machines: hardware counters are then unavailable).
    pub counters: Availability,
}

impl Doctor {
    /// Whether every tool resolved.
    pub fn all_tools_found(&self) -> bool {
        self.tools.iter().all(|t| t.resolved.is_some())
    }

    /// One `apt-get install` line for everything missing, if anything is.
    pub fn install_line(&self) -> Option<String> {
        let mut packages: Vec<&str> = self
            .tools
            .iter()
            .filter(|t| t.resolved.is_none())
            .filter_map(|t| t.install.rsplit(' ').next())
            .collect();
        packages.dedup();
        (!packages.is_empty()).then(|| format!("apt-get install -y {}", packages.join(" ")))
    }
}

fn status(tool: &Tool) -> ToolStatus {
    let found = tool.resolve();
    ToolStatus {
        program: tool.program,
        purpose: tool.purpose,
        needed_by: tool.needed_by,
        problem: found.as_ref().err().map(ToString::to_string),
        resolved: found.ok(),
        install: tool.install_line(),
    }
}

/// Resolves every catalogue tool and opens the default counters.
pub fn doctor() -> Doctor {
    Doctor {
        tools: ALL.iter().map(status).collect(),
        counters: CounterSet::open(DEFAULT).availability().clone(),
    }
}
