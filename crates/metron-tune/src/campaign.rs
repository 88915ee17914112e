//! A campaign: the project's units evaluated through the unit library, each result committed
//! to the store as it arrives (002 §3.3), so that a killed campaign resumes where it stopped.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;

use crate::error::{Result, TuneError};
use crate::executor::{run_local, Event};
use crate::ga::{self, Evaluator, GaRun, Generation};
use crate::project::{Method, Project};
use crate::slurm::SlurmExecutor;
use crate::space::Genome;
use crate::unit_library::{self as lib, Outcome, StageContext, UnitJob, UnitParams};
use metron_store::{ExperimentId, Store, TuneGenerationRow, TuneUnitRow};

/// Where units run.
pub enum Runner {
    Local { cores: usize },
    Slurm(SlurmExecutor),
}

/// Counters for the progress bar: done, running, failed and the best so far.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Progress {
    pub done: usize,
    pub running: usize,
    pub failed: usize,
    /// Units taken from the library instead of being run.
    pub reused: usize,
    pub best: Option<f64>,
    pub best_key: Option<String>,
}

/// What the consistency check at start found (and repaired).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Consistency {
    pub units_on_disk: usize,
    pub finished_on_disk: usize,
    /// Finished in the folder but missing from the store (killed between the two writes).
    pub recovered_into_store: usize,
    /// In the store but without a finished folder (folder deleted by hand): removed.
    pub stale_store_rows: usize,
}

pub struct Campaign<'a> {
    pub project: &'a Project,
    store: &'a Store,
    experiment: Option<ExperimentId>,
    retry_failed: bool,
    retried: std::collections::HashSet<String>,
    runner: Runner,
    known: HashMap<String, Outcome>,
    pub progress: Progress,
    on_progress: Box<dyn FnMut(&Progress) + 'a>,
}

fn library_id(p: &Project) -> String {
    p.library.display().to_string()
}

impl<'a> Campaign<'a> {
    /// Opens the library and checks it against itself and the store (002 §3.3: "Library is
    /// valid").
    pub fn open(
        project: &'a Project,
        store: &'a Store,
        experiment: Option<ExperimentId>,
        runner: Runner,
        retry_failed: bool,
    ) -> Result<(Campaign<'a>, Consistency)> {
        let mut c = Campaign {
            project,
            store,
            experiment,
            retry_failed,
            retried: Default::default(),
            runner,
            known: HashMap::new(),
            progress: Progress::default(),
            on_progress: Box::new(|_| {}),
        };
        let report = c.check_library()?;
        Ok((c, report))
    }

    pub fn on_progress(&mut self, f: impl FnMut(&Progress) + 'a) {
        self.on_progress = Box::new(f);
    }

    fn check_library(&mut self) -> Result<Consistency> {
        let mut report = Consistency::default();
        let lib_id = library_id(self.project);
        let stored: HashMap<String, TuneUnitRow> = self
            .store
            .tune_units(&lib_id)?
            .into_iter()
            .map(|r| (r.key.clone(), r))
            .collect();
        for (key, dir) in lib::scan(&self.project.library) {
            report.units_on_disk += 1;
            let params_path = dir.join(lib::PARAMS_FILE);
            let text =
                std::fs::read_to_string(&params_path).map_err(TuneError::io(&params_path))?;
            let params: UnitParams = serde_json::from_str(&text)
                .map_err(|e| TuneError::input(&params_path, e.line(), e.to_string()))?;
            let expected = self
                .project
                .space
                .genome_of(&params.params)
                .map(|g| lib::unit_key(&self.project.space, &g))
                .map_err(|m| self.inconsistent(format!("{}: {m}", params_path.display())))?;
            if expected != key || params.key != key {
                return Err(self.inconsistent(format!(
                    "{} holds the parameters of unit {expected}, not of its folder {key}",
                    params_path.display()
                )));
            }
            let Some(outcome) = lib::read_outcome(&dir) else {
                continue;
            };
            report.finished_on_disk += 1;
            let row = self.row(&key, &params.params, &outcome);
            let same = stored
                .get(&key)
                .is_some_and(|s| s.status == row.status && s.fitness == row.fitness);
            if !same {
                self.store.put_tune_unit(&row)?;
                report.recovered_into_store += 1;
            }
            self.known.insert(key, outcome);
        }
        for key in stored.keys().filter(|k| !self.known.contains_key(*k)) {
            self.store.delete_tune_unit(&lib_id, key)?;
            report.stale_store_rows += 1;
        }
        Ok(report)
    }

    fn inconsistent(&self, message: String) -> TuneError {
        TuneError::Inconsistent {
            path: self.project.library.clone(),
            message,
        }
    }

