#![allow(dead_code)]
use std::path::{Path, PathBuf};

use metron_static::binary::Binary;
use metron_static::category::Architecture;
use metron_static::program::ProgramModel;
use metron_static::validate::{compare_program, run_callgrind, Comparison};

pub fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/static")
        .join(name)
}

/// A kernel of `examples/corpus/`.
pub fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/corpus")
        .join(name)
}

/// The catalogue tool named `program`, or a visible skip (a failure under CI:
/// metron_measure::tool::testing). `_package` is kept for the call sites' readability.
pub fn have(program: &str, _package: &str) -> bool {
    metron_measure::tool::testing::require_named(program).is_some()
}

/// Compiles `src` with `compiler` and `flags` into `dir`.
pub fn build(compiler: &str, src: &Path, flags: &[&str], dir: &Path, pie: bool) -> PathBuf {
    let out = dir.join(format!(
        "{}-{}-{}{}",
        src.file_stem().unwrap().to_string_lossy(),
        compiler,
        flags.join("").replace(['-', ' '], ""),
        if pie { "-pie" } else { "-nopie" }
    ));
    let mut cmd = metron_measure::tool::testing::command(compiler);
    cmd.args(flags).arg(if pie { "-fPIE" } else { "-fno-PIE" });
    cmd.arg(if pie { "-pie" } else { "-no-pie" });
    if src.extension().is_some_and(|e| e == "cpp") && compiler == "gcc" {
        cmd.arg("-lstdc++");
    }
    let status = cmd
        .arg(src)
        .arg("-o")
        .arg(&out)
        .arg("-lm")
        .status()
        .unwrap();
    assert!(status.success(), "{compiler} failed on {}", src.display());
    out
}

/// Builds, models, runs callgrind; returns the comparisons per function of the source file.
pub fn validate(
    compiler: &str,
    src: &Path,
    flags: &[&str],
    pie: bool,
    args: &[&str],
    params: &[(&str, i64)],
) -> Vec<Comparison> {
    validate_with_model(compiler, src, flags, pie, args, params).0
}

/// [`validate`], also returning the model it built (for tests that read its calibration).
pub fn validate_with_model(
    compiler: &str,
    src: &Path,
    flags: &[&str],
    pie: bool,
    args: &[&str],
    params: &[(&str, i64)],
) -> (Vec<Comparison>, ProgramModel) {
    let dir = tempfile::tempdir().unwrap();
    let bin = build(compiler, src, flags, dir.path(), pie);
    let binary = Binary::load(&bin).unwrap();
    let source = metron_static::source::parse_file(src, &[]).unwrap();
    let program = ProgramModel::build(&binary, &source, false);
    for (_, m) in &program.functions {
        for l in &m.loops {
            if let Some(n) = &l.note {
                eprintln!("{}: loop@0x{:x}: {n}", m.name, l.header_address);
            }
        }
    }
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let profile = run_callgrind(&bin, &args, dir.path()).unwrap();
    let counts = profile.object(&bin).expect("binary in profile");
    let arch = Architecture::x86_64();
    let binding = metron_symbolic::binding(params.iter().copied());
    let out = compare_program(&binary, &program, &arch, &binding, counts).unwrap();
    for c in &out {
        eprintln!(
            "{compiler} {flags:?} {:<40} predicted {:>12.0} measured {:>12.0} error {:>7.3}%",
            c.region,
            c.predicted.total,
            c.measured.total,
            c.total_error_percent()
        );
    }
    (out, program)
}

/// The row of the function users call `name` (a clone is reported under it).
pub fn kernel<'a>(cs: &'a [Comparison], name: &str) -> &'a Comparison {
    cs.iter()
        .find(|c| c.region == name || c.region.starts_with(&format!("{name} (clone ")))
        .unwrap_or_else(|| panic!("no row for {name}"))
}

/// Builds generator seed `seed` with `cc level -fno-inline` and validates `nest` at the
/// seed's own sizes.
pub fn nest_row(seed: u64, cc: &str, level: &str) -> Comparison {
    let cs = validate_nest(seed, cc, &["-g", level, "-fno-inline"]);
    kernel(&cs, "nest").clone()
}

/// Builds generator seed `seed` with `cc flags` and validates it at the seed's own sizes
/// (every function's rows).
pub fn validate_nest(seed: u64, cc: &str, flags: &[&str]) -> Vec<Comparison> {
    validate_nest_with_model(seed, cc, flags).0
}

