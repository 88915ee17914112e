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
