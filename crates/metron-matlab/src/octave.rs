//! Proof on GNU Octave: run the original and the transformed program, compare every output
//! variable (shape, values within a reported tolerance) and time both through metron-measure.

use std::path::{Path, PathBuf};

use metron_measure::counters::CounterSet;
use metron_measure::runner::{run_once, OutputPolicy};
use metron_measure::stats::{median, Bootstrap, Interval};
use metron_measure::tool::ToolError;
use serde::Serialize;

pub use metron_measure::tool::OCTAVE;

#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error(transparent)]
    Tool(#[from] ToolError),
    #[error("{file}: {message}")]
    Input { file: String, message: String },
    #[error(transparent)]
    Syntax(#[from] crate::SyntaxError),
    #[error("I/O error on {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    /// The program under test raised an error in Octave (not a difference of results).
    #[error("the {which} version raised an error in Octave: {message}")]
    ProgramFailed { which: String, message: String },
    #[error("octave run failed for {which}: {stderr}")]
    Octave { which: String, stderr: String },
    #[error("could not read octave's result file {0}")]
    Result(String),
    #[error(transparent)]
    Measure(#[from] metron_measure::MeasureError),
}

#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// `f(1000)`; `None` runs a script file and compares its workspace.
    pub entry: Option<String>,
    pub rtol: f64,
    pub atol: f64,
    /// In-process timed repetitions per version (0: no timing).
    pub repetitions: usize,
    pub warmup: usize,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            entry: None,
            rtol: 1e-9,
            atol: 1e-12,
            repetitions: 0,
            warmup: 1,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct VariableComparison {
    pub name: String,
    pub class_original: String,
    pub class_transformed: String,
    pub shape_original: String,
    pub shape_transformed: String,
    pub max_abs_error: f64,
    pub max_rel_error: f64,
    pub equal: bool,
    /// Why not equal (class, size, values), empty when equal.
    pub reason: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Timing {
    pub original_median_s: f64,
    pub transformed_median_s: f64,
    pub speedup: f64,
    pub speedup_ci: Option<Interval>,
    pub repetitions: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    pub entry: String,
    pub rtol: f64,
    pub atol: f64,
    pub variables: Vec<VariableComparison>,
    pub equal: bool,
    pub timing: Option<Timing>,
}

struct Staged {
    _dir: tempfile::TempDir,
    root: PathBuf,
    original: PathBuf,
    transformed: PathBuf,
    call: String,
    outputs: Vec<String>,
    script: Option<String>,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> CheckError + '_ {
    move |source| CheckError::Io {
        path: path.display().to_string(),
        source,
    }
}

fn quote(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', "''"))
}

/// Copies both versions into their own directories under the name Octave needs (a function
/// file must be named after its first function).
fn stage(
    original: &Path,
    transformed: &Path,
    options: &CheckOptions,
) -> Result<Staged, CheckError> {
    let dir = tempfile::tempdir().map_err(io(Path::new("temporary directory")))?;
    let root = dir.path().to_path_buf();
    let read = |p: &Path| crate::SourceFile::read(p).map(|f| f.text).map_err(io(p));
    let (a, b) = (read(original)?, read(transformed)?);
    let pa = crate::parse(&a, original)?;
    crate::parse(&b, transformed)?;
    let (file_name, call, outputs, script) = match (&options.entry, pa.functions.first()) {
        (Some(entry), Some(first)) => {
            let fname = entry.split('(').next().unwrap_or("").trim().to_string();
            let f = pa.function(&fname).ok_or_else(|| CheckError::Input {
                file: original.display().to_string(),
                message: format!(
                    "entry `{entry}` calls `{fname}`, which this file does not define"
                ),
            })?;
            let outputs: Vec<String> = f.outputs.clone();
            (format!("{}.m", first.name), entry.clone(), outputs, None)
        }
        (None, None) => {
            let stem = original
                .file_stem()
                .map(|s| s.to_string_lossy().to_string())
                .unwrap_or_else(|| "script".into());
            let stem = format!("m_{}", stem.replace(|c: char| !c.is_alphanumeric(), "_"));
            (format!("{stem}.m"), String::new(), Vec::new(), Some(stem))
        }
        (None, Some(_)) => {
            return Err(CheckError::Input {
                file: original.display().to_string(),
                message: "a function file needs --entry, e.g. --entry 'f(1000)'".into(),
            })
        }
        (Some(_), None) => {
            return Err(CheckError::Input {
                file: original.display().to_string(),
                message: "a script file takes no --entry".into(),
            })
        }
    };
    let (da, db) = (root.join("original"), root.join("transformed"));
    for (d, text) in [(&da, &a), (&db, &b)] {
        std::fs::create_dir_all(d).map_err(io(d))?;
        let p = d.join(&file_name);
        std::fs::write(&p, text).map_err(io(&p))?;
    }
    Ok(Staged {
        _dir: dir,
        original: root.join("original"),
        transformed: root.join("transformed"),
        root,
        call,
        outputs,
        script,
    })
}

const CAPTURE: &str = r#"function metron__S = metron_capture_script(metron__name)
  metron__S = struct();
  eval([metron__name ';']);
  metron__vars = who();
  for metron__k = 1:numel(metron__vars)
    metron__v = metron__vars{metron__k};
    if ~strncmp(metron__v, 'metron__', 8)
      metron__S.(metron__v) = eval(metron__v);
    end
  end
end
"#;

impl Staged {
    /// Octave code that leaves the results of one version in cell `out` with names `names`.
    fn run_code(&self, dir: &Path, out: &str) -> String {
        let seed = "rand('state', 42); randn('state', 42);";
        match &self.script {
            Some(name) => format!(
                "addpath({d}); clear functions; {seed} S__ = metron_capture_script('{name}'); \
                 {out}_names = fieldnames(S__)'; {out} = struct2cell(S__)'; rmpath({d});\n",
                d = quote(dir)
            ),
            None => {
                let k = self.outputs.len();
                let names: Vec<String> = self.outputs.iter().map(|n| format!("'{n}'")).collect();
                format!(
                    "addpath({d}); clear functions; {seed} {out} = cell(1, {k}); \
                     [{out}{{:}}] = {call}; {out}_names = {{{names}}}; rmpath({d});\n",
                    d = quote(dir),
                    call = self.call,
                    names = names.join(", ")
                )
            }
        }
    }
}

/// Compares the two versions' outputs in Octave: class, size, then values (000 App. C's
/// validation mode, made strict). An entry with no outputs, a script that leaves no
/// variables, or a version that raises an error is not "equal".
pub fn compare(
    original: &Path,
    transformed: &Path,
    options: &CheckOptions,
) -> Result<CheckReport, CheckError> {
    OCTAVE.locate()?;
    let staged = stage(original, transformed, options)?;
    if staged.script.is_none() && staged.outputs.is_empty() {
        return Err(CheckError::Input {
            file: original.display().to_string(),
            message: format!(
                "`{}` returns no outputs, so there is nothing to compare; return the results \
                 (function [y, s] = ...) or run the kernel as a script, whose workspace is compared",
                staged.call
            ),
        });
    }
    let capture = staged.root.join("metron_capture_script.m");
    std::fs::write(&capture, CAPTURE).map_err(io(&capture))?;
    let same = staged.root.join("metron_same.m");
    std::fs::write(&same, crate::differential::SAME).map_err(io(&same))?;
    let result = staged.root.join("result.txt");
    let failed = staged.root.join("failed.txt");
    let mut code = format!("addpath({});\n", quote(&staged.root));
    for (dir, out, which) in [
        (&staged.original, "o1", "original"),
        (&staged.transformed, "o2", "transformed"),
    ] {
        code.push_str(&format!(
            "try\n{}catch err__\n fid = fopen({f}, 'w'); fprintf(fid, '%s\\n%s', '{which}', err__.message); fclose(fid); exit(0);\nend\n",
            staged.run_code(dir, out),
            f = quote(&failed)
        ));
    }
    code.push_str(&format!(
        r#"fid = fopen({res}, 'w');
names = union(o1_names, o2_names);
for k = 1:numel(names)
  i1 = find(strcmp(o1_names, names{{k}})); i2 = find(strcmp(o2_names, names{{k}}));
  if isempty(i1) || isempty(i2)
    fprintf(fid, '%s\tmissing\tmissing\tmissing\tmissing\tInf\tInf\t0\tonly one version has it\n', names{{k}}); continue;
  end
  a = o1{{i1}}; b = o2{{i2}};
  [ok, why] = metron_same(a, b, {rtol:e}, {atol:e});
  sa = sprintf('%dx', size(a)); sb = sprintf('%dx', size(b));
  m = Inf; r = Inf;
  if (isnumeric(a) || islogical(a)) && isequal(size(a), size(b)) && (isnumeric(b) || islogical(b))
    x = double(a(:)); y = double(b(:)); d = abs(x - y); d(isnan(x) & isnan(y)) = 0; d(x == y) = 0;
    d(isnan(d)) = Inf; m = max([0; d]); s = max([0; abs(x(isfinite(x)))]);
    if s > 0, r = m / s; else r = m; end
  elseif isequaln(a, b)
    m = 0; r = 0;
  end
  fprintf(fid, '%s\t%s\t%s\t%s\t%s\t%.17g\t%.17g\t%d\t%s\n', names{{k}}, class(a), class(b), sa(1:end-1), sb(1:end-1), m, r, ok, why);
end
fclose(fid);
"#,
        res = quote(&result),
        rtol = options.rtol,
        atol = options.atol,
    ));
    run_octave(&staged.root, &code, "the comparison")?;
    if let Ok(text) = std::fs::read_to_string(&failed) {
        let (which, message) = text.split_once('\n').unwrap_or((text.as_str(), ""));
        return Err(CheckError::ProgramFailed {
            which: which.to_string(),
            message: message.trim().to_string(),
        });
    }
    let text = std::fs::read_to_string(&result)
        .map_err(|_| CheckError::Result(result.display().to_string()))?;
    let mut variables = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.splitn(9, '\t').collect();
        if f.len() != 9 {
            return Err(CheckError::Result(result.display().to_string()));
        }
        let parse = |s: &str| s.parse::<f64>().unwrap_or(f64::INFINITY);
        variables.push(VariableComparison {
            name: f[0].to_string(),
            class_original: f[1].to_string(),
            class_transformed: f[2].to_string(),
            shape_original: f[3].to_string(),
            shape_transformed: f[4].to_string(),
            max_abs_error: parse(f[5]),
            max_rel_error: parse(f[6]),
            equal: f[7] == "1",
            reason: f[8].trim().to_string(),
        });
    }
    if variables.is_empty() {
        return Err(CheckError::Input {
            file: original.display().to_string(),
            message: "the script leaves no variables, so there is nothing to compare".into(),
        });
    }
    let equal = variables.iter().all(|v| v.equal);
    Ok(CheckReport {
        entry: if staged.call.is_empty() {
            staged.script.clone().unwrap_or_default()
        } else {
            staged.call.clone()
        },
        rtol: options.rtol,
        atol: options.atol,
        variables,
        equal,
        timing: None,
    })
}

fn run_octave(root: &Path, code: &str, which: &str) -> Result<(), CheckError> {
    let driver = root.join("metron_driver.m");
    std::fs::write(&driver, format!("1;\n{code}")).map_err(io(&driver))?;
    match OCTAVE.run(
        [
            "--no-gui",
            "--quiet",
            "--norc",
            "--no-history",
            driver.to_str().unwrap_or(""),
        ],
        Some(root),
    ) {
        Ok(_) => Ok(()),
        Err(ToolError::Failed { stderr, .. }) => Err(CheckError::Octave {
            which: which.to_string(),
            stderr,
        }),
        Err(e) => Err(e.into()),
    }
}

/// Compares and, with `repetitions > 0`, times both versions in-process (warm-up, then
/// tic/toc per call) inside an octave-cli started by metron-measure's runner.
pub fn check(
    original: &Path,
    transformed: &Path,
    options: &CheckOptions,
) -> Result<CheckReport, CheckError> {
    let mut report = compare(original, transformed, options)?;
    if options.repetitions > 0 {
        let staged = stage(original, transformed, options)?;
        let capture = staged.root.join("metron_capture_script.m");
        std::fs::write(&capture, CAPTURE).map_err(io(&capture))?;
        let interleaved = match &staged.script {
            None => time_interleaved(&staged, transformed, options)?,
            Some(_) => None,
        };
        let (a, b) = match interleaved {
            Some(times) => times,
            None => (
                time_version(&staged, &staged.original, options, "original")?,
                time_version(&staged, &staged.transformed, options, "transformed")?,
            ),
        };
        let (ma, mb) = (
            median(&a).unwrap_or(f64::NAN),
            median(&b).unwrap_or(f64::NAN),
        );
        let ci = Bootstrap::default().ratio_interval(&a, &b, |x| median(x).unwrap_or(f64::NAN));
        report.timing = Some(Timing {
            original_median_s: ma,
            transformed_median_s: mb,
            speedup: ma / mb,
            speedup_ci: ci,
            repetitions: options.repetitions,
        });
    }
    Ok(report)
}

/// Per-call times of the original and of the transformed version.
type PairedTimes = (Vec<f64>, Vec<f64>);

/// Times a function entry's two versions in one Octave process, alternating calls (and
/// which of the two goes first), so that both see the same process, heap and machine load.
/// Separate processes differ by more than a call of a few microseconds costs: that once made
/// a versioned program look 1.6x slower at n = 2 where, interleaved, it is not.
/// The transformed copy's entry function is renamed so that both stay on the path (a handle
/// to a function whose directory left the path reloads its file on every call, ~10 ms).
/// `None` when the entry cannot be renamed safely (it names itself, e.g. recursion).
fn time_interleaved(
    staged: &Staged,
    transformed: &Path,
    options: &CheckOptions,
) -> Result<Option<PairedTimes>, CheckError> {
    let times = staged.root.join("times_interleaved.txt");
    let (name, args) = match staged.call.find('(') {
        Some(k) => (staged.call[..k].trim(), &staged.call[k..]),
        None => (staged.call.trim(), "()"),
    };
    let renamed_name = format!("mb__{name}");
    let source = crate::SourceFile::read(transformed)
        .map(|f| f.text)
        .map_err(io(transformed))?;
    let Some(renamed) = renamed_entry(&source, transformed, name, &renamed_name) else {
        return Ok(None);
    };
    let db = staged.root.join("interleaved");
    std::fs::create_dir_all(&db).map_err(io(&db))?;
    let file = db.join(format!("{renamed_name}.m"));
    std::fs::write(&file, renamed).map_err(io(&file))?;
    let k = staged.outputs.len();
    let call = |h: &str| format!("o__ = cell(1, {k}); [o__{{:}}] = {h}{args};");
    let (ca, cb) = (call("ha__"), call("hb__"));
    let code = format!(
        "1;\naddpath({root}); addpath({da}); addpath({db}); rand('state', 42); randn('state', 42);\n\
         ha__ = @{name}; hb__ = @{renamed_name};\n\
         for w__ = 1:{warm}\n {ca}\n {cb}\nend\n\
         ta__ = zeros(1, {reps}); tb__ = zeros(1, {reps});\n\
         for r__ = 1:{reps}\n if mod(r__, 2)\n  \
         t0__ = tic; {ca} ta__(r__) = toc(t0__);\n  t0__ = tic; {cb} tb__(r__) = toc(t0__);\n \
         else\n  t0__ = tic; {cb} tb__(r__) = toc(t0__);\n  t0__ = tic; {ca} ta__(r__) = toc(t0__);\n \
         end\nend\n\
         fid = fopen({out}, 'w'); fprintf(fid, '%.9g %.9g\\n', [ta__; tb__]); fclose(fid);\n",
        root = quote(&staged.root),
        da = quote(&staged.original),
        db = quote(&db),
        warm = options.warmup,
        reps = options.repetitions,
        out = quote(&times)
    );
    let driver = staged.root.join("metron_time_interleaved.m");
    std::fs::write(&driver, code).map_err(io(&driver))?;
    run_timing_driver(&driver, "timing both versions")?;
    let text = std::fs::read_to_string(&times)
        .map_err(|_| CheckError::Result(times.display().to_string()))?;
    let pairs: Vec<(f64, f64)> = text
        .lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace().map(|x| x.parse::<f64>().ok());
            Some((it.next()??, it.next()??))
        })
        .collect();
    Ok(Some(pairs.into_iter().unzip()))
}

