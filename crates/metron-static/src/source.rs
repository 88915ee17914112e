//! The source side of 004 §III.A–B: clang's JSON AST (`clang -Xclang -ast-dump=json
//! -fsyntax-only`, with the build's flags so that macros resolve), from which each `for` loop's
//! static control part (init, condition, step) becomes a `metron_symbolic::Loop`.

use std::path::{Path, PathBuf};

use metron_symbolic::{AffineExpr, Bound, CmpOp, Condition, DerivedTrip, Loop};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Result, StaticError};

mod allocation;
mod call;
mod continued;
mod data_bound;
mod derived_step;
#[cfg(test)]
mod fixtures;
mod global_array;
pub mod include_search;
mod locals;
mod minmax_call;
mod program_input;
mod residue_start;
mod tile;
mod tile_condition;
mod while_loop;
pub use allocation::Allocation;
pub use call::{SourceCall, VaryingArgument};
pub use data_bound::DataBound;
pub use global_array::GlobalArray;
use minmax_call::Helpers;
pub use program_input::ProgramInput;
pub use tile::SourceTile;
pub use tile_condition::TileCut;

pub use metron_measure::tool::CLANG;

/// A source `for` loop and its static control part, when affine.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SourceLoop {
    pub function: String,
    /// Line of the `for` keyword, and the last line of the statement.
    pub line: u32,
    pub end_line: u32,
    /// Index of the enclosing `for` loop in the same function.
    pub parent: Option<usize>,
    /// The affine loop, or why it is not one (then it needs an annotation).
    pub scop: std::result::Result<Loop, String>,
    /// `#pragma @Annotation` entries that apply to this loop.
    pub annotations: Vec<(String, String)>,
    /// The parts that were affine even when the whole was not: (variable, start), stride.
    pub partial: (Option<(String, AffineExpr)>, Option<i64>),
    /// A step that is a parameter: the trip count the scop's end names, derived from the
    /// parameters when a count is evaluated.
    #[serde(default)]
    pub derived: Option<DerivedTrip>,
    /// An exit test that compares the counter with data: the scop's end is its parameter.
    #[serde(default)]
    pub data_bound: Option<DataBound>,
    /// A loop inside the tiles of an enclosing loop: its scop counts it over all tiles, so
    /// the nests it is in leave the tile loop out.
    #[serde(default)]
    pub tile: Option<SourceTile>,
    /// A loop that goes on with the counter an earlier loop left (`for (; i < n; i++)`
    /// after a hand-unrolled loop): its start is that loop's exit value, a derived parameter.
    #[serde(default)]
    pub start_from: Option<metron_symbolic::ExitValue>,
}

/// A loop's scop and what it rests on (`Walk::loop_scop`).
type LoopScop = (
    std::result::Result<Loop, String>,
    Option<DerivedTrip>,
    Option<DataBound>,
    Option<SourceTile>,
);

/// A function definition's extent.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SourceFunction {
    pub name: String,
    /// Number of declared parameters (for Mira's model names, `A_foo_2`).
    pub arity: usize,
    /// Names of the declared parameters, in order (to bind a callee's parameters to a call
    /// site's arguments, 004 §III.C.5).
    pub parameters: Vec<String>,
    /// The parameters passed in SSE registers or on the stack (`float`, `double`, `long
    /// double`): the integer argument registers skip them (System V ABI 3.2.3).
    #[serde(default)]
    pub not_in_integer_registers: Vec<String>,
    pub line: u32,
    pub end_line: u32,
}

impl SourceFunction {
    /// The parameters in the integer argument registers, in order (`rdi`, `rsi`, ...).
    pub fn integer_arguments(&self) -> impl Iterator<Item = &String> + '_ {
        self.parameters
            .iter()
            .filter(|p| !self.not_in_integer_registers.contains(p))
    }

    /// Its integer parameters that the machine code described by `signature` fixed to a
    /// constant, with their values (a floating-point one's constant is no size).
    pub fn fixed_by(
        &self,
        signature: &crate::binary::Signature,
    ) -> std::collections::BTreeMap<String, i64> {
        self.integer_arguments()
            .filter_map(|p| Some((p.clone(), *signature.fixed.get(p)?)))
            .collect()
    }
}

/// Which arm of an `if` a statement sits in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Arm {
    Then,
    Else,
}

impl Arm {
    pub fn opposite(self) -> Arm {
        match self {
            Arm::Then => Arm::Else,
            Arm::Else => Arm::Then,
        }
    }
}

/// A source `if` (004 §III.C.3) and the lines of its arms, for joining binary blocks to it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SourceIf {
    pub function: String,
    /// Line of the `if` keyword and the line where the condition ends.
    pub line: u32,
    pub condition_end_line: u32,
    /// First and last line of each arm.
    pub then_lines: (u32, u32),
    pub else_lines: Option<(u32, u32)>,
    /// Innermost enclosing `for` (index in `SourceModel::loops`).
    pub parent_loop: Option<usize>,
    /// Enclosing `if` arm inside the same loop body, if nested.
    pub parent_if: Option<(usize, Arm)>,
    /// The condition as a conjunction of affine / modulo conditions (`&&` splits), or why not.
    pub condition: std::result::Result<Vec<Condition>, String>,
    /// `br_prob` annotation: probability that the then-arm is taken.
    pub probability: Option<f64>,
}

/// A source position: (line, column), both 1-based, ordered as in the text.
pub type Position = (u32, u32);

/// Where an expression sits relative to its innermost enclosing `for`: the test runs once
/// more per entry than the body, the init once per entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LoopPart {
    Init,
    Condition,
    Step,
    Body,
}

/// A `?:` (clang's ConditionalOperator, 004 §III.C.3 for an expression): its arms share lines
/// with other code, so binary blocks are joined to them by (line, column) ranges.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SourceConditional {
    pub function: String,
    pub line: u32,
    /// First and last position (the last token's last column) of the whole expression, of
    /// its condition and of its arms.
    pub whole: (Position, Position),
    pub condition_range: (Position, Position),
    pub then_range: (Position, Position),
    pub else_range: (Position, Position),
    /// Innermost enclosing `for` and the part of it the expression is in.
    pub parent_loop: Option<usize>,
    pub part: LoopPart,
    /// Enclosing `if` arm (inside the same loop body) and enclosing `?:` arm, if nested.
    pub parent_if: Option<(usize, Arm)>,
    pub parent_conditional: Option<(usize, Arm)>,
    /// The condition as a conjunction of affine / modulo conditions, or why not.
    pub condition: std::result::Result<Vec<Condition>, String>,
    /// `br_prob` annotation: probability that the then-arm is taken.
    pub probability: Option<f64>,
    /// The arms' values when both are affine (to tell a macro's arms apart by what their
    /// blocks compute: `arm_value`).
    #[serde(default)]
    pub arm_values: Option<(AffineExpr, AffineExpr)>,
    /// The arm that is a literal (`v < 0.0f ? 0.0f : v`: then) when the other is not: gcc
    /// gives it the `?:`'s position, so it is the bare block of the two the jump leads to.
    #[serde(default)]
    pub constant_arm: Option<Arm>,
    /// The arm that names a variable when the other does not (`MIN(x, sub)`: else): its value
    /// may already be in a register, so that arm may have no code at all.
    #[serde(default)]
    pub variable_arm: Option<Arm>,
}