    fn row(&self, key: &str, params: &[(String, String)], o: &Outcome) -> TuneUnitRow {
        let (status, fitness, stage, reason, tail) = match o {
            Outcome::Ok { fitness } => ("ok", Some(*fitness), None, None, None),
            Outcome::Failed {
                stage,
                reason,
                stderr_tail,
            } => (
                "failed",
                None,
                Some(stage.clone()),
                Some(reason.clone()),
                Some(stderr_tail.clone()),
            ),
        };
        TuneUnitRow {
            library: library_id(self.project),
            key: key.to_string(),
            params: serde_json::to_string(params).unwrap_or_default(),
            status: status.into(),
            fitness,
            failed_stage: stage,
            reason,
            stderr_tail: tail,
            experiment_id: self.experiment.map(|e| e.0),
        }
    }

    fn job(&self, genome: &Genome) -> Option<UnitJob> {
        let (assignment, ctx) = self.project.space.assign(genome).ok()?;
        let key = lib::unit_key(&self.project.space, genome);
        let cores = self
            .project
            .stages
            .iter()
            .filter_map(|s| s.cores.as_ref())
            .filter_map(|e| e.eval_f64(&ctx).ok())
            .fold(1.0f64, f64::max);
        Some(UnitJob {
            dir: self.project.library.join(&key),
            key,
            assignment,
            cores: cores.ceil() as usize,
        })
    }

    fn note_finished(&mut self, key: &str, o: &Outcome) {
        self.progress.done += 1;
        match o.fitness() {
            Some(f) => {
                let better = self.progress.best.is_none_or(|b| {
                    ga::cost(f, self.project.fitness.maximize)
                        < ga::cost(b, self.project.fitness.maximize)
                });
                if better {
                    self.progress.best = Some(f);
                    self.progress.best_key = Some(key.to_string());
                }
            }
            None => self.progress.failed += 1,
        }
    }

    /// Runs whatever of `genomes` is not finished and returns every unit's outcome.
    pub fn evaluate_units(&mut self, genomes: &[Genome]) -> Result<Vec<Option<Outcome>>> {
        let mut jobs = Vec::new();
        for g in genomes {
            let key = lib::unit_key(&self.project.space, g);
            let retry = self.retry_failed
                && matches!(self.known.get(&key), Some(Outcome::Failed { .. }))
                && !self.retried.contains(&key);
            if let Some(o) = self.known.get(&key).filter(|_| !retry) {
                let o = o.clone();
                self.progress.reused += 1;
                self.note_finished(&key, &o);
                continue;
            }
            if jobs.iter().any(|j: &UnitJob| j.key == key) {
                continue;
            }
            if let Some(job) = self.job(g) {
                if retry {
                    lib::clear_failure(&job.dir);
                    self.retried.insert(key.clone());
                }
                jobs.push(job);
            }
        }
        (self.on_progress)(&self.progress);
        if !jobs.is_empty() {
            self.run_jobs(jobs)?;
        }
        Ok(genomes
            .iter()
            .map(|g| {
                self.known
                    .get(&lib::unit_key(&self.project.space, g))
                    .cloned()
            })
            .collect())
    }

    fn run_jobs(&mut self, jobs: Vec<UnitJob>) -> Result<()> {
        let project = self.project;
        let ctx = StageContext { project };
        let mut runner = std::mem::replace(&mut self.runner, Runner::Local { cores: 1 });
        let result = {
            let mut on = |e: Event| -> Result<()> {
                match e {
                    Event::Started(_) => self.progress.running += 1,
                    Event::Finished(job, outcome) => {
                        self.progress.running = self.progress.running.saturating_sub(1);
                        self.store.put_tune_unit(&self.row(
                            &job.key,
                            &job.assignment.values,
                            &outcome,
                        ))?;
                        self.note_finished(&job.key, &outcome);
                        self.known.insert(job.key.clone(), outcome);
                    }
                }
                (self.on_progress)(&self.progress);
                Ok(())
            };
            match &mut runner {
                Runner::Local { cores } => run_local(&ctx, jobs, *cores, &mut on),
                Runner::Slurm(s) => s.run(&ctx, jobs, &mut on),
            }
        };
        self.runner = runner;
        result
    }
}

impl Evaluator for Campaign<'_> {
    fn evaluate(&mut self, units: &[Genome]) -> Result<Vec<Option<f64>>> {
        Ok(self
            .evaluate_units(units)?
            .into_iter()
            .map(|o| o.and_then(|o| o.fitness()))
            .collect())
    }
}

/// What a search produced: the GA runs (one per repeat) or the units of `--all`/`--random`.
#[derive(Debug, Clone, Serialize)]
pub struct SearchResult {
    pub runs: Vec<GaRun>,
    pub units: usize,
    pub best: Option<f64>,
    pub best_key: Option<String>,
    pub progress: Progress,
}

