//! `metron tune import-gp`: the thesis's project files (002 Listings 3.12, 4.6) are Python
//! assignments of literals. They are read here with a small literal parser, never executed.

use std::path::Path;

use crate::error::{Result, TuneError};

/// A Python literal.
#[derive(Debug, Clone, PartialEq)]
pub enum Py {
    Int(i64),
    Float(f64),
    Str(String),
    Bool(bool),
    None,
    List(Vec<Py>),
}

struct Lexer<'a> {
    s: &'a [u8],
    i: usize,
    line: usize,
}

impl Lexer<'_> {
    /// Skips blanks, comments and line continuations; newlines only inside brackets.
    fn skip(&mut self, newlines: bool) {
        while self.i < self.s.len() {
            match self.s[self.i] {
                b' ' | b'\t' | b'\r' => self.i += 1,
                b'\\' if self.s.get(self.i + 1) == Some(&b'\n') => {
                    self.i += 2;
                    self.line += 1;
                }
                b'\n' if newlines => {
                    self.i += 1;
                    self.line += 1;
                }
                b'#' => {
                    while self.i < self.s.len() && self.s[self.i] != b'\n' {
                        self.i += 1;
                    }
                }
                _ => break,
            }
        }
    }

    fn value(&mut self) -> std::result::Result<Py, String> {
        self.skip(true);
        let Some(&c) = self.s.get(self.i) else {
            return Err("expected a value, found the end of the file".into());
        };
        match c {
            b'[' | b'(' => {
                let close = if c == b'[' { b']' } else { b')' };
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    self.skip(true);
                    if self.s.get(self.i) == Some(&close) {
                        self.i += 1;
                        return Ok(Py::List(items));
                    }
                    items.push(self.value()?);
                    self.skip(true);
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(&x) if x == close => {}
                        _ => return Err(format!("expected `,` or `{}` in a list", close as char)),
                    }
                }
            }
            b'"' | b'\'' => self.string(c),
            _ => self.atom(),
        }
    }

    fn string(&mut self, quote: u8) -> std::result::Result<Py, String> {
        self.i += 1;
        let mut out = Vec::new();
        while let Some(&c) = self.s.get(self.i) {
            self.i += 1;
            match c {
                b'\\' => {
                    let n = *self.s.get(self.i).ok_or("unterminated string")?;
                    self.i += 1;
                    match n {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'\\' | b'"' | b'\'' => out.push(n),
                        // Python keeps unknown escapes: "\GS" is backslash, G, S.
                        other => out.extend([b'\\', other]),
                    }
                }
                b'\n' => return Err("unterminated string".into()),
                c if c == quote => return Ok(Py::Str(String::from_utf8_lossy(&out).into_owned())),
                c => out.push(c),
            }
        }
        Err("unterminated string".into())
    }

    fn atom(&mut self) -> std::result::Result<Py, String> {
        let start = self.i;
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_alphanumeric() || b"+-._".contains(&self.s[self.i]))
        {
            self.i += 1;
        }
        let t = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
        match t {
            "True" => Ok(Py::Bool(true)),
            "False" => Ok(Py::Bool(false)),
            "None" => Ok(Py::None),
            _ => t
                .parse::<i64>()
                .map(Py::Int)
                .or_else(|_| t.parse::<f64>().map(Py::Float))
                .map_err(|_| {
                    format!("`{t}` is not a literal (only literals are read, nothing is executed)")
                }),
        }
    }
}

/// Reads `name = literal` assignments, in order, with their lines.
pub fn parse(path: &Path, text: &str) -> Result<Vec<(String, usize, Py)>> {
    let mut lx = Lexer {
        s: text.as_bytes(),
        i: 0,
        line: 1,
    };
    let mut out = Vec::new();
    loop {
        lx.skip(true);
        if lx.i >= lx.s.len() {
            return Ok(out);
        }
        let line = lx.line;
        let start = lx.i;
        while lx.i < lx.s.len() && (lx.s[lx.i].is_ascii_alphanumeric() || lx.s[lx.i] == b'_') {
            lx.i += 1;
        }
        let name = text[start..lx.i].to_string();
        lx.skip(false);
        if name.is_empty() || lx.s.get(lx.i) != Some(&b'=') {
            return Err(TuneError::input(path, line, "expected `name = literal`"));
        }
        lx.i += 1;
        let v = lx.value().map_err(|m| TuneError::input(path, lx.line, m))?;
        out.push((name, line, v));
    }
}

fn text(p: &Py) -> String {
    match p {
        Py::Int(i) => i.to_string(),
        Py::Float(f) => f.to_string(),
        Py::Str(s) => s.clone(),
        Py::Bool(b) => {
            if *b {
                "true".into()
            } else {
                "false".into()
            }
        }
        Py::None => "None".into(),
        Py::List(v) => format!("[{}]", v.iter().map(text).collect::<Vec<_>>().join(", ")),
    }
}

fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

fn gene_def<'a>(path: &Path, line: usize, p: &'a Py) -> Result<(&'a str, &'a [Py])> {
    if let Py::List(v) = p {
        if let Some(Py::Str(name)) = v.first() {
            return Ok((name, &v[1..]));
        }
    }
    Err(TuneError::input(
        path,
        line,
        format!("expected [\"name\", ...], found {}", text(p)),
    ))
}

/// Converts a `.gp` file to the TOML project format (docs/tune.md).
pub fn import(path: &Path, src: &str) -> Result<String> {
    let defs = parse(path, src)?;
    let mut t = format!(
        "# Imported from {} by metron tune import-gp.\n",
        path.display()
    );
    let get = |n: &str| defs.iter().find(|d| d.0 == n).map(|d| &d.2);
    let list = |n: &str| match get(n) {
        Some(Py::List(v)) => v.clone(),
        _ => Vec::new(),
    };
    let mut known = vec!["range_genes_def", "list_genes_def", "const_genes"];
    if let Some(Py::Str(p)) = get("lib_path") {
        t += &format!("library = {}\n", toml_str(p));
    }
    if let Some(Py::Str(p)) = get("out_path") {
        t += &format!("out = {}\n", toml_str(p));
    }
    known.extend(["lib_path", "out_path"]);
    let line_of = |n: &str| defs.iter().find(|d| d.0 == n).map_or(0, |d| d.1);
    let mut names = Vec::new();
    for g in list("range_genes_def") {
        let (name, rest) = gene_def(path, line_of("range_genes_def"), &g)?;
        let (Some(Py::Int(start)), Some(Py::Int(count))) = (rest.first(), rest.get(1)) else {
            return Err(TuneError::input(
                path,
                line_of("range_genes_def"),
                format!("range gene `{name}`: expected [name, start, count]"),
            ));
        };
        t += &format!(
            "\n[[range]]\nname = {}\nstart = {start}\ncount = {count}\n",
            toml_str(name)
        );
        names.push(name.to_string());
    }
    for g in list("list_genes_def") {
        let (name, rest) = gene_def(path, line_of("list_genes_def"), &g)?;
        let values: Vec<String> = match rest.first() {
            Some(Py::List(v)) => v.iter().map(|x| toml_str(&text(x))).collect(),
            _ => {
                return Err(TuneError::input(
                    path,
                    line_of("list_genes_def"),
                    format!("list gene `{name}`: expected [name, [values]]"),
                ))
            }
        };
        t += &format!(
            "\n[[list]]\nname = {}\nvalues = [{}]\n",
            toml_str(name),
            values.join(", ")
        );
        names.push(name.to_string());
    }
    for g in list("const_genes") {
        let (name, rest) = gene_def(path, line_of("const_genes"), &g)?;
        let v = rest.first().map(text).unwrap_or_default();
        t += &format!(
            "\n[[const]]\nname = {}\nvalue = {}\n",
            toml_str(name),
            toml_str(&v)
        );
        names.push(name.to_string());
    }
    // 002 §3.3: mpirun's -np is the product of the numBlocks genes ("known in advance").
    let np = product(&names, "domain_numBlocks_").unwrap_or_else(|| "1".into());
    t += &format!("\n[[derived]]\nname = \"np\"\nexpr = {}\n", toml_str(&np));
    t += &restrictions(&defs, &names, &mut known);
    t += &stages(&names, get("measured_timers_fname"));
    t += &search(&defs, &mut known);
    for (n, line, v) in &defs {
        if !known.contains(&n.as_str()) {
            t += &format!("# not imported (line {line}): {n} = {}\n", text(v));
        }
    }
    Ok(t)
}

fn product(names: &[String], prefix: &str) -> Option<String> {
    let v: Vec<&str> = names
        .iter()
        .filter(|n| n.starts_with(prefix))
        .map(String::as_str)
        .collect();
    (!v.is_empty()).then(|| v.join(" * "))
}

