//! `{param}` placeholders in stage commands and parameter-file templates (002 §3.3: the
//! knowledge file written from the genes). `{{` and `}}` are literal braces.

/// A template split into literal text and placeholder names.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq)]
enum Part {
    Text(String),
    Param(String),
}

/// A placeholder that names no parameter, with its offset in the template text.
#[derive(Debug, Clone, PartialEq)]
pub struct Unknown {
    pub name: String,
    pub offset: usize,
}

impl Template {
    /// Parses `text`; Err(offset, message) for an unclosed brace.
    pub fn parse(text: &str) -> Result<Template, (usize, String)> {
        let mut parts = Vec::new();
        let mut lit = String::new();
        let mut chars = text.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            match c {
                '{' if chars.peek().map(|p| p.1) == Some('{') => {
                    chars.next();
                    lit.push('{');
                }
                '}' if chars.peek().map(|p| p.1) == Some('}') => {
                    chars.next();
                    lit.push('}');
                }
                '{' => {
                    let rest = &text[i + 1..];
                    let end = rest.find('}').ok_or((
                        i,
                        "`{` without a closing `}` (write `{{` for a brace)".into(),
                    ))?;
                    if !lit.is_empty() {
                        parts.push(Part::Text(std::mem::take(&mut lit)));
                    }
                    parts.push(Part::Param(rest[..end].trim().to_string()));
                    for _ in 0..rest[..end].chars().count() + 1 {
                        chars.next();
                    }
                }
                other => lit.push(other),
            }
        }
        if !lit.is_empty() {
            parts.push(Part::Text(lit));
        }
        Ok(Template { parts })
    }

    /// Placeholders not among `known`, with their offsets in `source` (the template text).
    pub fn unknown(&self, source: &str, known: &dyn Fn(&str) -> bool) -> Vec<Unknown> {
        self.params()
            .filter(|p| !known(p))
            .map(|p| Unknown {
                name: p.to_string(),
                offset: source.find(&format!("{{{p}")).unwrap_or(0),
            })
            .collect()
    }

    pub fn params(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Param(n) => Some(n.as_str()),
            Part::Text(_) => None,
        })
    }

    /// The text with every placeholder replaced; `quote` shell-quotes each value, so a value
    /// is never spliced into a shell string as code.
    pub fn render(&self, lookup: &dyn Fn(&str) -> Option<String>, quote: bool) -> String {
        let mut out = String::new();
        for p in &self.parts {
            match p {
                Part::Text(t) => out.push_str(t),
                Part::Param(n) => {
                    let v = lookup(n).unwrap_or_default();
                    if quote {
                        out.push_str(&shell_words::quote(&v));
                    } else {
                        out.push_str(&v);
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup(n: &str) -> Option<String> {
        match n {
            "ranks" => Some("4".into()),
            "evil" => Some("x; rm -rf /".into()),
            _ => None,
        }
    }

    #[test]
    fn placeholders_and_escaped_braces() {
        let t = Template::parse("mpirun -np {ranks} ./a {{x}}").unwrap();
        assert_eq!(t.render(&lookup, false), "mpirun -np 4 ./a {x}");
        let unknown = t.unknown("mpirun -np {ranks}", &|n| n == "nothing");
        assert_eq!(unknown[0].name, "ranks");
        assert!(Template::parse("a {b").is_err());
    }

    #[test]
    fn shell_rendering_quotes_values() {
        let t = Template::parse("echo {evil}").unwrap();
        assert_eq!(t.render(&lookup, true), "echo 'x; rm -rf /'");
    }
}
