//! Differential testing on Octave: many (original, transformed) function pairs run in ONE
//! octave-cli process (starting Octave costs about 0.3 s), each pair called with the same
//! arguments, outputs compared by class, size and value. The oracle is Octave itself, which
//! shares no code with the passes.

use std::path::Path;

use serde::Serialize;

use crate::octave::{CheckError, OCTAVE};

/// One pair: `original` and `transformed` are function files whose first function is named
/// `name`; both are called as `name(args)`.
#[derive(Debug, Clone, Serialize)]
pub struct Case {
    pub name: String,
    pub original: String,
    pub transformed: String,
    pub args: String,
    pub outputs: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "verdict", content = "detail", rename_all = "snake_case")]
pub enum Verdict {
    Equal,
    /// Both raised an error (the same program fault in both versions).
    BothFailed(String),
    Differ(String),
    OriginalFailed(String),
    TransformedFailed(String),
}

impl Verdict {
    pub fn agrees(&self) -> bool {
        matches!(self, Verdict::Equal | Verdict::BothFailed(_))
    }
}

/// Octave function `[ok, why] = metron_same(a, b, rtol, atol)`: class, size, then values
/// (normwise: max|a-b| <= atol or <= rtol * max|a|; NaN only where NaN; Inf equal to itself).
pub const SAME: &str = r#"function [ok, why] = metron_same(a, b, rtol, atol)
  ok = false; why = '';
  if ~strcmp(class(a), class(b))
    why = sprintf('class %s vs %s', class(a), class(b)); return;
  end
  if ~isequal(size(a), size(b))
    why = sprintf('size %s vs %s', mat2str(size(a)), mat2str(size(b))); return;
  end
  if isnumeric(a) || islogical(a) || ischar(a)
    if xor(isreal(a), isreal(b)) && any(imag(double(a(:))) ~= imag(double(b(:))))
      why = 'complexity differs'; return;
    end
    a = double(a(:)); b = double(b(:));
    na = isnan(a); nb = isnan(b);
    if any(na ~= nb)
      why = 'NaN in different places'; return;
    end
    a = a(~na); b = b(~na);
    same = (a == b);
    d = abs(a(~same) - b(~same));
    if any(isnan(d)) || any(isinf(d))
      why = 'Inf in different places'; return;
    end
    m = max([0; d]); s = max([0; abs(a(isfinite(a)))]);
    ok = m <= atol || m <= rtol * s;
    if ~ok
      why = sprintf('max |diff| %.3g (relative %.3g)', m, m / max(s, realmin));
    end
  else
    ok = isequaln(a, b);
    if ~ok, why = 'values differ'; end
  end
end
"#;

fn one_line(s: &str) -> String {
    s.replace(['\t', '\n', '\r'], " ")
}

/// Runs every case in one Octave process; returns one verdict per case, in order.
pub fn run_batch(cases: &[Case], rtol: f64, atol: f64) -> Result<Vec<Verdict>, CheckError> {
    OCTAVE.locate()?;
    let dir = tempfile::tempdir().map_err(|source| CheckError::Io {
        path: "temporary directory".into(),
        source,
    })?;
    let root = dir.path();
    let write = |p: &Path, text: &str| {
        std::fs::write(p, text).map_err(|source| CheckError::Io {
            path: p.display().to_string(),
            source,
        })
    };
    write(&root.join("metron_same.m"), SAME)?;
    let results = root.join("verdicts.txt");
    let mut driver = format!(
        "1;\naddpath('{}');\nfid__ = fopen('{}', 'w');\n",
        root.display(),
        results.display()
    );
    for (k, c) in cases.iter().enumerate() {
        let t_name = format!("{}_t", c.name);
        let renamed =
            crate::octave::renamed_entry(&c.transformed, Path::new("t.m"), &c.name, &t_name)
                .ok_or_else(|| CheckError::Input {
                    file: c.name.clone(),
                    message: "the transformed version's first function cannot be renamed".into(),
                })?;
        write(&root.join(format!("{}.m", c.name)), &c.original)?;
        write(&root.join(format!("{t_name}.m")), &renamed)?;
        let n = c.outputs.max(1);
        driver.push_str(&format!(
            "o1__ = cell(1, {n}); o2__ = cell(1, {n}); e1__ = ''; e2__ = '';\n\
             rand('state', 42); randn('state', 42);\n\
             try, [o1__{{:}}] = {name}({args}); catch err__, e1__ = err__.message; end\n\
             rand('state', 42); randn('state', 42);\n\
             try, [o2__{{:}}] = {t_name}({args}); catch err__, e2__ = err__.message; end\n\
             v__ = 'equal'; d__ = '';\n\
             if ~isempty(e1__) && ~isempty(e2__), v__ = 'both'; d__ = e1__;\n\
             elseif ~isempty(e1__), v__ = 'original'; d__ = e1__;\n\
             elseif ~isempty(e2__), v__ = 'transformed'; d__ = e2__;\n\
             else\n for q__ = 1:{n}\n  [ok__, why__] = metron_same(o1__{{q__}}, o2__{{q__}}, {rtol:e}, {atol:e});\n\
             \x20 if ~ok__, v__ = 'differ'; d__ = sprintf('output %d: %s', q__, why__); break; end\n end\nend\n\
             fprintf(fid__, '%d\\t%s\\t%s\\n', {k}, v__, strrep(strrep(d__, \"\\n\", ' '), \"\\t\", ' '));\n",
            name = c.name,
            args = c.args,
        ));
    }
    driver.push_str("fclose(fid__);\n");
    let path = root.join("metron_batch.m");
    write(&path, &driver)?;
    match OCTAVE.run(
        [
            "--no-gui",
            "--quiet",
            "--norc",
            "--no-history",
            path.to_str().unwrap_or(""),
        ],
        Some(root),
    ) {
        Ok(_) => {}
        Err(metron_measure::tool::ToolError::Failed { stderr, .. }) => {
            return Err(CheckError::Octave {
                which: "the differential batch".into(),
                stderr,
            })
        }
        Err(e) => return Err(e.into()),
    }
    let text = std::fs::read_to_string(&results)
        .map_err(|_| CheckError::Result(results.display().to_string()))?;
    let mut verdicts =
        vec![Verdict::Differ("no verdict (Octave stopped early)".into()); cases.len()];
    for line in text.lines() {
        let mut f = line.splitn(3, '\t');
        let (Some(k), Some(v)) = (f.next().and_then(|k| k.parse::<usize>().ok()), f.next()) else {
            continue;
        };
        let d = one_line(f.next().unwrap_or(""));
        if let Some(slot) = verdicts.get_mut(k) {
            *slot = match v {
                "equal" => Verdict::Equal,
                "both" => Verdict::BothFailed(d),
                "original" => Verdict::OriginalFailed(d),
                "transformed" => Verdict::TransformedFailed(d),
                _ => Verdict::Differ(d),
            };
        }
    }
    Ok(verdicts)
}

/// The `.m` files of a directory, sorted (a corpus, a regression set).
pub fn m_files(dir: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "m") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}
