//! One thread's measurements: the flat region timers of 002 §2.2 (Listings 2.10-2.11) and the
//! call-context tree that replaces the thesis's CallEntity/CallTracker (Listings 2.13-2.16).
//!
//! The recorder takes timestamps as arguments and never reads a clock itself, so that the
//! semantics can be tested with a deterministic fake clock (002 Listing 2.25).

/// Index of a region in the process-wide name registry.
pub type RegionIndex = u32;

/// Index of the root of the call tree; it stands for "outside every region".
pub const ROOT: u32 = 0;

/// Flat timer of one region (002 Listing 2.10-2.11): only the outermost activation is timed,
/// `count` counts outermost entries, so mean = total / count.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RegionTimer {
    /// Open activations; > 1 inside an inclusive recursion (002 Listing 2.12).
    pub depth: u32,
    pub start: u64,
    pub total: u64,
    pub count: u64,
    pub min: u64,
    pub max: u64,
    /// Stops without a matching start (002 Listing 2.11 renames the timer "Invalid" and then
    /// decrements below zero; here the stop is counted and otherwise ignored).
    pub errors: u64,
    /// The region was still open when the profile was taken and was closed at that moment.
    pub open_at_exit: bool,
}

/// A call-context node: one region under one parent (002 §2.2 "Call entity"), with time and a
/// count of entries, which the thesis lacks.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub parent: u32,
    pub region: RegionIndex,
    pub start: u64,
    pub total: u64,
    pub count: u64,
    /// (region, node) pairs; short in practice, so a linear scan beats hashing.
    pub children: Vec<(RegionIndex, u32)>,
    pub open_at_exit: bool,
}

impl Node {
    const fn new(parent: u32, region: RegionIndex) -> Node {
        Node {
            parent,
            region,
            start: 0,
            total: 0,
            count: 0,
            children: Vec::new(),
            open_at_exit: false,
        }
    }
}

/// A timeline event; `begin` false means end.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Event {
    pub ticks: u64,
    pub region: RegionIndex,
    pub begin: bool,
}

/// Bounded per-thread event buffer: once full, further events are counted, not stored, so the
/// memory of a long run stays fixed.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    pub events: Vec<Event>,
    pub capacity: usize,
    pub dropped: u64,
}

/// All measurements of one thread.
#[derive(Debug, Clone)]
pub struct Recorder {
    pub regions: Vec<RegionTimer>,
    pub nodes: Vec<Node>,
    /// Open tree nodes, innermost last; empty means the current context is the root.
    pub stack: Vec<u32>,
    /// Exits whose node was not the innermost open one (explicit API used out of order).
    pub tree_errors: u64,
    pub timeline: Option<Timeline>,
}

impl Default for Recorder {
    fn default() -> Self {
        Recorder::new()
    }
}

impl Recorder {
    pub const fn new() -> Recorder {
        Recorder {
            regions: Vec::new(),
            nodes: Vec::new(),
            stack: Vec::new(),
            tree_errors: 0,
            timeline: None,
        }
    }

    pub fn with_timeline(capacity: usize) -> Recorder {
        let mut r = Recorder::new();
        r.enable_timeline(capacity);
        r
    }

    pub fn enable_timeline(&mut self, capacity: usize) {
        self.timeline = Some(Timeline {
            events: Vec::with_capacity(capacity.min(1 << 20)),
            capacity,
            dropped: 0,
        });
    }

    #[cold]
    fn grow(&mut self, region: RegionIndex) {
        self.regions
            .resize(region as usize + 1, RegionTimer::default());
    }

    /// Region entry. `tree` says whether the call-context tree is being built.
    #[inline]
    pub fn enter(&mut self, region: RegionIndex, now: u64, tree: bool) {
        if region as usize >= self.regions.len() {
            self.grow(region);
        }
        let t = &mut self.regions[region as usize];
        // 002 Listing 2.10: only the outermost activation starts the timer.
        if t.depth == 0 {
            t.start = now;
            t.count += 1;
        }
        t.depth += 1;
        if tree {
            self.tree_enter(region, now);
        }
        if let Some(tl) = &mut self.timeline {
            tl.push(Event {
                ticks: now,
                region,
                begin: true,
            });
        }
    }

    /// Region exit.
    #[inline]
    pub fn exit(&mut self, region: RegionIndex, now: u64) {
        match self.regions.get_mut(region as usize) {
            Some(t) if t.depth > 0 => {
                t.depth -= 1;
                // 002 Listing 2.11: the outermost stop adds the activation's time.
                if t.depth == 0 {
                    let d = now.saturating_sub(t.start);
                    t.total += d;
                    if t.count == 1 || d < t.min {
                        t.min = d;
                    }
                    t.max = t.max.max(d);
                }
            }
            Some(t) => {
                t.errors += 1;
                return;
            }
            None => {
                self.grow(region);
                self.regions[region as usize].errors += 1;
                return;
            }
        }
        self.tree_exit(region, now);
        if let Some(tl) = &mut self.timeline {
            tl.push(Event {
                ticks: now,
                region,
                begin: false,
            });
        }
    }

