//! The Slurm executor: one job-array script per batch of units, submitted with
//! `sbatch --array`, followed with `squeue` (and `sacct` where accounting is kept), results read
//! from the unit folders on the shared file system as each task finishes. Each array task runs
//! `metron tune exec-unit PROJECT KEY`, the same stage runner as the local pool.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use crate::tools::{SACCT, SBATCH, SQUEUE};

use crate::error::{Result, TuneError};
use crate::executor::Event;
use crate::unit_library::{self as lib, Outcome, StageContext, UnitJob, UnitParams};

pub struct SlurmExecutor {
    /// The command an array task runs, before the unit key: `metron tune exec-unit PROJECT`.
    pub worker: Vec<String>,
    pub partition: Option<String>,
    pub time: Option<String>,
    pub sbatch_args: Vec<String>,
    pub batch: usize,
    pub poll: Duration,
    /// Job ids submitted so far (for the report and for cancelling).
    pub jobs: Vec<String>,
}

impl SlurmExecutor {
    pub fn run(
        &mut self,
        ctx: &StageContext,
        jobs: Vec<UnitJob>,
        on: &mut dyn FnMut(Event) -> Result<()>,
    ) -> Result<()> {
        SBATCH.locate()?;
        SQUEUE.locate()?;
        for chunk in jobs.chunks(self.batch.max(1)) {
            self.run_batch(ctx, chunk, on)?;
        }
        Ok(())
    }

    fn run_batch(
        &mut self,
        ctx: &StageContext,
        units: &[UnitJob],
        on: &mut dyn FnMut(Event) -> Result<()>,
    ) -> Result<()> {
        let dir = ctx.project.out.join("slurm");
        std::fs::create_dir_all(&dir).map_err(TuneError::io(&dir))?;
        for u in units {
            // The task finds its parameters in the folder: the controller writes them first.
            std::fs::create_dir_all(&u.dir).map_err(TuneError::io(&u.dir))?;
            let params = UnitParams {
                key: u.key.clone(),
                params: u.assignment.values.clone(),
            };
            let text = serde_json::to_string_pretty(&params).unwrap_or_default();
            lib::write_atomic(&u.dir.join(lib::PARAMS_FILE), &text)?;
        }
        let n = std::fs::read_dir(&dir).map_or(0, |d| d.count());
        let list = dir.join(format!("batch-{n}.units"));
        let keys: String = units.iter().map(|u| format!("{}\n", u.key)).collect();
        std::fs::write(&list, keys).map_err(TuneError::io(&list))?;
        let script = dir.join(format!("batch-{n}.sh"));
        let cores = units.iter().map(|u| u.cores).max().unwrap_or(1);
        std::fs::write(&script, self.script(&dir, n, units.len(), cores, &list))
            .map_err(TuneError::io(&script))?;
        let out = SBATCH.run(["--parsable".as_ref(), script.as_os_str()], Some(&dir))?;
        let job = String::from_utf8_lossy(&out.stdout)
            .trim()
            .split(';')
            .next()
            .unwrap_or("")
            .to_string();
        if job.is_empty() {
            return Err(TuneError::Slurm(format!(
                "sbatch printed no job id for {}",
                script.display()
            )));
        }
        self.jobs.push(job.clone());
        for u in units {
            on(Event::Started(u))?;
        }
        self.follow(&job, &dir, n, units, on)
    }