/// [`validate_nest`], also returning the model it built.
pub fn validate_nest_with_model(
    seed: u64,
    cc: &str,
    flags: &[&str],
) -> (Vec<Comparison>, ProgramModel) {
    let nest = metron_nestgen::Nest::random(seed, &metron_nestgen::Options::default());
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join(format!("nest_{seed}.c"));
    std::fs::write(&src, nest.c_source()).unwrap();
    let args: Vec<String> = nest.values.iter().map(|v| v.to_string()).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let params = [("n", nest.values[0]), ("m", nest.values[1])];
    validate_with_model(cc, &src, flags, true, &args, &params)
}

/// The error in percent of `kernel_name` in `src` built with `cc flags`, its branch profile
/// recorded at the sizes `train` and the model evaluated at `test` (also the program's
/// arguments), and the recorded profile.
pub fn profiled_error_at(
    cc: &str,
    src: &std::path::Path,
    kernel_name: &str,
    flags: &[&str],
    train: &[(&str, i64)],
    test: &[(&str, i64)],
) -> (f64, metron_static::branch_profile::BranchProfile) {
    use metron_static::branch_profile;
    use metron_static::category::Architecture;
    use metron_static::program::ProgramModel;
    use metron_static::validate::{compare_program, run_callgrind};
    let dir = tempfile::tempdir().unwrap();
    let bin = build(cc, src, flags, dir.path(), true);
    let binary = Binary::load(&bin).unwrap();
    let args = |p: &[(&str, i64)]| p.iter().map(|(_, v)| v.to_string()).collect::<Vec<_>>();
    let mut source = metron_static::source::parse_file(src, &[]).unwrap();
    let counts = run_callgrind(&bin, &args(train), dir.path()).unwrap();
    let binding = metron_symbolic::binding(train.iter().copied());
    let profile = branch_profile::record(
        &binary,
        &source,
        false,
        &binding,
        counts.object(&bin).unwrap(),
    )
    .unwrap();
    branch_profile::apply(&mut source, &profile);
    let program = ProgramModel::build(&binary, &source, false);
    let counts = run_callgrind(&bin, &args(test), dir.path()).unwrap();
    let binding = metron_symbolic::binding(test.iter().copied());
    let cs = compare_program(
        &binary,
        &program,
        &Architecture::x86_64(),
        &binding,
        counts.object(&bin).unwrap(),
    )
    .unwrap();
    (kernel(&cs, kernel_name).total_error_percent(), profile)
}

/// Builds examples/corpus/`file` with suite/benchutil.c (`cc flags -Isuite`) into `dir`:
/// the binary and the `-I`/`-D` flags its source is parsed with.
pub fn build_suite(cc: &str, file: &str, flags: &[&str], dir: &Path) -> (PathBuf, Vec<String>) {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/corpus");
    let bin = dir.join(file.trim_end_matches(".c"));
    let include = format!("-I{}", corpus.join("suite").display());
    let status = metron_measure::tool::testing::command(cc)
        .args(flags)
        .arg(&include)
        .args([corpus.join(file), corpus.join("suite/benchutil.c")])
        .arg("-o")
        .arg(&bin)
        .arg("-lm")
        .status()
        .unwrap();
    assert!(status.success(), "{cc} {flags:?} {file}");
    let defines = flags.iter().filter(|f| f.starts_with("-D"));
    let cflags = std::iter::once(include)
        .chain(defines.map(|f| f.to_string()))
        .collect();
    (bin, cflags)
}

/// [`build_suite`], modelled and run under callgrind (no arguments: its sizes are the
/// dataset's): the model and its comparison with callgrind per function and loop.
pub fn suite_program(
    cc: &str,
    file: &str,
    flags: &[&str],
    dir: &Path,
) -> (metron_static::analysis::Analysis, Vec<Comparison>) {
    let (bin, cflags) = build_suite(cc, file, flags, dir);
    let options = metron_static::analysis::SourceOptions {
        cflags,
        ..Default::default()
    };
    let analysis = metron_static::analysis::analyse(&bin, &options).unwrap();
    let profile = run_callgrind(&bin, &[], dir).unwrap();
    let counts = profile.object(&bin).unwrap();
    let rows = compare_program(
        &analysis.binary,
        &analysis.program,
        &Architecture::x86_64(),
        &metron_symbolic::binding([]),
        counts,
    )
    .unwrap();
    (analysis, rows)
}

/// Corpus `file` copied into `dir` with its sizes (`-DN=36 -DM=8`) defined in the file: the
/// harness parses the source without the build's `-D`.
pub fn with_sizes(dir: &Path, file: &str, sizes: &str) -> PathBuf {
    let defines: String = sizes
        .split_whitespace()
        .map(|d| format!("#define {}\n", d.trim_start_matches("-D").replace('=', " ")))
        .collect();
    let text = std::fs::read_to_string(example(&format!("../corpus/{file}"))).unwrap();
    let src = dir.join(file);
    std::fs::write(&src, format!("{defines}{text}")).unwrap();
    src
}
