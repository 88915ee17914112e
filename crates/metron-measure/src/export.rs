//! Files for other tools: long-format CSV (000 App. C, Listing C.2) and JSON.

use std::path::Path;

use crate::report::Report;
use crate::{MeasureError, Result};

/// One row per counted run and metric:
/// `experiment,command,<one column per parameter>,run,metric,value`, the long (narrow) layout
/// of 000 Listing C.2 that R, pandas and spreadsheets pivot as they like. Failed runs are
/// included; their `exit-status` row says so.
pub fn write_csv(report: &Report, path: &Path) -> Result<()> {
    let io = |e: csv::Error| MeasureError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    };
    let mut w = csv::Writer::from_path(path).map_err(io)?;
    let param_names: Vec<&str> = report
        .config
        .params
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    let mut header = vec!["experiment", "command"];
    header.extend(&param_names);
    header.extend(["run", "metric", "value"]);
    w.write_record(&header).map_err(io)?;
    let experiment = report
        .experiment
        .as_ref()
        .map(|e| e.id.to_string())
        .unwrap_or_default();
    for b in &report.benchmarks {
        for run in &b.runs {
            for (metric, value) in &run.metrics {
                let mut row = vec![experiment.clone(), b.command.clone()];
                row.extend(
                    param_names
                        .iter()
                        .map(|n| b.params.get(*n).cloned().unwrap_or_default()),
                );
                row.extend([run.index.to_string(), metric.clone(), value.to_string()]);
                w.write_record(&row).map_err(io)?;
            }
        }
    }
    w.flush().map_err(|e| MeasureError::Io {
        path: path.to_path_buf(),
        source: e,
    })
}

pub fn write_json(report: &Report, path: &Path) -> Result<()> {
    let text = serde_json::to_string_pretty(report)
        .map_err(|e| MeasureError::Invalid(format!("serialising the report: {e}")))?;
    std::fs::write(path, text + "\n").map_err(|source| MeasureError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// hyperfine's `--export-markdown` table (mean ± σ, min, max, relative to the fastest mean,
/// in the primary metric), with metron's median and its 95% CI as one more column. Times are
/// in `time_unit`, or as hyperfine picks: ms when the fastest mean is under a second.
pub fn markdown(report: &Report, time_unit: Option<crate::units::TimeUnit>) -> String {
    use crate::units::{TimeUnit, Unit};
    let primary = &report.config.primary_metric;
    let rows: Vec<(
        &crate::report::BenchmarkReport,
        Option<&crate::report::MetricSummary>,
    )> = report
        .benchmarks
        .iter()
        .map(|b| (b, b.metrics.iter().find(|m| &m.metric == primary)))
        .collect();
    let fastest = rows
        .iter()
        .filter_map(|(_, m)| m.map(|m| m.summary.mean))
        .fold(f64::INFINITY, f64::min);
    let unit = rows
        .iter()
        .find_map(|(_, m)| m.map(|m| m.unit))
        .unwrap_or(Unit::Seconds);
    let tu = time_unit.unwrap_or_else(|| TimeUnit::auto(fastest));
    let (label, num): (String, Box<dyn Fn(f64) -> String>) = match unit {
        Unit::Seconds => (
            tu.symbol().to_string(),
            Box::new(move |v| format!("{:.1}", v / tu.seconds())),
        ),
        other => (other.as_str().to_string(), Box::new(|v| format!("{v:.0}"))),
    };
    let mut out = format!(
        "| Command | Mean [{label}] | Min [{label}] | Max [{label}] | Relative | Median (95% CI) [{label}] |\n\
         |:---|---:|---:|---:|---:|---:|\n"
    );
    let fast = rows
        .iter()
        .filter_map(|(_, m)| *m)
        .find(|m| m.summary.mean == fastest);
    for (b, m) in &rows {
        let name = format!("`{}`", b.display_name().replace('|', "\\|"));
        let Some(m) = m else {
            out.push_str(&format!("| {name} | no successful run | | | | |\n"));
            continue;
        };
        let s = &m.summary;
        let ratio = s.mean / fastest;
        let relative = match fast {
            Some(f) if s.mean != fastest => {
                // hyperfine's error propagation for a ratio of means.
                let err = ratio
                    * ((s.std_dev / s.mean).powi(2) + (f.summary.std_dev / f.summary.mean).powi(2))
                        .sqrt();
                format!("{ratio:.2} ± {err:.2}")
            }
            _ => "1.00".to_string(),
        };
        out.push_str(&format!(
            "| {name} | {} ± {} | {} | {} | {relative} | {} [{}, {}] |\n",
            num(s.mean),
            num(s.std_dev),
            num(s.min),
            num(s.max),
            num(s.median),
            num(s.ci_median.lo),
            num(s.ci_median.hi)
        ));
    }
    out
}

pub fn write_markdown(
    report: &Report,
    path: &Path,
    time_unit: Option<crate::units::TimeUnit>,
) -> Result<()> {
    std::fs::write(path, markdown(report, time_unit)).map_err(|source| MeasureError::Io {
        path: path.to_path_buf(),
        source,
    })
}
