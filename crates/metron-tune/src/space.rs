//! The configuration space of 002 §3.3: range and list genes, constants, derived values,
//! restrictions (Listing 3.14), strong scaling and predefined units. Expressions are evalexpr's.

use std::collections::HashSet;

use evalexpr::{ContextWithMutableVariables, HashMapContext, Node};
use serde::Serialize;

use crate::rng::Rng;

/// A unit (genome): one index into each gene's values, in gene order (002 §3.3, "Program
/// specification").
pub type Genome = Vec<u32>;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GeneKind {
    Range,
    List,
}

/// A gene and its values, each kept verbatim as it is written into parameter files.
#[derive(Debug, Clone, Serialize)]
pub struct Gene {
    pub name: String,
    pub kind: GeneKind,
    pub values: Vec<String>,
}

impl Gene {
    /// 002 Listing 3.2: `start`, then `count` values `step` apart.
    pub fn range(name: &str, start: i64, count: u32, step: i64) -> Gene {
        let values = (0..count as i64)
            .map(|i| (start + i * step).to_string())
            .collect();
        Gene {
            name: name.to_string(),
            kind: GeneKind::Range,
            values,
        }
    }

    pub fn list(name: &str, values: Vec<String>) -> Gene {
        Gene {
            name: name.to_string(),
            kind: GeneKind::List,
            values,
        }
    }
}

/// A compiled expression with its source text (for messages).
#[derive(Debug, Clone)]
pub struct Expr {
    pub text: String,
    node: Node,
}

impl Expr {
    pub fn parse(text: &str) -> Result<Expr, String> {
        let node = evalexpr::build_operator_tree(text).map_err(|e| e.to_string())?;
        Ok(Expr {
            text: text.to_string(),
            node,
        })
    }

    /// Variables the expression reads (to check that each one is defined).
    pub fn variables(&self) -> Vec<String> {
        self.node
            .iter_read_variable_identifiers()
            .map(str::to_string)
            .collect()
    }

    pub fn eval(&self, ctx: &HashMapContext) -> Result<evalexpr::Value, String> {
        self.node
            .eval_with_context(ctx)
            .map_err(|e| format!("`{}`: {e}", self.text))
    }

    pub fn eval_bool(&self, ctx: &HashMapContext) -> Result<bool, String> {
        match self.eval(ctx)? {
            evalexpr::Value::Boolean(b) => Ok(b),
            other => Err(format!(
                "`{}` is {other}, expected true or false",
                self.text
            )),
        }
    }

    pub fn eval_f64(&self, ctx: &HashMapContext) -> Result<f64, String> {
        match self.eval(ctx)? {
            evalexpr::Value::Int(i) => Ok(i as f64),
            evalexpr::Value::Float(f) => Ok(f),
            other => Err(format!("`{}` is {other}, expected a number", self.text)),
        }
    }
}

/// A value computed from the others (002 §3.3's derived quantities, e.g. the MPI rank count).
#[derive(Debug, Clone)]
pub struct Derived {
    pub name: String,
    pub expr: Expr,
    /// Strong scaling (002 §3.3 `strong_scale`): the derived value replaces a gene and must be
    /// one of that gene's values, or the unit is outside the space.
    pub replaces: Option<Gene>,
}

/// The space: genes, constants, derived values in definition order, restrictions.
#[derive(Debug, Clone, Default)]
pub struct Space {
    pub genes: Vec<Gene>,
    pub constants: Vec<(String, String)>,
    pub derived: Vec<Derived>,
    pub restrictions: Vec<Expr>,
    /// Replay tables: only these units exist (a measured table is its own restriction).
    pub members: Option<HashSet<Genome>>,
}

/// The parameters of one unit, in order: genes, constants, derived values.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Assignment {
    pub values: Vec<(String, String)>,
}

