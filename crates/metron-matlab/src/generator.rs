//! A generator of random MATLAB functions for differential testing of the passes: loops over
//! ranges with scale, offset and negative steps, 1-D and 2-D subscripts, reductions (with
//! accumulators named like built-ins), integer and logical data, `&&`/`||` guards over slices,
//! user function calls, `if`/`else` in loop bodies, affine ranges in both operator and
//! Mc2Mc's call style, and commutative chains for reorder. Written in the style of numeric
//! code, not of the passes: nothing here asks what a pass can do.

use crate::differential::Case;
use crate::dimensionality::Dim;
use crate::passes::{run_passes, Options};

/// SplitMix64: small, seedable, and the same on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// A generated function, its arguments and the passes to try on it.
#[derive(Debug, Clone)]
pub struct Generated {
    pub name: String,
    pub source: String,
    pub args: String,
    pub outputs: usize,
    pub passes: Vec<String>,
    pub options: Options,
}

impl Generated {
    /// The case as a self-describing regression file: a header of `% key: value` lines
    /// (passes, assume, force, args) before the function, read back by [`Generated::parse`].
    pub fn to_regression_file(&self) -> String {
        let assume = match self.options.assume {
            Some(Dim::Row) => "row",
            Some(Dim::Column) => "column",
            _ => "none",
        };
        format!(
            "% passes: {}\n% assume: {assume}\n% force: {}\n% args: {}\n{}",
            self.passes.join(","),
            self.options.force,
            self.args,
            self.source
        )
    }

    /// Reads a file written by [`Generated::to_regression_file`]; `name` is its stem.
    pub fn parse(name: &str, text: &str) -> Option<Generated> {
        let mut g = Generated {
            name: name.to_string(),
            source: String::new(),
            args: String::new(),
            outputs: 0,
            passes: Vec::new(),
            options: Options::default(),
        };
        let mut body = Vec::new();
        for line in text.lines() {
            let header = line.strip_prefix("% ").and_then(|l| l.split_once(": "));
            match header {
                Some(("passes", v)) if body.is_empty() => {
                    g.passes = v.split(',').map(str::to_string).collect()
                }
                Some(("assume", v)) if body.is_empty() => {
                    g.options.assume = match v {
                        "row" => Some(Dim::Row),
                        "column" => Some(Dim::Column),
                        _ => None,
                    }
                }
                Some(("force", v)) if body.is_empty() => g.options.force = v == "true",
                Some(("args", v)) if body.is_empty() => g.args = v.to_string(),
                _ => body.push(line),
            }
        }
        g.source = body.join("\n") + "\n";
        let program = crate::parse(&g.source, std::path::Path::new(name)).ok()?;
        let first = program.functions.first()?;
        if first.name != name {
            let old = format!("= {}(", first.name);
            g.source = g.source.replacen(&old, &format!("= {name}("), 1);
        }
        g.outputs = first.outputs.len();
        Some(g)
    }

    /// Applies the passes; `Err` carries the pass error text (itself a finding).
    pub fn case(&self) -> Result<Case, String> {
        let file = std::path::PathBuf::from(format!("{}.m", self.name));
        let out = run_passes(&self.source, &file, &self.passes, &self.options)
            .map_err(|e| e.to_string())?;
        Ok(Case {
            name: self.name.clone(),
            original: self.source.clone(),
            transformed: out.last().map(|o| o.source.clone()).unwrap_or_default(),
            args: self.args.clone(),
            outputs: self.outputs,
        })
    }
}

struct Body {
    rng: Rng,
    lines: Vec<String>,
    outputs: Vec<String>,
    counter: usize,
    uses_ufun: bool,
    /// Names of accumulators in the function (they shadow built-ins).
    shadowed: Vec<String>,
}

const PASS_SETS: &[&[&str]] = &[
    &["vectorize"],
    &["range"],
    &["repack"],
    &["reorder"],
    &["range", "vectorize"],
    &["vectorize", "range"],
    &["vectorize", "repack"],
    &["inline", "range", "vectorize"],
    &["dslice"],
    &["vectorize", "range", "repack", "reorder"],
];

