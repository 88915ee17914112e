//! Front end: C source (or `.ll`/`.bc`) to canonical IR and its scalar-evolution report.
//! The canonical pass pipeline decides what the loads and stores are (without `mem2reg`
//! every local is a memory access), so it is configurable and recorded in every result.

use std::path::{Path, PathBuf};

use metron_measure::tool::{run_path, ToolError};
use serde::Serialize;

use crate::sources::{BuildInput, CompileJob};
use crate::MemoryError;

pub use metron_measure::tool::{CLANG, LLVM_LINK, OPT};

/// The `opt` of the same LLVM major version as the `clang` that writes the IR: an older opt
/// cannot read a newer clang's IR. Without a clang (analysing a given `.ll`), any accepted opt.
pub fn opt_path() -> Result<PathBuf, ToolError> {
    same_llvm_as_clang(&OPT)
}

/// An LLVM tool (`opt`, `llvm-link`) of clang's major version, or any accepted one without clang.
fn same_llvm_as_clang(tool: &metron_measure::tool::Tool) -> Result<PathBuf, ToolError> {
    match CLANG.resolve().ok().and_then(|c| c.major()) {
        Some(major) => tool.resolve_major(major).map(|r| r.path),
        None => tool.locate(),
    }
}

/// 003 §4.1.2: scalar evolution needs rotated loops with simplified induction variables.
pub const DEFAULT_PIPELINE: &str =
    "mem2reg,tailcallelim,loop-simplify,loop-rotate,instsimplify,indvars";

#[derive(Clone, Debug, Serialize)]
pub struct Prepared {
    pub source: PathBuf,
    /// The canonical IR that was analysed (kept in the work directory).
    pub canonical_ll: PathBuf,
    pub ir: String,
    pub scev: String,
    pub pipeline: String,
    pub clang_flags: Vec<String>,
    /// Every file compiled into the module.
    pub sources: Vec<PathBuf>,
    /// How each C source was compiled (empty for IR input).
    pub jobs: Vec<CompileJob>,
}

