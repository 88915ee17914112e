//! A missing `clang` or `opt` (found as `clang-14`, `opt-14`... by the tool rule) gets the install line (issue 5, bad input). This file is
//! its own test process because it changes PATH.

use std::path::Path;

use metron_memory::{frontend, Analysis};

#[test]
fn missing_clang_and_opt_name_the_package_to_install() {
    let empty = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/memory/kernels.c");
    let ll = empty.path().join("k.ll");
    std::fs::write(&ll, "define void @f() {\n  ret void\n}\n").unwrap();
    // Only this test runs in this process, so changing PATH affects nothing else.
    std::env::set_var("PATH", empty.path());
    let e = Analysis::load(&src, frontend::DEFAULT_PIPELINE)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("`clang` is not installed") && e.contains("apt-get install -y clang-14"),
        "{e}"
    );
    let e = Analysis::load(&ll, frontend::DEFAULT_PIPELINE)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("`opt` is not installed") && e.contains("apt-get install -y llvm-14"),
        "{e}"
    );
}