impl SourceConditional {
    /// A `?:` from a macro (`MIN(a, b)`): clang's AST and DWARF give every part of it the
    /// macro's position, so its arms are told apart by layout alone.
    pub fn from_macro(&self) -> bool {
        self.then_range == self.else_range
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SourceModel {
    pub file: PathBuf,
    pub functions: Vec<SourceFunction>,
    pub loops: Vec<SourceLoop>,
    pub ifs: Vec<SourceIf>,
    /// Calls written in the file's functions, in source order.
    pub calls: Vec<SourceCall>,
    /// Every `?:` of the file's functions, in source order.
    pub conditionals: Vec<SourceConditional>,
    /// Conditions on tile loops' counters, as cuts of their tiles (their derived parameters).
    #[serde(default)]
    pub cuts: Vec<TileCut>,
    /// `call_cost` annotations: instructions per call of a function that is not analysed.
    pub call_costs: std::collections::BTreeMap<String, u64>,
    /// Locals each function computes once from its parameters (`m = n % 5;`): (function,
    /// definition), in source order.
    #[serde(default)]
    pub locals: Vec<(String, metron_symbolic::LocalValue)>,
    /// The sizes `main` reads from its command line (`n = atoi(argv[1])`).
    #[serde(default)]
    pub inputs: Vec<ProgramInput>,
    /// Pointers the file's functions assign from an allocator, in source order.
    #[serde(default)]
    pub allocations: Vec<Allocation>,
    /// Arrays the main file defines at file scope, with their sizes as parsed.
    #[serde(default)]
    pub global_arrays: Vec<GlobalArray>,
    /// Probability of the libm error paths (`error_path`) at each line, from a branch
    /// profile; a line without one is counted as never taking its path. Not from the AST.
    #[serde(skip)]
    pub error_paths: std::collections::BTreeMap<u32, f64>,
    /// Shares of the blocks whose counts follow data, from a branch profile (`None` without
    /// one: such blocks keep the model's count, weighed by `br_prob`). Not from the AST.
    #[serde(skip)]
    pub data_shares: Option<DataShares>,
}

/// What a branch profile says of the blocks whose counts follow data.
#[derive(Debug, Clone, PartialEq)]
pub enum DataShares {
    /// A profile is being recorded: such blocks count their whole envelope, the count the
    /// shares will multiply.
    Recording,
    /// A recorded profile's shares. A function with none under its own machine code (the
    /// profile is of another build: other `-D` sizes, other flags) keeps the model's counts,
    /// weighed by the profile's probabilities per file:line.
    Profile(Vec<DataShare>),
}

/// The share of its envelope that a block whose count follows data ran in a profiled run
/// (`branch_profile`): what `calibrate` counts it as, times the envelope at other sizes. The
/// envelope is the count with every branch on data going the block's way (the runs' larger
/// count), so the share is the fraction of the data that takes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DataShare {
    /// The function's symbol and its machine code's hash: a share is for the binary it was
    /// recorded on.
    pub function: String,
    pub code: u64,
    /// The block's start address.
    pub block: u64,
    pub share: f64,
    /// The share is of the model's count, not the envelope's: the block ran more often than
    /// its envelope (it runs on a combination of branches, as the `?:` nested in another's
    /// condition and arm of `MIN(MIN(a, b), c)`, that neither every branch taken nor none
    /// gives), or it is counted with a bound's mean (`model::with_mean_shares`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub over_model: bool,
    /// The binding of the function's parameters the share was measured at, where the share
    /// is not a ratio but what the block ran over the model's count there: a block no
    /// combination of the sizes fits takes its count as run at exactly these sizes, and its
    /// closest fit elsewhere (`calibrate::measured_where_no_fit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<metron_symbolic::Binding>,
}

impl SourceModel {
    /// Whether source loop `x` is nested (at any depth) in source loop `s`.
    pub fn is_within(&self, x: usize, s: usize) -> bool {
        std::iter::successors(self.loops[x].parent, |&p| self.loops[p].parent).any(|p| p == s)
    }

    /// `conditions` for a count over `loops` (from [`nest_of`](Self::nest_of)): a cut of a
    /// tile loop the nest leaves out becomes the cut of the loop that counts it.
    pub fn conditions_in(&self, loops: &[Loop], conditions: Vec<Condition>) -> Vec<Condition> {
        tile_condition::in_nest(&self.cuts, loops, conditions)
    }

    /// The affine loops from loop `i`'s outermost ancestor down to `i` (the nest its count
    /// sums over), or why one of them is not affine.
    pub fn nest_of(&self, i: usize) -> std::result::Result<Vec<Loop>, String> {
        let mut loops = Vec::new();
        let mut at = Some(i);
        // Tile loops whose iterations a loop inside their tiles counts already (`tile`).
        let mut counted = Vec::new();
        while let Some((k, l)) = at.and_then(|k| Some((k, self.loops.get(k)?))) {
            if !counted.contains(&k) {
                loops.push(l.scop.clone()?);
            }
            counted.extend(l.tile.as_ref().map(|t| t.tile_loop));
            at = l.parent;
        }
        loops.reverse();
        Ok(loops)
    }
}

/// Runs clang on `file` with `cflags` and reads the loops of that file (not of its headers).
pub fn parse_file(file: &Path, cflags: &[String]) -> Result<SourceModel> {
    let mut args: Vec<String> = vec![
        "-Xclang".into(),
        "-ast-dump=json".into(),
        "-fsyntax-only".into(),
    ];
    args.extend(cflags.iter().cloned());
    args.push(file.display().to_string());
    let cache = CLANG
        .locate()
        .ok()
        .and_then(|clang| crate::ast_cache::Entry::new(file, &args, &clang));
    let mut model = match cache.as_ref().and_then(|c| c.load()) {
        Some(model) => model,
        None => {
            let (model, files) = parse_with_clang(file, &args)?;
            if let Some(c) = &cache {
                c.store(&model, &files);
            }
            model
        }
    };
    let text = std::fs::read_to_string(file).map_err(|source| StaticError::Read {
        path: file.to_path_buf(),
        source,
    })?;
    apply_annotations(&mut model, &parse_annotations(&text, file)?);
    Ok(model)
}

/// clang's AST of `file`, read as it streams out of clang one top-level declaration at a time
/// (the same model as [`from_ast`] on the whole AST), and the files its locations mention.
fn parse_with_clang(
    file: &Path,
    args: &[String],
) -> Result<(SourceModel, std::collections::BTreeSet<String>)> {
    let mut walk = Walk::new(file);
    let mut files = std::collections::BTreeSet::new();
    crate::clang_ast::dump(&CLANG, args, file, |node| {
        crate::ast_cache::mentioned_files(&node, &mut files);
        walk.node(&node);
    })?;
    Ok((walk.model, files))
}

/// One `#pragma @Annotation {key:value, ...}` line (004 §III.C.4).
#[derive(Debug, Clone, PartialEq)]
pub struct Annotation {
    pub line: u32,
    pub entries: Vec<(String, String)>,
}

/// Keys understood (docs/static.md): `lp_init`, `lp_cond` (affine start / exclusive end of the
/// annotated loop, 004 Listing 6), `lp_iter` (iterations per entry, replacing the loop's
/// control), `skip` (`yes`: the loop is not executed), `br_prob` (probability in [0,1] that the
/// annotated `if` is taken, for conditions that are not affine), `call_cost` (`NAME=N`: each
/// call of the unanalysed function `NAME`, e.g. libm's `exp`, costs `N` instructions).
pub const ANNOTATION_KEYS: [&str; 6] = [
    "lp_init",
    "lp_cond",
    "lp_iter",
    "skip",
    "br_prob",
    "call_cost",
];

/// `NAME=N` of a `call_cost` annotation.
fn call_cost(value: &str) -> Option<(String, u64)> {
    let (name, n) = value.split_once('=')?;
    let name = name.trim();
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '@');
    valid.then_some(())?;
    Some((name.to_string(), n.trim().parse().ok()?))
}

