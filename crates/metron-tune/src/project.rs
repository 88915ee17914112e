//! The project file (TOML; docs/tune.md): the space, the stages, the fitness, the search and
//! the executor. metron's counterpart of 002's `project.gp` (Listings 3.12 and 4.6).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::error::{Result, TuneError};
use crate::ga::{Crossover, GaConfig, Mutation, Selection};
use crate::space::{Derived, Expr, Gene, Genome, Space};
use crate::template::Template;

/// Placeholders every stage may use besides the parameters.
pub const BUILTINS: &[&str] = &["unit_dir", "project_dir", "library"];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProject {
    name: Option<String>,
    library: Option<String>,
    out: Option<String>,
    #[serde(default)]
    range: Vec<RawRange>,
    #[serde(default)]
    list: Vec<RawList>,
    #[serde(default, rename = "const")]
    constants: Vec<RawConst>,
    #[serde(default)]
    derived: Vec<RawDerived>,
    #[serde(default)]
    restrictions: RawRestrictions,
    generate: Option<RawStage>,
    build: Option<RawStage>,
    run: RawStage,
    fitness: RawFitness,
    #[serde(default)]
    search: RawSearch,
    #[serde(default)]
    executor: RawExecutor,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRange {
    name: Spanned<String>,
    start: i64,
    count: u32,
    step: Option<i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawList {
    name: Spanned<String>,
    values: Vec<toml::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConst {
    name: Spanned<String>,
    value: toml::Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDerived {
    name: Spanned<String>,
    expr: Spanned<String>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawRestrictions {
    #[serde(default)]
    require: Vec<Spanned<String>>,
    strong_scale: Option<RawStrongScale>,
    #[serde(default)]
    predefined: Vec<Spanned<BTreeMap<String, toml::Value>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStrongScale {
    gene: Spanned<String>,
    expr: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStage {
    command: Option<Spanned<toml::Value>>,
    #[serde(default)]
    shell: bool,
    #[serde(default)]
    write: Vec<RawWrite>,
    #[serde(default)]
    env: BTreeMap<String, Spanned<String>>,
    timeout: Option<u64>,
    cores: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWrite {
    file: Spanned<String>,
    template: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFitness {
    source: Spanned<String>,
    region: Option<String>,
    strategy: Option<Spanned<String>>,
    profiles: Option<String>,
    repetitions: Option<u32>,
    pattern: Option<Spanned<String>>,
    #[serde(default)]
    maximize: bool,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawSearch {
    method: Option<Spanned<String>>,
    population: Option<usize>,
    generations: Option<usize>,
    max_unique: Option<usize>,
    mutation_chance: Option<u32>,
    elitism: Option<usize>,
    selection: Option<Spanned<String>>,
    crossover: Option<Spanned<String>>,
    mutation: Option<Spanned<String>>,
    #[serde(default)]
    novelty: bool,
    seed: Option<u64>,
    random: Option<usize>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawExecutor {
    kind: Option<Spanned<String>>,
    cores: Option<usize>,
    partition: Option<String>,
    time: Option<String>,
    batch: Option<usize>,
    #[serde(default)]
    sbatch_args: Vec<String>,
}

/// A stage's command: an argv run directly, or a script for `sh -c` (`shell = true`).
#[derive(Debug, Clone)]
pub enum Command {
    Argv(Vec<Template>),
    Shell(Template),
}

/// One of generate, build, run (002 §3.3): run in the unit's folder, skipped when its marker
/// says it is done.
#[derive(Debug, Clone)]
pub struct Stage {
    pub name: &'static str,
    pub command: Option<Command>,
    pub writes: Vec<(Template, Template)>,
    pub env: Vec<(String, Template)>,
    pub timeout: Option<std::time::Duration>,
    /// Cores the stage occupies (an expression over the parameters; default 1).
    pub cores: Option<Expr>,
}

/// Where a unit's fitness comes from.
#[derive(Debug, Clone)]
pub enum FitnessSource {
    /// A metron-probe region, aggregated across ranks and threads (002 §3.4).
    Probe {
        region: String,
        strategy: metron_probe::analysis::Strategy,
        profiles: PathBuf,
    },
    /// Wall time of the run stage, the median of `repetitions` runs.
    Wall { repetitions: u32 },
    /// The first capture group (or whole match) of a regex over the run's stdout.
    Regex { pattern: regex::Regex },
}

#[derive(Debug, Clone)]
pub struct Fitness {
    pub source: FitnessSource,
    pub maximize: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Method {
    Ga,
    All,
    Random(usize),
}

#[derive(Debug, Clone, PartialEq)]
pub enum ExecutorKind {
    Local,
    Slurm {
        partition: Option<String>,
        time: Option<String>,
        sbatch_args: Vec<String>,
    },
}

#[derive(Debug, Clone)]
pub struct Executor {
    pub kind: ExecutorKind,
    /// Local: the core budget of the pool (default: the machine's cores).
    pub cores: usize,
    /// Slurm: units per job array.
    pub batch: usize,
}

/// A checked project.
#[derive(Debug, Clone)]
pub struct Project {
    pub path: PathBuf,
    pub dir: PathBuf,
    pub name: String,
    pub library: PathBuf,
    pub out: PathBuf,
    pub space: Space,
    pub predefined: Vec<Genome>,
    pub stages: Vec<Stage>,
    pub fitness: Fitness,
    pub method: Method,
    pub ga: GaConfig,
    pub executor: Executor,
}

/// 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

struct Ctx<'a> {
    path: &'a Path,
    text: &'a str,
}

impl Ctx<'_> {
    fn err<T>(&self, span: std::ops::Range<usize>, msg: impl Into<String>) -> Result<T> {
        Err(TuneError::input(
            self.path,
            line_of(self.text, span.start),
            msg,
        ))
    }

    fn expr(&self, s: &Spanned<String>) -> Result<Expr> {
        Expr::parse(s.get_ref()).or_else(|e| {
            self.err(
                s.span(),
                format!("`{}` is not an expression: {e}", s.get_ref()),
            )
        })
    }

    fn template(&self, s: &Spanned<String>, known: &dyn Fn(&str) -> bool) -> Result<Template> {
        let t = Template::parse(s.get_ref())
            .or_else(|(_, m)| self.err(s.span(), format!("`{}`: {m}", s.get_ref())))?;
        if let Some(u) = t.unknown(s.get_ref(), known).first() {
            // Found in the source text, so escapes such as `\n` do not shift the line.
            let src = self.text.get(s.span()).unwrap_or("");
            let at = src.find(&format!("{{{}", u.name)).unwrap_or(0);
            let line = line_of(self.text, s.span().start + at);
            return Err(TuneError::input(
                self.path,
                line,
                format!(
                    "unknown placeholder {{{}}}: expected a gene, constant or derived value, or one of {}",
                    u.name,
                    BUILTINS.join(", ")
                ),
            ));
        }
        Ok(t)
    }

    fn choice<T: Copy>(&self, s: &Spanned<String>, options: &[(&str, T)]) -> Result<T> {
        options
            .iter()
            .find(|(n, _)| *n == s.get_ref())
            .map(|(_, v)| *v)
            .map_or_else(
                || {
                    let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
                    self.err(
                        s.span(),
                        format!("`{}`: expected one of {}", s.get_ref(), names.join(", ")),
                    )
                },
                Ok,
            )
    }
}

/// A TOML value written the way the thesis writes values into knowledge files.
pub fn verbatim(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl Project {
    pub fn load(path: &Path) -> Result<Project> {
        let text = std::fs::read_to_string(path).map_err(TuneError::io(path))?;
        let mut p = Project::parse(path, &text)?;
        // Slurm tasks start elsewhere: they get the project by its absolute path.
        if let Ok(abs) = std::fs::canonicalize(path) {
            p.path = abs;
        }
        Ok(p)
    }

    pub fn parse(path: &Path, text: &str) -> Result<Project> {
        let raw: RawProject = toml::from_str(text).map_err(|e| {
            let line = e.span().map_or(0, |s| line_of(text, s.start));
            TuneError::input(path, line, e.message().to_string())
        })?;
        let cx = Ctx { path, text };
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
        let (space, predefined) = build_space(&cx, &raw)?;
        let known = |n: &str| {
            BUILTINS.contains(&n)
                || space.genes.iter().any(|g| g.name == n)
                || space.constants.iter().any(|c| c.0 == n)
                || space.derived.iter().any(|d| d.name == n)
        };
        let mut stages = Vec::new();
        for (name, stage) in [
            ("generate", raw.generate.as_ref()),
            ("build", raw.build.as_ref()),
            ("run", Some(&raw.run)),
        ] {
            if let Some(s) = stage {
                stages.push(build_stage(&cx, name, s, &known)?);
            }
        }
        let fitness = build_fitness(&cx, &raw.fitness)?;
        let (method, ga) = build_search(&cx, &raw.search, fitness.maximize)?;
        let executor = build_executor(&cx, &raw.executor)?;
        Ok(Project {
            path: path.to_path_buf(),
            name: raw.name.clone().unwrap_or_else(|| {
                path.file_stem()
                    .map_or("project".into(), |s| s.to_string_lossy().into_owned())
            }),
            library: dir.join(raw.library.as_deref().unwrap_or("library")),
            out: dir.join(raw.out.as_deref().unwrap_or("out")),
            dir,
            space,
            predefined,
            stages,
            fitness,
            method,
            ga,
            executor,
        })
    }
}

fn build_space(cx: &Ctx, raw: &RawProject) -> Result<(Space, Vec<Genome>)> {
    let mut space = Space::default();
    let mut names: Vec<(String, usize)> = Vec::new();
    let mut define = |name: &Spanned<String>| -> Result<()> {
        let line = line_of(cx.text, name.span().start);
        if let Some((_, first)) = names.iter().find(|(n, _)| n == name.get_ref()) {
            return cx.err(
                name.span(),
                format!(
                    "parameter `{}` is defined twice (first on line {first})",
                    name.get_ref()
                ),
            );
        }
        if BUILTINS.contains(&name.get_ref().as_str()) {
            return cx.err(
                name.span(),
                format!("`{}` is a reserved placeholder", name.get_ref()),
            );
        }
        names.push((name.get_ref().clone(), line));
        Ok(())
    };
    for r in &raw.range {
        define(&r.name)?;
        if r.count == 0 {
            return cx.err(
                r.name.span(),
                format!("range gene `{}` has count 0", r.name.get_ref()),
            );
        }
        space.genes.push(Gene::range(
            r.name.get_ref(),
            r.start,
            r.count,
            r.step.unwrap_or(1),
        ));
    }
    for l in &raw.list {
        define(&l.name)?;
        if l.values.is_empty() {
            return cx.err(
                l.name.span(),
                format!("list gene `{}` has no values", l.name.get_ref()),
            );
        }
        space.genes.push(Gene::list(
            l.name.get_ref(),
            l.values.iter().map(verbatim).collect(),
        ));
    }
    for c in &raw.constants {
        define(&c.name)?;
        space
            .constants
            .push((c.name.get_ref().clone(), verbatim(&c.value)));
    }
    let strong = raw.restrictions.strong_scale.as_ref();
    if let Some(s) = strong {
        let Some(i) = space.genes.iter().position(|g| &g.name == s.gene.get_ref()) else {
            return cx.err(
                s.gene.span(),
                format!("strong_scale: `{}` is not a gene", s.gene.get_ref()),
            );
        };
        // The gene is ignored and computed instead (002 §3.3 `strong_scale`).
        let gene = space.genes.remove(i);
        space.derived.push(Derived {
            name: gene.name.clone(),
            expr: cx.expr(&s.expr)?,
            replaces: Some(gene),
        });
    }
    for d in &raw.derived {
        define(&d.name)?;
        space.derived.push(Derived {
            name: d.name.get_ref().clone(),
            expr: cx.expr(&d.expr)?,
            replaces: None,
        });
    }
    check_variables(cx, raw, &space)?;
    for r in &raw.restrictions.require {
        space.restrictions.push(cx.expr(r)?);
    }
    let predefined = raw
        .restrictions
        .predefined
        .iter()
        .map(|p| {
            let values: Vec<(String, String)> = p
                .get_ref()
                .iter()
                .map(|(k, v)| (k.clone(), verbatim(v)))
                .collect();
            space
                .genome_of(&values)
                .or_else(|m| cx.err(p.span(), format!("predefined unit: {m}")))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((space, predefined))
}

/// Every name an expression reads must be defined before it (genes, constants, earlier
/// derived values): an unknown name would otherwise make every unit invalid in silence.
fn check_variables(cx: &Ctx, raw: &RawProject, space: &Space) -> Result<()> {
    let mut known: Vec<&str> = space.genes.iter().map(|g| g.name.as_str()).collect();
    known.extend(space.constants.iter().map(|c| c.0.as_str()));
    let derived_src = raw
        .restrictions
        .strong_scale
        .iter()
        .map(|s| &s.expr)
        .chain(raw.derived.iter().map(|d| &d.expr));
    for (src, d) in derived_src.zip(&space.derived) {
        if let Some(v) = d
            .expr
            .variables()
            .iter()
            .find(|v| !known.contains(&v.as_str()))
        {
            return cx.err(
                src.span(),
                format!(
                    "`{}` uses `{v}`, which is not defined before it",
                    d.expr.text
                ),
            );
        }
        known.push(d.name.as_str());
    }
    for r in &raw.restrictions.require {
        let e = cx.expr(r)?;
        if let Some(v) = e.variables().iter().find(|v| !known.contains(&v.as_str())) {
            return cx.err(
                r.span(),
                format!("restriction `{}` uses `{v}`, which is not defined", e.text),
            );
        }
    }
    Ok(())
}

fn build_stage(
    cx: &Ctx,
    name: &'static str,
    s: &RawStage,
    known: &dyn Fn(&str) -> bool,
) -> Result<Stage> {
    let command = match &s.command {
        None => None,
        Some(c) => Some(build_command(cx, name, c, s.shell, known)?),
    };
    let writes = s
        .write
        .iter()
        .map(|w| {
            Ok((
                cx.template(&w.file, known)?,
                cx.template(&w.template, known)?,
            ))
        })
        .collect::<Result<_>>()?;
    let env = s
        .env
        .iter()
        .map(|(k, v)| Ok((k.clone(), cx.template(v, known)?)))
        .collect::<Result<_>>()?;
    let cores = s.cores.as_ref().map(|c| cx.expr(c)).transpose()?;
    Ok(Stage {
        name,
        command,
        writes,
        env,
        timeout: s.timeout.map(std::time::Duration::from_secs),
        cores,
    })
}

/// A command is a list of arguments, or one string when `shell = true`. Elements of an
/// array carry no span of their own, so each is located inside the array's text.
fn build_command(
    cx: &Ctx,
    name: &str,
    c: &Spanned<toml::Value>,
    shell: bool,
    known: &dyn Fn(&str) -> bool,
) -> Result<Command> {
    match (c.get_ref(), shell) {
        (toml::Value::String(script), true) => {
            let spanned = Spanned::new(c.span(), script.clone());
            Ok(Command::Shell(cx.template(&spanned, known)?))
        }
        (toml::Value::String(_), false) => cx.err(
            c.span(),
            format!("[{name}] command is a string: write it as a list of arguments, or set shell = true"),
        ),
        (toml::Value::Array(args), false) => {
            let src = &cx.text[c.span()];
            let mut from = 0;
            let mut argv = Vec::new();
            for a in args {
                let toml::Value::String(a) = a else {
                    return cx.err(c.span(), format!("[{name}] command: every argument must be a string"));
                };
                let at = src[from..].find(a.as_str()).map_or(from, |i| from + i);
                from = at;
                let start = c.span().start + at;
                argv.push(cx.template(&Spanned::new(start..start + a.len(), a.clone()), known)?);
            }
            Ok(Command::Argv(argv))
        }
        (_, true) => cx.err(c.span(), format!("[{name}] shell = true needs the command as one string")),
        _ => cx.err(c.span(), format!("[{name}] command: expected a list of arguments")),
    }
}

fn build_fitness(cx: &Ctx, f: &RawFitness) -> Result<Fitness> {
    let source = match f.source.get_ref().as_str() {
        "probe" => {
            let Some(region) = f.region.clone() else {
                return cx.err(
                    f.source.span(),
                    "source = \"probe\" needs region = \"NAME\"",
                );
            };
            let strategy = match &f.strategy {
                Some(s) => s
                    .get_ref()
                    .parse()
                    .or_else(|m: String| cx.err(s.span(), m))?,
                None => metron_probe::analysis::Strategy::Max,
            };
            FitnessSource::Probe {
                region,
                strategy,
                profiles: PathBuf::from(
                    f.profiles
                        .as_deref()
                        .unwrap_or(crate::unit_library::PROFILE_DIR),
                ),
            }
        }
        "wall" => FitnessSource::Wall {
            repetitions: f.repetitions.unwrap_or(1).max(1),
        },
        "regex" => {
            let Some(p) = &f.pattern else {
                return cx.err(
                    f.source.span(),
                    "source = \"regex\" needs pattern = \"...\"",
                );
            };
            let pattern = regex::Regex::new(p.get_ref())
                .or_else(|e| cx.err(p.span(), format!("pattern: {e}")))?;
            FitnessSource::Regex { pattern }
        }
        other => {
            return cx.err(
                f.source.span(),
                format!("fitness source `{other}`: expected probe, wall or regex"),
            )
        }
    };
    Ok(Fitness {
        source,
        maximize: f.maximize,
    })
}

fn build_search(cx: &Ctx, s: &RawSearch, maximize: bool) -> Result<(Method, GaConfig)> {
    let method = match &s.method {
        None => Method::Ga,
        Some(m) => match m.get_ref().as_str() {
            "ga" => Method::Ga,
            "all" => Method::All,
            "random" => Method::Random(s.random.unwrap_or(50)),
            other => {
                return cx.err(
                    m.span(),
                    format!("method `{other}`: expected ga, all or random"),
                )
            }
        },
    };
    let d = GaConfig::default();
    let selection = match &s.selection {
        Some(x) => cx.choice(
            x,
            &[
                ("roulette", Selection::Roulette),
                ("random", Selection::Random),
                ("rank", Selection::Rank),
            ],
        )?,
        None => d.selection,
    };
    let crossover = match &s.crossover {
        Some(x) => cx.choice(
            x,
            &[
                ("uniform", Crossover::Uniform),
                ("one-point", Crossover::OnePoint),
            ],
        )?,
        None => d.crossover,
    };
    let mutation = match &s.mutation {
        Some(x) => cx.choice(
            x,
            &[("uniform", Mutation::Uniform), ("creep", Mutation::Creep)],
        )?,
        None => d.mutation,
    };
    let ga = GaConfig {
        mutation,
        novelty: s.novelty,
        population: s.population.unwrap_or(d.population).max(1),
        // With only a unit budget the thesis ran until it was spent (66 generations, Fig. 4.7).
        generations: s.generations.unwrap_or(if s.max_unique.is_some() {
            1000
        } else {
            d.generations
        }),
        max_unique: s.max_unique,
        mutation_chance: s.mutation_chance.unwrap_or(d.mutation_chance),
        elitism: s.elitism.unwrap_or(d.elitism),
        selection,
        crossover,
        maximize,
        seed: s.seed.unwrap_or(d.seed),
    };
    Ok((method, ga))
}

fn build_executor(cx: &Ctx, e: &RawExecutor) -> Result<Executor> {
    let kind = match &e.kind {
        None => ExecutorKind::Local,
        Some(k) if k.get_ref() == "local" => ExecutorKind::Local,
        Some(k) if k.get_ref() == "slurm" => ExecutorKind::Slurm {
            partition: e.partition.clone(),
            time: e.time.clone(),
            sbatch_args: e.sbatch_args.clone(),
        },
        Some(k) => {
            return cx.err(
                k.span(),
                format!("executor `{}`: expected local or slurm", k.get_ref()),
            )
        }
    };
    Ok(Executor {
        kind,
        cores: e
            .cores
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        batch: e.batch.unwrap_or(64).max(1),
    })
}

#[cfg(test)]
mod tests;
