//! Experiments on MATLAB code (000 App. C, Menchi): CodeExtractor splits a benchmark function
//! whose regions are marked `%! pragma init|loop|vec|...` (or `%! init`, `%! loop`, ...) into
//! one runnable function per version; `run` times them in Octave in the modes that make sense
//! there and writes the long CSV of Listing C.2.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use metron_measure::counters::CounterSet;
use metron_measure::runner::{run_once_with_env, OutputPolicy};
use serde::{Deserialize, Serialize};

use crate::ast::{walk_stmts, ExprKind, StmtKind};
use crate::octave::{CheckError, OCTAVE};

/// One version of a benchmark (a row of 000 Table C.1).
#[derive(Debug, Clone, Serialize)]
pub struct Version {
    pub benchmark: String,
    pub version: String,
    pub parameter: String,
    pub num_vectors: usize,
    pub num_matrices: usize,
    pub init: String,
    pub code: String,
    pub init_vars: Vec<String>,
    pub code_vars: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("{file}:{line}: {message}")]
    Input {
        file: String,
        line: usize,
        message: String,
    },
    #[error(transparent)]
    Syntax(#[from] crate::SyntaxError),
    #[error(transparent)]
    Check(#[from] CheckError),
    #[error(transparent)]
    Measure(#[from] metron_measure::MeasureError),
    #[error(transparent)]
    Store(#[from] metron_store::StoreError),
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

fn pragma(line: &str) -> Option<String> {
    let rest = line.trim().strip_prefix("%!")?.trim();
    let rest = rest.strip_prefix("pragma").map(str::trim).unwrap_or(rest);
    let name = rest.split_whitespace().next()?;
    name.chars()
        .all(|c| c.is_alphanumeric() || c == '_')
        .then(|| name.to_string())
}

/// CodeExtractor (000 App. C.1).
pub fn extract(source: &str, file: &Path) -> Result<Vec<Version>, BenchError> {
    let program = crate::parse(source, file)?;
    let input = |line: usize, message: String| BenchError::Input {
        file: file.display().to_string(),
        line,
        message,
    };
    let f = program.functions.first().ok_or_else(|| {
        input(
            1,
            "expected a benchmark function with `%! pragma` regions".into(),
        )
    })?;
    let parameter = f.params.first().cloned().ok_or_else(|| {
        input(
            f.span.line,
            "the benchmark function must take the size parameter".into(),
        )
    })?;
    let text = program.text(f.span);
    let mut lines: Vec<&str> = text.lines().skip(1).collect();
    if lines.last().is_some_and(|l| l.trim() == "end") {
        lines.pop();
    }
    let mut regions: Vec<(String, usize, Vec<&str>)> = Vec::new();
    for (k, line) in lines.iter().enumerate() {
        match pragma(line) {
            Some(name) => regions.push((name, f.span.line + 1 + k, Vec::new())),
            None => {
                if let Some(r) = regions.last_mut() {
                    r.2.push(line);
                }
            }
        }
    }
    let init = regions
        .iter()
        .find(|r| r.0 == "init")
        .ok_or_else(|| input(f.span.line, "no `%! pragma init` region".into()))?;
    let init_text = init.2.join("\n");
    let init_prog = crate::parse(&format!("{init_text}\n"), file)?;
    let init_vars: Vec<String> = crate::resolve::assigned_names(&init_prog.statements)
        .into_iter()
        .collect();
    let (mut num_vectors, mut num_matrices) = (0, 0);
    walk_stmts(&init_prog.statements, &mut |s| {
        if let StmtKind::Assign { rhs, .. } = &s.kind {
            if let ExprKind::Apply { name, args } = &rhs.unparen().kind {
                if matches!(name.as_str(), "rand" | "randn" | "zeros" | "ones") {
                    let is_one = |k: usize| matches!(args.get(k).map(|a| &a.unparen().kind), Some(ExprKind::Number(x)) if *x == 1.0);
                    match args.len() {
                        2 if is_one(0) || is_one(1) => num_vectors += 1,
                        1 | 2 => num_matrices += 1,
                        _ => {}
                    }
                }
            }
        }
    });
    let mut out = Vec::new();
    for (name, line, body) in regions.iter().filter(|r| r.0 != "init") {
        let code = body.join("\n");
        let prog = crate::parse(&format!("{code}\n"), file)
            .map_err(|e| input(*line + e.line, e.to_string()))?;
        let mut code_vars: BTreeSet<String> = crate::resolve::assigned_names(&prog.statements);
        // Loop counters are not results.
        walk_stmts(&prog.statements, &mut |s| {
            if let StmtKind::For { var, .. } = &s.kind {
                code_vars.remove(var);
            }
        });
        out.push(Version {
            benchmark: f.name.clone(),
            version: name.clone(),
            parameter: parameter.clone(),
            num_vectors,
            num_matrices,
            init: init_text.clone(),
            code,
            init_vars: init_vars.clone(),
            code_vars: code_vars.into_iter().collect(),
        });
    }
    Ok(out)
}

impl Version {
    pub fn function_name(&self) -> String {
        format!("{}__{}", self.benchmark, self.version)
    }

    /// A runnable function file: inputs from `init` (generated per call with a fixed seed,
    /// outside the timed region), then the version's code timed alone with tic/toc; returns
    /// that time first, then the version's variables.
    pub fn function_file(&self) -> String {
        let mut outputs = vec!["metron__t".to_string()];
        outputs.extend(self.code_vars.iter().cloned());
        let outputs = outputs.join(", ");
        format!(
            "function [{outputs}] = {name}({p})\nrand('state', 42); randn('state', 42);\n{init}\nmetron__t0 = tic;\n{code}\nmetron__t = toc(metron__t0);\nend\n",
            name = self.function_name(),
            p = self.parameter,
            init = self.init,
            code = self.code
        )
    }
}

/// The experiment specification (JSON or TOML).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Spec {
    pub files: Vec<PathBuf>,
    #[serde(default)]
    pub versions: Vec<String>,
    /// Numbers or cache-relative sizes: `L1`, `L2`, `2*L2`, `4*L2`.
    pub sizes: Vec<SizeSpec>,
    #[serde(default = "default_repetitions")]
    pub repetitions: usize,
    #[serde(default = "default_modes")]
    pub modes: Vec<String>,
    #[serde(default = "default_threads")]
    pub threads: Vec<usize>,
    #[serde(default = "default_tolerance")]
    pub tolerance: f64,
}

impl Spec {
    pub fn from_toml(text: &str) -> Result<Spec, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }
}

fn default_repetitions() -> usize {
    10
}
fn default_modes() -> Vec<String> {
    vec!["validate".into(), "measure".into()]
}
fn default_threads() -> Vec<usize> {
    vec![1]
}
fn default_tolerance() -> f64 {
    1e-9
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SizeSpec {
    Elements(u64),
    Relative(String),
}

/// Bytes of the data cache at `level` from sysfs (index*/level, type, size).
pub fn cache_bytes(level: u32) -> Option<u64> {
    let dir = Path::new("/sys/devices/system/cpu/cpu0/cache");
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let p = entry.path();
        let read = |f: &str| {
            std::fs::read_to_string(p.join(f))
                .ok()
                .map(|s| s.trim().to_string())
        };
        let (Some(lv), Some(kind), Some(size)) = (read("level"), read("type"), read("size")) else {
            continue; // not a cache index directory (e.g. `uevent`)
        };
        if lv.parse::<u32>().ok() != Some(level) || kind == "Instruction" {
            continue;
        }
        let (num, mult) = match size.strip_suffix('K') {
            Some(n) => (n, 1024),
            None => match size.strip_suffix('M') {
                Some(n) => (n, 1024 * 1024),
                None => (size.as_str(), 1),
            },
        };
        return num.parse::<u64>().ok().map(|n| n * mult);
    }
    None
}

/// Elements per vector so that the benchmark's vectors (doubles) fill `spec` of the cache.
pub fn resolve_size(spec: &SizeSpec, num_vectors: usize) -> Result<u64, String> {
    match spec {
        SizeSpec::Elements(n) => Ok(*n),
        SizeSpec::Relative(s) => {
            let t = s.replace(' ', "");
            let (factor, level) = match t.split_once('*') {
                Some((f, l)) => (
                    f.parse::<u64>().map_err(|_| format!("bad size `{s}`"))?,
                    l.to_string(),
                ),
                None => (1, t.clone()),
            };
            let level: u32 = level
                .strip_prefix('L')
                .and_then(|l| l.parse().ok())
                .ok_or_else(|| format!("bad size `{s}`: expected L1, L2, 2*L2, ..."))?;
            let bytes = cache_bytes(level)
                .ok_or_else(|| format!("no L{level} data cache size in sysfs"))?;
            Ok((factor * bytes / (8 * num_vectors.max(1) as u64)).max(1))
        }
    }
}

/// One row of the long CSV of 000 Listing C.2.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub runtime: String,
    pub threads: usize,
    pub process: usize,
    pub benchmark: String,
    pub version: String,
    pub metric: String,
    pub n: u64,
    pub in_process: usize,
    pub value: f64,
}

pub const CSV_HEADER: &str = "runtime,threads,process,benchmark,version,metric,N,in_process,value";

impl Row {
    pub fn csv(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{},{}",
            self.runtime,
            self.threads,
            self.process,
            self.benchmark,
            self.version,
            self.metric,
            self.n,
            self.in_process,
            self.value
        )
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Validation {
    pub benchmark: String,
    pub version: String,
    pub reference: String,
    pub n: u64,
    pub equal: bool,
    pub max_rel_error: f64,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct BenchResult {
    pub rows: Vec<Row>,
    pub validations: Vec<Validation>,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> BenchError + '_ {
    move |source| BenchError::Io {
        path: path.display().to_string(),
        source,
    }
}

fn runtime_name() -> String {
    OCTAVE
        .run(["--version"], None)
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| {
            s.lines()
                .next()
                .map(|l| l.replace("GNU Octave, version ", "octave-"))
        })
        .unwrap_or_else(|| "octave".into())
}

/// Told about a bench run as it goes, so that results can be kept (the store) the moment one
/// Octave process has finished, and a crash loses at most the process in flight.
pub trait BenchObserver {
    fn step(&mut self, _what: &str) {}
    /// All rows one timing process produced (one benchmark, version, N, thread count, metric).
    fn process(&mut self, _rows: &[Row]) -> Result<(), BenchError> {
        Ok(())
    }
    fn validated(&mut self, _validations: &[Validation]) -> Result<(), BenchError> {
        Ok(())
    }
}

struct Progress<F>(F);

impl<F: FnMut(&str)> BenchObserver for Progress<F> {
    fn step(&mut self, what: &str) {
        (self.0)(what)
    }
}

/// Runs the spec; `progress` is told each step.
pub fn run(
    spec: &Spec,
    base: &Path,
    progress: impl FnMut(&str),
) -> Result<BenchResult, BenchError> {
    run_observed(spec, base, &mut Progress(progress))
}

/// Runs the spec, telling `observer` each step and each finished process.
pub fn run_observed(
    spec: &Spec,
    base: &Path,
    observer: &mut dyn BenchObserver,
) -> Result<BenchResult, BenchError> {
    OCTAVE.locate().map_err(CheckError::from)?;
    let dir = tempfile::tempdir().map_err(io(Path::new("temporary directory")))?;
    let runtime = runtime_name();
    let mut result = BenchResult::default();
    let mut process = 0;
    for file in &spec.files {
        let path = base.join(file);
        let src = std::fs::read_to_string(&path).map_err(io(&path))?;
        let versions: Vec<Version> = extract(&src, &path)?
            .into_iter()
            .filter(|v| spec.versions.is_empty() || spec.versions.contains(&v.version))
            .collect();
        for v in &versions {
            let p = dir.path().join(format!("{}.m", v.function_name()));
            std::fs::write(&p, v.function_file()).map_err(io(&p))?;
        }
        for size in &spec.sizes {
            let n =
                resolve_size(size, versions.first().map_or(1, |v| v.num_vectors)).map_err(|m| {
                    BenchError::Input {
                        file: path.display().to_string(),
                        line: 1,
                        message: m,
                    }
                })?;
            if spec.modes.iter().any(|m| m == "validate") {
                observer.step(&format!("validate {} N={n}", path.display()));
                let validations = validate(dir.path(), &versions, n, spec.tolerance)?;
                observer.validated(&validations)?;
                result.validations.extend(validations);
            }
            for mode in spec.modes.iter().filter(|m| *m != "validate") {
                let threads: &[usize] = if mode == "threads" {
                    &spec.threads
                } else {
                    &[1]
                };
                for &t in threads {
                    for v in &versions {
                        process += 1;
                        observer.step(&format!(
                            "{mode} {} {} N={n} threads={t}",
                            v.benchmark, v.version
                        ));
                        let warm = if mode == "warmup" { 0 } else { 2 };
                        let times = time(dir.path(), v, n, spec.repetitions, warm, t)?;
                        let metric = if mode == "warmup" {
                            "time_s_from_first_call"
                        } else {
                            "time_s"
                        };
                        let first = result.rows.len();
                        for (k, value) in times.into_iter().enumerate() {
                            result.rows.push(Row {
                                runtime: runtime.clone(),
                                threads: t,
                                process,
                                benchmark: v.benchmark.clone(),
                                version: v.version.clone(),
                                metric: metric.into(),
                                n,
                                in_process: k + 1,
                                value,
                            });
                        }
                        observer.process(&result.rows[first..])?;
                    }
                }
            }
        }
    }
    Ok(result)
}

fn quote(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', "''"))
}

fn time(
    dir: &Path,
    v: &Version,
    n: u64,
    reps: usize,
    warm: usize,
    threads: usize,
) -> Result<Vec<f64>, BenchError> {
    let out = dir.join(format!("times_{}_{n}_{threads}.txt", v.function_name()));
    let k = v.code_vars.len();
    let call = format!(
        "o__ = cell(1, {k}); [o__{{:}}] = {}({n});",
        v.function_name()
    );
    let driver = dir.join(format!("time_{}.m", v.function_name()));
    let code = format!(
        "1;\naddpath({d});\nfor w__ = 1:{warm}\n {call}\nend\nt__ = zeros(1, {reps});\nfor r__ = 1:{reps}\n {call} t__(r__) = o__{{1}};\nend\nfid = fopen({o}, 'w'); fprintf(fid, '%.9g\\n', t__); fclose(fid);\n",
        d = quote(dir),
        o = quote(&out)
    );
    std::fs::write(&driver, code).map_err(io(&driver))?;
    let octave = OCTAVE.locate().map_err(CheckError::from)?;
    let argv = vec![
        octave.display().to_string(),
        "--no-gui".into(),
        "--quiet".into(),
        "--norc".into(),
        driver.display().to_string(),
    ];
    // BLAS/OpenMP thread counts through the environment (the `threads` mode).
    let env: Vec<(String, String)> = ["OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"]
        .iter()
        .map(|k| (k.to_string(), threads.to_string()))
        .collect();
    let outcome = run_once_with_env(&argv, &env, OutputPolicy::Discard, &CounterSet::open(&[]))?;
    if !outcome.exit.success() {
        return Err(CheckError::Octave {
            which: format!("{} N={n}", v.function_name()),
            stderr: format!("exit status {}", outcome.exit.status()),
        }
        .into());
    }
    let text = std::fs::read_to_string(&out).map_err(io(&out))?;
    Ok(text.lines().filter_map(|l| l.trim().parse().ok()).collect())
}

/// Empirical validation: every version against the first, on the same generated inputs.
fn validate(
    dir: &Path,
    versions: &[Version],
    n: u64,
    tolerance: f64,
) -> Result<Vec<Validation>, BenchError> {
    let Some(reference) = versions.first() else {
        return Ok(Vec::new());
    };
    let out = dir.join(format!("validate_{}_{n}.txt", reference.benchmark));
    let mut code = format!(
        "1;\naddpath({});\nfid = fopen({}, 'w');\n",
        quote(dir),
        quote(&out)
    );
    let call = |v: &Version, var: &str| {
        format!(
            "{var} = cell(1, {}); [{var}{{:}}] = {}({n});\n",
            v.code_vars.len() + 1,
            v.function_name()
        )
    };
    code.push_str(&call(reference, "r__"));
    for v in &versions[1..] {
        code.push_str(&call(v, "v__"));
        code.push_str("e__ = 0;\n");
        for (k, name) in v.code_vars.iter().enumerate() {
            if let Some(rk) = reference.code_vars.iter().position(|x| x == name) {
                code.push_str(&format!(
                    "a__ = double(r__{{{}}}(:)); b__ = double(v__{{{}}}(:)); if ~isequal(size(a__), size(b__)) e__ = Inf; else e__ = max([e__; abs(a__ - b__) / max([1e-300; abs(a__)])]); end\n",
                    rk + 2,
                    k + 2
                ));
            }
        }
        code.push_str(&format!(
            "fprintf(fid, '%s\\t%.17g\\n', '{}', e__);\n",
            v.version
        ));
    }
    code.push_str("fclose(fid);\n");
    let driver = dir.join("validate_driver.m");
    std::fs::write(&driver, code).map_err(io(&driver))?;
    OCTAVE
        .run(
            [
                "--no-gui",
                "--quiet",
                "--norc",
                driver.to_str().unwrap_or(""),
            ],
            Some(dir),
        )
        .map_err(|e| BenchError::Check(e.into()))?;
    let text = std::fs::read_to_string(&out).map_err(io(&out))?;
    Ok(text
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(version, e)| {
            let err: f64 = e.trim().parse().unwrap_or(f64::INFINITY);
            Validation {
                benchmark: reference.benchmark.clone(),
                version: version.to_string(),
                reference: reference.version.clone(),
                n,
                equal: err <= tolerance,
                max_rel_error: err,
            }
        })
        .collect())
}