/// Reads the annotation pragmas of a source text; backslash-continued lines are joined.
pub fn parse_annotations(text: &str, file: &Path) -> Result<Vec<Annotation>> {
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let start = i;
        let mut joined = lines[i].trim().to_string();
        while joined.ends_with('\\') && i + 1 < lines.len() {
            joined.pop();
            i += 1;
            joined.push(' ');
            joined.push_str(lines[i].trim());
        }
        i += 1;
        let Some(rest) = joined.strip_prefix("#pragma") else {
            continue;
        };
        let Some(body) = rest.trim().strip_prefix("@Annotation") else {
            continue;
        };
        let line = start as u32 + 1;
        let bad = |message: String| StaticError::Parse {
            path: file.to_path_buf(),
            line: line as usize,
            message,
        };
        let inner = body
            .trim()
            .strip_prefix('{')
            .and_then(|b| b.strip_suffix('}'))
            .ok_or_else(|| bad("expected `#pragma @Annotation {key:value, ...}`".into()))?;
        let mut entries = Vec::new();
        for item in inner.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (k, v) = item
                .split_once(':')
                .ok_or_else(|| bad(format!("expected `key:value`, found `{item}`")))?;
            let k = k.trim();
            if !ANNOTATION_KEYS.contains(&k) {
                return Err(bad(format!(
                    "unknown annotation key `{k}`; expected one of {}",
                    ANNOTATION_KEYS.join(", ")
                )));
            }
            if k == "call_cost" && call_cost(v).is_none() {
                return Err(bad(format!(
                    "expected `call_cost: NAME=INSTRUCTIONS` (e.g. `exp=40`), found `{}`",
                    v.trim()
                )));
            }
            entries.push((k.to_string(), v.trim().to_string()));
        }
        out.push(Annotation { line, entries });
    }
    Ok(out)
}

/// Attaches each annotation to the loop it is about: the `for` on the next line, or else the
/// innermost loop whose body holds the pragma (004 Fig. 5 and Listing 6 place it there).
pub fn apply_annotations(model: &mut SourceModel, annotations: &[Annotation]) {
    for a in annotations {
        // `call_cost` is file-wide: it names the callee.
        for (_, v) in a.entries.iter().filter(|(k, _)| k == "call_cost") {
            if let Some((name, n)) = call_cost(v) {
                model.call_costs.insert(name, n);
            }
        }
        if a.entries.iter().all(|(k, _)| k == "call_cost") {
            continue;
        }
        // `br_prob` belongs to the `if` on the next line (or the innermost `if` around it).
        if let Some((_, v)) = a.entries.iter().rev().find(|(k, _)| k == "br_prob") {
            let target = model
                .ifs
                .iter()
                .position(|i| i.line == a.line + 1)
                .or_else(|| {
                    (0..model.ifs.len())
                        .filter(|&i| {
                            let f = &model.ifs[i];
                            f.line < a.line
                                && a.line <= f.then_lines.1.max(f.else_lines.map_or(0, |e| e.1))
                        })
                        .max_by_key(|&i| model.ifs[i].line)
                });
            let on_next_line = model.conditionals.iter().position(|c| c.line == a.line + 1);
            match (target, on_next_line, v.parse::<f64>()) {
                (Some(t), _, Ok(p))
                    if model.ifs[t].line == a.line + 1 || on_next_line.is_none() =>
                {
                    model.ifs[t].probability = Some(p.clamp(0.0, 1.0));
                }
                // A statement holding a `?:` (e.g. `n = argc > 1 ? atoi(..) : 100;`): its
                // outermost `?:`.
                (_, Some(c), Ok(p)) => model.conditionals[c].probability = Some(p.clamp(0.0, 1.0)),
                _ => {}
            }
            if a.entries
                .iter()
                .all(|(k, _)| k == "br_prob" || k == "call_cost")
            {
                continue;
            }
        }
        let target = model
            .loops
            .iter()
            .position(|l| l.line == a.line + 1)
            .or_else(|| {
                (0..model.loops.len())
                    .filter(|&i| model.loops[i].line < a.line && a.line <= model.loops[i].end_line)
                    .max_by_key(|&i| model.loops[i].line)
            });
        let Some(t) = target else { continue };
        let l = &mut model.loops[t];
        l.annotations.extend(a.entries.iter().cloned());
        l.scop = annotated_scop(l);
    }
}

fn annotated_scop(l: &SourceLoop) -> std::result::Result<Loop, String> {
    let get = |k: &str| {
        l.annotations
            .iter()
            .rev()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
    };
    let parse = |v: &str| AffineExpr::parse(v).map_err(|e| format!("annotation `{v}`: {e}"));
    if get("skip").as_deref() == Some("yes") {
        return Loop::exclusive("__skipped", "0", "0", 1).map_err(|e| e.to_string());
    }
    if let Some(n) = get("lp_iter") {
        let var = format!("__iter_{}", l.line);
        return Ok(Loop {
            var,
            start: Bound::single(AffineExpr::constant(0)),
            end: Bound::single(parse(&n)?),
            end_inclusive: false,
            stride: 1,
            residues: Vec::new(),
        });
    }
    let mut base = match (&l.scop, get("lp_init"), get("lp_cond")) {
        (Ok(s), _, _) => s.clone(),
        (Err(_), init, Some(_)) if init.is_some() || l.partial.0.is_some() => {
            let (var, start) = l
                .partial
                .0
                .clone()
                .unwrap_or((format!("__i_{}", l.line), AffineExpr::constant(0)));
            Loop {
                var,
                start: Bound::single(start),
                end: Bound::single(AffineExpr::constant(0)),
                end_inclusive: false,
                stride: l.partial.1.filter(|s| *s > 0).unwrap_or(1),
                residues: Vec::new(),
            }
        }
        (Err(e), _, _) => return Err(e.clone()),
    };
    if let Some(v) = get("lp_init") {
        base.start = Bound::single(parse(&v)?);
    }
    if let Some(v) = get("lp_cond") {
        base.end = Bound::single(parse(&v)?);
        base.end_inclusive = false;
    }
    Ok(base)
}

/// Reads the AST. clang prints `file` and `line` only when they change from the previously
/// printed location, so the walk keeps the current position in print order.
pub fn from_ast(ast: &Value, file: &Path) -> SourceModel {
    let mut walk = Walk::new(file);
    walk.node(ast);
    walk.model
}

impl Walk {
    fn new(file: &Path) -> Walk {
        Walk {
            main_file: file.display().to_string(),
            file: String::new(),
            line: 0,
            model: SourceModel {
                file: file.to_path_buf(),
                ..SourceModel::default()
            },
            function: None,
            stack: Vec::new(),
            if_stack: Vec::new(),
            column: 0,
            token_length: 0,
            part: LoopPart::Body,
            conditional_stack: Vec::new(),
            helpers: minmax_call::library(),
            loop_ids: std::collections::HashMap::new(),
        }
    }
}

struct Walk {
    main_file: String,
    file: String,
    line: u32,
    model: SourceModel,
    function: Option<String>,
    /// Enclosing loops: (index in model.loops, loop variable).
    stack: Vec<(usize, String)>,
    /// Enclosing `if` arms since the innermost loop: (index in model.ifs, arm).
    if_stack: Vec<(usize, Arm)>,
    /// Column and token length of the last position read (clang prints `col` always).
    column: u32,
    token_length: u32,
    /// Part of the innermost `for` being walked.
    part: LoopPart,
    /// Enclosing `?:` arms since the innermost loop: (index in model.conditionals, arm).
    conditional_stack: Vec<(usize, Arm)>,
    /// Functions defined so far that return the min or max of their arguments.
    helpers: Helpers,
    /// clang's node id of each `for` statement recorded, and its index in model.loops.
    loop_ids: std::collections::HashMap<String, usize>,
}

impl Walk {
    fn position(&mut self, loc: &Value) -> u32 {
        if loc.get("spellingLoc").is_some() || loc.get("expansionLoc").is_some() {
            if let Some(s) = loc.get("spellingLoc") {
                self.position(s);
            }
            if let Some(e) = loc.get("expansionLoc") {
                return self.position(e);
            }
            return self.line;
        }
        if let Some(f) = loc.get("file").and_then(Value::as_str) {
            self.file = f.to_string();
        }
        if let Some(l) = loc.get("line").and_then(Value::as_u64) {
            self.line = l as u32;
        }
        if let Some(c) = loc.get("col").and_then(Value::as_u64) {
            self.column = c as u32;
        }
        self.token_length = loc.get("tokLen").and_then(Value::as_u64).unwrap_or(1) as u32;
        self.line
    }