/// `source` with its first function `name` declared as `new`; `None` unless the declaration
/// is on one line and nothing after it mentions `name` (a recursive call would still reach
/// the original).
pub(crate) fn renamed_entry(source: &str, file: &Path, name: &str, new: &str) -> Option<String> {
    let program = crate::parse(source, file).ok()?;
    let f = program.functions.first().filter(|f| f.name == name)?;
    let start = f.span.start;
    let line_end = source[start..]
        .find('\n')
        .map_or(source.len(), |k| start + k);
    let decl = &source[start..line_end];
    let after = decl.find('=').map_or("function".len(), |k| k + 1);
    let at = start + after + decl.get(after..)?.find(name)?;
    // Comments may name the function (`% entry: f(400)`); code may not (recursion).
    let mentions = |text: &str| {
        text.lines()
            .map(|l| l.split('%').next().unwrap_or(""))
            .flat_map(|l| l.split(|c: char| !(c.is_alphanumeric() || c == '_')))
            .any(|w| w == name)
    };
    if mentions(&source[line_end..]) || mentions(&source[..start]) {
        return None;
    }
    Some(format!(
        "{}{new}{}",
        &source[..at],
        &source[at + name.len()..]
    ))
}

fn run_timing_driver(driver: &Path, which: &str) -> Result<(), CheckError> {
    let program = OCTAVE.locate()?;
    let argv: Vec<String> = vec![
        program.display().to_string(),
        "--no-gui".into(),
        "--quiet".into(),
        "--norc".into(),
        "--no-history".into(),
        driver.display().to_string(),
    ];
    let outcome = run_once(&argv, OutputPolicy::Discard, &CounterSet::open(&[]))?;
    if !outcome.exit.success() {
        return Err(CheckError::Octave {
            which: which.to_string(),
            stderr: format!("exit status {}", outcome.exit.status()),
        });
    }
    Ok(())
}