    fn script(
        &self,
        dir: &std::path::Path,
        n: usize,
        count: usize,
        cores: usize,
        list: &std::path::Path,
    ) -> String {
        let q = |s: &str| shell_words::quote(s).into_owned();
        let mut s = String::from("#!/bin/sh\n");
        s += "#SBATCH --job-name=metron-tune\n";
        s += &format!("#SBATCH --array=0-{}\n", count - 1);
        s += &format!("#SBATCH --output={}/batch-{n}-%a.out\n", dir.display());
        s += &format!("#SBATCH --cpus-per-task={cores}\n");
        if let Some(p) = &self.partition {
            s += &format!("#SBATCH --partition={p}\n");
        }
        if let Some(t) = &self.time {
            s += &format!("#SBATCH --time={t}\n");
        }
        for a in &self.sbatch_args {
            s += &format!("#SBATCH {a}\n");
        }
        s += &format!(
            "KEY=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" {})\n",
            q(&list.display().to_string())
        );
        let worker: Vec<String> = self.worker.iter().map(|w| q(w)).collect();
        s += &format!("exec {} \"$KEY\"\n", worker.join(" "));
        s
    }

    /// Polls until the job has left the queue, reporting each unit as its folder gets a
    /// result; units left without one failed in Slurm (state from sacct when available).
    fn follow(
        &self,
        job: &str,
        dir: &std::path::Path,
        n: usize,
        units: &[UnitJob],
        on: &mut dyn FnMut(Event) -> Result<()>,
    ) -> Result<()> {
        let mut pending: Vec<&UnitJob> = units.iter().collect();
        loop {
            let queued = self.queued(job)?;
            pending.retain(|u| match lib::read_outcome(&u.dir) {
                Some(o) => {
                    let _ = on(Event::Finished(u, o));
                    false
                }
                None => true,
            });
            if !queued || pending.is_empty() {
                break;
            }
            std::thread::sleep(self.poll);
        }
        let states = sacct_states(job);
        for (i, u) in units.iter().enumerate() {
            if !pending.iter().any(|p| p.key == u.key) {
                continue;
            }
            if let Some(o) = lib::read_outcome(&u.dir) {
                on(Event::Finished(u, o))?;
                continue;
            }
            let state = states
                .get(&format!("{job}_{i}"))
                .cloned()
                .unwrap_or_else(|| "unknown".into());
            let failed = Outcome::Failed {
                stage: "slurm".into(),
                reason: format!("array task {job}_{i} ended without a result (state {state})"),
                stderr_tail: lib::tail(&dir.join(format!("batch-{n}-{i}.out"))),
            };
            lib::write_atomic(
                &u.dir.join(lib::FAILED_FILE),
                &serde_json::to_string_pretty(&failed).unwrap_or_default(),
            )?;
            on(Event::Finished(u, failed))?;
        }
        Ok(())
    }

    fn queued(&self, job: &str) -> Result<bool> {
        let out = std::process::Command::new(SQUEUE.locate()?)
            .args(["-h", "-j", job, "-o", "%i %T"])
            .output()
            .map_err(TuneError::io(PathBuf::from("squeue")))?;
        // squeue errors for a job that has left the controller's memory: it is done.
        Ok(out.status.success() && !String::from_utf8_lossy(&out.stdout).trim().is_empty())
    }
}

/// Array task states from sacct; empty when accounting is not kept (no slurmdbd).
fn sacct_states(job: &str) -> HashMap<String, String> {
    let Ok(path) = SACCT.locate() else {
        return HashMap::new();
    };
    let Ok(out) = std::process::Command::new(path)
        .args(["-n", "-P", "-X", "-j", job, "-o", "JobID,State"])
        .output()
    else {
        return HashMap::new();
    };
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_once('|'))
        .map(|(id, st)| (id.to_string(), st.to_string()))
        .collect()
}

/// The array task's side: run one unit of the project whose folder the controller prepared.
pub fn exec_unit(project: &crate::project::Project, key: &str) -> Result<Outcome> {
    let dir = project.library.join(key);
    let path = dir.join(lib::PARAMS_FILE);
    let text = std::fs::read_to_string(&path).map_err(TuneError::io(&path))?;
    let params: UnitParams = serde_json::from_str(&text)
        .map_err(|e| TuneError::input(&path, e.line(), e.to_string()))?;
    let genome = project
        .space
        .genome_of(&params.params)
        .map_err(|m| TuneError::input(&path, 0, m))?;
    let (assignment, _) = project
        .space
        .assign(&genome)
        .map_err(|m| TuneError::input(&path, 0, m))?;
    let job = UnitJob {
        key: key.to_string(),
        dir,
        assignment,
        cores: 1,
    };
    StageContext { project }.run_unit(&job)
}
