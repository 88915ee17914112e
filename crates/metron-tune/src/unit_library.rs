//! The unit library of 002 §3.3: one folder per unit, its path built from the gene values
//! (`lib_path/_1/_2/_GS/`), a marker per finished stage, a marker for failure. A unit that has
//! a result or a failure marker is finished and is never run again (failed ones only with
//! `--retry-failed`); a unit interrupted by kill -9 has neither and is run again.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::error::{Result, TuneError};
use crate::project::{Command, FitnessSource, Project, Stage};
use crate::space::{Assignment, Genome, Space};

/// The unit's parameter file: what the consistency check compares with the folder's path.
pub const PARAMS_FILE: &str = "unit.json";
pub const RESULT_FILE: &str = "result.json";
pub const FAILED_FILE: &str = "FAILED";
/// metron-probe writes here (METRON_PROFILE_DIR), cleared before every run.
pub const PROFILE_DIR: &str = "profile";
const TAIL_BYTES: usize = 2000;

/// How a finished unit ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum Outcome {
    Ok {
        fitness: f64,
    },
    Failed {
        stage: String,
        /// Exit code or signal, or why the fitness could not be read.
        reason: String,
        stderr_tail: String,
    },
}

impl Outcome {
    pub fn fitness(&self) -> Option<f64> {
        match self {
            Outcome::Ok { fitness } => Some(*fitness),
            Outcome::Failed { .. } => None,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UnitParams {
    pub key: String,
    pub params: Vec<(String, String)>,
}

/// A path component for a value: `_` then the value, with anything but `[A-Za-z0-9.+-]` made
/// `_`; when that changed the text, a short hash keeps distinct values apart.
fn component(value: &str) -> String {
    let clean: String = value
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "+-.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean == value {
        format!("_{clean}")
    } else {
        let h = value.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
        });
        format!("_{clean}~{:04x}", h & 0xffff)
    }
}

/// The unit's folder relative to the library: one component per gene (002 §3.3).
pub fn unit_key(space: &Space, genome: &Genome) -> String {
    space
        .genes
        .iter()
        .zip(genome)
        .map(|(g, &i)| component(&g.values[i as usize]))
        .collect::<Vec<_>>()
        .join("/")
}

pub fn read_outcome(dir: &Path) -> Option<Outcome> {
    for f in [RESULT_FILE, FAILED_FILE] {
        if let Ok(text) = std::fs::read_to_string(dir.join(f)) {
            if let Ok(o) = serde_json::from_str(&text) {
                return Some(o);
            }
        }
    }
    None
}

/// Writes `text` so that a reader never sees half of it (write, fsync, rename).
pub fn write_atomic(path: &Path, text: &str) -> Result<()> {
    let tmp = path.with_extension("tmp");
    let mut f = std::fs::File::create(&tmp).map_err(TuneError::io(&tmp))?;
    f.write_all(text.as_bytes())
        .and_then(|_| f.sync_all())
        .map_err(TuneError::io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(TuneError::io(path))
}

/// What a worker needs to run one unit's stages.
#[derive(Debug, Clone)]
pub struct UnitJob {
    pub key: String,
    pub dir: PathBuf,
    pub assignment: Assignment,
    pub cores: usize,
}

/// Everything the stages of all units share.
pub struct StageContext<'a> {
    pub project: &'a Project,
}

