//! Control structure of a function: dominators, natural loops, and the access tree of
//! 003 §4.1.3 (leaf = basic block, loop, if-else, sequence).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::ir::Function;

pub use metron_graph::NaturalLoop;

pub struct Cfg {
    pub succ: Vec<Vec<usize>>,
    pub pred: Vec<Vec<usize>>,
    pub idom: Vec<Option<usize>>,
    pub loops: Vec<NaturalLoop>,
    /// Innermost loop of each block.
    pub innermost: Vec<Option<usize>>,
}

impl Cfg {
    pub fn new(f: &Function) -> Cfg {
        let index = f.block_index();
        let n = f.blocks.len();
        let succ: Vec<Vec<usize>> = f
            .blocks
            .iter()
            .map(|b| {
                b.successors()
                    .iter()
                    .filter_map(|s| index.get(s.as_str()).copied())
                    .collect()
            })
            .collect();
        let mut pred = vec![Vec::new(); n];
        for (b, ss) in succ.iter().enumerate() {
            for &s in ss {
                pred[s].push(b);
            }
        }
        let idom = metron_graph::immediate_dominators(&succ, &pred);
        let loops = metron_graph::natural_loops(&succ, &pred, &idom);
        let mut innermost: Vec<Option<usize>> = vec![None; n];
        for (li, l) in loops.iter().enumerate() {
            for &b in &l.blocks {
                let better = match innermost[b] {
                    None => true,
                    Some(o) => loops[o].blocks.len() > l.blocks.len(),
                };
                if better {
                    innermost[b] = Some(li);
                }
            }
        }
        Cfg {
            succ,
            pred,
            idom,
            loops,
            innermost,
        }
    }

    pub fn dominates(&self, a: usize, b: usize) -> bool {
        metron_graph::dominates(&self.idom, a, b)
    }
}

/// A node of the access tree (003 §4.1.3, Fig. 4.1).
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "node", rename_all = "snake_case")]
pub enum TreeNode {
    /// A basic block.
    Leaf { block: usize },
    /// A loop: its body runs (backedge-taken count + 1) times per entry.
    Loop {
        loop_index: usize,
        body: Vec<TreeNode>,
    },
    /// A conditional branch at `block`, one sequence per successor, joined again at the
    /// branch's immediate post-dominator.
    IfElse {
        id: usize,
        block: usize,
        arms: Vec<Vec<TreeNode>>,
    },
}

const END: usize = usize::MAX;

/// Builds the access tree of a function. `structured` is false when a branch had to be
/// cut (an arm that does not rejoin, e.g. an early `return` or `break`).
pub fn build_tree(cfg: &Cfg) -> (Vec<TreeNode>, bool) {
    let mut b = Builder {
        cfg,
        next_if: 0,
        structured: true,
        depth: 0,
        placed: 0,
    };
    if cfg.succ.is_empty() {
        return (Vec::new(), true);
    }
    let top = b.level(None);
    (top, b.structured)
}

struct Builder<'a> {
    cfg: &'a Cfg,
    next_if: usize,
    structured: bool,
    /// Nesting of `seq` calls, and blocks placed so far: on a CFG that is not reducible to
    /// loops and if-elses, arms can re-enter each other forever (found by fuzzing), so both
    /// are bounded by the block count and the tree is then marked unstructured.
    depth: usize,
    placed: usize,
}

