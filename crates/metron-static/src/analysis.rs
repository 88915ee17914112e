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
    /// The main source: the file given by `--source`, else the translation unit that defines
    /// `main` (else the first one found).
    pub source: SourceModel,
    /// Every translation unit modelled (`source` among them), in `ProgramModel::source_of`'s
    /// numbering.
    pub sources: Vec<SourceModel>,
    pub program: ProgramModel,
    pub formulas: Formulas,
    /// Directories added with `-I` because a source included a header from there that the
    /// flags did not name (`source::include_search`): the CLI says so.
    pub include_dirs_found: Vec<PathBuf>,
    /// Arrays whose size in the binary is not their size in the source as parsed: the binary
    /// was built with other `-D` sizes than metron was given (the CLI warns).
    pub size_mismatches: Vec<SizeMismatch>,
    /// The run of `main` that gave the odds of counts that follow data, when no branch profile
    /// was given (`interpreted_profile`).
    pub interpreted_profile: Option<crate::interpreted_profile::InterpretedProfile>,
}

/// An array of other sizes in the binary than in the source as parsed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SizeMismatch {
    pub file: PathBuf,
    pub line: u32,
    pub array: String,
    pub source_bytes: u64,
    pub binary_bytes: u64,
}

/// The file-scope arrays of `sources` that `binary` defines with another size.
fn size_mismatches(binary: &Binary, sources: &[SourceModel]) -> Vec<SizeMismatch> {
    let mismatch = |s: &SourceModel, a: &source::GlobalArray| {
        let &binary_bytes = binary.arrays.get(&a.name)?;
        (binary_bytes != a.bytes).then(|| SizeMismatch {
            file: s.file.clone(),
            line: a.line,
            array: a.name.clone(),
            source_bytes: a.bytes,
            binary_bytes,
        })
    };
    sources
        .iter()
        .flat_map(|s| s.global_arrays.iter().filter_map(move |a| mismatch(s, a)))
        .collect()
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
    /// The sizes the user gives (`--param`). Without a branch profile, counts that follow
    /// data take their odds from `main` interpreted at these sizes (`interpreted_profile`).
    pub sizes: metron_symbolic::Binding,
    /// Leave counts that follow data at even odds instead (`--no-interpreted-profile`).
    pub no_interpreted_profile: bool,
}

/// The model of the program in `binary_path`: of `options.source` alone when given, else of
/// every translation unit whose source the binary's DWARF names and that still exists.
pub fn analyse(binary_path: &Path, options: &SourceOptions) -> Result<Analysis> {
    let binary = Binary::load(binary_path)?;
    let files = match &options.source {
        Some(s) => vec![s.clone()],
        None => find_sources(&binary)?,
    };
    let mut sources = Vec::new();
    let mut include_dirs_found = Vec::new();
    for file in &files {
        let mut cflags = options.cflags.clone();
        if let Some(db) = &options.compile_commands {
            cflags.extend(source::flags_from_compile_commands(db, file)?);
        }
        check_lines(&binary, file)?;
        sources.push(parse_finding_headers(
            file,
            &mut cflags,
            &mut include_dirs_found,
        )?);
    }
    let primary = primary_source(&binary, &sources);
    if let Some(path) = &options.branch_profile {
        let files: Vec<&Path> = sources.iter().map(|s| s.file.as_path()).collect();
        let profile = crate::branch_profile::load(path, &files)?;
        for s in &mut sources {
            crate::branch_profile::apply(s, &profile);
        }
    }
    let mut program = ProgramModel::build_all(&binary, &sources, options.mira_compat);
    let mut interpreted_profile = None;
    if options.branch_profile.is_none() && !options.no_interpreted_profile {
        let recorded = crate::interpreted_profile::record(
            &binary,
            &sources,
            &program,
            options.mira_compat,
            &options.sizes,
        );
        if let Some((profile, summary)) = recorded {
            for s in &mut sources {
                crate::branch_profile::apply(s, &profile);
            }
            program = ProgramModel::build_all(&binary, &sources, options.mira_compat);
            interpreted_profile = Some(summary);
        }
    }
    let formulas = Formulas::build_all(&binary, &program, &sources);
    let size_mismatches = size_mismatches(&binary, &sources);
    Ok(Analysis {
        binary,
        source: sources[primary].clone(),
        sources,
        program,
        formulas,
        include_dirs_found,
        size_mismatches,
        interpreted_profile,
    })
}

/// Headers a file may be missing, each found and added with `-I` before clang's error stands.
const MOST_HEADERS: usize = 8;

/// [`source::parse_file`]; where clang does not find a header, the one directory near the
/// file that has it is added to `cflags` (and to `found`) and clang runs again.
fn parse_finding_headers(
    file: &Path,
    cflags: &mut Vec<String>,
    found: &mut Vec<PathBuf>,
) -> Result<SourceModel> {
    use metron_measure::tool::ToolError;
    let mut tries = 0;
    loop {
        let (command, status, stderr) = match source::parse_file(file, cflags) {
            Err(StaticError::Tool(ToolError::Failed {
                command,
                status,
                stderr,
            })) => (command, status, stderr),
            other => return other,
        };
        let dir = source::include_search::missing_header(&stderr)
            .and_then(|h| source::include_search::directory_for(file, h))
            .filter(|d| !found.contains(d));
        match dir {
            Some(dir) if tries < MOST_HEADERS => {
                cflags.push(format!("-I{}", dir.display()));
                found.push(dir);
                tries += 1;
            }
            _ => {
                let failed = ToolError::Failed {
                    command,
                    status,
                    stderr,
                };
                return Err(StaticError::Tool(failed));
            }
        }
    }
}

/// The source that defines `main`, else the first.
fn primary_source(binary: &Binary, sources: &[SourceModel]) -> usize {
    let main_file = binary
        .functions
        .iter()
        .find(|f| f.symbol == "main")
        .and_then(|f| f.source_file());
    main_file
        .and_then(|m| {
            sources
                .iter()
                .position(|s| Path::new(&m).file_name() == s.file.file_name())
        })
        .unwrap_or(0)
}

/// Every compilation unit's source file that exists and that some function of the binary
/// was compiled from (004 §III.A: name and directory), in DWARF order.
pub fn find_sources(binary: &Binary) -> Result<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> = Vec::new();
    for (name, dir) in &binary.compilation_units {
        let full = unit_path(name, dir);
        let has_code = || {
            binary.functions.iter().any(|f| {
                f.source_file()
                    .is_some_and(|s| Path::new(&s).file_name() == full.file_name())
            })
        };
        let seen = out.iter().any(|p| p.file_name() == full.file_name());
        if is_source(&full) && full.is_file() && !seen && has_code() {
            out.push(full);
        }
    }
    if out.is_empty() {
        // The message names every unit and what to do.
        return find_source(binary).map(|p| vec![p]);
    }
    Ok(out)
}

fn unit_path(name: &str, dir: &str) -> PathBuf {
    let p = Path::new(name);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        Path::new(dir).join(p)
    }
}

fn is_source(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| ["c", "cc", "cpp", "cxx", "C"].contains(&e.to_string_lossy().as_ref()))
}

/// The first compilation unit whose source file exists (004 §III.A: name and directory).
pub fn find_source(binary: &Binary) -> Result<PathBuf> {
    for (name, dir) in &binary.compilation_units {
        let full = unit_path(name, dir);
        if is_source(&full) && full.is_file() {
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