impl StageContext<'_> {
    fn lookup<'b>(&'b self, job: &'b UnitJob) -> impl Fn(&str) -> Option<String> + 'b {
        move |name: &str| match name {
            "unit_dir" => Some(job.dir.display().to_string()),
            "project_dir" => Some(self.project.dir.display().to_string()),
            "library" => Some(self.project.library.display().to_string()),
            other => job.assignment.get(other).map(str::to_string),
        }
    }

    /// Runs the unit's unfinished stages in its folder and reads its fitness. Failures of the
    /// unit are an `Outcome::Failed` written to the folder; `Err` is reserved for a project
    /// that is wrong (a fitness region that is not in the profile) or an I/O failure.
    pub fn run_unit(&self, job: &UnitJob) -> Result<Outcome> {
        std::fs::create_dir_all(&job.dir).map_err(TuneError::io(&job.dir))?;
        let params = UnitParams {
            key: job.key.clone(),
            params: job.assignment.values.clone(),
        };
        write_atomic(&job.dir.join(PARAMS_FILE), &to_json(&params))?;
        for stage in &self.project.stages {
            let marker = job.dir.join(format!(".done-{}", stage.name));
            if stage.name != "run" && marker.exists() {
                continue;
            }
            let outcome = if stage.name == "run" {
                self.run_stage(job, stage)?
            } else {
                self.exec(job, stage).map(|_| None).unwrap_or_else(Some)
            };
            if let Some(failed) = outcome.as_ref().filter(|o| o.fitness().is_none()) {
                write_atomic(&job.dir.join(FAILED_FILE), &to_json(failed))?;
                return Ok(failed.clone());
            }
            if let Some(ok) = outcome {
                write_atomic(&job.dir.join(RESULT_FILE), &to_json(&ok))?;
                return Ok(ok);
            }
            std::fs::write(&marker, b"").map_err(TuneError::io(&marker))?;
        }
        Err(TuneError::input(
            &self.project.path,
            0,
            "the project has no [run] stage",
        ))
    }

    /// The run stage, repeated for wall-time fitness, then the fitness read.
    fn run_stage(&self, job: &UnitJob, stage: &Stage) -> Result<Option<Outcome>> {
        let profile = job.dir.join(PROFILE_DIR);
        let _ = std::fs::remove_dir_all(&profile);
        std::fs::create_dir_all(&profile).map_err(TuneError::io(&profile))?;
        let reps = match self.project.fitness.source {
            FitnessSource::Wall { repetitions } => repetitions,
            _ => 1,
        };
        let mut walls = Vec::new();
        for _ in 0..reps {
            match self.exec(job, stage) {
                Ok(wall) => walls.push(wall.as_secs_f64()),
                Err(failed) => return Ok(Some(failed)),
            }
        }
        let fitness = match &self.project.fitness.source {
            FitnessSource::Wall { .. } => metron_measure::stats::median(&walls).unwrap_or(0.0),
            FitnessSource::Regex { pattern } => {
                let out = std::fs::read_to_string(job.dir.join("run.stdout")).unwrap_or_default();
                match regex_number(pattern, &out) {
                    Some(v) => v,
                    None => {
                        return Ok(Some(Outcome::Failed {
                            stage: "run".into(),
                            reason: format!(
                                "no number matching /{}/ in run.stdout",
                                pattern.as_str()
                            ),
                            stderr_tail: tail(&job.dir.join("run.stderr")),
                        }))
                    }
                }
            }
            FitnessSource::Probe {
                region,
                strategy,
                profiles,
            } => probe_fitness(&job.dir.join(profiles), region, *strategy)?,
        };
        Ok(Some(Outcome::Ok { fitness }))
    }

    /// Writes the stage's files and runs its command; Err is the unit's failure.
    fn exec(&self, job: &UnitJob, stage: &Stage) -> std::result::Result<Duration, Outcome> {
        let lookup = self.lookup(job);
        let fail = |reason: String, stderr_tail: String| Outcome::Failed {
            stage: stage.name.to_string(),
            reason,
            stderr_tail,
        };
        for (file, template) in &stage.writes {
            let path = job.dir.join(file.render(&lookup, false));
            std::fs::write(&path, template.render(&lookup, false)).map_err(|e| {
                fail(
                    format!("cannot write {}: {e}", path.display()),
                    String::new(),
                )
            })?;
        }
        let Some(command) = &stage.command else {
            return Ok(Duration::ZERO);
        };
        let argv: Vec<String> = match command {
            Command::Argv(args) => args.iter().map(|a| a.render(&lookup, false)).collect(),
            Command::Shell(script) => vec!["sh".into(), "-c".into(), script.render(&lookup, true)],
        };
        let out_path = job.dir.join(format!("{}.stdout", stage.name));
        let err_path = job.dir.join(format!("{}.stderr", stage.name));
        let files = std::fs::File::create(&out_path)
            .and_then(|o| Ok((o, std::fs::File::create(&err_path)?)));
        let (stdout, stderr) =
            files.map_err(|e| fail(format!("cannot create output files: {e}"), String::new()))?;
        let mut cmd = std::process::Command::new(&argv[0]);
        cmd.args(&argv[1..])
            .current_dir(&job.dir)
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr)
            .env("METRON_PROFILE_DIR", job.dir.join(PROFILE_DIR))
            .env("METRON_UNIT_DIR", &job.dir);
        for (k, v) in &stage.env {
            cmd.env(k, v.render(&lookup, false));
        }
        let start = Instant::now();
        let mut child = cmd
            .spawn()
            .map_err(|e| fail(format!("cannot start `{}`: {e}", argv[0]), String::new()))?;
        let status = wait_with_timeout(&mut child, stage.timeout)
            .map_err(|e| fail(format!("waiting for `{}`: {e}", argv[0]), tail(&err_path)))?;
        let wall = start.elapsed();
        match status {
            Some(s) if s.success() => Ok(wall),
            Some(s) => Err(fail(describe(s), tail(&err_path))),
            None => Err(fail(
                format!(
                    "timed out after {} s",
                    stage.timeout.unwrap_or_default().as_secs()
                ),
                tail(&err_path),
            )),
        }
    }
}

