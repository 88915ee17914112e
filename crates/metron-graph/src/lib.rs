//! Control-flow graph algorithms that `metron-static` (machine code) and `metron-memory`
//! (LLVM IR) both need. Graphs are adjacency lists over block indices; block 0 is the entry.

use std::collections::{BTreeMap, BTreeSet};

/// Blocks reachable from the entry (block 0), in reverse postorder. Iterative, so deep graphs
/// cannot overflow the stack; a successor index out of range is ignored rather than a panic.
pub fn reverse_postorder(succ: &[Vec<usize>]) -> Vec<usize> {
    let n = succ.len();
    let mut order = Vec::new();
    if n == 0 {
        return order;
    }
    let mut seen = vec![false; n];
    let mut stack = vec![(0usize, 0usize)];
    seen[0] = true;
    while let Some((b, k)) = stack.last_mut() {
        if let Some(&s) = succ[*b].get(*k) {
            *k += 1;
            if s < n && !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            order.push(*b);
            stack.pop();
        }
    }
    order.reverse();
    order
}

/// Immediate dominators by Cooper, Harvey and Kennedy, "A Simple, Fast Dominance Algorithm"
/// (2001). The entry is its own immediate dominator; unreachable blocks get `None`.
pub fn immediate_dominators(succ: &[Vec<usize>], pred: &[Vec<usize>]) -> Vec<Option<usize>> {
    let rpo = reverse_postorder(succ);
    let mut position = vec![usize::MAX; succ.len()];
    for (i, &b) in rpo.iter().enumerate() {
        position[b] = i;
    }
    let mut idom: Vec<Option<usize>> = vec![None; succ.len()];
    let Some(&entry) = rpo.first() else {
        return idom;
    };
    idom[entry] = Some(entry);
    let mut changed = true;
    while changed {
        changed = false;
        for &b in rpo.iter().skip(1) {
            let mut new: Option<usize> = None;
            for &p in pred.get(b).map(Vec::as_slice).unwrap_or(&[]) {
                if p >= idom.len() || idom[p].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(n) => intersect(&idom, &position, p, n),
                });
            }
            if new.is_some() && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom
}

fn intersect(idom: &[Option<usize>], position: &[usize], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while position[a] > position[b] {
            match idom[a] {
                Some(d) if d != a => a = d,
                _ => return b,
            }
        }
        while position[b] > position[a] {
            match idom[b] {
                Some(d) if d != b => b = d,
                _ => return a,
            }
        }
    }
    a
}

/// Whether `a` dominates `b`, walking `b`'s immediate dominators. Accepts the entry marked
/// either as its own dominator or as `None`.
pub fn dominates(idom: &[Option<usize>], a: usize, mut b: usize) -> bool {
    loop {
        if a == b {
            return true;
        }
        match idom.get(b).copied().flatten() {
            Some(d) if d != b => b = d,
            _ => return false,
        }
    }
}

/// Immediate post-dominators: the first block every path from a block to the function's end
/// passes (where the arms of a branch join). `None` where that is only the end itself, and
/// for blocks from which no end is reached (an endless loop). Ends are the blocks without
/// successors. Computed as the dominators of the reversed graph from a virtual end.
pub fn immediate_post_dominators(succ: &[Vec<usize>]) -> Vec<Option<usize>> {
    let n = succ.len();
    // Block b is b + 1 in the reversed graph; 0 is the virtual end.
    let mut reversed = vec![Vec::new(); n + 1];
    for (b, ss) in succ.iter().enumerate() {
        let ss: Vec<usize> = ss.iter().copied().filter(|&s| s < n).collect();
        if ss.is_empty() {
            reversed[0].push(b + 1);
        }
        for s in ss {
            reversed[s + 1].push(b + 1);
        }
    }
    let idom = immediate_dominators(&reversed, &predecessors(&reversed));
    (1..=n)
        .map(|r| idom[r].filter(|&d| d != 0).map(|d| d - 1))
        .collect()
}

/// Predecessor lists of a successor graph.
pub fn predecessors(succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut pred = vec![Vec::new(); succ.len()];
    for (b, ss) in succ.iter().enumerate() {
        for &s in ss {
            if s < pred.len() {
                pred[s].push(b);
            }
        }
    }
    pred
}

/// A natural loop: a header that dominates the sources of its back edges (the latches), and
/// every block that reaches a latch without passing the header. Back edges into one header
/// are merged into one loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NaturalLoop {
    pub header: usize,
    pub latches: Vec<usize>,
    pub blocks: BTreeSet<usize>,
    /// Index of the innermost enclosing loop in the same forest.
    pub parent: Option<usize>,
    /// 0 for an outermost loop.
    pub depth: usize,
}

