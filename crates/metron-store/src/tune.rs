//! Tables of `metron tune` (schema migration 2): units of a unit library and GA generations.

use rusqlite::params;
use serde::Serialize;

use crate::{sql, ExperimentId, Result, Store};

/// One finished unit as `metron tune` records it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TuneUnitRow {
    pub library: String,
    pub key: String,
    /// JSON array of [name, value] pairs, in the project's order.
    pub params: String,
    /// "ok" or "failed".
    pub status: String,
    pub fitness: Option<f64>,
    pub failed_stage: Option<String>,
    pub reason: Option<String>,
    pub stderr_tail: Option<String>,
    pub experiment_id: Option<i64>,
}

/// One generation of one GA repeat (002 Listing 4.7).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TuneGenerationRow {
    pub repeat: u32,
    pub generation: u32,
    pub unique_units: u32,
    pub best_fitness: Option<f64>,
    pub best_key: Option<String>,
}

/// The campaign of one unit library as the report and `metron plot` show it: its newest
/// `metron tune` experiment (older ones are earlier runs of a resumed campaign).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TuneCampaign {
    pub experiment: ExperimentId,
    pub name: Option<String>,
    pub library: String,
}

impl Store {
    /// The newest `metron tune` experiment of each library, newest first, and the ids of tune
    /// experiments whose config names no library (written by no released `metron tune`).
    pub fn tune_campaigns(&self) -> Result<(Vec<TuneCampaign>, Vec<ExperimentId>)> {
        let (rows, _) = self.experiments_lenient(None)?;
        let (mut campaigns, mut unnamed) = (Vec::<TuneCampaign>::new(), Vec::new());
        for row in rows.into_iter().filter(|r| r.kind == "tune") {
            let Some(library) = row.config["library"].as_str() else {
                unnamed.push(row.id);
                continue;
            };
            if campaigns.iter().all(|c| c.library != library) {
                campaigns.push(TuneCampaign {
                    experiment: row.id,
                    name: row.name.clone(),
                    library: library.to_string(),
                });
            }
        }
        Ok((campaigns, unnamed))
    }

    /// Inserts or replaces a unit's result, in its own transaction.
    pub fn put_tune_unit(&self, u: &TuneUnitRow) -> Result<()> {
        self.conn
            .execute(
                "INSERT INTO tune_units (library, key, params, status, fitness, failed_stage,
                     reason, stderr_tail, experiment_id)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                 ON CONFLICT (library, key) DO UPDATE SET params = excluded.params,
                     status = excluded.status, fitness = excluded.fitness,
                     failed_stage = excluded.failed_stage, reason = excluded.reason,
                     stderr_tail = excluded.stderr_tail, experiment_id = excluded.experiment_id,
                     finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
                params![
                    u.library,
                    u.key,
                    u.params,
                    u.status,
                    u.fitness,
                    u.failed_stage,
                    u.reason,
                    u.stderr_tail,
                    u.experiment_id
                ],
            )
            .map(|_| ())
            .map_err(sql(&self.path))
    }

    pub fn delete_tune_unit(&self, library: &str, key: &str) -> Result<()> {
        self.conn
            .execute(
                "DELETE FROM tune_units WHERE library = ?1 AND key = ?2",
                params![library, key],
            )
            .map(|_| ())
            .map_err(sql(&self.path))
    }

    /// Every unit recorded for a library, by key.
    pub fn tune_units(&self, library: &str) -> Result<Vec<TuneUnitRow>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT library, key, params, status, fitness, failed_stage, reason, stderr_tail,
                        experiment_id
                 FROM tune_units WHERE library = ?1 ORDER BY key",
            )
            .map_err(sql(&self.path))?;
        let rows = stmt
            .query_map(params![library], |r| {
                Ok(TuneUnitRow {
                    library: r.get(0)?,
                    key: r.get(1)?,
                    params: r.get(2)?,
                    status: r.get(3)?,
                    fitness: r.get(4)?,
                    failed_stage: r.get(5)?,
                    reason: r.get(6)?,
                    stderr_tail: r.get(7)?,
                    experiment_id: r.get(8)?,
                })
            })
            .map_err(sql(&self.path))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(sql(&self.path))
    }

    pub fn put_tune_generation(&self, exp: ExperimentId, g: &TuneGenerationRow) -> Result<()> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO tune_generations
                     (experiment_id, repeat, generation, unique_units, best_fitness, best_key)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    exp.0,
                    g.repeat,
                    g.generation,
                    g.unique_units,
                    g.best_fitness,
                    g.best_key
                ],
            )
            .map(|_| ())
            .map_err(sql(&self.path))
    }

    pub fn tune_generations(&self, exp: ExperimentId) -> Result<Vec<TuneGenerationRow>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT repeat, generation, unique_units, best_fitness, best_key
                 FROM tune_generations WHERE experiment_id = ?1 ORDER BY repeat, generation",
            )
            .map_err(sql(&self.path))?;
        let rows = stmt
            .query_map(params![exp.0], |r| {
                Ok(TuneGenerationRow {
                    repeat: r.get(0)?,
                    generation: r.get(1)?,
                    unique_units: r.get(2)?,
                    best_fitness: r.get(3)?,
                    best_key: r.get(4)?,
                })
            })
            .map_err(sql(&self.path))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(sql(&self.path))
    }
}
