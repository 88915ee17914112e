//! Units of measured values, and how people like to read them.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    Seconds,
    Bytes,
    Count,
}

impl Unit {
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Seconds => "s",
            Unit::Bytes => "B",
            Unit::Count => "count",
        }
    }

    pub fn parse(s: &str) -> Option<Unit> {
        match s {
            "s" => Some(Unit::Seconds),
            "B" => Some(Unit::Bytes),
            "count" => Some(Unit::Count),
            _ => None,
        }
    }

    /// A value in this unit, scaled for reading: `50.62 ms`, `1.9 MiB`, `12.3 M`.
    pub fn format(self, v: f64) -> String {
        match self {
            Unit::Seconds => format_seconds(v),
            Unit::Bytes => format_bytes(v),
            Unit::Count => format_count(v),
        }
    }
}

/// A fixed unit for times (`--time-unit`, as hyperfine's); without one, each value is scaled
/// for reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeUnit {
    Nanosecond,
    Microsecond,
    Millisecond,
    Second,
}

impl TimeUnit {
    /// hyperfine's names (`millisecond`) and the symbols (`ms`).
    pub fn parse(s: &str) -> Option<TimeUnit> {
        Some(match s {
            "nanosecond" | "ns" => TimeUnit::Nanosecond,
            "microsecond" | "us" | "µs" => TimeUnit::Microsecond,
            "millisecond" | "ms" => TimeUnit::Millisecond,
            "second" | "s" => TimeUnit::Second,
            _ => return None,
        })
    }

    pub fn symbol(self) -> &'static str {
        match self {
            TimeUnit::Nanosecond => "ns",
            TimeUnit::Microsecond => "µs",
            TimeUnit::Millisecond => "ms",
            TimeUnit::Second => "s",
        }
    }

    /// Seconds per one of this unit.
    pub fn seconds(self) -> f64 {
        match self {
            TimeUnit::Nanosecond => 1e-9,
            TimeUnit::Microsecond => 1e-6,
            TimeUnit::Millisecond => 1e-3,
            TimeUnit::Second => 1.0,
        }
    }

    /// The number alone, in this unit.
    pub fn number(self, seconds: f64) -> String {
        let v = seconds / self.seconds();
        match self {
            TimeUnit::Second => format!("{v:.3}"),
            _ => format!("{v:.2}"),
        }
    }

    pub fn format(self, seconds: f64) -> String {
        format!("{} {}", self.number(seconds), self.symbol())
    }

    /// The unit hyperfine's markdown picks for a value: ms below a second, else s.
    pub fn auto(seconds: f64) -> TimeUnit {
        if seconds.abs() < 1.0 {
            TimeUnit::Millisecond
        } else {
            TimeUnit::Second
        }
    }
}

/// A value of `unit`, times in `time_unit` when one is fixed.
pub fn format_in(unit: Unit, v: f64, time_unit: Option<TimeUnit>) -> String {
    match (unit, time_unit) {
        (Unit::Seconds, Some(t)) => t.format(v),
        _ => unit.format(v),
    }
}

pub fn format_seconds(s: f64) -> String {
    let a = s.abs();
    if a == 0.0 {
        "0 s".into()
    } else if a < 1e-6 {
        format!("{:.1} ns", s * 1e9)
    } else if a < 1e-3 {
        format!("{:.2} µs", s * 1e6)
    } else if a < 1.0 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{s:.3} s")
    }
}

pub fn format_bytes(b: f64) -> String {
    const STEPS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b;
    let mut i = 0;
    while v.abs() >= 1024.0 && i + 1 < STEPS.len() {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{v:.0} B")
    } else {
        format!("{v:.1} {}", STEPS[i])
    }
}

pub fn format_count(c: f64) -> String {
    let a = c.abs();
    if a < 1e4 {
        if c.fract() == 0.0 {
            format!("{c:.0}")
        } else {
            format!("{c:.1}")
        }
    } else if a < 1e6 {
        format!("{:.1} k", c / 1e3)
    } else if a < 1e9 {
        format!("{:.2} M", c / 1e6)
    } else {
        format!("{:.3} G", c / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readable_values() {
        assert_eq!(format_seconds(0.05062), "50.62 ms");
        assert_eq!(format_seconds(2.5e-5), "25.00 µs");
        assert_eq!(format_seconds(1.5), "1.500 s");
        assert_eq!(format_bytes(2_000_000.0), "1.9 MiB");
        assert_eq!(format_bytes(512.0), "512 B");
        assert_eq!(format_count(77.0), "77");
        assert_eq!(format_count(12_345_678.0), "12.35 M");
        assert_eq!(Unit::parse(Unit::Bytes.as_str()), Some(Unit::Bytes));
    }
}