impl Assignment {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// How a verbatim value reads in an expression: a number, a boolean, or a string with the
/// quotes the thesis keeps (`"\"GS\""`) taken off, so `smoother == "GS"` works.
pub fn expr_value(text: &str) -> evalexpr::Value {
    let t = text.trim();
    if let Ok(i) = t.parse::<i64>() {
        return evalexpr::Value::Int(i);
    }
    if let Ok(f) = t.parse::<f64>() {
        return evalexpr::Value::Float(f);
    }
    match t {
        "true" | "True" => return evalexpr::Value::Boolean(true),
        "false" | "False" => return evalexpr::Value::Boolean(false),
        _ => {}
    }
    let unquoted = t
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .or_else(|| t.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')))
        .unwrap_or(t);
    evalexpr::Value::String(unquoted.to_string())
}

fn value_text(v: &evalexpr::Value) -> String {
    match v {
        evalexpr::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl Space {
    /// Number of units before restrictions (saturating).
    pub fn product(&self) -> u128 {
        self.genes
            .iter()
            .fold(1u128, |acc, g| acc.saturating_mul(g.values.len() as u128))
    }

    /// Parameters of a unit and the evalexpr context they form; `Err` when a derived value
    /// cannot be computed or a strong-scaled value is not one of its gene's values.
    pub fn assign(&self, genome: &Genome) -> Result<(Assignment, HashMapContext), String> {
        let mut ctx = HashMapContext::new();
        let mut values = Vec::with_capacity(self.genes.len() + self.constants.len());
        let set = |ctx: &mut HashMapContext, name: &str, v: evalexpr::Value| {
            ctx.set_value(name.to_string(), v)
                .map_err(|e| e.to_string())
        };
        for (gene, &i) in self.genes.iter().zip(genome) {
            let text = &gene.values[i as usize];
            set(&mut ctx, &gene.name, expr_value(text))?;
            values.push((gene.name.clone(), text.clone()));
        }
        for (name, text) in &self.constants {
            set(&mut ctx, name, expr_value(text))?;
            values.push((name.clone(), text.clone()));
        }
        for d in &self.derived {
            let v = d.expr.eval(&ctx)?;
            let text = value_text(&v);
            if let Some(gene) = &d.replaces {
                if !gene.values.iter().any(|g| expr_value(g) == v) {
                    return Err(format!(
                        "strong scaling gives {} = {text}, not one of its values",
                        d.name
                    ));
                }
            }
            set(&mut ctx, &d.name, v)?;
            values.push((d.name.clone(), text));
        }
        Ok((Assignment { values }, ctx))
    }

    /// Whether a unit is inside the space: its values compute and every restriction holds.
    pub fn is_valid(&self, genome: &Genome) -> bool {
        if let Some(members) = &self.members {
            return members.contains(genome);
        }
        match self.assign(genome) {
            Ok((_, ctx)) => self
                .restrictions
                .iter()
                .all(|r| r.eval_bool(&ctx).unwrap_or(false)),
            Err(_) => false,
        }
    }

    /// The Cartesian product under the restrictions, in odometer order (last gene fastest),
    /// the order of 002 Fig. 3.3.
    pub fn all(&self) -> impl Iterator<Item = Genome> + '_ {
        let sizes: Vec<u32> = self.genes.iter().map(|g| g.values.len() as u32).collect();
        let mut next = if sizes.contains(&0) {
            None
        } else {
            Some(vec![0u32; sizes.len()])
        };
        std::iter::from_fn(move || {
            let current = next.take()?;
            let mut succ = current.clone();
            let mut i = succ.len();
            let mut carried = true;
            while carried && i > 0 {
                i -= 1;
                succ[i] += 1;
                carried = succ[i] == sizes[i];
                if carried {
                    succ[i] = 0;
                }
            }
            if !carried {
                next = Some(succ);
            }
            Some(current)
        })
        .filter(|g| self.is_valid(g))
    }

    /// A uniformly random valid unit: rejection sampling over the product, then (for products
    /// up to 10^6) enumeration. `None` for an empty space, or one too sparse to sample.
    pub fn random_valid(&self, rng: &mut Rng, tries: usize) -> Option<Genome> {
        if let Some(members) = &self.members {
            // A sparse table: rejection over the product could take forever.
            let n = members.len();
            if n == 0 {
                return None;
            }
            if self.product() > 64 * n as u128 {
                return members.iter().nth(rng.below(n)).cloned();
            }
        }
        let drawn = (0..tries).find_map(|_| {
            let g: Genome = self
                .genes
                .iter()
                .map(|gene| rng.below(gene.values.len()) as u32)
                .collect();
            self.is_valid(&g).then_some(g)
        });
        if drawn.is_some() || self.product() > 1_000_000 {
            return drawn;
        }
        // A small space the restrictions leave sparse: enumerate it instead.
        let valid: Vec<Genome> = self.all().collect();
        (!valid.is_empty()).then(|| valid[rng.below(valid.len())].clone())
    }

    /// The space's genome for named values (predefined units, replay rows), or which name or
    /// value is wrong.
    pub fn genome_of(&self, values: &[(String, String)]) -> Result<Genome, String> {
        self.genes
            .iter()
            .map(|gene| {
                let (_, v) = values
                    .iter()
                    .find(|(n, _)| n == &gene.name)
                    .ok_or_else(|| format!("no value for gene `{}`", gene.name))?;
                gene.values
                    .iter()
                    .position(|x| x == v || expr_value(x) == expr_value(v))
                    .map(|i| i as u32)
                    .ok_or_else(|| {
                        format!(
                            "`{}` = {v} is not one of its values ({})",
                            gene.name,
                            gene.values.join(", ")
                        )
                    })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thesis_space() -> Space {
        // 002 Listing 3.3/3.5 (a part), with Listing 3.14's restrictions.
        Space {
            genes: vec![
                Gene::range("mpi", 1, 8, 1),
                Gene::range("omp", 1, 8, 1),
                Gene::list("smoother", vec!["\"GS\"".into(), "\"Jac\"".into()]),
            ],
            restrictions: vec![
                Expr::parse("mpi * omp <= 8").unwrap(),
                Expr::parse("mpi <= 8").unwrap(),
            ],
            ..Space::default()
        }
    }

    #[test]
    fn range_gene_is_start_then_count_values() {
        // 002 Listing 3.2: ["domain_numBlocks_x", 2, 2] produces 2 and 3.
        assert_eq!(Gene::range("x", 2, 2, 1).values, vec!["2", "3"]);
        assert_eq!(Gene::range("x", 0, 3, 4).values, vec!["0", "4", "8"]);
    }

    #[test]
    fn all_matches_brute_force_count() {
        let s = thesis_space();
        // Pairs (mpi, omp) in 1..=8 with mpi*omp <= 8: sum over mpi of floor(8/mpi).
        let pairs: usize = (1..=8).map(|m| 8 / m).sum();
        assert_eq!(s.all().count(), pairs * 2);
        assert!(s.all().all(|g| (g[0] + 1) * (g[1] + 1) <= 8));
    }

    #[test]
    fn quoted_list_values_compare_as_strings() {
        let mut s = thesis_space();
        s.restrictions
            .push(Expr::parse("smoother == \"GS\"").unwrap());
        assert!(s.all().all(|g| g[2] == 0));
        let (a, _) = s.assign(&vec![0, 0, 0]).unwrap();
        assert_eq!(a.get("smoother"), Some("\"GS\""));
    }

    #[test]
    fn strong_scaling_replaces_the_gene() {
        let mut s = Space {
            genes: vec![Gene::range("ranks", 1, 4, 1)],
            ..Space::default()
        };
        s.derived.push(Derived {
            name: "n".into(),
            expr: Expr::parse("256 / ranks").unwrap(),
            replaces: Some(Gene::list(
                "n",
                vec!["256".into(), "128".into(), "64".into()],
            )),
        });
        // ranks = 3 gives 85, not a value of n; ranks = 4 gives 64.
        let valid: Vec<_> = s.all().collect();
        assert_eq!(valid, vec![vec![0], vec![1], vec![3]]);
    }
}
