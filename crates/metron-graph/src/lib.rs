//! Control-flow graph algorithms that `metron-static` (machine code) and `metron-memory`
//! (LLVM IR) both need. Graphs are adjacency lists over block indices; block 0 is the entry.

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

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |m: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % m as u64) as usize
        };
        for _ in 0..300 {
            let n = 1 + next(9);
            let succ: Vec<Vec<usize>> = (0..n)
                .map(|_| (0..next(3)).map(|_| next(n)).collect())
                .collect();
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

    #[test]
    fn malformed_edges_do_not_panic() {
        let succ = vec![vec![7], vec![0]];
        let idom = immediate_dominators(&succ, &[vec![9], vec![]]);
        assert_eq!(idom, vec![Some(0), None]);
        assert!(immediate_dominators(&[], &[]).is_empty());
    }
}