/// A graph's successor lists, whatever stores them.
pub trait Successors {
    fn successors(&self, b: usize) -> &[usize];
}

impl Successors for [Vec<usize>] {
    fn successors(&self, b: usize) -> &[usize] {
        self.get(b).map_or(&[], Vec::as_slice)
    }
}

impl Successors for Vec<Vec<usize>> {
    fn successors(&self, b: usize) -> &[usize] {
        self.as_slice().successors(b)
    }
}

impl NaturalLoop {
    /// Blocks with an edge leaving the loop.
    pub fn exiting<G: Successors + ?Sized>(&self, graph: &G) -> Vec<usize> {
        self.blocks
            .iter()
            .copied()
            .filter(|&b| graph.successors(b).iter().any(|s| !self.blocks.contains(s)))
            .collect()
    }
}

/// The loop-nesting forest, outer loops before inner ones (a parent has more blocks than its
/// children), from `immediate_dominators`' result. Unreachable blocks belong to no loop.
pub fn natural_loops(
    succ: &[Vec<usize>],
    pred: &[Vec<usize>],
    idom: &[Option<usize>],
) -> Vec<NaturalLoop> {
    let reachable = |b: usize| b == 0 || idom.get(b).copied().flatten().is_some();
    let mut by_header: BTreeMap<usize, NaturalLoop> = BTreeMap::new();
    for (t, ss) in succ.iter().enumerate() {
        if !reachable(t) {
            continue;
        }
        for &h in ss
            .iter()
            .filter(|&&h| h < succ.len() && dominates(idom, h, t))
        {
            let l = by_header.entry(h).or_insert_with(|| NaturalLoop {
                header: h,
                latches: Vec::new(),
                blocks: BTreeSet::from([h]),
                parent: None,
                depth: 0,
            });
            l.latches.push(t);
            let mut work = vec![t];
            while let Some(x) = work.pop() {
                if l.blocks.insert(x) {
                    let preds = pred.get(x).map(Vec::as_slice).unwrap_or(&[]);
                    work.extend(preds.iter().filter(|&&p| p < succ.len() && reachable(p)));
                }
            }
        }
    }
    let mut loops: Vec<NaturalLoop> = by_header.into_values().collect();
    loops.sort_by_key(|l| (std::cmp::Reverse(l.blocks.len()), l.header));
    for i in 0..loops.len() {
        let parent = (0..i)
            .filter(|&j| loops[j].blocks.contains(&loops[i].header))
            .min_by_key(|&j| loops[j].blocks.len());
        loops[i].parent = parent;
        loops[i].depth = parent.map_or(0, |p| loops[p].depth + 1);
    }
    loops
}

