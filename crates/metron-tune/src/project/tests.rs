use super::*;

const GOOD: &str = r#"
name = "poisson"

[[range]]
name = "ranks"
start = 1
count = 2

[[range]]
name = "pre"
start = 0
count = 4

[[list]]
name = "smoother"
values = ['"GS"', '"Jac"', '"RBGS"']

[[const]]
name = "n"
value = 129

[[derived]]
name = "cores"
expr = "ranks * 2"

[restrictions]
require = ["cores <= 2", "pre >= 1"]
predefined = [{ ranks = 1, pre = 2, smoother = '"GS"' }]

[generate]
write = [{ file = "params.knowledge", template = "smoother = {smoother}\npre = {pre}\n" }]

[run]
command = ["mpirun", "-np", "{ranks}", "{project_dir}/solver", "{n}"]
cores = "cores"

[fitness]
source = "probe"
region = "solve"
strategy = "max"
"#;

fn parse(text: &str) -> Result<Project> {
    Project::parse(Path::new("p.toml"), text)
}

fn input_line(e: TuneError) -> (usize, String) {
    match e {
        TuneError::Input { line, message, .. } => (line, message),
        other => panic!("expected an input error, got {other}"),
    }
}

#[test]
fn good_project_parses() {
    let p = parse(GOOD).unwrap();
    assert_eq!(p.space.genes.len(), 3);
    // ranks = 1 only (cores <= 2), pre 1..3, 3 smoothers.
    assert_eq!(p.space.all().count(), 9);
    assert_eq!(p.predefined, vec![vec![0, 2, 0]]);
    assert_eq!(p.stages.len(), 2);
    assert_eq!(p.method, Method::Ga);
}

#[test]
fn unknown_placeholder_names_its_line() {
    let bad = GOOD.replace("\"{n}\"]", "\"{nn}\"]");
    let (line, msg) = input_line(parse(&bad).unwrap_err());
    let expected = GOOD.lines().position(|l| l.contains("{n}\"]")).unwrap() + 1;
    assert_eq!(line, expected);
    assert!(msg.contains("{nn}"), "{msg}");
}

#[test]
fn unknown_placeholder_in_a_multiline_template_names_its_line() {
    let bad = GOOD.replace("pre = {pre}", "pre = {pree}");
    let (line, msg) = input_line(parse(&bad).unwrap_err());
    let expected = GOOD.lines().position(|l| l.contains("write = [")).unwrap() + 1;
    assert_eq!(line, expected);
    assert!(msg.contains("pree"));
}

#[test]
fn parameter_defined_twice_names_both_lines() {
    let bad = GOOD.replace("name = \"n\"", "name = \"pre\"");
    let (line, msg) = input_line(parse(&bad).unwrap_err());
    let second = bad.lines().position(|l| l == "name = \"pre\"").unwrap();
    let first = bad.lines().position(|l| l == "name = \"pre\"").unwrap() + 1;
    let dup = bad
        .lines()
        .enumerate()
        .filter(|(_, l)| *l == "name = \"pre\"")
        .map(|(i, _)| i + 1)
        .collect::<Vec<_>>();
    assert_eq!(dup.len(), 2);
    assert_eq!(line, dup[1]);
    assert!(
        msg.contains(&format!("first on line {}", dup[0])),
        "{msg} {second} {first}"
    );
}

#[test]
fn undefined_variable_in_restriction_is_an_error() {
    let bad = GOOD.replace("\"pre >= 1\"", "\"post >= 1\"");
    let (line, msg) = input_line(parse(&bad).unwrap_err());
    assert!(msg.contains("post"), "{msg}");
    assert_eq!(
        line,
        bad.lines().position(|l| l.starts_with("require")).unwrap() + 1
    );
}

#[test]
fn unknown_key_is_an_error_with_a_line() {
    let bad = GOOD.replace("[fitness]", "[fitness]\nregoin = \"x\"");
    let (line, msg) = input_line(parse(&bad).unwrap_err());
    assert!(msg.contains("regoin"), "{msg}");
    assert!(line > 0);
}

#[test]
fn shell_string_needs_shell_true() {
    let bad = GOOD.replace(
        "command = [\"mpirun\", \"-np\", \"{ranks}\", \"{project_dir}/solver\", \"{n}\"]",
        "command = \"mpirun -np {ranks} ./solver\"",
    );
    let (_, msg) = input_line(parse(&bad).unwrap_err());
    assert!(msg.contains("shell = true"), "{msg}");
}
