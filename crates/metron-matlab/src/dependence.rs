//! Loop dependence testing and the dependence graph for one loop level (000 §6.3, §6.4.1;
//! Allen & Kennedy): exact test for equal coefficients, GCD test, Banerjee bounds per
//! direction; strongly connected components (Kosaraju) and the π-graph in topological order.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::linear::Linear;

/// `coeff * i + offset`, offset invariant in the loop.
#[derive(Debug, Clone, PartialEq)]
pub struct Subscript {
    pub coeff: i64,
    pub offset: Linear,
}

/// Iteration `i1` of the first reference versus `i2` of the second, in execution order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Direction {
    /// The first reference's iteration runs earlier.
    Before,
    Same,
    After,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    Exact,
    Gcd,
    Banerjee,
    /// Offsets differ by a symbolic amount: assumed dependent in every direction.
    Assumed,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Dependence {
    pub directions: BTreeSet<Direction>,
    pub method: Method,
}

impl Dependence {
    pub fn exists(&self) -> bool {
        !self.directions.is_empty()
    }
}

/// Loop `for i = lower:step:upper`; bounds are known numbers or not.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub lower: Option<i64>,
    pub upper: Option<i64>,
    pub step: i64,
}

fn all() -> BTreeSet<Direction> {
    [Direction::Before, Direction::Same, Direction::After]
        .into_iter()
        .collect()
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

/// Tests whether `a` at iteration i1 and `b` at iteration i2 can touch the same element.
pub fn test(a: &Subscript, b: &Subscript, bounds: Bounds) -> Dependence {
    let delta = b.offset.sub(&a.offset);
    let Some(k) = delta.as_constant() else {
        return Dependence {
            directions: all(),
            method: Method::Assumed,
        };
    };
    if k.fract() != 0.0 {
        return Dependence {
            directions: BTreeSet::new(),
            method: Method::Exact,
        };
    }
    let k = k as i64;
    // c1*i1 - c2*i2 = k (values of i, not iteration numbers).
    let (c1, c2) = (a.coeff, b.coeff);
    if c1 == c2 {
        return exact_equal_coefficients(c1, k, bounds);
    }
    let g = gcd(c1, c2);
    if g != 0 && k % g != 0 {
        return Dependence {
            directions: BTreeSet::new(),
            method: Method::Gcd,
        };
    }
    match (bounds.lower, bounds.upper, bounds.step.abs() == 1) {
        (Some(l), Some(u), true) => {
            let empty = (bounds.step > 0 && u < l) || (bounds.step < 0 && l < u);
            if empty {
                return Dependence {
                    directions: BTreeSet::new(),
                    method: Method::Banerjee,
                };
            }
            banerjee(c1, c2, k, l.min(u), l.max(u), bounds.step)
        }
        _ => Dependence {
            directions: all(),
            method: Method::Gcd,
        },
    }
}

fn exact_equal_coefficients(c: i64, k: i64, bounds: Bounds) -> Dependence {
    let none = Dependence {
        directions: BTreeSet::new(),
        method: Method::Exact,
    };
    if c == 0 {
        return if k == 0 {
            Dependence {
                directions: all(),
                method: Method::Exact,
            }
        } else {
            none
        };
    }
    if k % c != 0 {
        return none;
    }
    // i1 - i2 = k / c  =>  distance in values i2 - i1 = -k/c
    let dist = -k / c;
    if dist % bounds.step != 0 {
        return none;
    }
    let iterations = dist / bounds.step; // > 0: the second reference runs later
    if let (Some(l), Some(u)) = (bounds.lower, bounds.upper) {
        let span = ((u - l) / bounds.step).max(-1);
        if iterations.abs() > span {
            return none;
        }
    }
    let d = match iterations.signum() {
        1 => Direction::Before,
        0 => Direction::Same,
        _ => Direction::After,
    };
    Dependence {
        directions: [d].into_iter().collect(),
        method: Method::Exact,
    }
}

// Banerjee: the extremes of h = c1*i1 - c2*i2 over each direction's (real) region lie at its
// vertices; k outside [min, max] rules the direction out.
fn banerjee(c1: i64, c2: i64, k: i64, l: i64, u: i64, step: i64) -> Dependence {
    let h = |i1: i64, i2: i64| c1 * i1 - c2 * i2;
    let mut directions = BTreeSet::new();
    if u < l {
        return Dependence {
            directions,
            method: Method::Banerjee,
        };
    }
    let within = |pts: &[(i64, i64)]| {
        let vals: Vec<i64> = pts.iter().map(|&(a, b)| h(a, b)).collect();
        let (lo, hi) = (vals.iter().min().copied(), vals.iter().max().copied());
        matches!((lo, hi), (Some(lo), Some(hi)) if lo <= k && k <= hi)
    };
    if within(&[(l, l), (u, u)]) {
        directions.insert(Direction::Same);
    }
    if u > l {
        // i1 < i2 in value
        let less = within(&[(l, l + 1), (l, u), (u - 1, u)]);
        let greater = within(&[(l + 1, l), (u, l), (u, u - 1)]);
        // With a negative step, a smaller value runs later.
        let (earlier, later) = if step > 0 {
            (less, greater)
        } else {
            (greater, less)
        };
        if earlier {
            directions.insert(Direction::Before);
        }
        if later {
            directions.insert(Direction::After);
        }
    }
    Dependence {
        directions,
        method: Method::Banerjee,
    }
}

/// A dependence graph over statements 0..n: `edges[s]` holds the statements that depend on s.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Graph {
    pub n: usize,
    pub edges: Vec<BTreeSet<usize>>,
    /// Statements with a loop-carried dependence on themselves.
    pub self_carried: BTreeSet<usize>,
}

