//! `metron tune show` and `metron tune import-gp`: printing only.

use metron_tune::project::Project;
use metron_tune::show::{self, ShowQuery};

use super::tune::{tune_error, ImportArgs, ShowArgs};
use crate::error::{CliError, CliResult};
use crate::GlobalOpts;

pub fn show(a: ShowArgs, global: &GlobalOpts) -> CliResult {
    let project = Project::load(&a.project).map_err(tune_error)?;
    let strategy = a
        .strategy
        .parse()
        .map_err(|m: String| CliError::input(format!("--strategy: {m}")))?;
    let store = super::open_existing_store(&global.store_path())?;
    let q = ShowQuery {
        filters: a.filters.clone(),
        x: a.x.clone(),
        y: a.y.clone(),
        region: a.region.clone(),
        strategy: Some(strategy),
        include_failed: a.csv,
    };
    let r = show::show(&project, &store, &q).map_err(tune_error)?;
    if global.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&r).map_err(CliError::failure)?
        );
        return Ok(());
    }
    let genes = &r.genes;
    if a.csv {
        let mut w = csv::Writer::from_writer(std::io::stdout());
        let mut head: Vec<String> = genes.clone();
        head.extend(a.x.iter().map(|_| "x".to_string()));
        head.extend(a.y.iter().map(|_| "y".to_string()));
        head.push("fitness".into());
        w.write_record(&head).map_err(CliError::failure)?;
        for row in &r.rows {
            let mut rec: Vec<String> = genes
                .iter()
                .map(|g| {
                    row.params
                        .iter()
                        .find(|p| &p.0 == g)
                        .map(|p| p.1.clone())
                        .unwrap_or_default()
                })
                .collect();
            rec.extend(row.x.map(|v| v.to_string()));
            rec.extend(row.y.map(|v| v.to_string()));
            rec.push(if row.value.is_finite() {
                row.value.to_string()
            } else {
                "failed".into()
            });
            w.write_record(&rec).map_err(CliError::failure)?;
        }
        return w.flush().map_err(CliError::failure);
    }
    println!(
        "{} units ({} failed not shown); value: {}",
        r.rows.len(),
        r.failed,
        r.value
    );
    let mut head = format!("{:<40}", "unit");
    if a.x.is_some() {
        head += &format!(" {:>10}", "x");
    }
    if a.y.is_some() {
        head += &format!(" {:>10}", "y");
    }
    println!("{head} {:>14}", "value");
    for row in &r.rows {
        let mut line = format!("{:<40}", row.key);
        if let Some(x) = row.x {
            line += &format!(" {x:>10}");
        }
        if let Some(y) = row.y {
            line += &format!(" {y:>10}");
        }
        println!("{line} {:>14.6}", row.value);
    }
    if !r.groups.is_empty() {
        println!(
            "\n{:>10} {:>6} {:>14} {:>14} {:>14}",
            "x", "units", "min", "avg", "max"
        );
        for g in &r.groups {
            println!(
                "{:>10} {:>6} {:>14.6} {:>14.6} {:>14.6}",
                g.x, g.units, g.min, g.avg, g.max
            );
        }
    }
    Ok(())
}

pub fn import_gp(a: ImportArgs) -> CliResult {
    let src = std::fs::read_to_string(&a.file)
        .map_err(|e| CliError::input(format!("{}: {e}", a.file.display())))?;
    let toml = metron_tune::gp::import(&a.file, &src).map_err(tune_error)?;
    match &a.output {
        Some(p) => {
            std::fs::write(p, toml).map_err(|e| CliError::input(format!("{}: {e}", p.display())))
        }
        None => {
            print!("{toml}");
            Ok(())
        }
    }
}