    /// Like `extent`, with columns: (first position, last column of the last token).
    fn extent_positions(&mut self, node: &Value) -> (Position, Position) {
        if let Some(loc) = node.get("loc") {
            self.position(loc);
        }
        let mut begin = (self.line, self.column);
        let mut end = begin;
        if let Some(range) = node.get("range") {
            if let Some(b) = range.get("begin") {
                begin = (self.position(b), self.column);
            }
            if let Some(e) = range.get("end") {
                let line = self.position(e);
                end = (line, self.column + self.token_length.max(1) - 1);
            }
        }
        (begin, end)
    }

    /// `extent_positions` of `node` without moving the walk's position.
    fn peek_positions(&mut self, node: &Value) -> (Position, Position) {
        let saved = (self.file.clone(), self.line, self.column, self.token_length);
        let e = self.extent_positions(node);
        (self.file, self.line, self.column, self.token_length) = saved;
        e
    }

    /// Updates the position from a node's `loc` and `range`; returns (begin, end) lines.
    fn extent(&mut self, node: &Value) -> (u32, u32) {
        if let Some(loc) = node.get("loc") {
            self.position(loc);
        }
        let mut begin = self.line;
        let mut end = self.line;
        if let Some(range) = node.get("range") {
            if let Some(b) = range.get("begin") {
                begin = self.position(b);
            }
            if let Some(e) = range.get("end") {
                end = self.position(e);
            }
        }
        (begin, end)
    }

    fn in_main_file(&self) -> bool {
        !self.file.is_empty()
            && (self.file == self.main_file
                || Path::new(&self.file).file_name() == Path::new(&self.main_file).file_name())
    }

    fn node(&mut self, node: &Value) {
        let (first, last) = self.extent_positions(node);
        let (begin, end) = (first.0, last.0);
        let kind = node.get("kind").and_then(Value::as_str).unwrap_or("");
        let inner: &[Value] = node
            .get("inner")
            .and_then(Value::as_array)
            .map_or(&[], |v| v.as_slice());
        let is_definition = inner
            .iter()
            .any(|c| c.get("kind") == Some(&"CompoundStmt".into()));
        let in_function = self.in_main_file() && self.function.is_some();
        if in_function {
            self.allocation(node, begin);
        } else if kind == "VarDecl" && self.in_main_file() && self.function.is_none() {
            self.global_array(node, begin);
        }
        match kind {
            "FunctionDecl" | "CXXMethodDecl" | "CXXConstructorDecl" | "CXXConversionDecl"
                if is_definition && self.in_main_file() =>
            {
                self.function_definition(node, inner, (begin, end))
            }
            "ForStmt" if in_function => {
                let index = self.model.loops.len();
                self.for_stmt(inner, (begin, end));
                self.remember_loop(node, index);
            }
            "IfStmt" if in_function => self.if_stmt(node, begin),
            "CallExpr" | "CXXMemberCallExpr" | "CXXOperatorCallExpr" if in_function => {
                self.call(node, begin);
                self.children(inner);
            }
            "ConditionalOperator" if in_function => self.conditional(node, (first, last)),
            _ => self.children(inner),
        }
    }

    /// Records a function definition of the main file and walks its body.
    fn function_definition(&mut self, node: &Value, inner: &[Value], (begin, end): (u32, u32)) {
        let name = node
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string();
        // Template instantiations repeat the pattern's body at the same lines.
        if self
            .model
            .functions
            .iter()
            .any(|f| f.name == name && f.line == begin)
        {
            self.children_silently(inner);
            return;
        }
        let parameters = parameters_of(inner);
        if let Some(body) = inner.last() {
            for l in locals::definitions(body, &parameters) {
                self.model.locals.push((name.clone(), l));
            }
            if let (true, Some(argv)) = (name == "main", parameters.get(1)) {
                self.model.inputs = program_input::program_inputs(body, argv);
            }
        }
        if let Some(c) = inner
            .last()
            .and_then(|body| minmax_call::recognise(&parameters, body, &self.helpers))
        {
            self.helpers.insert(name.clone(), c);
        }
        self.model.functions.push(SourceFunction {
            name: name.clone(),
            arity: parameters.len(),
            not_in_integer_registers: floating_parameters_of(inner),
            parameters,
            line: begin,
            end_line: end,
        });
        let saved = self.function.replace(name);
        self.children(inner);
        self.function = saved;
    }

    /// A `for` loop's static control part: affine, with residues (`residue_start`), stepping
    /// by a parameter (`derived_step`), bounded by data (`data_bound`), or inside the tiles of
    /// an enclosing loop that steps by a parameter (`tile`).
    fn loop_scop(&self, inner: &[Value], begin: u32) -> LoopScop {
        let outer: Vec<String> = self.stack.iter().map(|(_, v)| v.clone()).collect();
        let mut scop = for_scop(inner, &outer, &self.helpers);
        let (mut derived, mut data_bound) = (None, None);
        if scop.is_err() {
            if let Some(s) = residue_start::residue_scop(inner, begin, &self.helpers) {
                scop = Ok(s);
            } else if let Some((s, d)) = derived_step::derived_scop(inner, begin, &self.helpers) {
                (scop, derived) = (Ok(s), Some(d));
            } else if let Some((s, d)) = data_bound::data_scop(inner, begin, &self.helpers) {
                (scop, data_bound) = (Ok(s), Some(d));
            }
        }
        let tile = scop.as_ref().ok().and_then(|s| self.tile_of(s, begin));
        if let Some((unit, t)) = tile {
            return (Ok(unit), derived, data_bound, Some(t));
        }
        (scop, derived, data_bound, None)
    }

    /// [`loop_scop`](Self::loop_scop), or with a start or bound that is an integer expression
    /// of names no enclosing loop changes (`i < m * n`, `i = n / 3`) as a derived value
    /// (`locals::bound_as_local`), recorded with the function's locals.
    fn loop_scop_or_local_bound(&mut self, inner: &[Value], begin: u32) -> LoopScop {
        let found = self.loop_scop(inner, begin);
        if found.0.is_ok() || found.2.is_some() {
            return found;
        }
        let counters: Vec<String> = self.stack.iter().map(|(_, v)| v.clone()).collect();
        let Some((rewritten, values)) = locals::bound_as_local(inner, begin, &counters) else {
            return found;
        };
        let again = self.loop_scop(&rewritten, begin);
        if again.0.is_err() {
            return found;
        }
        let function = self.function.clone().unwrap_or_default();
        for v in values {
            self.model.locals.push((function.clone(), v));
        }
        again
    }

    /// `scop` as the loop inside the tiles of an enclosing loop that steps by a parameter.
    fn tile_of(&self, scop: &Loop, line: u32) -> Option<(Loop, SourceTile)> {
        let (candidates, outer_vars) = self.tile_candidates();
        if candidates.is_empty() {
            return None;
        }
        tile::tile_scop(scop, line, &candidates, &outer_vars)
    }

    /// The enclosing loops that step by a parameter (`derived_step`), and the names of every
    /// enclosing loop's counter (in the source and in the nests).
    fn tile_candidates(&self) -> (Vec<tile::TileCandidate<'_>>, Vec<&str>) {
        let enclosing = self
            .stack
            .iter()
            .filter_map(|(i, _)| Some((*i, self.model.loops.get(*i)?)));
        let mut candidates = Vec::new();
        let mut outer_vars: Vec<&str> = Vec::new();
        for (index, l) in enclosing {
            let counter = l.scop.as_ref().ok().map(|s| s.var.as_str());
            outer_vars.extend(counter);
            outer_vars.extend(l.partial.0.as_ref().map(|(v, _)| v.as_str()));
            if let (Some(trip), Some((var, start)), Some(counter)) =
                (&l.derived, &l.partial.0, counter)
            {
                candidates.push(tile::TileCandidate {
                    index,
                    line: l.line,
                    var,
                    counter,
                    start,
                    trip,
                });
            }
        }
        (candidates, outer_vars)
    }