impl Graph {
    pub fn new(n: usize) -> Graph {
        Graph {
            n,
            edges: vec![BTreeSet::new(); n],
            self_carried: BTreeSet::new(),
        }
    }

    pub fn add(&mut self, from: usize, to: usize) {
        self.edges[from].insert(to);
    }

    /// Strongly connected components (metron-graph's Kosaraju).
    pub fn sccs(&self) -> Vec<Vec<usize>> {
        let succ: Vec<Vec<usize>> = self
            .edges
            .iter()
            .map(|e| e.iter().copied().collect())
            .collect();
        metron_graph::strongly_connected_components(&succ)
    }

    /// The π-graph: SCCs as nodes in a topological order (ties by first statement, so the
    /// original order is kept where the dependences allow it).
    pub fn pi_nodes(&self) -> Vec<PiNode> {
        let sccs = self.sccs();
        let mut of = vec![0; self.n];
        for (c, members) in sccs.iter().enumerate() {
            for &m in members {
                of[m] = c;
            }
        }
        let mut indegree = vec![0usize; sccs.len()];
        let mut succ = vec![BTreeSet::new(); sccs.len()];
        for (from, tos) in self.edges.iter().enumerate() {
            for &to in tos {
                if of[from] != of[to] && succ[of[from]].insert(of[to]) {
                    indegree[of[to]] += 1;
                }
            }
        }
        let mut ready: BTreeSet<(usize, usize)> = (0..sccs.len())
            .filter(|&c| indegree[c] == 0)
            .map(|c| (sccs[c][0], c))
            .collect();
        let mut out = Vec::new();
        while let Some(&first) = ready.iter().next() {
            ready.remove(&first);
            let c = first.1;
            let members = sccs[c].clone();
            let cyclic = members.len() > 1 || self.self_carried.contains(&members[0]);
            out.push(PiNode {
                statements: members,
                cyclic,
            });
            for &d in &succ[c] {
                indegree[d] -= 1;
                if indegree[d] == 0 {
                    ready.insert((sccs[d][0], d));
                }
            }
        }
        out
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PiNode {
    pub statements: Vec<usize>,
    pub cyclic: bool,
}