/// Runs the project's search: `--all`, `--random N`, or the GA `repeats` times, writing the
/// thesis's outputs (002 §4.6): `genetic_generation_X/Best: FITNESS` and `Convergence[_I].cnv`.
pub fn search(c: &mut Campaign, method: &Method, repeats: usize) -> Result<SearchResult> {
    let project = c.project;
    let mut runs = Vec::new();
    let mut units = 0;
    match method {
        Method::All => {
            let mut all: Vec<Genome> = project.predefined.clone();
            all.extend(
                project
                    .space
                    .all()
                    .filter(|g| !project.predefined.contains(g)),
            );
            if all.is_empty() {
                return Err(empty_space(project));
            }
            units = all.len();
            c.evaluate_units(&all)?;
        }
        Method::Random(n) => {
            let mut rng = crate::rng::Rng::new(project.ga.seed);
            let mut chosen: Vec<Genome> = project.predefined.clone();
            let mut misses = 0;
            while chosen.len() < *n && misses < 10_000 {
                let g = project
                    .space
                    .random_valid(&mut rng, 100_000)
                    .ok_or_else(|| empty_space(project))?;
                if chosen.contains(&g) {
                    misses += 1;
                } else {
                    chosen.push(g);
                }
            }
            units = chosen.len();
            c.evaluate_units(&chosen)?;
        }
        Method::Ga => {
            if project
                .space
                .random_valid(&mut crate::rng::Rng::new(0), 100_000)
                .is_none()
            {
                return Err(empty_space(project));
            }
            for r in 0..repeats.max(1) {
                let run = ga_repeat(c, r, repeats)?;
                units += run.unique_units();
                runs.push(run);
            }
        }
    }
    Ok(SearchResult {
        runs,
        units,
        best: c.progress.best,
        best_key: c.progress.best_key.clone(),
        progress: c.progress.clone(),
    })
}

fn empty_space(p: &Project) -> TuneError {
    let message = if p.space.product() <= 1_000_000 {
        "no unit satisfies the restrictions: the space is empty"
    } else {
        "no unit satisfying the restrictions in 100000 random draws: the space is empty or too \
         sparse for random sampling (loosen the restrictions or narrow the genes)"
    };
    TuneError::input(&p.path, 0, message)
}

fn ga_repeat(c: &mut Campaign, r: usize, repeats: usize) -> Result<GaRun> {
    let project = c.project;
    let cfg = crate::ga::GaConfig {
        seed: project.ga.seed.wrapping_add(r as u64),
        ..project.ga.clone()
    };
    let out = if repeats > 1 {
        project.out.join(format!("run_{r}"))
    } else {
        project.out.clone()
    };
    let store = c.store;
    let exp = c.experiment;
    let mut on_gen = |g: &Generation, _: &GaRun| -> Result<()> {
        write_generation_best(project, &out, g)?;
        if let Some(exp) = exp {
            store.put_tune_generation(
                exp,
                &TuneGenerationRow {
                    repeat: r as u32,
                    generation: g.index as u32,
                    unique_units: g.unique_units as u32,
                    best_fitness: g.best,
                    best_key: g
                        .best_genome
                        .as_ref()
                        .map(|b| lib::unit_key(&project.space, b)),
                },
            )?;
        }
        Ok(())
    };
    let run = crate::ga::run(&cfg, &project.space, c, &project.predefined, &mut on_gen)?;
    let name = if repeats > 1 {
        format!("Convergence_{r}.cnv")
    } else {
        "Convergence.cnv".to_string()
    };
    write_convergence(&project.out.join(name), &run)?;
    Ok(run)
}

/// 002 Listing 4.7: the unique-unit count, then the best fitness of each generation.
pub fn convergence_text(run: &GaRun) -> String {
    let bests: Vec<String> = run
        .generations
        .iter()
        .map(|g| g.best.map_or("inf".to_string(), |b| b.to_string()))
        .collect();
    format!("{}\n{}\n", run.unique_units(), bests.join(";"))
}

pub fn write_convergence(path: &Path, run: &GaRun) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(TuneError::io(dir))?;
    }
    lib::write_atomic(path, &convergence_text(run))
}

/// `genetic_generation_X/Best: FITNESS` holding the best unit's parameters, one `name = value`
/// line each, as the thesis saved the knowledge file.
fn write_generation_best(project: &Project, out: &Path, g: &Generation) -> Result<()> {
    let (Some(best), Some(genome)) = (g.best, &g.best_genome) else {
        return Ok(());
    };
    let dir = out.join(format!("genetic_generation_{}", g.index));
    std::fs::create_dir_all(&dir).map_err(TuneError::io(&dir))?;
    let Ok((a, _)) = project.space.assign(genome) else {
        return Ok(());
    };
    let text: String = a
        .values
        .iter()
        .map(|(n, v)| format!("{n} = {v}\n"))
        .collect();
    lib::write_atomic(&dir.join(format!("Best: {best}")), &text)
}
