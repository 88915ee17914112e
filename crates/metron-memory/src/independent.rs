//! An independent counter for `validate` (issue 13): the program built by clang at -O0
//! (no metron IR, no pass pipeline, no site table) and run under valgrind's `lackey`, which
//! reports every load and store the CPU makes. The trace IR counter instruments the same IR
//! the analysis reads, so an access the reader misses is missed on both sides; this one
//! cannot share that blind spot.
//!
//! Restricting to the analysed function: the sources are compiled with
//! `-finstrument-functions`, and a small runtime (compiled apart, without the
//! instrumentation) stores to a marker byte when the function is entered and left. lackey
//! shows those stores, so the trace is cut to the function's activations (callees included).
//! Excluded, as in 003 §3.2's variables: the stack of the function and its callees (at -O0
//! every local and spilled value lives there) — everything below the function's frame
//! pointer plus 16 and its stack-passed arguments, found by a load of that address at entry — and loads of constants between
//! `etext` and `__data_start` (the constant pool, `.rodata`). A caller's stack array passed
//! in stays counted. `M` (modify: an atomic or read-modify-write instruction) is a read and
//! a write.

use std::path::Path;

use metron_measure::valgrind::{run as valgrind_run, Invocation};
use serde::Serialize;

use crate::frontend::CLANG;
use crate::sources::CompileJob;
use crate::MemoryError;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct IndependentCounts {
    /// Times the function was entered from outside itself.
    pub activations: u64,
    pub reads: u64,
    pub writes: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub stack_excluded: u64,
    pub constant_excluded: u64,
}

const RUNTIME: &str = r#"
#include <stdio.h>
#include <stdlib.h>
extern char etext, __data_start;
extern void METRON_ROOT(void);
volatile char __metron_mark_enter, __metron_mark_exit;
__attribute__((no_instrument_function)) void __cyg_profile_func_enter(void *fn, void *site) {
  (void)site;
  if (fn == (void *)METRON_ROOT) {
    (void)*(volatile char *)__builtin_frame_address(1);
    __metron_mark_enter = 1;
  }
}
__attribute__((no_instrument_function)) void __cyg_profile_func_exit(void *fn, void *site) {
  (void)site;
  if (fn == (void *)METRON_ROOT) __metron_mark_exit = 1;
}
__attribute__((no_instrument_function, destructor)) static void metron_marks(void) {
  const char *p = getenv("METRON_MARKS_OUT");
  if (!p) return;
  FILE *f = fopen(p, "w");
  if (!f) return;
  fprintf(f, "%lx %lx %lx %lx\n", (unsigned long)&__metron_mark_enter,
          (unsigned long)&__metron_mark_exit, (unsigned long)&etext, (unsigned long)&__data_start);
  fclose(f);
}
"#;

fn io(p: &Path, e: impl std::fmt::Display) -> MemoryError {
    MemoryError::Io {
        file: p.display().to_string(),
        message: e.to_string(),
    }
}

/// Builds the -O0 program of `jobs` with the marker runtime for `root` into `workdir/o0`.
pub fn build(
    jobs: &[CompileJob],
    root: &str,
    workdir: &Path,
) -> Result<std::path::PathBuf, MemoryError> {
    let rt = workdir.join("metron_marks.c");
    std::fs::write(&rt, RUNTIME).map_err(|e| io(&rt, e))?;
    let mut objects = Vec::new();
    let rt_o = workdir.join("metron_marks.o");
    let compile_err = |file: &Path, e: metron_measure::tool::ToolError| MemoryError::Compile {
        file: file.display().to_string(),
        message: format!("building the -O0 program for the independent counter failed: {e}"),
    };
    CLANG
        .run(
            [
                "-O2".to_string(),
                "-w".into(),
                "-c".into(),
                format!("-DMETRON_ROOT={root}"),
                rt.display().to_string(),
                "-o".into(),
                rt_o.display().to_string(),
            ],
            None,
        )
        .map_err(|e| compile_err(&rt, e))?;
    for (k, job) in jobs.iter().enumerate() {
        let o = workdir.join(format!("o0_{k}.o"));
        let mut args = vec![
            "-O0".to_string(),
            "-w".into(),
            "-finstrument-functions".into(),
            "-c".into(),
        ];
        args.extend(job.flags.iter().cloned());
        args.push(job.file.display().to_string());
        args.push("-o".into());
        args.push(o.display().to_string());
        CLANG
            .run(&args, job.directory.as_deref())
            .map_err(|e| compile_err(&job.file, e))?;
        objects.push(o.display().to_string());
    }
    let exe = workdir.join("o0");
    let mut args = objects;
    args.push(rt_o.display().to_string());
    args.extend(["-lm".to_string(), "-o".into(), exe.display().to_string()]);
    CLANG.run(&args, None).map_err(|e| MemoryError::Compile {
        file: exe.display().to_string(),
        message: format!(
            "linking the -O0 program failed (is `{root}` static? the independent counter needs it visible): {e}"
        ),
    })?;
    Ok(exe)
}

