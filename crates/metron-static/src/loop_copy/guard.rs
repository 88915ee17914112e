//! Guard blocks around the copies of a source loop: each entry takes one path through them,
//! decided by its trip count `N`; a guard runs on the entries whose `N` routes them past it.

use std::collections::{BTreeMap, BTreeSet};

use iced_x86::Register;
use metron_symbolic::{CountOptions, Piecewise};

use super::cascade::alternative_threshold;
use super::cascade::routed_passes;
use super::cascade::Copy;
use super::cascade::Role;
use super::remainder::padding_blocks;
use super::trip_class::entries_where;
use super::trip_class::entries_with_at_least;
use crate::binary::{Function, Instruction};
use crate::cfg::Cfg;
use crate::loop_context::same_file;
use crate::source::SourceModel;

/// A node of the guard region's graph: a guard block, a copy (collapsed), or the way out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Node {
    Block(usize),
    Copy(usize),
    Exit,
}

/// Counts of the guard blocks around the copies of source loop `s` (the blocks at the copies'
/// nesting level, with no line outside the loop, that test the trip count `N` and route each
/// entry through the copies: `N < k` bypasses, `iters == 1` shortcuts, the tests around
/// clang's prologue remainders, alias checks). Each entry takes one path through them, and it
/// visits exactly the copies that have passes to run for its `N` as the guards route it
/// (`routed_passes`: the cascade, or below a fallback's threshold `T` the fallback), which
/// depends only on `N mod k1` once `N >= L = max(k1, T)`, and on `N` itself below. So a guard
/// block runs on the entries whose route's path passes it:
/// `sum over r of #[N == r] (r < L) + #[N >= L and N mod k1 == r]`, each an exact count of
/// the enclosing nest with a condition on the inner trip count. A route's path: among the
/// paths visiting its set, those that follow the guards' readable tests of `N`, then the
/// shortest; blocks on only some of them are left alone. `Err` when the region is not a small
/// acyclic graph, or a visited set the routing predicts has no path (the copies were misread).
pub fn guard_counts(
    context: &GuardContext,
    copies: &[(Copy, i64, Role)],
    loop_entries: &Piecewise,
) -> Result<Vec<(usize, Piecewise)>, String> {
    let region = Region::find(context, copies)?;
    let (paths, sources) = region.paths()?;
    let routes = routes(context, &region, &paths, &sources, copies)?;
    let path_sets: Vec<BTreeSet<usize>> = paths.iter().map(|p| visited(p)).collect();
    let every_entry = if path_sets.iter().any(|set| set.is_empty()) {
        loop_entries.clone()
    } else {
        entries_with_at_least(context.source, context.s, 1, context.options)?
    };
    Ok(block_counts(&region, &paths, &routes, &every_entry))
}

/// What the guard counting reads: the function, its CFG, the source and the source loop.
pub struct GuardContext<'a> {
    pub function: &'a Function,
    pub cfg: &'a Cfg,
    pub source: &'a SourceModel,
    pub file: &'a str,
    pub s: usize,
    pub options: &'a CountOptions,
}

/// The guard region of one source loop's copies: its blocks, and which copy each block of a
/// copy belongs to.
struct Region<'a> {
    cfg: &'a Cfg,
    copies: &'a [(Copy, i64, Role)],
    in_loop: BTreeMap<usize, usize>,
    blocks: BTreeSet<usize>,
    padding: BTreeSet<usize>,
}

