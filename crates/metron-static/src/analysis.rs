//! One call from a binary (and optionally its source and flags) to a full model.

use std::path::{Path, PathBuf};

use crate::binary::Binary;
use crate::emit::Formulas;
use crate::error::{Result, StaticError};
use crate::program::ProgramModel;
use crate::source::{self, SourceModel};

/// Everything `metron static` knows about a program.
pub struct Analysis {
    pub binary: Binary,
    pub source: SourceModel,
    pub program: ProgramModel,
    pub formulas: Formulas,
}

/// Where the flags for clang come from.
#[derive(Debug, Clone, Default)]
pub struct SourceOptions {
    /// The source file; found through DWARF's compilation units when absent.
    pub source: Option<PathBuf>,
    pub cflags: Vec<String>,
    pub compile_commands: Option<PathBuf>,
    /// Reproduce Mira's approximations (004) instead of exact header/vector counting.
    pub mira_compat: bool,
    /// Probabilities of data-dependent branches recorded from a run (`branch_profile`).
    pub branch_profile: Option<PathBuf>,
}

pub fn analyse(binary_path: &Path, options: &SourceOptions) -> Result<Analysis> {
    let binary = Binary::load(binary_path)?;
    let file = match &options.source {
        Some(s) => s.clone(),
        None => find_source(&binary)?,
    };
    let mut cflags = options.cflags.clone();
    if let Some(db) = &options.compile_commands {
        cflags.extend(source::flags_from_compile_commands(db, &file)?);
    }
    let mut source = source::parse_file(&file, &cflags)?;
    if let Some(path) = &options.branch_profile {
        crate::branch_profile::apply(&mut source, &crate::branch_profile::load(path, &file)?);
    }
    check_lines(&binary, &file)?;
    let program = ProgramModel::build(&binary, &source, options.mira_compat);
    let formulas = Formulas::build(&binary, &program, &source);
    Ok(Analysis {
        binary,
        source,
        program,
        formulas,
    })
}

/// The first compilation unit whose source file exists (004 §III.A: name and directory).
pub fn find_source(binary: &Binary) -> Result<PathBuf> {
    for (name, dir) in &binary.compilation_units {
        let p = Path::new(name);
        let full = if p.is_absolute() {
            p.to_path_buf()
        } else {
            Path::new(dir).join(p)
        };
        let is_source = full.extension().is_some_and(|e| {
            ["c", "cc", "cpp", "cxx", "C"].contains(&e.to_string_lossy().as_ref())
        });
        if is_source && full.is_file() {
            return Ok(full);
        }
    }
    Err(StaticError::Parse {
        path: binary.path.clone(),
        line: 0,
        message: format!(
            "none of the binary's compilation units ({}) is a readable source file; pass --source FILE",
            binary
                .compilation_units
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    })
}

/// Detects a source that does not match the binary: DWARF lines beyond the file's end.
fn check_lines(binary: &Binary, file: &Path) -> Result<()> {
    let text = std::fs::read_to_string(file).map_err(|source| StaticError::Read {
        path: file.to_path_buf(),
        source,
    })?;
    let count = text.lines().count() as u32;
    let same = |f: &str| Path::new(f).file_name() == file.file_name();
    if !binary
        .functions
        .iter()
        .any(|f| f.source_file().is_some_and(|s| same(&s)))
    {
        return Err(StaticError::Parse {
            path: file.to_path_buf(),
            line: 0,
            message: format!(
                "no function of {} was compiled from this file (its sources: {}); the source does not match the binary",
                binary.path.display(),
                binary
                    .compilation_units
                    .iter()
                    .map(|(n, _)| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        });
    }
    for f in &binary.functions {
        for i in &f.instructions {
            for fr in &i.frames {
                if let Some(p) = fr.position.as_ref().filter(|p| same(&p.file)) {
                    if p.line > count {
                        return Err(StaticError::Parse {
                            path: file.to_path_buf(),
                            line: p.line as usize,
                            message: format!(
                                "the binary's debug info refers to line {} but the file has {count} lines; the source does not match {}",
                                p.line,
                                binary.path.display()
                            ),
                        });
                    }
                }
            }
        }
    }
    Ok(())
}