    /// The condition of an `if` or `?:` (`branch_condition`), or one on a tile loop's counter
    /// as a cut of its tiles (`tile_condition`, recorded in the model's cuts).
    fn condition_of(
        &mut self,
        cond: &Value,
        line: u32,
    ) -> std::result::Result<Vec<Condition>, String> {
        let in_main = self.function.as_deref() == Some("main");
        let why = match branch_condition(cond, &self.known_names(), in_main) {
            Ok(c) => return Ok(c),
            Err(why) => why,
        };
        let inside: Vec<(String, usize, metron_symbolic::TileSum)> = self
            .stack
            .iter()
            .filter_map(|(i, var)| {
                let t = self.model.loops.get(*i)?.tile.as_ref()?;
                Some((var.clone(), t.tile_loop, t.sum.clone()))
            })
            .collect();
        let name = format!("cut_{line}_{}", self.model.cuts.len());
        let (candidates, outer_vars) = self.tile_candidates();
        let found = tile_condition::tile_condition(cond, name, &candidates, &outer_vars, &inside);
        let Some((condition, cut)) = found else {
            return Err(why);
        };
        self.model.cuts.push(cut);
        Ok(vec![condition])
    }

    /// Records a `for` loop's static control part (004 §III.B) and walks its children
    /// (clang's: init, condition variable, condition, step, body).
    fn for_stmt(&mut self, inner: &[Value], extent: (u32, u32)) {
        let written_out = while_loop::counting_for(inner);
        let inner = written_out.as_deref().unwrap_or(inner);
        let parts = [
            LoopPart::Init,
            LoopPart::Init,
            LoopPart::Condition,
            LoopPart::Step,
        ];
        let walk: Vec<(LoopPart, &Value)> = inner
            .iter()
            .enumerate()
            .map(|(k, c)| (parts.get(k).copied().unwrap_or(LoopPart::Body), c))
            .collect();
        self.loop_stmt(inner, &walk, extent, false);
    }

    /// Records a loop given in a `for` statement's shape, and walks `walk` inside it; a `do`
    /// loop's body runs once before the first test.
    fn loop_stmt(
        &mut self,
        inner: &[Value],
        walk: &[(LoopPart, &Value)],
        (begin, end): (u32, u32),
        do_while: bool,
    ) {
        let index = self.model.loops.len();
        let (mut scop, derived, data_bound, tile) = self.loop_scop_or_local_bound(inner, begin);
        if do_while {
            scop = scop.and_then(|l| {
                while_loop::at_least_once(l)
                    .ok_or_else(|| "a `do` loop's bound is not one affine expression".to_string())
            });
        }
        // An annotation completes a loop whose start is one affine expression.
        let init = inner
            .first()
            .and_then(|i| init_of(i, &self.helpers))
            .and_then(|(v, b)| match b.exprs() {
                [e] => Some((v, e.clone())),
                _ => None,
            });
        let stride = match (&init, inner.get(3)) {
            (Some((v, _)), Some(inc)) => step_of(inc, v),
            _ => None,
        };
        let var = scop.as_ref().map(|l| l.var.clone()).unwrap_or_default();
        self.model.loops.push(SourceLoop {
            function: self.function.clone().unwrap_or_default(),
            line: begin,
            end_line: end,
            parent: self.stack.last().map(|(i, _)| *i),
            scop,
            annotations: Vec::new(),
            partial: (init, stride),
            derived,
            data_bound,
            tile,
            start_from: None,
        });
        self.stack.push((index, var));
        let ifs = std::mem::take(&mut self.if_stack);
        let conditionals = std::mem::take(&mut self.conditional_stack);
        let saved_part = self.part;
        for (part, child) in walk {
            self.part = *part;
            self.node(child);
        }
        self.part = saved_part;
        self.conditional_stack = conditionals;
        self.if_stack = ifs;
        self.stack.pop();
        if let Some(l) = self.model.loops.get_mut(index) {
            l.end_line = l.end_line.max(self.line);
        }
    }

    /// Records an `if` (clang's children: [init], [condition variable], condition, then, [else]).
    fn if_stmt(&mut self, node: &Value, begin: u32) {
        let inner = children(node);
        let flag = |k: &str| node.get(k).and_then(Value::as_bool).unwrap_or(false);
        let skip = usize::from(flag("hasInit")) + usize::from(flag("hasVar"));
        let (Some(cond), Some(then)) = (inner.get(skip), inner.get(skip + 1)) else {
            return self.children(inner);
        };
        let otherwise = flag("hasElse").then(|| inner.get(skip + 2)).flatten();
        self.children(&inner[..skip]);
        self.node(cond);
        let condition_end_line = self.line;
        let condition = self.condition_of(cond, begin);
        let index = self.model.ifs.len();
        self.model.ifs.push(SourceIf {
            function: self.function.clone().unwrap_or_default(),
            line: begin,
            condition_end_line,
            then_lines: (0, 0),
            else_lines: None,
            parent_loop: self.stack.last().map(|(i, _)| *i),
            parent_if: self.if_stack.last().copied(),
            condition,
            probability: None,
        });
        // An arm's first line may hold the condition (`if (c) {`) or the other arm's end
        // (`} else {`); code on such a line is not the arm's.
        let (a, b) = self.arm(then, index, Arm::Then);
        let then_lines = (a.max(condition_end_line + 1), b);
        let else_lines = otherwise.map(|e| {
            let (a, b) = self.arm(e, index, Arm::Else);
            (a.max(then_lines.1 + 1), b)
        });
        if let Some(f) = self.model.ifs.get_mut(index) {
            f.then_lines = then_lines;
            f.else_lines = else_lines;
        }
    }

    /// Records a `?:` (clang's children: condition, then, else) with the column ranges of its
    /// parts, then walks the arms (they may hold `?:`s of their own).
    fn conditional(&mut self, node: &Value, whole: (Position, Position)) {
        let [cond, then, otherwise] = children(node) else {
            return self.children(children(node));
        };
        let condition_range = self.peek_positions(cond);
        self.node(cond);
        let index = self.model.conditionals.len();
        let condition = self.condition_of(cond, whole.0 .0);
        self.model.conditionals.push(SourceConditional {
            function: self.function.clone().unwrap_or_default(),
            line: whole.0 .0,
            whole,
            condition_range,
            then_range: ((0, 0), (0, 0)),
            else_range: ((0, 0), (0, 0)),
            parent_loop: self.stack.last().map(|(i, _)| *i),
            part: if self.stack.is_empty() {
                LoopPart::Body
            } else {
                self.part
            },
            parent_if: self.if_stack.last().copied(),
            parent_conditional: self.conditional_stack.last().copied(),
            condition,
            probability: None,
            arm_values: affine(then).zip(affine(otherwise)),
            constant_arm: the_one_arm(is_literal, then, otherwise),
            variable_arm: the_one_arm(is_variable, then, otherwise),
        });
        let arm = |walk: &mut Self, node: &Value, side: Arm| {
            let range = walk.peek_positions(node);
            walk.conditional_stack.push((index, side));
            walk.node(node);
            walk.conditional_stack.pop();
            range
        };
        let then_range = arm(self, then, Arm::Then);
        let else_range = arm(self, otherwise, Arm::Else);
        if let Some(c) = self.model.conditionals.get_mut(index) {
            c.then_range = then_range;
            c.else_range = else_range;
        }
    }

    /// Names a branch condition may read without adding a model parameter: the enclosing
    /// loops' counters and the parameters of their bounds (`i + 1 < n` under `i < n`, where
    /// `n` is a local of `main`).
    fn known_names(&self) -> Vec<String> {
        let mut out: Vec<String> = self.stack.iter().map(|(_, v)| v.clone()).collect();
        // Locals the function computes from its parameters (`if (m != 0)`).
        let function = self.function.as_deref();
        out.extend(
            self.model
                .locals
                .iter()
                .filter(|(f, _)| Some(f.as_str()) == function)
                .map(|(_, l)| l.name.clone()),
        );
        for (i, _) in &self.stack {
            if let Some(Ok(l)) = self.model.loops.get(*i).map(|l| &l.scop) {
                out.extend(l.bound_names().cloned());
            }
        }
        out
    }