pub fn generate(seed: u64) -> Generated {
    let mut rng = Rng::new(seed);
    let n = 3 + rng.below(5);
    let big = 2 * n + 4;
    let column = rng.chance(30);
    let data: Vec<String> = (0..big)
        .map(|_| format!("{:.2}", (rng.below(601) as f64 - 300.0) / 100.0))
        .collect();
    let x = if column {
        format!("[{}]", data.join("; "))
    } else {
        format!("[{}]", data.join(" "))
    };
    // Sometimes integer data arrives through the parameter, where no analysis sees it: the
    // run-time class checks must then keep the loops.
    let integer_data = rng.chance(15);
    let x = if integer_data {
        format!("int16({x} * 10)")
    } else {
        x
    };
    let m = n + 2;
    let rows: Vec<String> = (0..m)
        .map(|_| {
            (0..m)
                .map(|_| format!("{}", rng.below(19) as i64 - 9))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let a = format!("[{}]", rows.join("; "));
    let name = format!("g{seed}");
    let mut body = Body {
        rng,
        lines: Vec::new(),
        outputs: Vec::new(),
        counter: 0,
        uses_ufun: false,
        shadowed: Vec::new(),
    };
    if body.rng.chance(50) {
        body.lines.push("% metron: scalar n".into());
    }
    // An annotation is the programmer's word, trusted by the passes: only a true one.
    if body.rng.chance(50) && !integer_data {
        body.lines.push("% metron: double x A n".into());
    }
    body.lines.push("N = numel(x);".into());
    body.lines.push("xi = int8(round(x * 40));".into());
    body.lines.push("xl = x > 0;".into());
    body.lines.push("perm = mod((1:N) * 7, N) + 1;".into());
    let statements = 1 + body.rng.below(4);
    for _ in 0..statements {
        body.statement(column);
    }
    let passes = body
        .rng
        .pick(PASS_SETS)
        .iter()
        .map(|s| s.to_string())
        .collect();
    let options = Options {
        force: body.rng.chance(50),
        assume: if body.rng.chance(50) {
            Some(if column { Dim::Column } else { Dim::Row })
        } else {
            None
        },
        ..Options::default()
    };
    let mut source = format!("function [{}] = {name}(x, A, n)\n", body.outputs.join(", "));
    for l in &body.lines {
        source.push_str("  ");
        source.push_str(l);
        source.push('\n');
    }
    source.push_str("end\n");
    if body.uses_ufun {
        source.push_str("\nfunction r = ufun(a, b)\n  r = a .* 2 + b;\nend\n");
        source.push_str("\nfunction p = payoff(s, k)\n  p = max(s - k, 0) * exp(-0.05);\nend\n");
    }
    Generated {
        name,
        outputs: body.outputs.len(),
        source,
        args: format!("{x}, {a}, {n}"),
        passes,
        options,
    }
}

impl Body {
    fn fresh(&mut self, base: &str) -> String {
        self.counter += 1;
        let v = format!("{base}{}", self.counter);
        self.outputs.push(v.clone());
        v
    }

    fn statement(&mut self, column: bool) {
        match self.rng.below(10) {
            9 => self.scatter_loop(column),
            0 | 1 => self.element_loop(column),
            2 => self.reduction_loop(),
            3 => self.two_d_loop(),
            4 => self.if_loop(),
            5 => self.guard(),
            6 => self.affine_range(),
            7 => self.chain(),
            _ => self.nest(),
        }
    }

    /// `for i = ...` header and the largest value of i (for subscripts in bounds).
    fn loop_header(&mut self, var: &str) -> String {
        match self.rng.below(5) {
            0 => format!("for {var} = 1:n"),
            1 => format!("for {var} = 2:n"),
            2 => format!("for {var} = 1:2:n"),
            3 => format!("for {var} = n:-1:1"),
            _ => format!("for {var} = 1:n-1"),
        }
    }

    /// A read subscript in 1..2n+2 for i in 1..n.
    fn sub(&mut self, var: &str) -> String {
        match self.rng.below(6) {
            0 | 1 => var.to_string(),
            2 => format!("{var}+1"),
            3 => format!("2*{var}"),
            4 => format!("2*{var}+1"),
            _ => format!("{var}+2"),
        }
    }

    fn expr(&mut self, var: &str, depth: usize) -> String {
        if depth == 0 || self.rng.chance(35) {
            return self.atom(var);
        }
        match self.rng.below(8) {
            0 => format!(
                "{} + {}",
                self.expr(var, depth - 1),
                self.expr(var, depth - 1)
            ),
            1 => format!(
                "{} - {}",
                self.expr(var, depth - 1),
                self.expr(var, depth - 1)
            ),
            2 => format!("{} * {}", self.expr(var, depth - 1), self.atom_scalar()),
            3 => format!("({}) / 2", self.expr(var, depth - 1)),
            4 => format!("abs({})", self.expr(var, depth - 1)),
            5 => format!("sqrt(abs({}))", self.expr(var, depth - 1)),
            6 => {
                self.uses_ufun = true;
                let f = self.rng.pick(&["ufun", "payoff"]).to_string();
                format!("{f}({}, {})", self.expr(var, depth - 1), self.atom_scalar())
            }
            _ => format!(
                "{} .* {}",
                self.expr(var, depth - 1),
                self.expr(var, depth - 1)
            ),
        }
    }

    fn atom_scalar(&mut self) -> String {
        self.rng.pick(&["2", "0.5", "n", "3"]).to_string()
    }

    fn atom(&mut self, var: &str) -> String {
        match self.rng.below(10) {
            9 => format!("x(perm({}))", self.sub(var)),
            0..=2 => format!("x({})", self.sub(var)),
            3 => format!("A({var}, {})", 1 + self.rng.below(3)),
            4 => format!("A({}, {var})", 1 + self.rng.below(3)),
            5 => var.to_string(),
            6 => format!("xi({})", self.sub(var)),
            7 => format!("xl({})", self.sub(var)),
            _ => self.atom_scalar(),
        }
    }

    fn alloc(&mut self, y: &str, column: bool) -> String {
        let shape = if column { "N, 1" } else { "1, N" };
        match self.rng.below(6) {
            0 => format!("{y} = zeros({shape}, 'int16');"),
            1 => format!("{y} = false({shape});"),
            _ => format!("{y} = zeros({shape});"),
        }
    }

    fn element_loop(&mut self, column: bool) {
        let y = self.fresh("y");
        let a = self.alloc(&y, column);
        self.lines.push(a);
        let h = self.loop_header("i");
        self.lines.push(h);
        let s = self.sub("i");
        let e = self.expr("i", 2);
        if self.rng.chance(30) {
            // A loop-private temporary (scalar expansion), sometimes read after the loop.
            let t = self.expr("i", 1);
            self.lines.push(format!("  tmp = {t};"));
            self.lines.push(format!("  {y}({s}) = tmp * 2 + {e};"));
            if self.rng.chance(30) {
                self.lines.push("end".into());
                let last = self.fresh("last");
                self.lines.push(format!("{last} = tmp;"));
                return;
            }
        } else {
            self.lines.push(format!("  {y}({s}) = {e};"));
        }
        if self.rng.chance(40) {
            let z = self.fresh("z");
            let e2 = self.expr("i", 1);
            // A second statement reading the first's result: a dependence to order.
            self.lines
                .insert(self.lines.len() - 2, format!("{z} = zeros(size(x));"));
            let back = self.rng.pick(&["i", "i+1", "2*i"]).to_string();
            self.lines.push(format!("  {z}(i) = {y}({back}) + {e2};"));
        }
        self.lines.push("end".into());
    }

    fn reduction_loop(&mut self) {
        let mut base = self.rng.pick(&["s", "sum", "max", "total"]).to_string();
        if base == "sum" && self.lines.iter().any(|l| l.contains("sum(")) {
            base = "s".into();
        }
        let acc = if self.outputs.contains(&base) || self.shadowed.contains(&base) {
            self.fresh("acc")
        } else {
            self.outputs.push(base.clone());
            base.clone()
        };
        self.shadowed.push(acc.clone());
        let init = self
            .rng
            .pick(&["0", "1.5", "int16(0)", "uint8(10)"])
            .to_string();
        self.lines.push(format!("{acc} = {init};"));
        let h = self.loop_header("k");
        self.lines.push(h);
        let e = self.expr("k", 2);
        let e = if self.shadowed.iter().any(|s| e.contains(&format!("{s}("))) {
            format!("x({})", self.sub("k"))
        } else {
            e
        };
        let op = self.rng.pick(&["+", "-"]).to_string();
        self.lines.push(format!("  {acc} = {acc} {op} {e};"));
        self.lines.push("end".into());
    }

    /// A histogram-style scatter-add through the permutation (indices 1..N).
    fn scatter_loop(&mut self, column: bool) {
        let h = self.fresh("h");
        let a = self.alloc(&h, column);
        self.lines.push(a);
        let hd = self.loop_header("i");
        self.lines.push(hd);
        let s = self.sub("i");
        let e = self.expr("i", 1);
        let op = self.rng.pick(&["+", "-"]).to_string();
        self.lines
            .push(format!("  {h}(perm({s})) = {h}(perm({s})) {op} {e};"));
        self.lines.push("end".into());
    }

    fn two_d_loop(&mut self) {
        let b = self.fresh("B");
        self.lines.push(format!("{b} = zeros(n + 2);"));
        let h = self.loop_header("i");
        self.lines.push(h);
        let j = 1 + self.rng.below(3);
        let e = self.expr("i", 1);
        let sum_free = !self.shadowed.iter().any(|s| s == "sum");
        match self.rng.below(if sum_free { 3 } else { 2 }) {
            0 => self
                .lines
                .push(format!("  {b}(i, {j}) = A(i, {j}) * 2 + {e};")),
            1 => self
                .lines
                .push(format!("  {b}({j}, i) = A({j}, i) - A(i, {j}) + {e};")),
            _ => self
                .lines
                .push(format!("  {b}(i, {j}) = sum(A(i, :)) + {e};")),
        }
        self.lines.push("end".into());
    }

    fn nest(&mut self) {
        let b = self.fresh("C");
        self.lines.push(format!("{b} = zeros(n + 2);"));
        self.lines.push("for i = 1:n".into());
        self.lines.push("  for j = 1:n".into());
        let rhs = match self.rng.below(3) {
            0 => "A(i, j) + A(j, i) * x(i)".to_string(),
            1 => format!(
                "A(i, j+1) - A(i+1, j) + {}",
                self.rng.pick(&["i", "j", "n"])
            ),
            _ => "A(i, j) * 2".to_string(),
        };
        self.lines.push(format!("    {b}(i, j) = {rhs};"));
        self.lines.push("  end".into());
        self.lines.push("end".into());
    }

    fn if_loop(&mut self) {
        let y = self.fresh("w");
        self.lines.push(format!("{y} = zeros(size(x));"));
        let h = self.loop_header("i");
        self.lines.push(h);
        let c = self
            .rng
            .pick(&[
                "x(i) > 0",
                "xl(i)",
                "i < 3 && x(i+1) > 0",
                "A(i, 1) >= 0 || x(i) < -1",
                "x(i) > x(i+1)",
                "w0(i) > 0",
            ])
            .to_string()
            .replace("w0", &y);
        self.lines.push(format!("  if {c}"));
        let e1 = self.expr("i", 1);
        let s1 = self.sub("i");
        self.lines.push(format!("    {y}({s1}) = {e1};"));
        if self.rng.chance(20) {
            let e3 = self.expr("i", 1);
            self.lines
                .push(format!("  elseif x(i) < -1\n    {y}(i) = {e3};"));
        }
        if self.rng.chance(70) {
            self.lines.push("  else".into());
            let e2 = self.expr("i", 1);
            let s2 = self.rng.pick(&["i".to_string(), s1.clone()]).clone();
            self.lines.push(format!("    {y}({s2}) = {e2};"));
        }
        self.lines.push("  end".into());
        self.lines.push("end".into());
    }

    fn guard(&mut self) {
        let g = self.fresh("g");
        let k = self.rng.below(3);
        let (op, cond) = if self.rng.chance(50) {
            ("&&", format!("N - {k} < N"))
        } else {
            ("||", format!("N - {k} >= N"))
        };
        self.lines.push(format!(
            "{g} = {cond} {op} x(N-{k}:N-{k}) .* 2 + x(N-{k}+1:N-{k}+1) > 0;"
        ));
    }

    fn affine_range(&mut self) {
        let r = self.fresh("r");
        let c = 1 + self.rng.below(3);
        let line = match self.rng.below(6) {
            0 => format!("{r} = {c}*(1:n) + n;"),
            1 => format!("{r} = x({c}*(1:n-1) - 1 + {c}) + x((0:n-1) + 1);"),
            2 => format!("{r} = A({c}*(1:2)) + 2*(1:2) - 1;"),
            3 => format!("{r} = x(plus(times({c}, colon(1, minus(n, 1))), 1));"),
            4 => format!("{r} = -(1:n) + 2*n + 1;"),
            _ => format!("{r} = x((1:2:n) + 1) .* 2;"),
        };
        self.lines.push(line);
    }

    fn chain(&mut self) {
        let r = self.fresh("q");
        let line = match self.rng.below(4) {
            0 => format!("{r} = log(abs(x(1:n)) + 1) + x(2:n+1) + x(1:n);"),
            1 => format!("{r} = -double(xi(1:n)) + xi(2:n+1) + xi(1:n);"),
            2 => format!("{r} = exp(x(1:n)) .* x(2:n+1) .* xl(1:n);"),
            _ => format!("{r} = sqrt(abs(x(1:n))) + A(1, 1:n) + x(3:n+2);"),
        };
        self.lines.push(line);
    }
}
