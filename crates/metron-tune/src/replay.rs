//! Replay (002 §4.3-4.7): the GA run against a table of already-measured units, so that its
//! behaviour over hundreds of repeats takes seconds. Figs. 4.2-4.13 of the thesis were made so.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde::Serialize;

use crate::error::{Result, TuneError};
use crate::ga::{self, cost, Evaluator, GaConfig, GaRun};
use crate::space::{expr_value, Gene, Genome, Space};

/// A measured table: every row a unit, `None` for a unit that failed.
#[derive(Debug, Clone)]
pub struct Table {
    pub space: Space,
    pub fitness: HashMap<Genome, Option<f64>>,
    pub maximize: bool,
}

/// Sorts values numerically when they all are numbers, else as text.
/// Sorts values numerically when they all are numbers, else as text; numeric columns are
/// range genes (ordered), the others list genes.
fn sort_values(v: &mut [String]) -> bool {
    let num = |s: &str| match expr_value(s) {
        evalexpr::Value::Int(i) => Some(i as f64),
        evalexpr::Value::Float(f) => Some(f),
        _ => None,
    };
    if v.iter().all(|s| num(s).is_some()) {
        v.sort_by(|a, b| num(a).unwrap_or(0.0).total_cmp(&num(b).unwrap_or(0.0)));
        true
    } else {
        v.sort();
        false
    }
}

impl Table {
    /// Reads a CSV table: one column per gene, and the fitness column (empty, `inf`, `nan` or
    /// `failed` for a failed unit). Columns in `ignore` are skipped.
    pub fn load(
        path: &Path,
        fitness_column: &str,
        ignore: &[String],
        maximize: bool,
    ) -> Result<Table> {
        let mut rd =
            csv::Reader::from_path(path).map_err(|e| TuneError::input(path, 0, e.to_string()))?;
        let header = rd
            .headers()
            .map_err(|e| TuneError::input(path, 1, e.to_string()))?
            .clone();
        let fcol = header
            .iter()
            .position(|h| h == fitness_column)
            .ok_or_else(|| {
                TuneError::input(
                    path,
                    1,
                    format!(
                        "no `{fitness_column}` column (columns: {})",
                        header.iter().collect::<Vec<_>>().join(", ")
                    ),
                )
            })?;
        let gene_cols: Vec<usize> = (0..header.len())
            .filter(|&i| i != fcol && !ignore.iter().any(|g| g == &header[i]))
            .collect();
        let mut rows: Vec<(Vec<String>, Option<f64>)> = Vec::new();
        for (n, rec) in rd.records().enumerate() {
            let rec = rec.map_err(|e| TuneError::input(path, n + 2, e.to_string()))?;
            let f = rec.get(fcol).unwrap_or("").trim();
            let fitness = match f.to_ascii_lowercase().as_str() {
                "" | "inf" | "nan" | "failed" => None,
                _ => Some(f.parse::<f64>().map_err(|_| {
                    TuneError::input(path, n + 2, format!("fitness `{f}` is not a number"))
                })?),
            };
            rows.push((
                gene_cols
                    .iter()
                    .map(|&i| rec.get(i).unwrap_or("").to_string())
                    .collect(),
                fitness,
            ));
        }
        if rows.is_empty() {
            return Err(TuneError::input(path, 0, "the table has no rows"));
        }
        let genes = genes_of(&header, &gene_cols, &rows);
        let mut fitness = HashMap::new();
        for (n, (vals, f)) in rows.into_iter().enumerate() {
            let g: Genome = genes
                .iter()
                .zip(&vals)
                .map(|(gene, v)| gene.values.iter().position(|x| x == v).unwrap_or(0) as u32)
                .collect();
            if fitness.insert(g, f).is_some() {
                return Err(TuneError::input(
                    path,
                    n + 2,
                    "this unit appears twice in the table",
                ));
            }
        }
        let members = fitness.keys().cloned().collect();
        Ok(Table {
            space: Space {
                genes,
                members: Some(members),
                ..Space::default()
            },
            fitness,
            maximize,
        })
    }

    /// The best fitness in the table: the optimum the GA is measured against.
    pub fn optimum(&self) -> Option<f64> {
        self.fitness
            .values()
            .flatten()
            .copied()
            .min_by(|a, b| cost(*a, self.maximize).total_cmp(&cost(*b, self.maximize)))
    }

    /// The fitness a unit must reach to be "within `within` of the optimum" (1% = 0.01).
    pub fn target(&self, within: f64) -> Option<f64> {
        let o = self.optimum()?;
        Some(if self.maximize {
            o * (1.0 - within)
        } else {
            o * (1.0 + within)
        })
    }
}