    /// Walks one arm; returns its first and last line.
    fn arm(&mut self, node: &Value, index: usize, arm: Arm) -> (u32, u32) {
        let (begin, end) = self.extent_peek(node);
        self.if_stack.push((index, arm));
        self.node(node);
        self.if_stack.pop();
        (begin, end.max(self.line).max(begin))
    }

    /// The begin line of `node` without walking it (its `range.begin` or `loc`).
    fn extent_peek(&mut self, node: &Value) -> (u32, u32) {
        let saved = (self.file.clone(), self.line);
        let e = self.extent(node);
        (self.file, self.line) = saved;
        e
    }

    /// Walks for the position only (clang's locations are relative to the previous one).
    fn children_silently(&mut self, inner: &[Value]) {
        let saved = std::mem::take(&mut self.model);
        let function = self.function.take();
        self.children(inner);
        self.model = saved;
        self.function = function;
    }

    fn children(&mut self, inner: &[Value]) {
        for (k, c) in inner.iter().enumerate() {
            let in_function = self.in_main_file()
                && self.function.is_some()
                && matches!(kind(c), "WhileStmt" | "DoStmt");
            let parameters = if in_function {
                self.parameters()
            } else {
                Vec::new()
            };
            if let Some(w) = in_function
                .then(|| while_loop::as_for(c, &inner[..k], &parameters, &self.helpers))
                .flatten()
            {
                self.while_stmt(c, w);
            } else if let Some(start) = self.continued_start(c, &inner[..k]) {
                self.continued_for(c, start);
            } else {
                self.node(c);
            }
        }
    }

    fn remember_loop(&mut self, node: &Value, index: usize) {
        if let Some(id) = node.get("id").and_then(Value::as_str) {
            if index < self.model.loops.len() {
                self.loop_ids.insert(id.to_string(), index);
            }
        }
    }

    /// A `for` statement without initialisation in a function: its counter and where it
    /// starts (`continued`).
    fn continued_start(&self, c: &Value, before: &[Value]) -> Option<(String, continued::Start)> {
        (kind(c) == "ForStmt" && self.in_main_file() && self.function.is_some()).then_some(())?;
        let loop_of = |w: &Value| {
            let id = w.get("id")?.as_str()?;
            self.loop_ids.get(id).copied()
        };
        continued::start_of(children(c), before, &loop_of)
    }

    /// Records a loop that goes on with a counter set before it: from that statement, or
    /// from the exit value of the loop that left it (a derived parameter, `exit_LINE`).
    fn continued_for(&mut self, node: &Value, (var, start): (String, continued::Start)) {
        let (first, last) = self.extent_positions(node);
        let mut inner = children(node).to_vec();
        let exit = match start {
            continued::Start::Set(writer) => {
                inner[0] = writer;
                None
            }
            continued::Start::After(earlier) => {
                let l = &self.model.loops[earlier];
                let plain = l.derived.is_none() && l.data_bound.is_none() && l.tile.is_none();
                let exit = l.scop.as_ref().ok().filter(|_| plain).and_then(|s| {
                    (s.var == var).then(|| continued::exit_of(s, format!("exit_{}", first.0)))?
                });
                if let Some(x) = &exit {
                    inner[0] = continued::init_at(&var, &x.name);
                }
                exit
            }
        };
        let index = self.model.loops.len();
        self.for_stmt(&inner, (first.0, last.0));
        self.remember_loop(node, index);
        if let Some(l) = self.model.loops.get_mut(index) {
            l.start_from = exit;
        }
    }

    /// A `while` or `do` loop that is a `for` loop written another way (`while_loop`):
    /// recorded as one, its condition and body walked as the `for`'s.
    fn while_stmt(&mut self, node: &Value, w: while_loop::WhileAsFor) {
        let (first, last) = self.extent_positions(node);
        let walk = [
            (LoopPart::Condition, &w.children[2]),
            (LoopPart::Body, &w.children[4]),
        ];
        let index = self.model.loops.len();
        self.loop_stmt(&w.children, &walk, (first.0, last.0), w.do_while);
        if let (Some(counter), Some(Ok(l))) = (
            w.counter,
            self.model.loops.get_mut(index).map(|l| &mut l.scop),
        ) {
            l.var = counter;
        }
    }

    /// The parameters of the function being walked.
    fn parameters(&self) -> Vec<String> {
        let name = self.function.as_deref();
        self.model
            .functions
            .iter()
            .rev()
            .find(|f| Some(f.name.as_str()) == name)
            .map(|f| f.parameters.clone())
            .unwrap_or_default()
    }
}

/// init; cond; inc of a `for` (clang's children: init, condition variable, cond, inc, body).
fn for_scop(
    inner: &[Value],
    _outer: &[String],
    helpers: &Helpers,
) -> std::result::Result<Loop, String> {
    let (init, cond, inc) = match inner {
        [init, _, cond, inc, ..] => (init, cond, inc),
        _ => return Err("for statement without init/condition/step".into()),
    };
    // `for (i = 0, j = n - 1; i < n; i++, j--)`: the counter is the variable the condition
    // tests among those the init sets; the others step along with it.
    let mut first_error = None;
    for part in comma_parts(init) {
        match counted_loop(part, cond, inc, helpers) {
            Ok(l) => return Ok(l),
            Err(e) => first_error = first_error.or(Some(e)),
        }
    }
    Err(first_error.unwrap_or_else(|| "for statement without init".into()))
}

/// The operands of a comma expression, in order (`e` itself when it is none).
fn comma_parts(e: &Value) -> Vec<&Value> {
    match binary(e) {
        Some((",", l, r)) => {
            let mut out = comma_parts(l);
            out.extend(comma_parts(r));
            out
        }
        _ => vec![e],
    }
}

/// The loop counted by `init`'s variable, tested by `cond` and stepped by one part of `inc`.
fn counted_loop(
    init: &Value,
    cond: &Value,
    inc: &Value,
    helpers: &Helpers,
) -> std::result::Result<Loop, String> {
    let (var, start) = init_of(init, helpers)
        .ok_or("loop initialisation is not `i = affine` (or min/max of affine)")?;
    let (op, lhs, rhs) = binary(cond).ok_or("loop condition is not a comparison")?;
    // `n > i` tests the counter on the right: the mirrored comparison on the left.
    let (op, counter, rhs) = if affine(lhs).is_some_and(|e| e.terms.get(&var) == Some(&1)) {
        (op, lhs, rhs)
    } else if affine(rhs).is_some_and(|e| e.terms.get(&var) == Some(&1)) {
        let mirrored = match op {
            "<" => ">",
            "<=" => ">=",
            ">" => "<",
            ">=" => "<=",
            other => other,
        };
        (mirrored, rhs, lhs)
    } else {
        return Err(format!("loop condition does not test `{var}`"));
    };
    let end = bound(rhs, helpers).ok_or_else(|| unusable_bound(rhs))?;
    // `y + 1 < h` is `y < h - 1`: what the test adds to the counter moves to the bound.
    let end = match affine(counter) {
        Some(mut added) if added.terms.len() > 1 || added.constant != 0 => {
            added.terms.remove(&var);
            let moved = |e: &AffineExpr| e.plus_scaled(&added, -1).ok();
            match &end {
                Bound::Max(v) => Bound::Max(
                    v.iter()
                        .map(moved)
                        .collect::<Option<_>>()
                        .ok_or("loop bound overflows")?,
                ),
                Bound::Min(v) => Bound::Min(
                    v.iter()
                        .map(moved)
                        .collect::<Option<_>>()
                        .ok_or("loop bound overflows")?,
                ),
            }
        }
        _ => end,
    };
    let stride = comma_parts(inc)
        .into_iter()
        .find_map(|part| step_of(part, &var))
        .ok_or("loop step is not `i++`, `i--`, `i += c`, `i -= c` or `i = i + c`")?;
    // 004 §III.C.2: an up-counting loop runs while `i < end` (or `<=`), a down-counting one
    // while `i > end` (or `>=`); `i != end` stops at `end` from either side (a step that
    // jumps over `end` never stops, so the count assumes it lands on it).
    let end_inclusive = match (op, stride > 0) {
        ("<", true) | (">", false) | ("!=", _) => false,
        ("<=", true) | (">=", false) => true,
        _ => {
            return Err(format!(
                "loop condition `{op}` with step {stride} never or always exits"
            ))
        }
    };
    Ok(Loop {
        var,
        start,
        end,
        end_inclusive,
        stride,
        residues: Vec::new(),
    })
}