/// Runs `exe` under lackey and counts the function's non-stack, non-constant accesses.
/// `root_args` is the analysed function's argument count: arguments beyond the registers
/// come on the caller's stack just above the frame, and -O0 reads them there.
pub fn run(
    exe: &Path,
    args: &[String],
    root_args: usize,
    workdir: &Path,
) -> Result<IndependentCounts, MemoryError> {
    let marks = workdir.join("marks.txt");
    let _ = std::fs::remove_file(&marks);
    let tool_args = vec!["--tool=lackey".to_string(), "--trace-mem=yes".into()];
    // Bound at start: a lazily bound call (the first `sqrt`) would otherwise run the dynamic
    // linker's resolver inside the activation (norms: 105 reads and the GOT write).
    let env = vec![
        ("METRON_MARKS_OUT".to_string(), marks.display().to_string()),
        ("LD_BIND_NOW".to_string(), "1".to_string()),
    ];
    let r = valgrind_run(&Invocation {
        tool_args: &tool_args,
        program: exe,
        args,
        env: &env,
        work: workdir,
    })
    .map_err(|e| match e {
        metron_measure::valgrind::ValgrindError::Tool(t) if t.is_missing() => {
            MemoryError::Tool(t.to_string())
        }
        other => MemoryError::Run(format!("valgrind lackey: {other}")),
    })?;
    if let metron_measure::runner::Exit::Signal(s) = r.exit {
        return Err(MemoryError::Run(format!(
            "the -O0 program was killed by signal {s} under valgrind; no independent count"
        )));
    }
    let text = std::fs::read_to_string(&marks).map_err(|e| io(&marks, e))?;
    let m: Vec<u64> = text
        .split_whitespace()
        .filter_map(|w| u64::from_str_radix(w, 16).ok())
        .collect();
    let [enter, exit, etext, data] = m[..] else {
        return Err(MemoryError::Parse {
            file: marks.display().to_string(),
            line: 1,
            message: format!(
                "expected four hexadecimal addresses, found `{}`",
                text.trim()
            ),
        });
    };
    Ok(count_trace(
        &r.log,
        Marks {
            enter,
            exit,
            constants: etext..data,
            argument_bytes: 8 * root_args as u64,
        },
    ))
}

/// Addresses the runtime reported.
pub struct Marks {
    pub enter: u64,
    pub exit: u64,
    pub constants: std::ops::Range<u64>,
    /// Bytes of stack-passed arguments above the frame (return address and saved frame
    /// pointer are 16 more).
    pub argument_bytes: u64,
}

