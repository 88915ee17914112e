//! `metron tune`: campaigns over a configuration space (002 Ch. 3-4): run, replay, show,
//! import-gp. Capabilities live in metron-tune; this module parses and prints.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use metron_tune::campaign::{self, Campaign, Runner};
use metron_tune::ga::{Crossover, Mutation, Selection};
use metron_tune::project::{ExecutorKind, Method, Project};
use metron_tune::replay::{self, ReplayConfig, ReplayMethod, Table};
use metron_tune::TuneError;

use crate::error::{CliError, CliResult};
use crate::GlobalOpts;

#[derive(Args, Debug)]
pub struct TuneArgs {
    #[command(subcommand)]
    pub command: TuneCommand,
}

#[derive(Subcommand, Debug)]
pub enum TuneCommand {
    /// Run a campaign: the GA (default), every unit (--all) or N random units (--random N).
    Run(RunArgs),
    /// Run the GA (or random search) many times against a table of measured units.
    Replay(ReplayArgs),
    /// The processing tool (002 §3.4): measured units filtered, placed on x (and y), reduced.
    Show(ShowArgs),
    /// Convert a thesis project file (`project.gp`, Python literals) to TOML, without Python.
    ImportGp(ImportArgs),
    /// Run one prepared unit (what a Slurm array task calls).
    #[command(hide = true)]
    ExecUnit { project: PathBuf, key: String },
}

#[derive(Args, Debug)]
pub struct GaOpts {
    /// Units per generation.
    #[arg(long)]
    pub population: Option<usize>,
    /// Generation limit (including the initial one).
    #[arg(long)]
    pub generations: Option<usize>,
    /// Hard cap on distinct units evaluated per GA run (002 §4.5 max_unique_units).
    #[arg(long)]
    pub max_unique: Option<usize>,
    /// One chance in N that a unit mutates (then 50% per gene).
    #[arg(long)]
    pub mutation_chance: Option<u32>,
    /// Best units carried over unchanged (0 = no elitism).
    #[arg(long)]
    pub elitism: Option<usize>,
    /// roulette (on inverse fitness), random (random parents, 002 §4.4) or rank (linear
    /// ranking; not in the thesis).
    #[arg(long, value_parser = ["roulette", "random", "rank"])]
    pub selection: Option<String>,
    /// uniform (a random value, 002 Listing 4.4) or creep (range genes step to a neighbour).
    #[arg(long, value_parser = ["uniform", "creep"])]
    pub mutation: Option<String>,
    /// Mutate children that repeat an evaluated unit until they are new.
    #[arg(long)]
    pub novelty: bool,
    /// uniform or one-point.
    #[arg(long, value_parser = ["uniform", "one-point"])]
    pub crossover: Option<String>,
    #[arg(long)]
    pub seed: Option<u64>,
}