fn to_json<T: Serialize>(v: &T) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default() + "\n"
}

fn describe(s: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (s.code(), s.signal()) {
        (Some(c), _) => format!("exit code {c}"),
        (None, Some(sig)) => format!("killed by signal {sig}"),
        _ => s.to_string(),
    }
}

/// Waits for the child; on timeout kills it and returns None.
fn wait_with_timeout(
    child: &mut std::process::Child,
    timeout: Option<Duration>,
) -> std::io::Result<Option<std::process::ExitStatus>> {
    let Some(limit) = timeout else {
        return child.wait().map(Some);
    };
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait()? {
            return Ok(Some(s));
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The last ~2 kB of a file, cut at a line start.
pub fn tail(path: &Path) -> String {
    let text = std::fs::read(path).unwrap_or_default();
    let start = text.len().saturating_sub(TAIL_BYTES);
    let s = String::from_utf8_lossy(&text[start..]).into_owned();
    match (start > 0, s.find('\n')) {
        (true, Some(i)) => s[i + 1..].to_string(),
        _ => s,
    }
}

fn regex_number(pattern: &regex::Regex, text: &str) -> Option<f64> {
    let caps = pattern.captures(text)?;
    let m = caps.get(1).or_else(|| caps.get(0))?;
    m.as_str().trim().parse().ok()
}

/// 002 §3.4: the region's time in seconds, one value per thread of each rank, reduced by
/// the strategy. A region missing from the profile is the project's error, not the unit's.
pub fn probe_fitness(
    dir: &Path,
    region: &str,
    strategy: metron_probe::analysis::Strategy,
) -> Result<f64> {
    let set = metron_probe::analysis::load(dir).map_err(|e| TuneError::Fitness {
        unit: dir.to_path_buf(),
        message: format!("no profile: {e} (is the program linked with metron-probe and writing to METRON_PROFILE_DIR?)"),
    })?;
    let table = metron_probe::analysis::flat_table(&set, strategy);
    match table.rows.iter().find(|r| r.name == region) {
        Some(row) => Ok(row.across_ns / 1e9),
        None => Err(TuneError::Fitness {
            unit: dir.to_path_buf(),
            message: format!(
                "fitness region `{region}` is not in the profile (regions: {})",
                table
                    .rows
                    .iter()
                    .map(|r| r.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }),
    }
}

/// Removes a failure marker so the unit runs again (`--retry-failed`).
pub fn clear_failure(dir: &Path) {
    let _ = std::fs::remove_file(dir.join(FAILED_FILE));
}

/// Every unit folder under the library (those with a parameter file), with its relative key.
pub fn scan(root: &Path) -> Vec<(String, PathBuf)> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() && p.file_name().is_some_and(|n| n != PROFILE_DIR) {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n == PARAMS_FILE) {
                let key = dir
                    .strip_prefix(root)
                    .map(|k| k.to_string_lossy().into_owned())
                    .unwrap_or_default();
                found.push((key, dir.clone()));
            }
        }
    }
    found.sort();
    found
}