fn time_version(
    staged: &Staged,
    dir: &Path,
    options: &CheckOptions,
    which: &str,
) -> Result<Vec<f64>, CheckError> {
    let times = staged.root.join(format!("times_{which}.txt"));
    let body = match &staged.script {
        Some(name) => format!("metron_capture_script('{name}');"),
        None => format!(
            "out__ = cell(1, {}); [out__{{:}}] = {};",
            staged.outputs.len(),
            staged.call
        ),
    };
    let code = format!(
        "1;\naddpath({root}); addpath({d}); rand('state', 42); randn('state', 42);\n\
         for w__ = 1:{warm}\n {body}\nend\n\
         t__ = zeros(1, {reps});\nfor r__ = 1:{reps}\n tic; {body} t__(r__) = toc;\nend\n\
         fid = fopen({out}, 'w'); fprintf(fid, '%.9g\\n', t__); fclose(fid);\n",
        root = quote(&staged.root),
        d = quote(dir),
        warm = options.warmup,
        reps = options.repetitions,
        out = quote(&times)
    );
    let driver = staged.root.join(format!("metron_time_{which}.m"));
    std::fs::write(&driver, code).map_err(io(&driver))?;
    run_timing_driver(&driver, &format!("timing the {which} version"))?;
    let text = std::fs::read_to_string(&times)
        .map_err(|_| CheckError::Result(times.display().to_string()))?;
    Ok(text
        .lines()
        .filter_map(|l| l.trim().parse::<f64>().ok())
        .collect())
}