/// Strongly connected components (Kosaraju), in topological order of the condensation: an
/// edge between two components always goes from an earlier to a later one. Members sorted.
pub fn strongly_connected_components(succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = succ.len();
    let valid = |s: &usize| *s < n;
    // Finish order of an iterative depth-first search over every block.
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    for root in 0..n {
        if seen[root] {
            continue;
        }
        seen[root] = true;
        let mut stack = vec![(root, 0usize)];
        while let Some((v, k)) = stack.last_mut() {
            if let Some(&w) = succ[*v].get(*k) {
                *k += 1;
                if valid(&w) && !seen[w] {
                    seen[w] = true;
                    stack.push((w, 0));
                }
            } else {
                order.push(*v);
                stack.pop();
            }
        }
    }
    let pred = predecessors(succ);
    let mut component = vec![usize::MAX; n];
    let mut out: Vec<Vec<usize>> = Vec::new();
    for &s in order.iter().rev() {
        if component[s] != usize::MAX {
            continue;
        }
        let id = out.len();
        let mut members = Vec::new();
        let mut stack = vec![s];
        component[s] = id;
        while let Some(v) = stack.pop() {
            members.push(v);
            for &w in &pred[v] {
                if component[w] == usize::MAX {
                    component[w] = id;
                    stack.push(w);
                }
            }
        }
        members.sort_unstable();
        out.push(members);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `count` reproducible graphs of 1 to `max_blocks` blocks with up to 2 edges each
    /// (xorshift64 from `seed`): self loops, unreachable blocks and irreducible cycles included.
    fn random_graphs(mut seed: u64, count: usize, max_blocks: usize) -> Vec<Vec<Vec<usize>>> {
        let mut next = |m: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % m as u64) as usize
        };
        (0..count)
            .map(|_| {
                let n = 1 + next(max_blocks);
                (0..n)
                    .map(|_| (0..next(3)).map(|_| next(n)).collect())
                    .collect()
            })
            .collect()
    }

    /// Dominance by definition: `a` dominates `b` iff `b` cannot be reached from the entry
    /// once `a` is removed (and `b` is reachable at all).
    fn brute_dominates(succ: &[Vec<usize>], a: usize, b: usize) -> bool {
        let reach = |without: Option<usize>| {
            let mut seen = vec![false; succ.len()];
            let mut work = vec![0];
            if without == Some(0) {
                return seen;
            }
            seen[0] = true;
            while let Some(x) = work.pop() {
                for &s in &succ[x] {
                    if Some(s) != without && !seen[s] {
                        seen[s] = true;
                        work.push(s);
                    }
                }
            }
            seen
        };
        reach(None)[b] && (a == b || !reach(Some(a))[b])
    }

    /// Post-dominance by definition: `a` post-dominates `b` iff every path from `b` to an end
    /// (a block without successors) passes `a`, and some path from `b` reaches an end.
    fn brute_post_dominates(succ: &[Vec<usize>], a: usize, b: usize) -> bool {
        let ends_from = |without: Option<usize>| {
            let mut seen = vec![false; succ.len()];
            let mut work = vec![b];
            if without == Some(b) {
                return false;
            }
            seen[b] = true;
            while let Some(x) = work.pop() {
                if succ[x].is_empty() {
                    return true;
                }
                for &s in &succ[x] {
                    if Some(s) != without && !seen[s] {
                        seen[s] = true;
                        work.push(s);
                    }
                }
            }
            false
        };
        ends_from(None) && (a == b || !ends_from(Some(a)))
    }

    #[test]
    fn post_dominators_agree_with_the_definition_on_pseudo_random_graphs() {
        for succ in random_graphs(0x51_7cc1_b727_220au64, 300, 9) {
            let ipdom = immediate_post_dominators(&succ);
            for (b, &immediate) in ipdom.iter().enumerate() {
                // The immediate one post-dominates, and every other post-dominator of `b`
                // post-dominates it too (it is the nearest).
                let all: Vec<usize> = (0..succ.len())
                    .filter(|&a| a != b && brute_post_dominates(&succ, a, b))
                    .collect();
                match immediate {
                    Some(p) => {
                        assert!(all.contains(&p), "{succ:?}: {p} after {b}");
                        for &a in &all {
                            assert!(a == p || brute_post_dominates(&succ, a, p), "{succ:?}: {b}");
                        }
                    }
                    None => assert!(all.is_empty(), "{succ:?}: {b} has {all:?}"),
                }
            }
        }
    }

    #[test]
    fn diamond_with_a_loop_by_hand() {
        // 0 -> 1 -> {2, 3} -> 4 -> 1 (back edge), 4 -> 5; block 6 is unreachable.
        let succ = vec![
            vec![1],
            vec![2, 3],
            vec![4],
            vec![4],
            vec![1, 5],
            vec![],
            vec![5],
        ];
        let idom = immediate_dominators(&succ, &predecessors(&succ));
        assert_eq!(
            idom,
            vec![Some(0), Some(0), Some(1), Some(1), Some(1), Some(4), None]
        );
        assert!(dominates(&idom, 1, 5));
        assert!(!dominates(&idom, 2, 4), "4 is also reached through 3");
        assert!(
            !dominates(&idom, 0, 6),
            "unreachable blocks have no dominator chain"
        );
        assert_eq!(reverse_postorder(&succ).first(), Some(&0));
        assert_eq!(reverse_postorder(&succ).len(), 6);
    }

    #[test]
    fn agrees_with_the_definition_on_pseudo_random_graphs() {
        for succ in random_graphs(0x9e37_79b9_7f4a_7c15u64, 300, 9) {
            let n = succ.len();
            let idom = immediate_dominators(&succ, &predecessors(&succ));
            for a in 0..n {
                for b in 0..n {
                    let reachable = idom[b].is_some();
                    let expected = reachable && brute_dominates(&succ, a, b);
                    assert_eq!(
                        reachable && dominates(&idom, a, b),
                        expected,
                        "{succ:?}: does {a} dominate {b}?"
                    );
                }
            }
        }
    }

    /// Natural loops by definition: for each back edge t -> h (h dominates t), the blocks
    /// from which t is reachable without passing h, plus h.
    fn brute_loops(succ: &[Vec<usize>]) -> BTreeMap<usize, BTreeSet<usize>> {
        let n = succ.len();
        let reach_avoiding = |from: usize, to: usize, avoid: usize| {
            let mut seen = vec![false; n];
            let mut work = vec![from];
            seen[from] = true;
            while let Some(x) = work.pop() {
                if x == to {
                    return true;
                }
                for &s in &succ[x] {
                    if s != avoid && !seen[s] {
                        seen[s] = true;
                        work.push(s);
                    }
                }
            }
            false
        };
        // Every reachable block dominates itself; unreachable ones dominate nothing.
        let reachable = |b: usize| brute_dominates(succ, b, b);
        let mut out: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
        for t in (0..n).filter(|&t| reachable(t)) {
            for &h in &succ[t] {
                if !brute_dominates(succ, h, t) {
                    continue;
                }
                let body = out.entry(h).or_insert_with(|| BTreeSet::from([h]));
                for b in (0..n).filter(|&b| reachable(b) && b != h) {
                    if reach_avoiding(b, t, h) {
                        body.insert(b);
                    }
                }
            }
        }
        out
    }

    #[test]
    fn loops_agree_with_the_definition_on_pseudo_random_graphs() {
        let mut with_loops = 0;
        for succ in random_graphs(0x2545_f491_4f6c_dd1du64, 400, 10) {
            let pred = predecessors(&succ);
            let loops = natural_loops(&succ, &pred, &immediate_dominators(&succ, &pred));
            let got: BTreeMap<usize, BTreeSet<usize>> =
                loops.iter().map(|l| (l.header, l.blocks.clone())).collect();
            assert_eq!(got, brute_loops(&succ), "{succ:?}");
            with_loops += usize::from(!loops.is_empty());
            for (i, l) in loops.iter().enumerate() {
                // The parent is the smallest other loop holding the header.
                let expected = (0..loops.len())
                    .filter(|&j| j != i && loops[j].blocks.contains(&l.header))
                    .filter(|&j| loops[j].blocks.len() > l.blocks.len())
                    .min_by_key(|&j| loops[j].blocks.len());
                assert_eq!(l.parent, expected, "{succ:?}");
                assert!(l.parent.is_none_or(|p| p < i), "outer loops first");
            }
        }
        assert!(with_loops > 100, "the generator makes loops ({with_loops})");
    }

    #[test]
    fn nested_loops_by_hand() {
        // 0 -> 1 (outer header) -> 2 (inner header) -> 3 -> 2 | 4 -> 1 | 5.
        let succ = vec![vec![1], vec![2], vec![3], vec![2, 4], vec![1, 5], vec![]];
        let pred = predecessors(&succ);
        let loops = natural_loops(&succ, &pred, &immediate_dominators(&succ, &pred));
        assert_eq!(loops.len(), 2);
        assert_eq!((loops[0].header, loops[0].depth), (1, 0));
        assert_eq!(loops[0].blocks, BTreeSet::from([1, 2, 3, 4]));
        assert_eq!(loops[0].latches, vec![4]);
        assert_eq!(
            (loops[1].header, loops[1].parent, loops[1].depth),
            (2, Some(0), 1)
        );
        assert_eq!(loops[1].blocks, BTreeSet::from([2, 3]));
        assert_eq!(loops[0].exiting(&succ), vec![4]);
        assert_eq!(loops[1].exiting(&succ), vec![3]);
    }

    #[test]
    fn components_agree_with_mutual_reachability_and_come_in_topological_order() {
        for succ in random_graphs(0x1234_5678_9abc_def1u64, 300, 10) {
            let n = succ.len();
            let reach = |a: usize| {
                let mut seen = vec![false; n];
                let mut work = vec![a];
                seen[a] = true;
                while let Some(x) = work.pop() {
                    for &s in &succ[x] {
                        if !seen[s] {
                            seen[s] = true;
                            work.push(s);
                        }
                    }
                }
                seen
            };
            let r: Vec<Vec<bool>> = (0..n).map(reach).collect();
            let sccs = strongly_connected_components(&succ);
            let mut of = vec![usize::MAX; n];
            for (c, members) in sccs.iter().enumerate() {
                for &m in members {
                    assert_eq!(of[m], usize::MAX, "{m} in two components");
                    of[m] = c;
                }
            }
            for a in 0..n {
                for b in 0..n {
                    assert_eq!(of[a] == of[b], r[a][b] && r[b][a], "{succ:?}: {a} {b}");
                }
                for &b in &succ[a] {
                    assert!(of[a] <= of[b], "{succ:?}: edge {a}->{b} goes backwards");
                }
            }
        }
    }

    #[test]
    fn malformed_edges_do_not_panic() {
        let succ = vec![vec![7], vec![0]];
        let idom = immediate_dominators(&succ, &[vec![9], vec![]]);
        assert_eq!(idom, vec![Some(0), None]);
        assert!(immediate_dominators(&[], &[]).is_empty());
        assert!(natural_loops(&[vec![0, 5]], &[vec![0, 9]], &[Some(0)]).len() == 1);
        assert_eq!(strongly_connected_components(&[vec![0, 5]]), vec![vec![0]]);
    }
}