impl Builder<'_> {
    fn in_level(&self, level: Option<usize>, b: usize) -> bool {
        match level {
            None => true,
            Some(l) => self.cfg.loops[l].blocks.contains(&b),
        }
    }

    /// The region node standing for block `b` at this level: itself, or the header of the
    /// child loop that contains it.
    fn node_of(&self, level: Option<usize>, b: usize) -> usize {
        let mut l = self.cfg.innermost[b];
        while let Some(li) = l {
            if self.cfg.loops[li].parent == level {
                return self.cfg.loops[li].header;
            }
            if Some(li) == level {
                break;
            }
            l = self.cfg.loops[li].parent;
        }
        b
    }

    fn child_loop(&self, level: Option<usize>, b: usize) -> Option<usize> {
        let li = self.cfg.innermost[b]?;
        (Some(li) != level && self.cfg.loops[li].header == b)
            .then_some(li)
            .or_else(|| {
                // `b` is a header of a loop whose parent is `level` even if an inner loop shares it.
                self.cfg
                    .loops
                    .iter()
                    .position(|l| l.header == b && l.parent == level && Some(li) != level)
            })
    }

    fn region_succ(&self, level: Option<usize>, n: usize) -> Vec<usize> {
        let header = level.map(|l| self.cfg.loops[l].header);
        let raw: Vec<usize> = match self.child_loop(level, n) {
            Some(cl) => {
                let blocks = &self.cfg.loops[cl].blocks;
                let mut exits = Vec::new();
                for &b in blocks {
                    for &s in &self.cfg.succ[b] {
                        if !blocks.contains(&s) && !exits.contains(&s) {
                            exits.push(s);
                        }
                    }
                }
                exits
            }
            None => self.cfg.succ[n].clone(),
        };
        let mut out = Vec::new();
        for s in raw {
            let m = if Some(s) == header || !self.in_level(level, s) {
                END
            } else {
                self.node_of(level, s)
            };
            if !out.contains(&m) {
                out.push(m);
            }
        }
        if out.is_empty() {
            out.push(END);
        }
        out
    }

    fn level(&mut self, level: Option<usize>) -> Vec<TreeNode> {
        let start = match level {
            None => 0,
            Some(l) => self.cfg.loops[l].header,
        };
        let ipdom = self.post_dominators(level, start);
        self.seq(level, start, END, &ipdom)
    }

    fn post_dominators(&self, level: Option<usize>, start: usize) -> BTreeMap<usize, usize> {
        // Region nodes reachable from the start.
        let mut nodes = Vec::new();
        let mut seen = BTreeSet::from([start]);
        let mut work = vec![start];
        let mut succs: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        while let Some(n) = work.pop() {
            nodes.push(n);
            let ss = self.region_succ(level, n);
            for &s in &ss {
                if s != END && seen.insert(s) {
                    work.push(s);
                }
            }
            succs.insert(n, ss);
        }
        let mut pdom: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
        pdom.insert(END, BTreeSet::from([END]));
        let all: BTreeSet<usize> = nodes.iter().copied().chain([END]).collect();
        for &n in &nodes {
            pdom.insert(n, all.clone());
        }
        let mut changed = true;
        while changed {
            changed = false;
            for &n in &nodes {
                let mut acc: Option<BTreeSet<usize>> = None;
                for s in &succs[&n] {
                    let ps = &pdom[s];
                    acc = Some(match acc {
                        None => ps.clone(),
                        Some(a) => a.intersection(ps).copied().collect(),
                    });
                }
                let mut new = acc.unwrap_or_default();
                new.insert(n);
                if new != pdom[&n] {
                    pdom.insert(n, new);
                    changed = true;
                }
            }
        }
        let mut ipdom = BTreeMap::new();
        for &n in &nodes {
            let best = pdom[&n]
                .iter()
                .filter(|&&p| p != n)
                .max_by_key(|&&p| pdom.get(&p).map(|s| s.len()).unwrap_or(0))
                .copied()
                .unwrap_or(END);
            ipdom.insert(n, best);
        }
        ipdom
    }

    fn seq(
        &mut self,
        level: Option<usize>,
        start: usize,
        stop: usize,
        ipdom: &BTreeMap<usize, usize>,
    ) -> Vec<TreeNode> {
        let limit = self.cfg.succ.len() + 2;
        if self.depth > limit {
            self.structured = false;
            return Vec::new();
        }
        self.depth += 1;
        let out = self.seq_bounded(level, start, stop, ipdom, 4 * limit * limit);
        self.depth -= 1;
        out
    }

    fn seq_bounded(
        &mut self,
        level: Option<usize>,
        start: usize,
        stop: usize,
        ipdom: &BTreeMap<usize, usize>,
        max_placed: usize,
    ) -> Vec<TreeNode> {
        let mut out = Vec::new();
        let mut b = start;
        let mut steps = 0;
        while b != stop && b != END {
            steps += 1;
            self.placed += 1;
            if steps > self.cfg.succ.len() + 2 || self.placed > max_placed {
                self.structured = false;
                break;
            }
            match self.child_loop(level, b) {
                Some(cl) => {
                    let body = self.level(Some(cl));
                    out.push(TreeNode::Loop {
                        loop_index: cl,
                        body,
                    });
                }
                None => out.push(TreeNode::Leaf { block: b }),
            }
            let succ = self.region_succ(level, b);
            if succ.len() == 1 {
                b = succ[0];
                continue;
            }
            let join = ipdom.get(&b).copied().unwrap_or(END);
            if join == END && stop != END {
                self.structured = false;
            }
            let id = self.next_if;
            self.next_if += 1;
            let arms = succ
                .iter()
                .map(|&s| self.seq(level, s, join, ipdom))
                .collect();
            out.push(TreeNode::IfElse { id, block: b, arms });
            b = join;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_module;

    /// Hand-drawn CFG: entry -> loop(h, body, latch) with an if-else inside -> exit.
    #[test]
    fn loop_with_branch() {
        let ir = "define void @f(i1 %c) {
entry:
  br label %h
h:
  br i1 %c, label %t, label %e
t:
  br label %latch
e:
  br label %latch
latch:
  br i1 %c, label %h, label %exit
exit:
  ret void
}
";
        let m = parse_module(ir, "t.ll").unwrap();
        let cfg = Cfg::new(&m.functions[0]);
        assert_eq!(cfg.loops.len(), 1);
        assert_eq!(cfg.loops[0].blocks, BTreeSet::from([1, 2, 3, 4]));
        let (tree, structured) = build_tree(&cfg);
        assert!(structured);
        let text = format!("{tree:?}");
        assert_eq!(
            text,
            "[Leaf { block: 0 }, Loop { loop_index: 0, body: [Leaf { block: 1 }, IfElse { id: 0, block: 1, arms: [[Leaf { block: 2 }], [Leaf { block: 3 }]] }, Leaf { block: 4 }] }, Leaf { block: 5 }]"
        );
    }
}