impl<'a> Region<'a> {
    /// The guards: blocks at the copies' level with no line outside the loop, connected to
    /// the copies through such blocks (before them, after them, and the bypasses beside
    /// them), and the blocks between guards and copies only.
    fn find(context: &GuardContext<'a>, copies: &'a [(Copy, i64, Role)]) -> Result<Self, String> {
        let cfg = context.cfg;
        let first = copies
            .iter()
            .find_map(|(c, _, _)| match c {
                Copy::Loop(l) => Some(*l),
                Copy::Block(_) => None,
            })
            .ok_or("no loop copy")?;
        let level = cfg.loops[first].parent;
        let in_loop: BTreeMap<usize, usize> = copies
            .iter()
            .enumerate()
            .flat_map(|(k, (c, _, _))| match c {
                Copy::Loop(l) => cfg.loops[*l].blocks.iter().map(|&b| (b, k)).collect(),
                Copy::Block(b) => vec![(*b, k)],
            })
            .collect();
        let mut region = Region {
            cfg,
            copies,
            in_loop,
            blocks: BTreeSet::new(),
            padding: padding_blocks(cfg).into_iter().collect(),
        };
        region.grow(context, level);
        let between = region.between(level);
        region.blocks.extend(between);
        Ok(region)
    }

    /// Whether block `b` may be a guard: at the copies' level, not a header or a copy, and
    /// with only the loop's lines (a bare `ret` after the copies, an out-of-line kernel's
    /// exit, runs on the paths that reach it, whatever line it carries).
    fn eligible(&self, context: &GuardContext, level: Option<usize>, b: usize) -> bool {
        let (function, cfg) = (context.function, self.cfg);
        let loop_ = &context.source.loops[context.s];
        let block = &cfg.blocks[b];
        let instructions = block.code(function);
        let bare_return = block.successors.is_empty()
            && instructions.iter().all(|i| {
                use iced_x86::Mnemonic::{Nop, Ret, Vzeroupper};
                matches!(i.mnemonic, Ret | Vzeroupper | Nop)
            });
        let own_lines = || {
            instructions
                .iter()
                .filter_map(|i| i.inner_line())
                .filter(|p| same_file(&p.file, context.file))
                .all(|p| (loop_.line..=loop_.end_line).contains(&p.line))
        };
        cfg.innermost_loop(b) == level
            && !cfg.loops.iter().any(|n| n.header == b)
            && !self.in_loop.contains_key(&b)
            && (bare_return || own_lines())
    }

    /// Adds the eligible blocks connected to the copies through eligible blocks.
    fn grow(&mut self, context: &GuardContext, level: Option<usize>) {
        let mut work: Vec<usize> = self.in_loop.keys().copied().collect();
        let mut seen: BTreeSet<usize> = work.iter().copied().collect();
        while let Some(b) = work.pop() {
            let block = &self.cfg.blocks[b];
            for &x in block.successors.iter().chain(&block.predecessors) {
                if seen.insert(x) && self.eligible(context, level, x) {
                    self.blocks.insert(x);
                    work.push(x);
                }
            }
        }
    }

    /// Blocks between guards and copies only (gcc's vector preheader carries the line of the
    /// function's closing brace): the greatest set of blocks at the copies' level whose
    /// predecessors are guards, padding or in the set, and whose successors are guards,
    /// copies or in the set.
    fn between(&self, level: Option<usize>) -> BTreeSet<usize> {
        let cfg = self.cfg;
        let mut between: BTreeSet<usize> = (0..cfg.blocks.len())
            .filter(|&b| {
                let block = &cfg.blocks[b];
                cfg.innermost_loop(b) == level
                    && !cfg.loops.iter().any(|n| n.header == b)
                    && !self.blocks.contains(&b)
                    && !self.in_loop.contains_key(&b)
                    && !self.padding.contains(&b)
                    && !block.predecessors.is_empty()
                    && !block.successors.is_empty()
            })
            .collect();
        loop {
            let closed = |b: &usize| {
                let block = &cfg.blocks[*b];
                let guard = |x: &usize| self.blocks.contains(x) || between.contains(x);
                block
                    .predecessors
                    .iter()
                    .all(|x| guard(x) || self.padding.contains(x))
                    && block
                        .successors
                        .iter()
                        .all(|x| guard(x) || self.in_loop.contains_key(x))
            };
            let open: Vec<usize> = between.iter().copied().filter(|b| !closed(b)).collect();
            if open.is_empty() {
                return between;
            }
            for b in open {
                between.remove(&b);
            }
        }
    }