    #[inline]
    fn tree_enter(&mut self, region: RegionIndex, now: u64) {
        if self.nodes.is_empty() {
            self.nodes.push(Node::new(ROOT, u32::MAX));
        }
        let parent = self.stack.last().copied().unwrap_or(ROOT);
        let node = match self.nodes[parent as usize]
            .children
            .iter()
            .find(|(r, _)| *r == region)
        {
            Some(&(_, n)) => n,
            None => self.add_child(parent, region),
        };
        let n = &mut self.nodes[node as usize];
        n.start = now;
        n.count += 1;
        self.stack.push(node);
    }

    #[cold]
    fn add_child(&mut self, parent: u32, region: RegionIndex) -> u32 {
        let id = self.nodes.len() as u32;
        self.nodes.push(Node::new(parent, region));
        self.nodes[parent as usize].children.push((region, id));
        id
    }

    #[inline]
    fn tree_exit(&mut self, region: RegionIndex, now: u64) {
        let Some(&top) = self.stack.last() else {
            return; // entered while the tree was off
        };
        if self.nodes[top as usize].region == region {
            self.stack.pop();
            let n = &mut self.nodes[top as usize];
            n.total += now.saturating_sub(n.start);
        } else {
            self.tree_exit_out_of_order(region, now);
        }
    }

    /// An exit that does not match the innermost open node: close every node above the
    /// matching one (they were left open by the caller), or ignore the exit if the region is not
    /// open in the tree at all (it was entered while the tree was switched off).
    #[cold]
    fn tree_exit_out_of_order(&mut self, region: RegionIndex, now: u64) {
        let Some(pos) = self
            .stack
            .iter()
            .rposition(|&n| self.nodes[n as usize].region == region)
        else {
            return;
        };
        self.tree_errors += 1;
        while self.stack.len() > pos {
            if let Some(n) = self.stack.pop() {
                let node = &mut self.nodes[n as usize];
                node.total += now.saturating_sub(node.start);
            }
        }
    }

    /// Clears one region's flat timer (the Stopwatch `Reset` of 002 Listing 2.9).
    pub fn reset_region(&mut self, region: RegionIndex) {
        if let Some(t) = self.regions.get_mut(region as usize) {
            let depth = t.depth;
            let start = t.start;
            *t = RegionTimer::default();
            // An open activation stays open; reset only forgets the past.
            t.depth = depth;
            t.start = start;
        }
    }

    /// A copy in which every open region and node is closed at `now` and flagged, as at exit.
    pub fn closed_at(&self, now: u64) -> Recorder {
        let mut r = self.clone();
        for t in r.regions.iter_mut().filter(|t| t.depth > 0) {
            let d = now.saturating_sub(t.start);
            t.total += d;
            if t.count == 1 || d < t.min {
                t.min = d;
            }
            t.max = t.max.max(d);
            t.depth = 0;
            t.open_at_exit = true;
        }
        while let Some(n) = r.stack.pop() {
            let node = &mut r.nodes[n as usize];
            node.total += now.saturating_sub(node.start);
            node.open_at_exit = true;
        }
        r
    }

    /// Is anything recorded at all?
    pub fn is_empty(&self) -> bool {
        self.regions.iter().all(|t| t.count == 0 && t.errors == 0) && self.nodes.len() <= 1
    }
}