/// One size of a profile-guided sweep (000 §5.4).
#[derive(Debug, Clone, Serialize)]
pub struct ProfilePoint {
    pub size: u64,
    pub loop_median_s: f64,
    pub vector_median_s: f64,
    pub speedup: f64,
    pub speedup_ci: Option<Interval>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Profile {
    pub points: Vec<ProfilePoint>,
    /// Smallest profiled size from which on the vector version is faster beyond noise
    /// (the CI's lower end above 1 at it and at every larger size); `None`: never (∅ of
    /// 000 Table 5.2).
    pub threshold: Option<u64>,
}

/// Times the loop version (`original`) against its vectorised form over `sizes`, calling
/// `function(size)` in Octave; both versions' outputs are compared at every size too.
pub fn profile(
    original: &Path,
    vectorised: &Path,
    function: &str,
    sizes: &[u64],
    repetitions: usize,
    mut progress: impl FnMut(u64),
) -> Result<Profile, CheckError> {
    let mut points = Vec::new();
    for &size in sizes {
        progress(size);
        let options = CheckOptions {
            entry: Some(format!("{function}({size})")),
            repetitions,
            warmup: 2,
            ..CheckOptions::default()
        };
        let report = check(original, vectorised, &options)?;
        if !report.equal {
            return Err(CheckError::Input {
                file: vectorised.display().to_string(),
                message: format!("results differ from the loop version at size {size}"),
            });
        }
        if let Some(t) = report.timing {
            points.push(ProfilePoint {
                size,
                loop_median_s: t.original_median_s,
                vector_median_s: t.transformed_median_s,
                speedup: t.speedup,
                speedup_ci: t.speedup_ci,
            });
        }
    }
    Ok(Profile {
        threshold: threshold(&points),
        points,
    })
}

/// The smallest size from which on every point is profitable beyond noise.
pub fn threshold(points: &[ProfilePoint]) -> Option<u64> {
    let mut best = None;
    for p in points.iter().rev() {
        if p.speedup_ci.is_some_and(|ci| ci.lo > 1.0) {
            best = Some(p.size);
        } else {
            break;
        }
    }
    best
}