    /// The node of block `x`: a guard, a copy (entered at its header), or the way out.
    fn node_of(&self, x: usize) -> Result<Node, String> {
        if self.blocks.contains(&x) {
            return Ok(Node::Block(x));
        }
        match self.in_loop.get(&x) {
            Some(&k) => match self.copies[k].0 {
                Copy::Loop(l) if self.cfg.loops[l].header != x => Err(format!(
                    "edge into the middle of the copy at 0x{:x}",
                    self.cfg.blocks[x].start
                )),
                _ => Ok(Node::Copy(k)),
            },
            None => Ok(Node::Exit),
        }
    }

    /// The nodes node `n` leads to (a copy collapsed to one node; a return leaves).
    fn successors(&self, n: Node) -> Result<BTreeSet<Node>, String> {
        let from: Vec<usize> = match n {
            Node::Block(b) => vec![b],
            Node::Copy(k) => match self.copies[k].0 {
                Copy::Loop(l) => self.cfg.loops[l].blocks.iter().copied().collect(),
                Copy::Block(b) => vec![b],
            },
            Node::Exit => Vec::new(),
        };
        let mut out = BTreeSet::new();
        for b in from {
            if self.cfg.blocks[b].successors.is_empty() {
                out.insert(Node::Exit);
            }
            for &x in &self.cfg.blocks[b].successors {
                if matches!(n, Node::Copy(k) if self.in_loop.get(&x) == Some(&k)) {
                    continue;
                }
                out.insert(self.node_of(x)?);
            }
        }
        Ok(out)
    }

    /// Entry nodes (reached from outside the region and the copies; one node, or several all
    /// from one block, whose branch tests `N` too) and the blocks they are entered from.
    /// Several ways in from several places (gcc's constant-size path beside the `argv` one)
    /// are not decided by `N`: no count.
    fn entries(&self) -> Result<(BTreeSet<Node>, BTreeSet<usize>), String> {
        let (cfg, mut entries, mut sources) = (self.cfg, BTreeSet::new(), BTreeSet::new());
        for (b, block) in cfg.blocks.iter().enumerate() {
            let inside = self.blocks.contains(&b) || self.in_loop.contains_key(&b);
            if inside || self.padding.contains(&b) {
                continue;
            }
            for &x in &block.successors {
                if let Ok(n @ (Node::Block(_) | Node::Copy(_))) = self.node_of(x) {
                    entries.insert(n);
                    sources.insert(b);
                }
            }
        }
        // An out-of-line kernel: its own entry block tests `N`.
        if let Ok(n @ (Node::Block(_) | Node::Copy(_))) = self.node_of(0) {
            let entry = cfg.idom.first().is_some_and(|d| d.is_none());
            if entry && cfg.blocks[0].predecessors.is_empty() {
                entries.insert(n);
                sources.insert(usize::MAX);
            }
        }
        if entries.len() != 1 && sources.len() != 1 {
            return Err("the guards are entered from several places".into());
        }
        Ok((entries, sources))
    }

    /// Every path from an entry to the way out (the region is acyclic), and the blocks the
    /// region is entered from.
    fn paths(&self) -> Result<(Vec<Vec<Node>>, BTreeSet<usize>), String> {
        let (entries, sources) = self.entries()?;
        let mut paths: Vec<Vec<Node>> = Vec::new();
        for &e in &entries {
            let mut stack = vec![vec![e]];
            while let Some(path) = stack.pop() {
                let Some(&last) = path.last() else { continue };
                if last == Node::Exit {
                    paths.push(path);
                    if paths.len() > 4096 {
                        return Err("too many paths through the guards".into());
                    }
                    continue;
                }
                for next in self.successors(last)? {
                    if path.contains(&next) {
                        return Err("the guards around the copies form a cycle".into());
                    }
                    let mut longer = path.clone();
                    longer.push(next);
                    stack.push(longer);
                }
            }
        }
        Ok((paths, sources))
    }
}

/// The copies a path visits.
fn visited(p: &[Node]) -> BTreeSet<usize> {
    p.iter()
        .filter_map(|n| match n {
            Node::Copy(k) => Some(*k),
            _ => None,
        })
        .collect()
}

