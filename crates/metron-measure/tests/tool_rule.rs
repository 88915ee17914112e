//! The one rule for finding tools, on a PATH of fake tools: the plain name first, then
//! Debian's versioned names lowest first, each only in the accepted version range. Its own
//! test process, because it sets PATH.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use metron_measure::tool::{Tool, ToolError};

fn fake(dir: &Path, name: &str, version_line: &str) {
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/sh\necho '{version_line}'\n")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn plain_then_versioned_names_within_the_range() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    // A plain name too new for the range, versioned names on two PATH entries, one too old.
    fake(a.path(), "fclang", "Ubuntu clang version 19.1.0");
    fake(a.path(), "fclang-16", "Debian clang version 16.0.6");
    fake(b.path(), "fclang-15", "Debian clang version 15.0.7");
    fake(b.path(), "fclang-13", "Debian clang version 13.0.1");
    fake(b.path(), "fopt-16", "LLVM version 16.0.6");
    fake(b.path(), "fopt-15", "LLVM version 15.0.7");
    fake(a.path(), "fvalgrind", "valgrind-3.19.0");
    let path = std::env::join_paths([a.path(), b.path()]).unwrap();
    // Only this test runs in this process, so changing PATH affects nothing else.
    std::env::set_var("PATH", &path);

    let clang = Tool::new("fclang", "clang-14", "testing").llvm(14, 17);
    let r = clang.resolve().unwrap();
    assert_eq!(
        r.path,
        b.path().join("fclang-15"),
        "lowest accepted version first"
    );
    assert_eq!(r.version.as_deref(), Some("15.0.7"));

    let opt = Tool::new("fopt", "llvm-14", "testing").llvm(14, 17);
    assert_eq!(
        opt.resolve_major(16).unwrap().path,
        b.path().join("fopt-16")
    );
    let e = opt.resolve_major(14).unwrap_err();
    assert!(
        e.is_missing() && e.to_string().contains("apt-get install -y llvm-14"),
        "{e}"
    );

    // A plain name is enough for a tool without a version rule.
    let vg = Tool::new("fvalgrind", "valgrind", "testing");
    assert_eq!(vg.resolve().unwrap().major(), Some(3));

    // Too new everywhere: the error names what was found and what is needed.
    let strict = Tool::new("fclang", "clang-14", "testing").llvm(17, 18);
    match strict.resolve().unwrap_err() {
        ToolError::WrongVersion(m) => {
            assert_eq!(m.found, "19.1.0");
            let msg = m.to_string();
            assert!(
                msg.contains("from 17 to 18") && msg.contains("clang-14"),
                "{msg}"
            );
        }
        other => panic!("{other}"),
    }
    let none = Tool::new("fnothing", "nothing-pkg", "testing");
    assert!(none
        .locate()
        .unwrap_err()
        .to_string()
        .contains("apt-get install -y nothing-pkg"));
}