fn kind(v: &Value) -> &str {
    v.get("kind").and_then(Value::as_str).unwrap_or("")
}

fn children(v: &Value) -> &[Value] {
    v.get("inner")
        .and_then(Value::as_array)
        .map_or(&[], |a| a.as_slice())
}

/// Looks through implicit casts, parentheses and casts between integer types (`(long)n`:
/// the value is the same for every size a loop has).
fn strip(mut v: &Value) -> &Value {
    while matches!(kind(v), "ImplicitCastExpr" | "ParenExpr" | "ConstantExpr")
        || kind(v) == "CStyleCastExpr" && integer_type(v)
    {
        match children(v).first() {
            Some(c) => v = c,
            None => break,
        }
    }
    v
}

/// Whether `v`'s type is an integer scalar (no pointer, array, float or aggregate).
fn integer_type(v: &Value) -> bool {
    let ty = v
        .get("type")
        .and_then(|t| t.get("qualType"))
        .and_then(Value::as_str)
        .unwrap_or("");
    !ty.is_empty()
        && !ty.contains(['*', '[', '('])
        && !["float", "double", "struct", "union", "_Bool", "bool"]
            .iter()
            .any(|w| ty.contains(w))
}

fn decl_name(v: &Value) -> Option<String> {
    let v = strip(v);
    (kind(v) == "DeclRefExpr")
        .then(|| {
            v.get("referencedDecl")?
                .get("name")?
                .as_str()
                .map(str::to_string)
        })
        .flatten()
}

fn binary(v: &Value) -> Option<(&str, &Value, &Value)> {
    let v = strip(v);
    if kind(v) != "BinaryOperator" {
        return None;
    }
    let op = v.get("opcode")?.as_str()?;
    match children(v) {
        [l, r] => Some((op, l, r)),
        _ => None,
    }
}

fn init_of(init: &Value, helpers: &Helpers) -> Option<(String, Bound)> {
    // 004 Listing 3: a start may be the `max`/`min` of affine expressions, like an end.
    match kind(init) {
        "DeclStmt" => {
            let decl = children(init).first()?;
            let name = decl.get("name")?.as_str()?.to_string();
            Some((name, bound(children(decl).first()?, helpers)?))
        }
        _ => {
            let (op, l, r) = binary(init)?;
            (op == "=").then_some(())?;
            Some((decl_name(l)?, bound(r, helpers)?))
        }
    }
}

/// `sizeof(T)` of a scalar or pointer type on x86-64 (System V ABI 3.1.2, Fig. 3.1):
/// `32768 / sizeof(double)` sizes a benchmark harness's cache-flush buffer. A struct, an
/// array or `sizeof expr` is `None`.
fn size_of(v: &Value) -> Option<i64> {
    if kind(v) != "UnaryExprOrTypeTraitExpr" || v.get("name")?.as_str()? != "sizeof" {
        return None;
    }
    let ty = v.get("argType")?;
    let name = ty
        .get("desugaredQualType")
        .or_else(|| ty.get("qualType"))?
        .as_str()?;
    scalar_size(name)
}

/// The bytes of a scalar or pointer type named `name` on x86-64 (System V ABI 3.1.2).
fn scalar_size(name: &str) -> Option<i64> {
    let name = name
        .trim_start_matches("const ")
        .trim_start_matches("unsigned ")
        .trim();
    Some(match name {
        _ if name.ends_with('*') => 8,
        "char" | "signed char" | "_Bool" | "bool" => 1,
        "short" | "short int" => 2,
        "int" | "float" | "unsigned" => 4,
        "long" | "long int" | "long long" | "long long int" | "double" => 8,
        "long double" => 16,
        _ => return None,
    })
}

/// The arm that is `what` when the other is not.
fn the_one_arm(what: fn(&Value) -> bool, then: &Value, otherwise: &Value) -> Option<Arm> {
    match (what(then), what(otherwise)) {
        (true, false) => Some(Arm::Then),
        (false, true) => Some(Arm::Else),
        _ => None,
    }
}

/// A number or character literal, negated or cast (`0.0f`, `-1`, `(double)0`).
fn is_literal(v: &Value) -> bool {
    let mut v = strip(v);
    while matches!(kind(v), "CStyleCastExpr" | "ImplicitCastExpr")
        || kind(v) == "UnaryOperator" && v.get("opcode").and_then(|o| o.as_str()) == Some("-")
    {
        match children(v).first() {
            Some(c) => v = strip(c),
            None => return false,
        }
    }
    matches!(
        kind(v),
        "IntegerLiteral" | "FloatingLiteral" | "CharacterLiteral"
    )
}

/// A plain variable (through casts and parentheses): `(sub)` in `MIN(x, sub)`.
fn is_variable(v: &Value) -> bool {
    kind(strip(v)) == "DeclRefExpr"
}