/// The representative trip counts and the entries each stands for: each `n` below `least`
/// (where the route depends on `n` itself) alone, then one per residue of `N mod widest`.
/// Entries with no iteration are left out (the `N >= 1` test skips the guards, or the region
/// holds a path through no copy for them).
fn representatives(
    context: &GuardContext,
    least: i64,
    widest: i64,
) -> Result<Vec<(i64, Piecewise)>, String> {
    let (source, s, options) = (context.source, context.s, context.options);
    let at_least = |k: i64| entries_where(source, s, k, None, options);
    let mut out = Vec::new();
    let mut above = at_least(1)?;
    for n in 1..least {
        let next = at_least(n + 1)?;
        out.push((n, &above - &next));
        above = next;
    }
    for r in 0..widest {
        let long = entries_where(source, s, least, Some((widest, r)), options)?;
        out.push((least + (r - least).rem_euclid(widest), long));
    }
    Ok(out)
}

/// Routes (the chosen paths, by index) with the entries that take them. An entry with trip
/// count `n` visits the copies `routed_passes` gives passes to; among the paths of that
/// visited set, those that follow the guards' readable tests of `N` (clang's `N < 4` bypass
/// beside the alias checks that also lead to the scalar copy), then the shortest (a set with
/// several paths usually has a structural detour no run takes).
fn routes(
    context: &GuardContext,
    region: &Region,
    paths: &[Vec<Node>],
    sources: &BTreeSet<usize>,
    copies: &[(Copy, i64, Role)],
) -> Result<Vec<(Vec<usize>, Piecewise)>, String> {
    let roles: Vec<(i64, Role)> = copies.iter().map(|(_, k, r)| (*k, *r)).collect();
    let widest = roles
        .iter()
        .filter(|(_, r)| *r == Role::Cascade)
        .map(|(k, _)| *k)
        .max()
        .ok_or("no copies")?;
    let least = widest.max(alternative_threshold(copies).unwrap_or(0));
    let decisions = TripTests::read(context.function, region.cfg, &region.blocks, sources);
    let path_sets: Vec<BTreeSet<usize>> = paths.iter().map(|p| visited(p)).collect();
    let mut routes: BTreeMap<Vec<usize>, Piecewise> = BTreeMap::new();
    for (n, count) in representatives(context, least, widest)? {
        let set: BTreeSet<usize> = routed_passes(&roles, n)
            .into_iter()
            .enumerate()
            .filter(|(_, p)| *p > 0)
            .map(|(c, _)| c)
            .collect();
        if !path_sets.contains(&set) {
            return Err("a set of copies the cascade runs has no path through the guards".into());
        }
        // The successor each guard whose test reads `N` takes for this `n`.
        let decided: BTreeMap<usize, Node> = region
            .blocks
            .iter()
            .filter_map(|&b| {
                let x = decisions.successor(context.function, region.cfg, b, n)?;
                Some((b, region.node_of(x).ok()?))
            })
            .collect();
        let follows = |p: &[Node]| {
            p.windows(2).all(|w| match w[0] {
                Node::Block(b) => decided.get(&b).is_none_or(|next| *next == w[1]),
                _ => true,
            })
        };
        let of_set = |k: &usize| path_sets[*k] == set;
        let mut ps: Vec<usize> = (0..paths.len())
            .filter(|k| of_set(k) && follows(&paths[*k]))
            .collect();
        if ps.is_empty() {
            ps = (0..paths.len()).filter(of_set).collect();
        }
        let shortest = ps.iter().map(|&k| paths[k].len()).min().unwrap_or(0);
        ps.retain(|&k| paths[k].len() == shortest);
        let slot = routes.entry(ps).or_insert_with(Piecewise::zero);
        *slot = &*slot + &count;
    }
    Ok(routes.into_iter().collect())
}