impl Timeline {
    #[inline]
    fn push(&mut self, e: Event) {
        if self.events.len() < self.capacity {
            self.events.push(e);
        } else {
            self.dropped += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic clock: time moves only when the test says so.
    struct FakeClock(u64);
    impl FakeClock {
        fn advance(&mut self, d: u64) {
            self.0 += d;
        }
    }

    const A: u32 = 0;
    const B: u32 = 1;

    fn node_of(r: &Recorder, path: &[u32]) -> Option<u32> {
        let mut cur = ROOT;
        for &p in path {
            cur = r.nodes[cur as usize]
                .children
                .iter()
                .find(|(reg, _)| *reg == p)?
                .1;
        }
        Some(cur)
    }

    #[test]
    fn simple_and_nested_regions() {
        // 002 Listing 2.2: A { 3 ; B { 5 } ; 2 }
        let mut c = FakeClock(100);
        let mut r = Recorder::new();
        r.enter(A, c.0, true);
        c.advance(3);
        r.enter(B, c.0, true);
        c.advance(5);
        r.exit(B, c.0);
        c.advance(2);
        r.exit(A, c.0);
        assert_eq!(r.regions[A as usize].total, 10);
        assert_eq!(r.regions[B as usize].total, 5);
        assert_eq!(r.regions[A as usize].count, 1);
        let nb = node_of(&r, &[A, B]).unwrap();
        assert_eq!(r.nodes[nb as usize].total, 5);
        assert_eq!(r.nodes[node_of(&r, &[A]).unwrap() as usize].total, 10);
    }

    #[test]
    fn looped_region_counts_every_iteration() {
        // 002 Listing 2.3: A { for i in 0..7 { B { i+1 } } }
        let mut c = FakeClock(0);
        let mut r = Recorder::new();
        r.enter(A, c.0, true);
        for i in 0..7u64 {
            r.enter(B, c.0, true);
            c.advance(i + 1);
            r.exit(B, c.0);
        }
        r.exit(A, c.0);
        let b = &r.regions[B as usize];
        assert_eq!((b.count, b.total, b.min, b.max), (7, 28, 1, 7));
        let nb = node_of(&r, &[A, B]).unwrap() as usize;
        assert_eq!((r.nodes[nb].count, r.nodes[nb].total), (7, 28));
        assert_eq!(r.nodes.len(), 3, "root, A, A/B: the loop reuses one node");
    }

    #[test]
    fn inclusive_recursion_times_outermost_activation_only() {
        // 002 Listing 2.5/2.12: foo(n) { A { 1 ; foo(n-1) ; 1 } }, depth 4.
        fn foo(r: &mut Recorder, c: &mut FakeClock, n: u32) {
            if n == 0 {
                return;
            }
            r.enter(A, c.0, true);
            c.advance(1);
            foo(r, c, n - 1);
            c.advance(1);
            r.exit(A, c.0);
        }
        let mut c = FakeClock(0);
        let mut r = Recorder::new();
        foo(&mut r, &mut c, 4);
        foo(&mut r, &mut c, 4);
        let a = &r.regions[A as usize];
        // Each outermost activation spans 8 ticks; two outermost entries.
        assert_eq!((a.total, a.count, a.depth), (16, 2, 0));
        // The tree shows the recursion as nested levels (002 Listing 2.26).
        let levels: Vec<u64> = (1..=4)
            .map(|d| r.nodes[node_of(&r, &vec![A; d]).unwrap() as usize].total)
            .collect();
        assert_eq!(levels, vec![16, 12, 8, 4]);
        assert!(node_of(&r, &[A; 5]).is_none());
    }

    #[test]
    fn simple_recursion_is_sequential_calls() {
        // 002 Listing 2.4: foo(n) { A { 2 } ; foo(n-1) }: n pairs of start/stop.
        let mut c = FakeClock(0);
        let mut r = Recorder::new();
        for _ in 0..5 {
            r.enter(A, c.0, true);
            c.advance(2);
            r.exit(A, c.0);
            c.advance(1);
        }
        let a = &r.regions[A as usize];
        assert_eq!((a.total, a.count), (10, 5));
    }

    #[test]
    fn stop_before_start_is_an_error_without_underflow() {
        let mut c = FakeClock(50);
        let mut r = Recorder::new();
        r.exit(A, c.0);
        r.exit(A, c.0);
        assert_eq!(r.regions[A as usize].errors, 2);
        assert_eq!(r.regions[A as usize].depth, 0);
        // The timer still works afterwards.
        r.enter(A, c.0, true);
        c.advance(4);
        r.exit(A, c.0);
        let a = &r.regions[A as usize];
        assert_eq!((a.total, a.count, a.errors), (4, 1, 2));
    }

    #[test]
    fn open_region_is_closed_and_flagged() {
        let mut r = Recorder::new();
        r.enter(A, 10, true);
        r.enter(B, 12, true);
        r.exit(B, 15);
        let c = r.closed_at(30);
        assert_eq!(c.regions[A as usize].total, 20);
        assert!(c.regions[A as usize].open_at_exit);
        assert!(!c.regions[B as usize].open_at_exit);
        let na = node_of(&c, &[A]).unwrap() as usize;
        assert!(c.nodes[na].open_at_exit);
        assert_eq!(c.nodes[na].total, 20);
        // The live recorder is untouched.
        assert_eq!(r.regions[A as usize].depth, 1);
    }

    #[test]
    fn tree_can_be_off_for_part_of_the_run() {
        let mut r = Recorder::new();
        r.enter(A, 0, false);
        r.enter(B, 1, true);
        r.exit(B, 3);
        r.exit(A, 4);
        assert_eq!(r.regions[A as usize].total, 4);
        // B hangs under the root: A was not in the tree.
        let nb = node_of(&r, &[B]).unwrap() as usize;
        assert_eq!(r.nodes[nb].total, 2);
        assert_eq!(r.tree_errors, 0);
        assert!(r.stack.is_empty());
    }

    #[test]
    fn out_of_order_exit_closes_inner_nodes() {
        let mut r = Recorder::new();
        r.enter(A, 0, true);
        r.enter(B, 1, true);
        r.exit(A, 5); // B never stopped
        assert!(r.stack.is_empty());
        assert_eq!(r.tree_errors, 1);
        assert_eq!(r.nodes[node_of(&r, &[A, B]).unwrap() as usize].total, 4);
    }

    #[test]
    fn timeline_is_bounded() {
        let mut r = Recorder::with_timeline(3);
        for i in 0..4 {
            r.enter(A, i * 2, true);
            r.exit(A, i * 2 + 1);
        }
        let tl = r.timeline.as_ref().unwrap();
        assert_eq!(tl.events.len(), 3);
        assert_eq!(tl.dropped, 5);
    }
}
