//! Under CI a test that needs a missing tool fails, naming the tool and its install line;
//! elsewhere it is skipped and the skip is written to METRON_SKIP_LOG. Its own test process,
//! because it sets environment variables.

use metron_measure::tool::{testing, Tool};

const MISSING: Tool = Tool::new("metron-no-such-tool", "metron-pkg", "testing");

#[test]
fn missing_tool_fails_under_ci_and_is_logged_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("skips.txt");
    std::env::remove_var("CI");
    std::env::set_var("METRON_REQUIRE_TOOLS", "0");
    std::env::set_var("METRON_SKIP_LOG", &log);
    assert!(!testing::tools_required());
    assert_eq!(testing::require(&MISSING), None);
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(
        logged.starts_with("SKIPPED missing_tool_fails_under_ci_and_is_logged_elsewhere: ")
            && logged.contains("apt-get install -y metron-pkg"),
        "{logged}"
    );

    for (var, value) in [("METRON_REQUIRE_TOOLS", "1"), ("CI", "true")] {
        std::env::set_var("METRON_REQUIRE_TOOLS", "0");
        std::env::set_var(var, value);
        assert!(testing::tools_required(), "{var}={value}");
        let panic = std::panic::catch_unwind(|| testing::require(&MISSING)).unwrap_err();
        let msg = panic.downcast_ref::<String>().unwrap();
        assert!(
            msg.contains("metron-no-such-tool") && msg.contains("apt-get install -y metron-pkg"),
            "{msg}"
        );
        std::env::remove_var("CI");
    }
}