pub fn clang_flags() -> Vec<String> {
    [
        "-g",
        "-O1",
        "-Xclang",
        "-disable-llvm-passes",
        "-fno-discard-value-names",
        "-emit-llvm",
        "-S",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn tool_error(e: ToolError, file: &Path) -> MemoryError {
    match e {
        e if e.is_missing() => MemoryError::Tool(e.to_string()),
        other => MemoryError::Compile {
            file: file.display().to_string(),
            message: other.to_string(),
        },
    }
}

/// Compiles/canonicalises `source` into `workdir` and runs scalar evolution on the result.
pub fn prepare(source: &Path, pipeline: &str, workdir: &Path) -> Result<Prepared, MemoryError> {
    prepare_build(&BuildInput::single(source), pipeline, workdir)
}

/// Compiles one job to raw IR at `out`.
fn compile(job: &CompileJob, out: &Path) -> Result<(), MemoryError> {
    let source = &job.file;
    if !source.exists() {
        return Err(MemoryError::Io {
            file: source.display().to_string(),
            message: "no such file".into(),
        });
    }
    let mut args = clang_flags();
    args.extend(job.flags.iter().cloned());
    args.push(source.display().to_string());
    args.push("-o".into());
    args.push(out.display().to_string());
    CLANG
        .run(&args, job.directory.as_deref())
        .map_err(|e| tool_error(e, source))?;
    Ok(())
}

/// Compiles every file of `input` (linking several into one module), makes the IR canonical
/// with `pipeline` and runs scalar evolution on it.
pub fn prepare_build(
    input: &BuildInput,
    pipeline: &str,
    workdir: &Path,
) -> Result<Prepared, MemoryError> {
    let jobs = input.jobs()?;
    let source = jobs[0].file.clone();
    let ext = |p: &Path| {
        p.extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_string()
    };
    let mut raws = Vec::new();
    let mut compiled = false;
    for (k, job) in jobs.iter().enumerate() {
        match ext(&job.file).as_str() {
            "c" | "i" | "cc" | "cpp" | "cxx" => {
                let out = workdir.join(format!("raw{k}.ll"));
                compile(job, &out)?;
                raws.push(out);
                compiled = true;
            }
            "ll" | "bc" if job.file.exists() => raws.push(job.file.clone()),
            "ll" | "bc" => {
                return Err(MemoryError::Io {
                    file: job.file.display().to_string(),
                    message: "no such file".into(),
                })
            }
            _ => {
                return Err(MemoryError::Io {
                    file: job.file.display().to_string(),
                    message: "expected a .c, .cc, .cpp, .i, .ll or .bc file".into(),
                })
            }
        }
    }
    let opt = opt_path().map_err(|e| tool_error(e, &source))?;
    let raw = if raws.len() == 1 {
        raws.remove(0)
    } else {
        let out = workdir.join("linked.ll");
        let link = same_llvm_as_clang(&LLVM_LINK).map_err(|e| tool_error(e, &source))?;
        let mut args = vec!["-S".to_string(), "-o".into(), out.display().to_string()];
        args.extend(raws.iter().map(|r| r.display().to_string()));
        run_path("llvm-link", &link, args, None).map_err(|e| MemoryError::Compile {
            file: jobs
                .iter()
                .map(|j| j.file.display().to_string())
                .collect::<Vec<_>>()
                .join(" "),
            message: format!("linking the modules failed (a symbol defined twice?): {e}"),
        })?;
        out
    };
    let flags = if compiled {
        let mut f = clang_flags();
        f.extend(jobs[0].flags.iter().cloned());
        f
    } else {
        Vec::new()
    };
    let mut prepared = canonicalise(&source, &raw, pipeline, workdir, &opt)?;
    prepared.clang_flags = flags;
    prepared.sources = jobs.iter().map(|j| j.file.clone()).collect();
    if compiled {
        prepared.jobs = jobs;
    }
    Ok(prepared)
}

/// Integer helpers without memory accesses or calls (`imax(0, x - r)` as a loop bound) are
/// inlined, so that scalar evolution sees their result (`(0 smax (x - r))`) instead of an
/// opaque call; inlining them moves no access of a variable. Returns the marked module, or
/// `None` when there is no such helper. Their locals only become SSA values after `mem2reg`,
/// so the module is first put through it.
fn mark_pure_helpers(
    source: &Path,
    raw: &Path,
    workdir: &Path,
    opt: &Path,
) -> Result<Option<PathBuf>, MemoryError> {
    let ssa = workdir.join("ssa.ll");
    let args = [
        "-S".to_string(),
        "-passes=mem2reg".into(),
        raw.display().to_string(),
        "-o".into(),
        ssa.display().to_string(),
    ];
    if run_path("opt", opt, args, None).is_err() {
        return Ok(None); // canonicalise reports the failure with its message
    }
    let text = std::fs::read_to_string(&ssa).map_err(|e| MemoryError::Io {
        file: ssa.display().to_string(),
        message: e.to_string(),
    })?;
    let Ok(module) = crate::ir::parse_module(&text, &source.display().to_string()) else {
        return Ok(None);
    };
    let pure: Vec<&str> = module
        .functions
        .iter()
        .filter(|f| {
            f.blocks
                .iter()
                .flat_map(|b| &b.insts)
                .all(|i| match &i.kind {
                    crate::ir::Inst::Load { .. }
                    | crate::ir::Inst::Store { .. }
                    | crate::ir::Inst::Atomic { .. }
                    | crate::ir::Inst::Alloca => false,
                    crate::ir::Inst::Call { callee, .. } => callee
                        .as_deref()
                        .is_some_and(|c| c.starts_with("llvm.") && !c.starts_with("llvm.mem")),
                    _ => true,
                })
        })
        .map(|f| f.name.as_str())
        .collect();
    let mut marked = 0;
    let out: Vec<String> = text
        .lines()
        .map(|l| {
            let pure_define = l.starts_with("define ")
                && l.trim_end().ends_with('{')
                && pure.iter().any(|n| l.contains(&format!("@{n}(")))
                && !l.contains(" @main(")
                && !l.contains("noinline");
            let returns_int = l.split_whitespace().any(|w| {
                w.len() > 1 && w.starts_with('i') && w[1..].chars().all(|c| c.is_ascii_digit())
            });
            if pure_define && returns_int && !l.contains("void @") {
                marked += 1;
                // Function attributes go after the parameters, before `#N` and `!dbg`.
                let at = [" #", " !dbg", " {"]
                    .iter()
                    .filter_map(|m| l.rfind(')').and_then(|p| l[p..].find(m).map(|q| p + q)))
                    .min()
                    .unwrap_or(l.len());
                format!("{} alwaysinline{}", &l[..at], &l[at..])
            } else {
                l.to_string()
            }
        })
        .collect();
    if marked == 0 {
        return Ok(None);
    }
    let path = workdir.join("ssa-inline.ll");
    std::fs::write(&path, out.join("\n") + "\n").map_err(|e| MemoryError::Io {
        file: path.display().to_string(),
        message: e.to_string(),
    })?;
    Ok(Some(path))
}

fn canonicalise(
    source: &Path,
    raw: &Path,
    pipeline: &str,
    workdir: &Path,
    opt: &Path,
) -> Result<Prepared, MemoryError> {
    let canonical = workdir.join("canonical.ll");
    let mut passes = if pipeline.trim().is_empty() || pipeline == "none" {
        "verify".to_string()
    } else {
        pipeline.to_string()
    };
    let mut raw = raw.to_path_buf();
    if passes.starts_with("mem2reg") {
        if let Some(marked) = mark_pure_helpers(source, &raw, workdir, opt)? {
            raw = marked;
            passes = format!("always-inline,{passes}");
        }
    }
    let raw = raw.as_path();
    run_path(
        "opt",
        opt,
        [
            "-S".to_string(),
            format!("-passes={passes}"),
            raw.display().to_string(),
            "-o".into(),
            canonical.display().to_string(),
        ],
        None,
    )
    .map_err(|e| match e {
        ToolError::Failed { stderr, .. } => MemoryError::Compile {
            file: source.display().to_string(),
            message: format!(
                "opt could not read or transform it (IR from an unsupported LLVM version, or a bad pass pipeline `{pipeline}`?): {stderr}"
            ),
        },
        other => tool_error(other, source),
    })?;
    let scev_out = run_path(
        "opt",
        opt,
        [
            "-disable-output".to_string(),
            "-passes=print<scalar-evolution>".into(),
            canonical.display().to_string(),
        ],
        None,
    )
    .map_err(|e| tool_error(e, source))?;
    let ir = std::fs::read_to_string(&canonical).map_err(|e| MemoryError::Io {
        file: canonical.display().to_string(),
        message: e.to_string(),
    })?;
    Ok(Prepared {
        source: source.to_path_buf(),
        canonical_ll: canonical,
        ir,
        scev: String::from_utf8_lossy(&scev_out.stderr).into_owned()
            + &String::from_utf8_lossy(&scev_out.stdout),
        pipeline: pipeline.to_string(),
        clang_flags: Vec::new(),
        sources: vec![source.to_path_buf()],
        jobs: Vec::new(),
    })
}