impl GaOpts {
    fn apply(&self, ga: &mut metron_tune::ga::GaConfig) {
        if let Some(v) = self.population {
            ga.population = v.max(1);
        }
        if let Some(v) = self.generations {
            ga.generations = v;
        } else if self.max_unique.is_some() {
            ga.generations = ga.generations.max(1000);
        }
        if self.max_unique.is_some() {
            ga.max_unique = self.max_unique;
        }
        if let Some(v) = self.mutation_chance {
            ga.mutation_chance = v;
        }
        if let Some(v) = self.elitism {
            ga.elitism = v;
        }
        match self.selection.as_deref() {
            Some("random") => ga.selection = Selection::Random,
            Some("roulette") => ga.selection = Selection::Roulette,
            Some("rank") => ga.selection = Selection::Rank,
            _ => {}
        }
        match self.mutation.as_deref() {
            Some("creep") => ga.mutation = Mutation::Creep,
            Some("uniform") => ga.mutation = Mutation::Uniform,
            _ => {}
        }
        ga.novelty |= self.novelty;
        match self.crossover.as_deref() {
            Some("one-point") => ga.crossover = Crossover::OnePoint,
            Some("uniform") => ga.crossover = Crossover::Uniform,
            _ => {}
        }
        if let Some(v) = self.seed {
            ga.seed = v;
        }
    }
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// The project file (TOML, docs/tune.md).
    pub project: PathBuf,
    /// Every unit of the space under the restrictions.
    #[arg(long, conflicts_with = "random")]
    pub all: bool,
    /// N distinct random units.
    #[arg(long, value_name = "N")]
    pub random: Option<usize>,
    /// Run the GA X times, each with its own convergence file (002's -r X).
    #[arg(long, short = 'r', default_value_t = 1)]
    pub repeat: usize,
    /// Run failed units again instead of reusing their failure.
    #[arg(long)]
    pub retry_failed: bool,
    /// Core budget of the local pool.
    #[arg(long)]
    pub cores: Option<usize>,
    /// local or slurm (overrides the project's [executor]).
    #[arg(long, value_parser = ["local", "slurm"])]
    pub executor: Option<String>,
    #[command(flatten)]
    pub ga: GaOpts,
}

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// CSV: one column per gene and a fitness column (e.g. from `metron tune show --csv`).
    pub table: PathBuf,
    #[arg(long, default_value_t = 1000)]
    pub runs: usize,
    /// ga or random (distinct random units, --budget of them).
    #[arg(long, default_value = "ga", value_parser = ["ga", "random"])]
    pub method: String,
    /// Random search: units per run.
    #[arg(long, default_value_t = 20)]
    pub budget: usize,
    #[arg(long, default_value = "fitness")]
    pub fitness_column: String,
    /// Columns that are not genes.
    #[arg(long, value_delimiter = ',')]
    pub ignore: Vec<String>,
    #[arg(long)]
    pub maximize: bool,
    /// "Found" = within this fraction of the table's optimum.
    #[arg(long, default_value_t = 0.01)]
    pub within: f64,
    /// Write Convergence_I.cnv files here.
    #[arg(long)]
    pub cnv: Option<PathBuf>,
    #[command(flatten)]
    pub ga: GaOpts,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    pub project: PathBuf,
    /// `gene>3`, `gene<3`, `gene=value` (002 §3.4) or any boolean expression over parameters.
    #[arg(long = "filter", short = 'f')]
    pub filters: Vec<String>,
    /// Expression for the x axis, e.g. `pre + post`.
    #[arg(long)]
    pub x: Option<String>,
    /// Expression for the y axis (3D scatter).
    #[arg(long)]
    pub y: Option<String>,
    /// A probe region to show instead of the fitness.
    #[arg(long)]
    pub region: Option<String>,
    /// min, max, avg or sum across ranks and threads.
    #[arg(long, default_value = "max")]
    pub strategy: String,
    /// CSV (genes, x, y, fitness; failed units as `failed`): readable by `metron tune replay`.
    #[arg(long)]
    pub csv: bool,
}

#[derive(Args, Debug)]
pub struct ImportArgs {
    pub file: PathBuf,
    /// Write the TOML here instead of stdout.
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
}

pub fn tune_error(e: TuneError) -> CliError {
    if e.is_input() {
        CliError::input(e)
    } else {
        CliError::failure(e)
    }
}

pub fn run(args: TuneArgs, global: &GlobalOpts) -> CliResult {
    match args.command {
        TuneCommand::Run(a) => run_campaign(a, global),
        TuneCommand::Replay(a) => run_replay(a, global),
        TuneCommand::Show(a) => super::tune_show::show(a, global),
        TuneCommand::ImportGp(a) => super::tune_show::import_gp(a),
        TuneCommand::ExecUnit { project, key } => {
            let p = Project::load(&project).map_err(tune_error)?;
            let o = metron_tune::slurm::exec_unit(&p, &key).map_err(tune_error)?;
            println!("{}", serde_json::to_string(&o).map_err(CliError::failure)?);
            Ok(())
        }
    }
}

fn runner(p: &Project, a: &RunArgs) -> CliResult<Runner> {
    let slurm = match a.executor.as_deref() {
        Some("slurm") => true,
        Some(_) => false,
        None => matches!(p.executor.kind, ExecutorKind::Slurm { .. }),
    };
    if !slurm {
        return Ok(Runner::Local {
            cores: a.cores.unwrap_or(p.executor.cores),
        });
    }
    let (partition, time, sbatch_args) = match &p.executor.kind {
        ExecutorKind::Slurm {
            partition,
            time,
            sbatch_args,
        } => (partition.clone(), time.clone(), sbatch_args.clone()),
        ExecutorKind::Local => (None, None, Vec::new()),
    };
    let exe = std::env::current_exe().map_err(CliError::failure)?;
    let mut worker = vec![exe.display().to_string()];
    worker.extend([
        "tune".into(),
        "exec-unit".into(),
        p.path.display().to_string(),
    ]);
    Ok(Runner::Slurm(metron_tune::slurm::SlurmExecutor {
        worker,
        partition,
        time,
        sbatch_args,
        batch: p.executor.batch,
        poll: std::time::Duration::from_millis(500),
        jobs: Vec::new(),
    }))
}

