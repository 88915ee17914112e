//! The binary side against independent ground truth: gcc's output, callgrind's counts.
mod common;
use common::*;

use std::path::Path;

use metron_static::binary::Binary;
use metron_static::callgrind::Profile;
use metron_static::cfg::Cfg;
use metron_static::validate::{load_bias, measured_per_instruction, run_callgrind};
use metron_static::StaticError;

#[test]
fn non_elf_and_truncated_files_are_errors_naming_the_file() {
    let e = Binary::parse(b"#!/bin/sh\necho hi\n", Path::new("script.sh")).unwrap_err();
    assert!(matches!(e, StaticError::NotElf { .. }), "{e}");
    assert!(e.to_string().starts_with("script.sh:"), "{e}");
    // Every prefix of a real ELF is an error or a model, never a panic.
    if !have("gcc", "gcc") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bin = build(
        "gcc",
        &example("stream.c"),
        &["-g", "-O2"],
        dir.path(),
        true,
    );
    let bytes = std::fs::read(&bin).unwrap();
    for len in (0..bytes.len()).step_by(bytes.len() / 97 + 1) {
        let _ = Binary::parse(&bytes[..len], Path::new("cut"));
    }
    let mut flipped = bytes.clone();
    for i in (64..flipped.len()).step_by(331) {
        flipped[i] ^= 0x5a;
    }
    let _ = Binary::parse(&flipped, Path::new("flipped"));
}

#[test]
fn binary_without_debug_info_says_rebuild_with_g() {
    if !have("gcc", "gcc") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bin = build("gcc", &example("stream.c"), &["-O2"], dir.path(), true);
    let e = Binary::load(&bin).unwrap_err();
    assert!(matches!(e, StaticError::NoDebugInfo { .. }), "{e}");
    assert!(e.to_string().contains("rebuild with -g"), "{e}");
}

/// Callgrind counts every instruction; all instructions of a correct basic block run equally
/// often, and a natural loop's header runs at least as often as any block of its own body.
#[test]
fn basic_blocks_and_loops_agree_with_callgrind_pie_and_non_pie() {
    if !have("gcc", "gcc") || !have("valgrind", "valgrind") {
        return;
    }
    for (flags, pie) in [
        (["-g", "-O0"], true),
        (["-g", "-O2"], false),
        (["-g", "-O3"], true),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let bin = build("gcc", &example("dgemm.c"), &flags, dir.path(), pie);
        let binary = Binary::load(&bin).unwrap();
        assert_eq!(binary.pie, pie);
        let profile: Profile = run_callgrind(&bin, &["8".to_string()], dir.path()).unwrap();
        let counts = profile.object(&bin).unwrap();
        let bias = load_bias(&binary, counts);
        // callgrind reports PIE code at its link-time addresses here; the bias is whatever
        // makes the function entries meet, which the entry check below verifies.
        assert_eq!(bias % 0x1000, 0);
        for name in ["dgemm_naive", "dgemm_blocked"] {
            let f = binary.function(name).unwrap();
            let measured = measured_per_instruction(f, counts, bias);
            assert!(measured[0] > 0.0, "{name} entry executed");
            let cfg = Cfg::build(f);
            for b in &cfg.blocks {
                let first = measured[b.first];
                for (i, m) in measured[b.first..b.end].iter().enumerate() {
                    assert_eq!(
                        *m, first,
                        "{flags:?} {name}: block 0x{:x} instr {i}",
                        b.start
                    );
                }
            }
            // naive: 3 loops; blocked: 6 (gcc may not fully unroll the inner BS=8 loops at -O2).
            let want = if name == "dgemm_naive" { 3 } else { 6 };
            if flags[1] != "-O3" {
                assert_eq!(cfg.loops.len(), want, "{flags:?} {name}");
            }
            for l in &cfg.loops {
                let h = measured[cfg.blocks[l.header].first];
                let li = cfg.loops.iter().position(|x| x.header == l.header).unwrap();
                for &b in l
                    .blocks
                    .iter()
                    .filter(|&&b| cfg.innermost_loop(b) == Some(li))
                {
                    assert!(measured[cfg.blocks[b].first] <= h, "{flags:?} {name}");
                }
                if let Some(p) = l.parent {
                    assert!(cfg.loops[p].blocks.is_superset(&l.blocks));
                    assert_eq!(l.depth, cfg.loops[p].depth + 1);
                }
            }
        }
    }
}

#[test]
fn instructions_carry_lines_and_inline_frames() {
    if !have("gcc", "gcc") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bin = build(
        "gcc",
        &example("stream.c"),
        &["-g", "-O2"],
        dir.path(),
        true,
    );
    let binary = Binary::load(&bin).unwrap();
    let main = binary.function("main").unwrap();
    // copy/scale/add/triad are inlined into main at -O2: the innermost frame names them and
    // the outer frame is main at the call line.
    let inlined: Vec<_> = main
        .instructions
        .iter()
        .filter(|i| i.frames.len() >= 2)
        .filter_map(|i| i.frames[0].function.clone())
        .collect();
    assert!(inlined.iter().any(|f| f == "triad"), "{inlined:?}");
    let triad_line = main
        .instructions
        .iter()
        .filter(|i| i.frames.len() >= 2 && i.frames[0].function.as_deref() == Some("triad"))
        .find_map(|i| i.inner_line().map(|l| l.line))
        .unwrap();
    assert!((25..=28).contains(&triad_line), "{triad_line}");
    assert!(main.source_file().unwrap().ends_with("stream.c"));
    assert!(binary
        .compilation_units
        .iter()
        .any(|(n, _)| n.ends_with("stream.c")));
}

/// examples/corpus/gemver_suite.c at clang -O2 `-fno-inline`: clang drops the constant `n`,
/// so `x`, `y`, `z` are the 7th to 9th integer arguments, on the stack. Its DWARF places them
/// at `DW_OP_fbreg +56/+64/+72` from `rsp` after the prologue's six pushes (the code reads
/// `x` as `0x38(%rsp)`), not from `rsp` at entry: read as slots 6-8 before, so the runs gave
/// the kernel wrong pointers and took the alias test's scalar fallback.
#[test]
fn stack_parameters_of_a_function_that_pushes_are_placed_past_its_pushes() {
    if !have("clang", "clang-14") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let flags = ["-g", "-O2", "-fno-inline", "-DMINI"];
    let (bin, _) = build_suite("clang", "gemver_suite.c", &flags, dir.path());
    let binary = Binary::load(&bin).unwrap();
    let kernel = binary
        .functions
        .iter()
        .find(|f| f.name == "kernel_gemver")
        .unwrap();
    let s = &kernel.signature;
    let pushes = kernel
        .instructions
        .iter()
        .take_while(|i| i.mnemonic == iced_x86::Mnemonic::Push)
        .count();
    assert!(pushes > 0, "the case needs a prologue that pushes");
    assert_eq!(s.integer_argument(0), Some("A"), "{s:?}");
    assert_eq!(s.integer_argument(5), Some("w"), "{s:?}");
    assert_eq!(s.integer_argument(6), Some("x"), "{s:?}");
    assert_eq!(s.integer_argument(8), Some("z"), "{s:?}");
    assert_eq!(s.integer_arguments(), 9, "{s:?}");
}
