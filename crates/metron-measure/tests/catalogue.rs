//! The tool catalogue and `scripts/install-deps` describe the same tools: every tool metron
//! resolves is installed by the script, with the same package, and the script checks nothing
//! metron does not use.

use std::collections::BTreeSet;
use std::path::Path;

use metron_measure::tool::ALL;

fn install_deps_tools() -> BTreeSet<(String, String)> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/install-deps");
    let text = std::fs::read_to_string(&script).unwrap();
    let start = text
        .find("TOOLS=(")
        .expect("a TOOLS=( array in install-deps");
    let body = &text[start + "TOOLS=(".len()..];
    let body = &body[..body.find("\n)").expect("the TOOLS array closes")];
    body.lines()
        .map(str::trim)
        .filter(|l| l.starts_with('"'))
        .map(|l| {
            let mut w = l.trim_matches('"').split_whitespace();
            (w.next().unwrap().to_string(), w.next().unwrap().to_string())
        })
        .collect()
}

#[test]
fn install_deps_installs_every_catalogue_tool() {
    let script = install_deps_tools();
    let catalogue: BTreeSet<(String, String)> = ALL
        .iter()
        .map(|t| (t.program.to_string(), t.debian_package.to_string()))
        .collect();
    assert_eq!(
        script, catalogue,
        "scripts/install-deps TOOLS vs tool::catalogue::ALL"
    );
}

#[test]
fn every_tool_says_what_needs_it() {
    for t in ALL {
        assert!(!t.needed_by.is_empty(), "{} has no needed_by", t.program);
        assert!(!t.purpose.is_empty(), "{} has no purpose", t.program);
    }
}