fn run_campaign(a: RunArgs, global: &GlobalOpts) -> CliResult {
    let mut project = Project::load(&a.project).map_err(tune_error)?;
    a.ga.apply(&mut project.ga);
    let method = if a.all {
        Method::All
    } else if let Some(n) = a.random {
        Method::Random(n)
    } else {
        project.method.clone()
    };
    let store = super::open_store(&global.store_path())?;
    let config = serde_json::json!({ "project": project.path, "library": project.library, "ga": project.ga });
    let argv: Vec<String> = std::env::args().collect();
    let exp = store
        .begin_experiment(&metron_store::NewExperiment {
            kind: "tune",
            name: Some(&project.name),
            metron_version: env!("CARGO_PKG_VERSION"),
            argv: &serde_json::json!(argv),
            environment: &serde_json::json!({}),
            config: &config,
            host: None,
        })
        .map_err(CliError::input)?;
    let runner = runner(&project, &a)?;
    let (mut c, check) =
        Campaign::open(&project, &store, Some(exp), runner, a.retry_failed).map_err(tune_error)?;
    if !global.quiet && !global.json {
        eprintln!(
            "library {}: {} units on disk, {} finished{}",
            project.library.display(),
            check.units_on_disk,
            check.finished_on_disk,
            if check.recovered_into_store + check.stale_store_rows > 0 {
                format!(
                    " ({} results recovered into the store, {} stale rows removed)",
                    check.recovered_into_store, check.stale_store_rows
                )
            } else {
                String::new()
            }
        );
    }
    let bar = crate::progress::bar(0, global.quiet || global.json);
    let shown = bar.clone();
    c.on_progress(move |p| {
        let bar = &shown;
        bar.set_length((p.done + p.running) as u64);
        bar.set_position(p.done as u64);
        let best = p.best.map_or("-".into(), |b| format!("{b:.6}"));
        bar.set_message(format!(
            "running {} failed {} reused {} best {best}",
            p.running, p.failed, p.reused
        ));
    });
    let result = campaign::search(&mut c, &method, a.repeat);
    bar.finish_and_clear();
    let status = if result.is_ok() {
        metron_store::Status::Complete
    } else {
        metron_store::Status::Failed
    };
    let _ = store.finish_experiment(exp, status);
    let result = result.map_err(tune_error)?;
    if global.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&result).map_err(CliError::failure)?
        );
        return Ok(());
    }
    println!("experiment {}: {} units", exp.0, result.units);
    for (i, r) in result.runs.iter().enumerate() {
        print!(
            "{}",
            if result.runs.len() > 1 {
                format!("run {i}: ")
            } else {
                String::new()
            }
        );
        print!("{}", campaign::convergence_text(r).replace('\n', "  "));
        println!();
    }
    let p = &result.progress;
    println!(
        "done {}  failed {}  reused from library {}",
        p.done, p.failed, p.reused
    );
    match (&result.best, &result.best_key) {
        (Some(b), Some(k)) => println!("best {b} at {}", project.library.join(k).display()),
        _ => return Err(CliError::failure("every unit failed")),
    }
    Ok(())
}

fn run_replay(a: ReplayArgs, global: &GlobalOpts) -> CliResult {
    let table =
        Table::load(&a.table, &a.fitness_column, &a.ignore, a.maximize).map_err(tune_error)?;
    let mut ga = metron_tune::ga::GaConfig {
        maximize: a.maximize,
        ..Default::default()
    };
    a.ga.apply(&mut ga);
    let cfg = ReplayConfig {
        method: if a.method == "random" {
            ReplayMethod::Random
        } else {
            ReplayMethod::Ga
        },
        ga,
        runs: a.runs.max(1),
        budget: a.budget,
        within: a.within,
    };
    let s = replay::replay(&table, &cfg).map_err(tune_error)?;
    if let Some(dir) = &a.cnv {
        for (i, r) in s.runs.iter().enumerate() {
            campaign::write_convergence(&dir.join(format!("Convergence_{i}.cnv")), r)
                .map_err(tune_error)?;
        }
    }
    if global.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&s).map_err(CliError::failure)?
        );
        return Ok(());
    }
    let f = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{v:.6}"));
    println!(
        "table: {} units, optimum {}, target (within {}%) {}",
        s.table_units,
        f(s.optimum),
        a.within * 100.0,
        f(s.target)
    );
    println!(
        "runs: {}  mean unique units per run: {:.1}",
        cfg.runs, s.mean_unique_units
    );
    println!(
        "final best: median {:.6}  IQR [{:.6}, {:.6}]  mean {:.6}",
        s.final_best.median, s.final_best.q1, s.final_best.q3, s.final_best.mean
    );
    println!(
        "found within target: {:.1}% of runs; median unique evaluations to it: {}",
        s.hit_rate * 100.0,
        s.median_evaluations_to_target
            .map_or("never (fewer than half the runs)".into(), |m| format!(
                "{m}"
            ))
    );
    if !s.mean_best_per_generation.is_empty() {
        let curve: Vec<String> = s
            .mean_best_per_generation
            .iter()
            .map(|v| format!("{v:.4}"))
            .collect();
        println!("mean best per generation: {}", curve.join(" "));
    }
    Ok(())
}