/// Each guard's count: the entries of the routes through it. On every path: every entry
/// that reaches the region (`every_entry`). On a path, but on none a run takes: 0. On only
/// some of a route's paths: left alone.
fn block_counts(
    region: &Region,
    paths: &[Vec<Node>],
    routes: &[(Vec<usize>, Piecewise)],
    every_entry: &Piecewise,
) -> Vec<(usize, Piecewise)> {
    let mut sums: BTreeMap<Vec<usize>, Piecewise> = BTreeMap::new();
    let mut out = Vec::new();
    for &b in &region.blocks {
        let on_path = |k: &usize| paths[*k].contains(&Node::Block(b));
        if !(0..paths.len()).any(|k| on_path(&k)) {
            continue;
        }
        if (0..paths.len()).all(|k| on_path(&k)) {
            out.push((b, every_entry.clone()));
            continue;
        }
        let mut through = Vec::new();
        let mut ambiguous = false;
        for (r, (ps, _)) in routes.iter().enumerate() {
            let on = ps.iter().filter(|k| on_path(k)).count();
            if on == 0 {
                continue;
            }
            ambiguous |= on < ps.len();
            through.push(r);
        }
        if ambiguous {
            continue;
        }
        let total = sums.entry(through.clone()).or_insert_with(|| {
            through
                .iter()
                .fold(Piecewise::zero(), |t, &r| &t + &routes[r].1)
        });
        out.push((b, total.clone()));
    }
    out
}

/// The guards' tests of the trip count `N` that can be read from the code: a conditional
/// branch after `cmp x, c` where `x` is `N` (a register the entry tests with `test r, r;
/// jle`) or `N + d` (`lea d(N), x` in the same block), as gcc and clang emit them.
pub(super) struct TripTests {
    /// Registers holding `N`.
    trip: BTreeSet<Register>,
    /// Block start address -> block.
    starts: BTreeMap<u64, usize>,
}

impl TripTests {
    fn read(
        function: &Function,
        cfg: &Cfg,
        region: &BTreeSet<usize>,
        sources: &BTreeSet<usize>,
    ) -> TripTests {
        let mut trip = BTreeSet::new();
        for &b in region.iter().chain(sources) {
            let Some(block) = cfg.blocks.get(b) else {
                continue;
            };
            let instructions = block.code(function);
            if let [.., test, jump] = instructions {
                use iced_x86::Mnemonic::{Jg, Jle, Test};
                let positive = matches!(jump.mnemonic, Jle | Jg);
                if let ([r, q], true, Test) = (test.compared.as_slice(), positive, test.mnemonic) {
                    if r == q {
                        trip.insert(*r);
                    }
                }
            }
        }
        let starts = cfg
            .blocks
            .iter()
            .enumerate()
            .map(|(b, x)| (x.start, b))
            .collect();
        TripTests { trip, starts }
    }

    /// The successor block `b` branches to for trip count `n`, when its test reads `N`.
    fn successor(&self, function: &Function, cfg: &Cfg, b: usize, n: i64) -> Option<usize> {
        let block = &cfg.blocks[b];
        let instructions = block.code(function);
        let [before @ .., compare, jump] = instructions else {
            return None;
        };
        let (c, &x) = (compare.compared_immediate?, compare.compared.first()?);
        let writes = |i: &&Instruction, r: Register| i.writes.contains(&r);
        let value = match before.iter().rposition(|i| writes(&i, x)) {
            None if self.trip.contains(&x) => n,
            None => return None,
            Some(k) => {
                let (dst, src, d) = before[k].offset?;
                let rewritten = before[..k].iter().any(|i| writes(&i, src));
                if dst != x || !self.trip.contains(&src) || rewritten {
                    return None;
                }
                n + d
            }
        };
        use iced_x86::Mnemonic::{Ja, Jae, Jb, Jbe, Je, Jg, Jge, Jl, Jle, Jne};
        let taken = match jump.mnemonic {
            Jb | Jl => value < c,
            Jbe | Jle => value <= c,
            Ja | Jg => value > c,
            Jae | Jge => value >= c,
            Je => value == c,
            Jne => value != c,
            _ => return None,
        };
        let at = |address: u64| self.starts.get(&address).copied();
        if taken {
            jump.target.and_then(at)
        } else {
            at(jump.address + u64::from(jump.length))
        }
    }
}