fn affine(v: &Value) -> Option<AffineExpr> {
    let v = strip(v);
    if let Some(bytes) = size_of(v) {
        return Some(AffineExpr::constant(bytes));
    }
    match kind(v) {
        "IntegerLiteral" => Some(AffineExpr::constant(
            v.get("value")?.as_str()?.parse().ok()?,
        )),
        "DeclRefExpr" => Some(AffineExpr::var(&decl_name(v)?)),
        // `this->n` or `a.n`: a parameter named after the member.
        "MemberExpr" => Some(AffineExpr::var(v.get("name")?.as_str()?)),
        "UnaryOperator" if v.get("opcode")?.as_str()? == "-" => AffineExpr::constant(0)
            .plus_scaled(&affine(children(v).first()?)?, -1)
            .ok(),
        "BinaryOperator" => {
            let (op, l, r) = binary(v)?;
            let (a, b) = (affine(l)?, affine(r)?);
            match op {
                "+" => a.plus_scaled(&b, 1).ok(),
                "-" => a.plus_scaled(&b, -1).ok(),
                "*" if a.terms.is_empty() => {
                    AffineExpr::constant(0).plus_scaled(&b, a.constant).ok()
                }
                "*" if b.terms.is_empty() => {
                    AffineExpr::constant(0).plus_scaled(&a, b.constant).ok()
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether every variable `v` reads is an enclosing loop counter or a function parameter
/// (a local such as an accumulator would otherwise become a model parameter).
fn only_counters_and_parameters(v: &Value, loop_vars: &[String]) -> bool {
    if kind(v) == "DeclRefExpr" {
        let Some(decl) = v.get("referencedDecl") else {
            return false;
        };
        let name = decl.get("name").and_then(Value::as_str).unwrap_or("");
        return loop_vars.iter().any(|l| l == name)
            || decl.get("kind").and_then(Value::as_str) == Some("ParmVarDecl");
    }
    children(v)
        .iter()
        .all(|c| only_counters_and_parameters(c, loop_vars))
}

/// The condition of an `if` or `?:` as a conjunction of affine / modulo conditions in loop
/// counters, the enclosing loops' bound parameters (`known`) and function parameters, or why
/// it is not one. `main`'s parameters (`argc`) are run-time input, not model parameters: a
/// condition on them needs `br_prob`.
fn branch_condition(
    cond: &Value,
    loop_vars: &[String],
    in_main: bool,
) -> std::result::Result<Vec<Condition>, String> {
    if !only_counters_and_parameters(cond, loop_vars) {
        return Err("condition reads local data; annotate `br_prob`".into());
    }
    if in_main && !only_counters(cond, loop_vars) {
        return Err("condition reads main's arguments (run-time input); annotate `br_prob`".into());
    }
    conjunction(cond)
}

/// Whether every variable `v` reads is an enclosing loop counter.
fn only_counters(v: &Value, loop_vars: &[String]) -> bool {
    if kind(v) == "DeclRefExpr" {
        let name = v
            .get("referencedDecl")
            .and_then(|d| d.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("");
        return loop_vars.iter().any(|l| l == name);
    }
    children(v).iter().all(|c| only_counters(c, loop_vars))
}

/// An `if` condition as a conjunction of affine (`j > 4`) and modulo (`j % 4 != 0`)
/// conditions (004 Listings 4 and 5); `a && b` gives both.
fn conjunction(v: &Value) -> std::result::Result<Vec<Condition>, String> {
    if let Some(("&&", l, r)) = binary(v) {
        let mut out = conjunction(l)?;
        out.extend(conjunction(r)?);
        return Ok(out);
    }
    let not_affine = || "condition is not affine or modulo; annotate `br_prob`".to_string();
    let (op, l, r) = binary(v).ok_or_else(not_affine)?;
    let op = match op {
        "<" => CmpOp::Lt,
        "<=" => CmpOp::Le,
        ">" => CmpOp::Gt,
        ">=" => CmpOp::Ge,
        "==" => CmpOp::Eq,
        "!=" => CmpOp::Ne,
        _ => return Err(not_affine()),
    };
    let rhs = affine(r).ok_or_else(not_affine)?;
    if let Some(("%", e, m)) = binary(l) {
        let modulus = affine(m)
            .filter(|m| m.terms.is_empty())
            .ok_or_else(not_affine)?;
        if !matches!(op, CmpOp::Eq | CmpOp::Ne) || !rhs.terms.is_empty() || modulus.constant <= 0 {
            return Err(not_affine());
        }
        return Ok(vec![Condition::Modulo {
            expr: affine(e).ok_or_else(not_affine)?,
            modulus: modulus.constant,
            residue: rhs.constant,
            negated: op == CmpOp::Ne,
        }]);
    }
    Ok(vec![Condition::Affine {
        lhs: affine(l).ok_or_else(not_affine)?,
        op,
        rhs,
    }])
}

/// An affine bound, or `a < b ? a : b` (min) / `a > b ? a : b` (max), split by metron-symbolic,
/// or a call of a function that returns the min or max of its arguments (`helpers`).
fn bound(v: &Value, helpers: &Helpers) -> Option<Bound> {
    let v = strip(v);
    if kind(v) == "ConditionalOperator" {
        let [c, t, f] = children(v) else { return None };
        let (op, cl, cr) = binary(c)?;
        let (ta, fa) = (affine(t)?, affine(f)?);
        let same = |x: &Value, y: &Value| affine(x).is_some() && affine(x) == affine(y);
        return match minmax_call::choice_of(op, (cl, cr), (t, f), &same)? {
            minmax_call::Choice::Min => Some(Bound::Min(vec![ta, fa])),
            minmax_call::Choice::Max => Some(Bound::Max(vec![ta, fa])),
        };
    }
    if kind(v) == "CallExpr" {
        return minmax_call::call_bound(v, helpers, &|a| bound(a, helpers));
    }
    affine(v).map(Bound::single)
}

/// Why a loop's end is not usable: data-dependent (it reads memory, e.g. `w >= weight[i]`:
/// the trip count follows the input), or another expression that is not affine.
fn unusable_bound(v: &Value) -> String {
    if reads_data(v) {
        "data-dependent loop bound: the exit test reads data (an array element or through a \
         pointer), so the trip count follows the input; annotate `lp_iter`"
            .into()
    } else {
        "loop bound is not affine (or min/max of affine)".into()
    }
}

/// Whether `v` reads memory (`a[i]`, `*p`, `s->n`): data, not a parameter of the model.
fn reads_data(v: &Value) -> bool {
    let arrow = v.get("isArrow").and_then(Value::as_bool).unwrap_or(false);
    match kind(v) {
        "ArraySubscriptExpr" => true,
        "UnaryOperator" if v.get("opcode").and_then(Value::as_str) == Some("*") => true,
        "MemberExpr" if arrow => true,
        _ => children(v).iter().any(reads_data),
    }
}

/// Names of a function declaration's parameters, in order (its `ParmVarDecl` children).
fn parameters_of(inner: &[Value]) -> Vec<String> {
    inner
        .iter()
        .filter(|c| kind(c) == "ParmVarDecl")
        .map(|c| {
            c.get("name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        })
        .collect()
}

/// Names of the parameters of floating type, passed by value outside the integer registers.
fn floating_parameters_of(inner: &[Value]) -> Vec<String> {
    inner
        .iter()
        .filter(|c| kind(c) == "ParmVarDecl")
        .filter(|c| {
            let t = c
                .pointer("/type/qualType")
                .and_then(Value::as_str)
                .unwrap_or("");
            let t = t.replace("const ", "").replace("volatile ", "");
            matches!(
                t.trim(),
                "float" | "double" | "long double" | "_Float16" | "__float128"
            )
        })
        .filter_map(|c| c.get("name").and_then(Value::as_str).map(str::to_string))
        .collect()
}

fn step_of(inc: &Value, var: &str) -> Option<i64> {
    let v = strip(inc);
    match kind(v) {
        "UnaryOperator" => {
            let op = v.get("opcode")?.as_str()?;
            (decl_name(children(v).first()?)? == var).then_some(())?;
            match op {
                "++" => Some(1),
                "--" => Some(-1),
                _ => None,
            }
        }
        "CompoundAssignOperator" => {
            let op = v.get("opcode")?.as_str()?;
            let [l, r] = children(v) else { return None };
            (decl_name(l)? == var).then_some(())?;
            let c = affine(r)?;
            c.terms.is_empty().then_some(())?;
            match op {
                "+=" => Some(c.constant),
                "-=" => Some(-c.constant),
                _ => None,
            }
        }
        "BinaryOperator" => {
            let (op, l, r) = binary(v)?;
            (op == "=" && decl_name(l)? == var).then_some(())?;
            let e = affine(r)?;
            let k = *e.terms.get(var)?;
            (k == 1 && e.terms.len() == 1).then_some(e.constant)
        }
        _ => None,
    }
}

/// Reads a compile_commands.json entry's flags for `file` (only -D, -I, -std, -include).
pub fn flags_from_compile_commands(db: &Path, file: &Path) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(db).map_err(|source| StaticError::Read {
        path: db.to_path_buf(),
        source,
    })?;
    let entries: Vec<Value> = serde_json::from_str(&text).map_err(|e| StaticError::Parse {
        path: db.to_path_buf(),
        line: e.line(),
        message: format!("expected a JSON array of compile commands: {e}"),
    })?;
    let name = file.file_name();
    for e in &entries {
        let f = e.get("file").and_then(Value::as_str).unwrap_or("");
        if Path::new(f).file_name() != name {
            continue;
        }
        let args: Vec<String> = match (e.get("arguments"), e.get("command")) {
            (Some(Value::Array(a)), _) => a
                .iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect(),
            (_, Some(Value::String(c))) => c.split_whitespace().map(str::to_string).collect(),
            _ => continue,
        };
        return Ok(args
            .into_iter()
            .filter(|a| a.starts_with("-D") || a.starts_with("-I") || a.starts_with("-std"))
            .collect());
    }
    Err(StaticError::Parse {
        path: db.to_path_buf(),
        line: 0,
        message: format!("no entry for {}", file.display()),
    })
}