/// Counts lackey's `L`/`S`/`M` lines (` S 1ffefff990,8`) between the function's marks.
pub fn count_trace(log: &str, marks: Marks) -> IndependentCounts {
    const STACK_WINDOW: u64 = 256 << 20;
    let mut c = IndependentCounts::default();
    let mut depth = 0u32;
    let mut last_load = None;
    let mut stack_top = 0u64;
    for line in log.lines() {
        let b = line.as_bytes();
        if b.len() < 4 || b[0] != b' ' || b[2] != b' ' {
            continue;
        }
        let kind = b[1];
        let Some((a, s)) = line[3..].trim().split_once(',') else {
            continue;
        };
        let (Ok(addr), Ok(size)) = (u64::from_str_radix(a, 16), s.trim().parse::<u64>()) else {
            continue;
        };
        if kind == b'S' && addr == marks.enter {
            if depth == 0 {
                // The load of the function's frame pointer, just before: its stack lies below.
                stack_top = last_load.unwrap_or(0) + 16 + marks.argument_bytes;
                c.activations += 1;
            }
            depth += 1;
            continue;
        }
        if kind == b'S' && addr == marks.exit {
            depth = depth.saturating_sub(1);
            continue;
        }
        if kind == b'L' {
            last_load = Some(addr);
        }
        if depth == 0 {
            continue;
        }
        if addr < stack_top && addr + STACK_WINDOW > stack_top {
            c.stack_excluded += 1;
            continue;
        }
        if marks.constants.contains(&addr) {
            c.constant_excluded += 1;
            continue;
        }
        match kind {
            b'L' => {
                c.reads += 1;
                c.read_bytes += size;
            }
            b'S' => {
                c.writes += 1;
                c.write_bytes += size;
            }
            b'M' => {
                c.reads += 1;
                c.writes += 1;
                c.read_bytes += size;
                c.write_bytes += size;
            }
            _ => {}
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-written lackey log: the frame-pointer load and the enter mark, one stack
    /// access, one constant, a global read, a modify, a nested (recursive) activation, exit.
    #[test]
    fn marks_cut_the_trace_and_stack_and_constants_are_excluded() {
        let log = "==1== Lackey\nI  0401000,3\n L 1ffefff000,1\n S 0404000,1\n S 1ffeffefe0,8\n L 0402010,8\n L 0405000,8\n M 0405008,4\n S 0404000,1\n S 1ffefff100,8\n S 0404001,1\n S 0404001,1\n L 0405000,8\n";
        let c = count_trace(
            log,
            Marks {
                enter: 0x404000,
                exit: 0x404001,
                constants: 0x402000..0x403000,
                argument_bytes: 0,
            },
        );
        assert_eq!(
            c,
            IndependentCounts {
                activations: 1,
                reads: 2,
                // 1ffefff100 is above the frame (a caller's array): counted.
                writes: 2,
                read_bytes: 12,
                write_bytes: 12,
                stack_excluded: 1,
                constant_excluded: 1,
            }
        );
    }
}

/// Static, IR-traced and independent counts side by side, and why they may differ.
#[derive(Clone, Debug, Serialize)]
pub struct SideBySide {
    pub static_reads: Option<String>,
    pub static_writes: Option<String>,
    pub traced_reads: u64,
    pub traced_writes: u64,
    pub independent: IndependentCounts,
    /// Independent counts equal the static ones (reads and writes).
    pub agrees: bool,
    /// Constructs that make the -O0 machine accesses differ from the IR's by design.
    pub reasons: Vec<String>,
}

/// Puts the three counts together. `reached` are the functions expanded from the root.
pub fn side_by_side(
    model: &crate::count::ModuleModel,
    counts: &crate::FunctionCounts,
    binding: &metron_symbolic::Binding,
    rows: &[crate::trace::ValidationRow],
    independent: IndependentCounts,
) -> SideBySide {
    let one = crate::activation::ActivationSum::single(counts, binding);
    side_by_side_activations(model, counts, &one, rows, independent)
}

/// [`side_by_side`] with the static counts summed over the run's activations.
pub fn side_by_side_activations(
    model: &crate::count::ModuleModel,
    counts: &crate::FunctionCounts,
    activations: &crate::activation::ActivationSum,
    rows: &[crate::trace::ValidationRow],
    independent: IndependentCounts,
) -> SideBySide {
    use crate::access::AccessKind;
    let value = |p: &metron_symbolic::Piecewise| activations.evaluate_text(p);
    let traced = |k: AccessKind| {
        rows.iter()
            .filter(|r| r.kind == k)
            .map(|r| r.dynamic_count)
            .sum()
    };
    let static_reads = value(&counts.reads);
    let static_writes = value(&counts.writes);
    let agrees = static_reads.as_deref() == Some(independent.reads.to_string().as_str())
        && static_writes.as_deref() == Some(independent.writes.to_string().as_str());
    let mut reasons = Vec::new();
    if counts.variables.iter().any(|v| v.intrinsic) {
        reasons.push(format!(
            "memcpy/memset/memmove: metron counts their bytes, valgrind the library's own loads and stores \
             (valgrind moved {} bytes read, {} written)",
            independent.read_bytes, independent.write_bytes
        ));
    }
    let reached: std::collections::BTreeSet<&str> = counts
        .per_site
        .keys()
        .map(|(f, _)| f.as_str())
        .chain([counts.function.as_str()])
        .collect();
    let mut external: Vec<&str> = reached
        .iter()
        .filter_map(|f| model.functions.get(*f))
        .flat_map(|f| f.calls.iter())
        .map(|c| c.callee.as_str())
        .filter(|c| !model.functions.contains_key(*c))
        .collect();
    external.sort();
    external.dedup();
    if !external.is_empty() {
        reasons.push(format!(
            "calls outside the module ({}): valgrind sees their accesses, the IR does not",
            external.join(", ")
        ));
    }
    let atomics = reached
        .iter()
        .filter_map(|f| model.functions.get(*f))
        .any(|f| f.sites.iter().any(|s| s.atomic));
    if atomics {
        reasons.push(
            "atomics: lackey sees a locked read-modify-write as a load plus a compare-and-swap \
             (2 reads, 1 write), metron as 1 read and 1 write"
                .into(),
        );
    }
    if crate::explain::has_weighted_data_branch(model, counts) {
        reasons.push(
            "data-dependent branches: the static count is the branch policy's, and a `?:` that \
             the pipeline turns into a select reads both values where -O0 branches"
                .into(),
        );
    }
    if counts.notes.iter().any(|n| n.contains("recursion")) {
        reasons.push("recursion: the static count covers one activation".into());
    }
    SideBySide {
        static_reads,
        static_writes,
        traced_reads: traced(AccessKind::Read),
        traced_writes: traced(AccessKind::Write),
        independent,
        agrees,
        reasons,
    }
}