/// 002 Listing 3.14: MPI ranks are the product of `domain_numBlocks_*`, OpenMP threads per
/// rank the product of `domain_numFragPerBlock_*` (ExaStencils' meaning, §3.2).
fn restrictions(
    defs: &[(String, usize, Py)],
    names: &[String],
    known: &mut Vec<&'static str>,
) -> String {
    let mut req = Vec::new();
    let mpi = product(names, "domain_numBlocks_");
    let omp = product(names, "domain_numFragPerBlock_")
        .or_else(|| product(names, "domain_numFrgsPerBlock_"));
    let range = |n: &str| {
        defs.iter().find(|d| d.0 == n).and_then(|d| match &d.2 {
            Py::List(v) => match (v.first(), v.get(1)) {
                (Some(Py::Int(a)), Some(Py::Int(b))) => Some((*a, *b)),
                _ => None,
            },
            _ => None,
        })
    };
    let mut add = |key: &'static str, expr: Option<String>| {
        if let (Some((lo, hi)), Some(e)) = (range(key), expr) {
            req.push(format!("\"{e} >= {lo}\", \"{e} <= {hi}\""));
            known.push(key);
        }
    };
    add("num_mpi", mpi.clone().map(|m| format!("({m})")));
    add("num_omp_per_mpi", omp.clone().map(|o| format!("({o})")));
    add(
        "num_total_threads",
        mpi.zip(omp).map(|(m, o)| format!("({m}) * ({o})")),
    );
    let mut t = String::from("\n[restrictions]\n");
    t += &format!("require = [{}]\n", req.join(", "));
    if let Some((_, _, Py::Int(s))) = defs.iter().find(|d| d.0 == "strong_scale") {
        if *s > 0 && names.iter().any(|n| n == "maxLevel") {
            // 2^maxLevel points per fragment along x; the product over x stays `strong_scale`.
            t += &format!(
                "strong_scale = {{ gene = \"maxLevel\", expr = \"math::log2({s} / (domain_numBlocks_x * domain_numFragPerBlock_x))\" }}\n"
            );
        }
        known.push("strong_scale");
    }
    t
}

fn stages(names: &[String], timers: Option<&Py>) -> String {
    let knowledge: String = names.iter().map(|n| format!("{n} = {{{n}}}\\n")).collect();
    let timers = timers.map(text).unwrap_or_else(|| "TimersAll.msdf".into());
    format!(
        "\n# ExaStencils: the generator reads the knowledge file (002 §3.2); edit the paths.\n[generate]\nwrite = [{{ file = \"example.knowledge\", template = \"{knowledge}\" }}]\ncommand = [\"java\", \"-cp\", \"compiler.jar\", \"Main\", \"{{unit_dir}}/example.settings\", \"{{unit_dir}}/example.knowledge\"]\n\n[build]\ncommand = [\"make\"]\n\n[run]\ncommand = [\"mpirun\", \"-np\", \"{{np}}\", \"./exastencils\"]\n# fitness profile: {timers}\n"
    )
}

fn search(defs: &[(String, usize, Py)], known: &mut Vec<&'static str>) -> String {
    let mut t = String::from("\n[fitness]\nsource = \"probe\"\n");
    let get = |n: &str| defs.iter().find(|d| d.0 == n).map(|d| &d.2);
    if let Some(Py::Str(r)) = get("timer_to_use") {
        t += &format!("region = {}\n", toml_str(r));
    }
    if let Some(Py::Str(s)) = get("processing_strategy") {
        t += &format!("strategy = {}\n", toml_str(s));
    }
    t += "\n[search]\n";
    for (py, key) in [
        ("population_size", "population"),
        ("max_generation_count", "generations"),
        ("max_unique_units", "max_unique"),
        ("mutation_chance", "mutation_chance"),
    ] {
        if let Some(Py::Int(v)) = get(py) {
            t += &format!("{key} = {v}\n");
        }
    }
    if let Some(Py::Bool(e)) = get("use_elitism") {
        t += &format!("elitism = {}\n", u8::from(*e));
    }
    known.extend([
        "timer_to_use",
        "processing_strategy",
        "population_size",
        "max_generation_count",
        "max_unique_units",
        "mutation_chance",
        "use_elitism",
        "measured_timers_fname",
    ]);
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thesis_listing_4_6_imports() {
        let src = include_str!("../tests/data/strong.gp");
        let toml = import(Path::new("strong.gp"), src).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("p.toml");
        std::fs::write(&p, &toml).unwrap();
        let project = crate::project::Project::load(&p).unwrap_or_else(|e| panic!("{e}\n{toml}"));
        // Listing 4.6: 12 range genes, 2 list genes; maxLevel becomes the strong-scaled value.
        assert_eq!(project.space.genes.len(), 13);
        let smoother = project
            .space
            .genes
            .iter()
            .find(|g| g.name == "l3tmp_smoother")
            .unwrap();
        assert_eq!(smoother.values, vec!["\"GS\"", "\"Jac\"", "\"RBGS\""]);
        assert_eq!(project.ga.population, 30);
        assert_eq!(project.ga.max_unique, Some(20));
        assert!(toml.contains("# not imported (line 2): cmp_path"), "{toml}");
    }

    #[test]
    fn python_code_is_refused_not_run() {
        let e = import(Path::new("x.gp"), "a = [1, 2]\nb = __import__('os')\n").unwrap_err();
        match e {
            TuneError::Input { line, .. } => assert_eq!(line, 2),
            other => panic!("{other}"),
        }
    }
}
