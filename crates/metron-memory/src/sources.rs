//! What to compile (issue 13): one or several C files with the user's clang flags, or the
//! entries of a `compile_commands.json` (CMake's `-DCMAKE_EXPORT_COMPILE_COMMANDS=ON`, Bear).
//! Each file is compiled on its own and the modules are linked (`llvm-link`), so a kernel and
//! its helpers in other files are one module to analyse.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::MemoryError;

/// The user's build description.
#[derive(Clone, Debug, Default, Serialize)]
pub struct BuildInput {
    /// Sources (.c, .cc, .cpp, .i) or one IR file (.ll, .bc).
    pub files: Vec<PathBuf>,
    /// Extra clang flags for every file (`-I`, `-D`, `-std=`...).
    pub cflags: Vec<String>,
    pub compile_commands: Option<PathBuf>,
}

/// One compiler invocation: the file, the flags that matter for the IR, where to run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CompileJob {
    pub file: PathBuf,
    pub flags: Vec<String>,
    pub directory: Option<PathBuf>,
}

/// Flags of a recorded command that change the IR of the file: preprocessor and language
/// options. Optimisation, output and warning flags are replaced by metron's own.
fn keeps(flag: &str) -> bool {
    [
        "-I", "-D", "-U", "-std=", "-include", "-isystem", "-iquote", "-x",
    ]
    .iter()
    .any(|p| flag.starts_with(p))
        || matches!(flag, "-fopenmp" | "-ansi" | "-pthread")
}

fn takes_value(flag: &str) -> bool {
    matches!(
        flag,
        "-I" | "-D" | "-U" | "-include" | "-isystem" | "-iquote" | "-x"
    )
}

/// The IR-relevant flags of a recorded argument list (compiler and file dropped).
pub fn relevant_flags(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 1;
    while i < args.len() {
        let a = &args[i];
        if keeps(a) {
            out.push(a.clone());
            if takes_value(a) {
                if let Some(v) = args.get(i + 1) {
                    out.push(v.clone());
                    i += 1;
                }
            }
        } else if a == "-o" || a == "-MF" || a == "-MT" || a == "-MQ" {
            i += 1;
        }
        i += 1;
    }
    out
}

#[derive(serde::Deserialize)]
struct Entry {
    directory: PathBuf,
    file: PathBuf,
    #[serde(default)]
    arguments: Option<Vec<String>>,
    #[serde(default)]
    command: Option<String>,
}

/// Reads a compilation database; with `files` given, only their entries (each must be there).
pub fn read_compile_commands(
    path: &Path,
    files: &[PathBuf],
) -> Result<Vec<CompileJob>, MemoryError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| MemoryError::Io {
        file: name.clone(),
        message: e.to_string(),
    })?;
    let entries: Vec<Entry> = serde_json::from_str(&text).map_err(|e| MemoryError::Parse {
        file: name.clone(),
        line: e.line(),
        message: format!("expected a JSON array of {{directory, file, arguments|command}}: {e}"),
    })?;
    let mut jobs = Vec::new();
    for (k, e) in entries.into_iter().enumerate() {
        let args = match (e.arguments, e.command) {
            (Some(a), _) => a,
            (None, Some(c)) => shell_words::split(&c).map_err(|err| MemoryError::Parse {
                file: name.clone(),
                line: 0,
                message: format!("entry {k}: `command` is not a shell command line: {err}"),
            })?,
            (None, None) => {
                return Err(MemoryError::Parse {
                    file: name.clone(),
                    line: 0,
                    message: format!(
                        "entry {k} ({}): expected `arguments` or `command`",
                        e.file.display()
                    ),
                })
            }
        };
        let file = if e.file.is_absolute() {
            e.file.clone()
        } else {
            e.directory.join(&e.file)
        };
        jobs.push(CompileJob {
            file,
            flags: relevant_flags(&args),
            directory: Some(e.directory),
        });
    }
    if files.is_empty() {
        return Ok(jobs);
    }
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    files
        .iter()
        .map(|f| {
            let want = canon(f);
            jobs.iter()
                .find(|j| canon(&j.file) == want)
                .cloned()
                .ok_or_else(|| MemoryError::Io {
                    file: f.display().to_string(),
                    message: format!("not in the compilation database {name}"),
                })
        })
        .collect()
}

impl BuildInput {
    pub fn single(file: &Path) -> BuildInput {
        BuildInput {
            files: vec![file.to_path_buf()],
            ..Default::default()
        }
    }

    /// The compile jobs, `--cflags` appended to every one.
    pub fn jobs(&self) -> Result<Vec<CompileJob>, MemoryError> {
        let mut jobs = match &self.compile_commands {
            Some(db) => read_compile_commands(db, &self.files)?,
            None => self
                .files
                .iter()
                .map(|f| CompileJob {
                    file: f.clone(),
                    flags: Vec::new(),
                    directory: None,
                })
                .collect(),
        };
        if jobs.is_empty() {
            return Err(MemoryError::Io {
                file: self
                    .compile_commands
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|| "command line".into()),
                message: "no source file to analyse".into(),
            });
        }
        for j in &mut jobs {
            j.flags.extend(self.cflags.iter().cloned());
        }
        Ok(jobs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_commands_keep_what_changes_the_ir() {
        let args: Vec<String> = "cc -O3 -Iinc -I /opt/x -DN=10 -D M=4 -Wall -std=c99 -o k.o -c k.c"
            .split(' ')
            .map(String::from)
            .collect();
        assert_eq!(
            relevant_flags(&args),
            vec!["-Iinc", "-I", "/opt/x", "-DN=10", "-D", "M=4", "-std=c99"]
        );
    }

    #[test]
    fn database_entries_and_missing_files_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("compile_commands.json");
        std::fs::write(
            &db,
            format!(
                r#"[{{"directory": "{d}", "file": "a.c", "command": "gcc -DX=1 -c a.c"}},
                    {{"directory": "{d}", "file": "b.c", "arguments": ["gcc", "-Iinc", "-c", "b.c"]}}]"#,
                d = dir.path().display()
            ),
        )
        .unwrap();
        let jobs = read_compile_commands(&db, &[]).unwrap();
        assert_eq!(jobs.len(), 2);
        assert_eq!(jobs[0].flags, vec!["-DX=1"]);
        assert_eq!(jobs[1].file, dir.path().join("b.c"));
        let e = read_compile_commands(&db, &[dir.path().join("c.c")]).unwrap_err();
        assert!(
            e.to_string().contains("c.c")
                && e.to_string().contains("not in the compilation database"),
            "{e}"
        );
        std::fs::write(&db, "[{\"directory\": 1}]").unwrap();
        let e = read_compile_commands(&db, &[]).unwrap_err().to_string();
        assert!(e.contains("compile_commands.json:1"), "{e}");
    }
}
