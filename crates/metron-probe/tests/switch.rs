//! The run-time call-tree switch is process-wide, so it is tested in its own process.

use metron_probe::{region, Stopwatch};

#[test]
fn call_tree_switches_off_at_run_time() {
    metron_probe::set_call_tree(false);
    {
        let _a = region!("switch.off");
    }
    metron_probe::set_call_tree(true);
    {
        let _b = region!("switch.on");
    }
    // Flat timers run either way.
    assert_eq!(Stopwatch::new("switch.off").count(), 1);
    assert_eq!(Stopwatch::new("switch.on").count(), 1);
    let p = metron_probe::snapshot();
    let names: Vec<&str> = p
        .threads
        .iter()
        .flat_map(|t| t.tree.iter().map(|n| n.name.as_str()))
        .collect();
    assert!(names.contains(&"switch.on"));
    assert!(!names.contains(&"switch.off"), "{names:?}");
    // The profile records the switch as it was when it was taken, both ways.
    assert!(p.call_tree);
    metron_probe::set_call_tree(false);
    let off = metron_probe::snapshot();
    metron_probe::set_call_tree(true);
    assert!(
        !off.call_tree,
        "a profile taken with the tree off says it is on"
    );
}

#[test]
fn tsc_is_recalibrated_over_the_whole_run() {
    let startup = metron_probe::clock::global_ticks_per_ns();
    std::thread::sleep(std::time::Duration::from_millis(120));
    let p = metron_probe::snapshot();
    if p.clock.name != "tsc" {
        metron_measure::tool::testing::skip(&format!(
            "process clock is {}, not an invariant TSC",
            p.clock.name
        ));
        return;
    }
    assert_eq!(p.clock.calibration, "whole_run");
    // Two independent estimates of one frequency (2 ms window and >= 120 ms) agree closely.
    let rel = (p.clock.ticks_per_ns / startup - 1.0).abs();
    assert!(
        rel < 0.01,
        "startup {startup}, whole run {}",
        p.clock.ticks_per_ns
    );
}
