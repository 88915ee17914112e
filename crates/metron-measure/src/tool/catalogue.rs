//! Every external tool metron runs, in one list: `metron doctor` prints it, the tests resolve
//! through it, and `scripts/install-deps` installs each one's Debian package (a test checks
//! that the two agree). A crate that needs a new tool adds it here, not beside its own code.

use super::Tool;

pub const GIT: Tool = Tool::new("git", "git", "recording the project's commit")
    .needed_by(&["measure (environment capture)"]);

pub const CC: Tool = Tool::new("cc", "build-essential", "building the bundled C examples")
    .needed_by(&["demo (probe step)"]);

pub const GCC: Tool = Tool::new("gcc", "gcc", "building C programs to analyse")
    .needed_by(&["tests of static, probe and the demo"]);

pub const GXX: Tool = Tool::new("g++", "g++", "building C++ programs to analyse")
    .needed_by(&["tests of static and probe"]);

/// clang's JSON AST (metron static) and C to LLVM IR (metron memory). 14 is Debian 12's and
/// what metron is tested on; the IR reader handles LLVM 12 to 17.
pub const CLANG: Tool = Tool::new(
    "clang",
    "clang-14",
    "parsing C/C++ and compiling C to LLVM IR",
)
.needed_by(&["static", "memory"])
.llvm(14, 17);

pub const CLANGXX: Tool = Tool::new("clang++", "clang-14", "building C++ programs to analyse")
    .needed_by(&["tests of static"])
    .llvm(14, 17);

/// Resolve it with `resolve_major(clang's major)`: opt must read the IR that clang wrote.
pub const OPT: Tool = Tool::new(
    "opt",
    "llvm-14",
    "canonicalising LLVM IR and scalar evolution (loop trip counts)",
)
.needed_by(&["memory"])
.llvm(14, 17);

/// Joins the modules of several source files (`metron memory` with several files).
pub const LLVM_LINK: Tool = Tool::new(
    "llvm-link",
    "llvm-14",
    "linking the LLVM IR of several source files",
)
.needed_by(&["memory (several files)"])
.llvm(14, 17);

pub const VALGRIND: Tool = Tool::new(
    "valgrind",
    "valgrind",
    "measuring per-instruction execution counts with callgrind",
)
.needed_by(&["static validate"]);

/// A debug-info-free copy of a binary for valgrind 3.19, which cannot read clang 14's DWARF 5
/// of multi-file programs (`metron_measure::valgrind`).
pub const OBJCOPY: Tool = Tool::new(
    "objcopy",
    "binutils",
    "copying a binary without its debug information",
)
.needed_by(&["static validate (clang -g binaries of several files)"]);

pub const PYTHON3: Tool = Tool::new(
    "python3",
    "python3",
    "running the Python models metron emits",
)
.needed_by(&["tests of static and symbolic"]);

pub const PYPY3: Tool = Tool::new("pypy3", "pypy3", "recording PyPy JIT logs").needed_by(&[
    "jit record",
    "jit calibrate",
    "jit tau",
    "jit tune",
]);

pub const OCTAVE: Tool = Tool::new(
    "octave-cli",
    "octave",
    "running MATLAB code to check and time transformations",
)
.needed_by(&["matlab check", "matlab profile", "matlab bench"]);

pub const MKOCTFILE: Tool = Tool::new(
    "mkoctfile",
    "octave-dev",
    "building metron pep's Octave MEX interface",
)
.needed_by(&["tests of pep (the Octave interface)"]);

/// `perf stat -I`, the peer metron pep is compared with (scripts/bench-pep-perf-stat.py).
pub const PERF: Tool = Tool::new(
    "perf",
    "linux-perf",
    "comparing metron pep with perf stat -I",
)
.needed_by(&["scripts/bench-pep-perf-stat.py"]);

pub const SBATCH: Tool = Tool::new(
    "sbatch",
    "slurm-client",
    "submitting metron tune units to Slurm",
)
.needed_by(&["tune run --executor slurm"]);
pub const SQUEUE: Tool = Tool::new(
    "squeue",
    "slurm-client",
    "following metron tune's Slurm jobs",
)
.needed_by(&["tune run --executor slurm"]);
pub const SACCT: Tool = Tool::new(
    "sacct",
    "slurm-client",
    "final states of metron tune's Slurm jobs",
)
.needed_by(&["tune run --executor slurm"]);
/// The single-node Slurm of `scripts/slurm-local`, which the Slurm executor's test starts.
pub const SLURMCTLD: Tool = Tool::new("slurmctld", "slurmctld", "a local Slurm controller")
    .needed_by(&["tests of tune (Slurm executor)"]);
pub const SLURMD: Tool = Tool::new("slurmd", "slurmd", "a local Slurm node daemon")
    .needed_by(&["tests of tune (Slurm executor)"]);
pub const MUNGED: Tool = Tool::new("munged", "munge", "Slurm's authentication daemon")
    .needed_by(&["tests of tune (Slurm executor)"]);
pub const MPICC: Tool = Tool::new(
    "mpicc",
    "libopenmpi-dev",
    "building examples/tune (MPI + OpenMP)",
)
.needed_by(&["demo (tune step)", "tests of tune"]);
pub const MPIRUN: Tool = Tool::new("mpirun", "openmpi-bin", "running examples/tune's MPI ranks")
    .needed_by(&["demo (tune step)", "tests of tune"]);

/// Debian's Chromium, driven headless to open `metron report`'s pages as a person would.
pub const CHROMIUM: Tool = Tool::new(
    "chromium",
    "chromium",
    "opening metron report's HTML pages in a real browser",
)
.needed_by(&["tests of report (crates/metron/tests/browser.rs)"]);
/// The WebDriver server of the same Chromium build, which the browser test talks to.
pub const CHROMEDRIVER: Tool = Tool::new(
    "chromedriver",
    "chromium-driver",
    "driving headless Chromium through WebDriver",
)
.needed_by(&["tests of report (crates/metron/tests/browser.rs)"]);

/// Every tool above, in the order `metron doctor` lists them.
pub const ALL: &[Tool] = &[
    GIT,
    CC,
    GCC,
    GXX,
    CLANG,
    CLANGXX,
    OPT,
    LLVM_LINK,
    VALGRIND,
    OBJCOPY,
    PYTHON3,
    PYPY3,
    OCTAVE,
    MKOCTFILE,
    PERF,
    SBATCH,
    SQUEUE,
    SACCT,
    SLURMCTLD,
    SLURMD,
    MUNGED,
    MPICC,
    MPIRUN,
    CHROMIUM,
    CHROMEDRIVER,
];

/// The catalogue entry for a plain program name (`"clang"`), for tests that name compilers.
pub fn by_name(program: &str) -> Option<&'static Tool> {
    ALL.iter().find(|t| t.program == program)
}