/// One gene per column: its distinct values, numeric columns as ordered range genes.
fn genes_of(
    header: &csv::StringRecord,
    gene_cols: &[usize],
    rows: &[(Vec<String>, Option<f64>)],
) -> Vec<Gene> {
    gene_cols
        .iter()
        .enumerate()
        .map(|(j, &i)| {
            let mut values: Vec<String> = rows
                .iter()
                .map(|r| r.0[j].clone())
                .collect::<HashSet<_>>()
                .into_iter()
                .collect();
            let ordered = sort_values(&mut values);
            let mut gene = Gene::list(&header[i], values);
            if ordered {
                gene.kind = crate::space::GeneKind::Range;
            }
            gene
        })
        .collect()
}

struct Lookup<'a>(&'a Table);

impl Evaluator for Lookup<'_> {
    fn evaluate(&mut self, units: &[Genome]) -> Result<Vec<Option<f64>>> {
        Ok(units
            .iter()
            .map(|g| self.0.fitness.get(g).copied().flatten())
            .collect())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReplayMethod {
    Ga,
    /// Distinct units uniformly at random, `budget` of them.
    Random,
}

#[derive(Debug, Clone, Serialize)]
pub struct ReplayConfig {
    pub method: ReplayMethod,
    pub ga: GaConfig,
    pub runs: usize,
    /// Random search: units per run.
    pub budget: usize,
    /// "Found" means within this fraction of the optimum.
    pub within: f64,
}

/// What many repeats of one search did on one table.
#[derive(Debug, Clone, Serialize)]
pub struct ReplaySummary {
    pub config: ReplayConfig,
    pub table_units: usize,
    pub optimum: Option<f64>,
    pub target: Option<f64>,
    /// Mean over runs of the best fitness of each generation (002 Fig. 4.2); a run that
    /// stopped earlier keeps its last value.
    pub mean_best_per_generation: Vec<f64>,
    pub mean_best_so_far_per_generation: Vec<f64>,
    pub mean_unique_units: f64,
    pub final_best: Quartiles,
    /// Runs that found a unit within `within` of the optimum.
    pub hit_rate: f64,
    /// Median distinct evaluations to the first such unit (runs that never found one count as
    /// infinitely many; None when fewer than half found it).
    pub median_evaluations_to_target: Option<f64>,
    #[serde(skip)]
    pub runs: Vec<GaRun>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Quartiles {
    pub q1: f64,
    pub median: f64,
    pub q3: f64,
    pub mean: f64,
}

fn quartiles(xs: &mut [f64]) -> Quartiles {
    xs.sort_by(f64::total_cmp);
    let q = |p: f64| metron_measure::stats::quantile_sorted(xs, p).unwrap_or(f64::NAN);
    Quartiles {
        q1: q(0.25),
        median: q(0.5),
        q3: q(0.75),
        mean: metron_measure::stats::mean(xs).unwrap_or(f64::NAN),
    }
}

/// Runs the search `runs` times with seeds `seed, seed+1, ...`.
pub fn replay(table: &Table, cfg: &ReplayConfig) -> Result<ReplaySummary> {
    let mut runs = Vec::with_capacity(cfg.runs);
    for r in 0..cfg.runs {
        let seed = cfg.ga.seed.wrapping_add(r as u64);
        let run = match cfg.method {
            ReplayMethod::Ga => {
                let ga = GaConfig {
                    seed,
                    maximize: table.maximize,
                    ..cfg.ga.clone()
                };
                ga::run(&ga, &table.space, &mut Lookup(table), &[], &mut |_, _| {
                    Ok(())
                })?
            }
            ReplayMethod::Random => {
                ga::random_search(&table.space, &mut Lookup(table), cfg.budget, seed)?
            }
        };
        runs.push(run);
    }
    Ok(summarize(table, cfg, runs))
}

fn summarize(table: &Table, cfg: &ReplayConfig, runs: Vec<GaRun>) -> ReplaySummary {
    let m = table.maximize;
    let gens = runs.iter().map(|r| r.generations.len()).max().unwrap_or(0);
    let mut mean_best = vec![0.0; gens];
    let mut mean_so_far = vec![0.0; gens];
    for r in &runs {
        let mut so_far = f64::NAN;
        let mut last = f64::NAN;
        for (i, slot) in mean_best.iter_mut().enumerate() {
            if let Some(g) = r.generations.get(i) {
                last = g.best.unwrap_or(f64::NAN);
                if so_far.is_nan() || cost(last, m) < cost(so_far, m) {
                    so_far = last;
                }
            }
            *slot += last / runs.len() as f64;
            mean_so_far[i] += so_far / runs.len() as f64;
        }
    }
    let mut finals: Vec<f64> = runs.iter().filter_map(|r| r.best(m).map(|b| b.1)).collect();
    let target = table.target(cfg.within);
    let mut evals: Vec<f64> = runs
        .iter()
        .map(|r| {
            target
                .and_then(|t| r.evaluations_to(t, m))
                .map_or(f64::INFINITY, |n| n as f64)
        })
        .collect();
    evals.sort_by(f64::total_cmp);
    let hits = evals.iter().filter(|e| e.is_finite()).count();
    let median = metron_measure::stats::quantile_sorted(&evals, 0.5).filter(|m| m.is_finite());
    ReplaySummary {
        config: cfg.clone(),
        table_units: table.fitness.len(),
        optimum: table.optimum(),
        target,
        mean_best_per_generation: mean_best,
        mean_best_so_far_per_generation: mean_so_far,
        mean_unique_units: runs.iter().map(|r| r.unique_units() as f64).sum::<f64>()
            / runs.len().max(1) as f64,
        final_best: quartiles(&mut finals),
        hit_rate: hits as f64 / runs.len().max(1) as f64,
        median_evaluations_to_target: median,
        runs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table_file(dir: &Path) -> std::path::PathBuf {
        // A bowl over two genes with one failed unit and a missing (restricted) one.
        let mut s = String::from("a,b,fitness\n");
        for a in 0..6 {
            for b in 0..6 {
                if (a, b) == (5, 5) {
                    continue;
                }
                let f = if (a, b) == (0, 0) {
                    "failed".to_string()
                } else {
                    (1 + (a - 2) * (a - 2) + (b - 4) * (b - 4)).to_string()
                };
                s += &format!("{a},{b},{f}\n");
            }
        }
        let p = dir.join("t.csv");
        std::fs::write(&p, s).unwrap();
        p
    }

    #[test]
    fn table_space_is_the_table() {
        let d = tempfile::tempdir().unwrap();
        let t = Table::load(&table_file(d.path()), "fitness", &[], false).unwrap();
        assert_eq!(t.space.all().count(), 35);
        assert_eq!(t.optimum(), Some(1.0));
        assert_eq!(t.target(0.01), Some(1.01));
    }

    #[test]
    fn random_search_never_repeats_and_respects_the_budget() {
        let d = tempfile::tempdir().unwrap();
        let t = Table::load(&table_file(d.path()), "fitness", &[], false).unwrap();
        let cfg = ReplayConfig {
            method: ReplayMethod::Random,
            ga: GaConfig::default(),
            runs: 20,
            budget: 35,
            within: 0.0,
        };
        let s = replay(&t, &cfg).unwrap();
        for r in &s.runs {
            let set: HashSet<_> = r.evaluated.iter().map(|e| &e.0).collect();
            assert_eq!(set.len(), 35);
        }
        // Exhaustive: every run finds the optimum.
        assert_eq!(s.hit_rate, 1.0);
    }

    /// 002 §4.4-4.5, qualitatively: elitism helps, and random parents (the baseline) do no
    /// better than roulette selection. On a 6^5 table with a tilted bowl, 200 runs each.
    #[test]
    fn replay_reproduces_the_thesis_findings() {
        let d = tempfile::tempdir().unwrap();
        let mut s = String::from("a,b,c,d,e,fitness\n");
        for i in 0..6usize.pow(5) {
            let g: Vec<i64> = (0..5).map(|k| (i / 6usize.pow(k)) as i64 % 6).collect();
            let f = 1.0
                + (g[0] - 4).pow(2) as f64
                + 0.5 * (g[1] - 1).pow(2) as f64
                + 0.8 * (g[2] - 3).pow(2) as f64
                + 0.3 * (g[3] - g[4]).abs() as f64
                + 0.2 * (g[4] - 5).pow(2) as f64;
            s += &format!("{},{},{},{},{},{f}\n", g[0], g[1], g[2], g[3], g[4]);
        }
        let p = d.path().join("bowl.csv");
        std::fs::write(&p, s).unwrap();
        let t = Table::load(&p, "fitness", &[], false).unwrap();
        let mean_final = |elitism, selection| {
            let cfg = ReplayConfig {
                method: ReplayMethod::Ga,
                ga: GaConfig {
                    population: 20,
                    max_unique: Some(80),
                    generations: 1000,
                    mutation_chance: 10,
                    elitism,
                    selection,
                    ..GaConfig::default()
                },
                runs: 200,
                budget: 0,
                within: 0.01,
            };
            replay(&t, &cfg).unwrap().final_best.mean
        };
        let roulette = mean_final(1, ga::Selection::Roulette);
        let no_elitism = mean_final(0, ga::Selection::Roulette);
        let random_parents = mean_final(1, ga::Selection::Random);
        assert!(roulette < no_elitism, "{roulette} vs {no_elitism}");
        assert!(roulette < random_parents, "{roulette} vs {random_parents}");
    }
}
