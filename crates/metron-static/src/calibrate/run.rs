//! One run of a function's machine code from its entry to its return, counting block visits.
//!
//! A branch on a value the run does not know (data) goes the way the run's [`Way`] says. The
//! way not taken runs too, on a copy of the machine, as far as the branch's join (its
//! immediate post-dominator); there the two machines meet ([`Machine::join`]) and a value the
//! ways left different is unknown from then on. So a value the data chose (`x = lo` on one
//! way, `x = a[i]` on the other: a clamp's bound) is data too (implicit flow), and a branch
//! on it is a branch on data, not a branch the run's own choice decided.

use std::collections::{BTreeSet, HashMap};

use metron_symbolic::Binding;

use super::{command_line, Subject};
use crate::binary::Function;
use crate::loop_copy::machine::{Flow, Machine};

/// How one run goes where the sizes do not say: the arrays' order, and the branches on data.
#[derive(Debug, Clone, Copy)]
pub(super) struct Way {
    /// Arrays (and allocations) in the opposite order.
    pub mirrored: bool,
    /// Every branch on a value the run cannot know is taken (else none is).
    pub taken: bool,
}

pub(super) enum Run {
    /// `on_data`: the blocks ending in a branch on data the run met (each went the way
    /// [`Way::taken`] says).
    Finished {
        visits: Vec<i64>,
        steps: usize,
        on_data: Vec<usize>,
    },
    OverBudget,
    Stopped {
        at: u64,
    },
}

/// Instructions the way not taken at one branch on data may run before its join; past it
/// (a branch whose join is past the rest of the loop: a `break`) the ways are not joined
/// and the taken way's values stand.
const OTHER_WAY_BUDGET: usize = 20_000;
/// Branches on data inside a way not taken whose other ways run too.
const NESTED_WAYS: usize = 2;

/// Where control goes after a block.
enum Step {
    To(usize),
    End,
    Stopped(u64),
}

/// A way not taken, run as far as `join`: the blocks are joined there.
type Pending = Vec<(usize, Machine)>;

struct Walker<'s, 'a> {
    subject: &'s Subject<'a>,
    by_start: HashMap<u64, usize>,
    way: Way,
}

pub(super) fn run(
    subject: &Subject,
    arguments: &[i64],
    values: &Binding,
    way: Way,
    budget: usize,
) -> Run {
    let (function, cfg) = (subject.function, subject.cfg);
    let w = Walker {
        subject,
        by_start: cfg.blocks_by_start(),
        way,
    };
    let Some(&entry) = w.by_start.get(&function.address) else {
        return Run::Stopped {
            at: function.address,
        };
    };
    let mut m = start(subject, arguments, values, way);
    let mut visits = vec![0i64; cfg.blocks.len()];
    let (mut b, mut steps, mut on_data) = (entry, 0usize, BTreeSet::new());
    let (mut pending, mut spare) = (Pending::new(), budget);
    loop {
        join_at(&mut m, &mut pending, b);
        visits[b] += 1;
        let block = &cfg.blocks[b];
        steps += block.end - block.first;
        if steps > budget {
            if std::env::var_os("METRON_CALIBRATE_TRACE").is_some() {
                eprintln!("calibrate: run over budget in block {:#x}", block.start);
            }
            return Run::OverBudget;
        }
        let (step, data) = w.step(&mut m, b);
        if data {
            on_data.insert(b);
            w.fork(&m, b, 0, &mut spare, &mut pending);
        }
        match step {
            Step::To(next) => b = next,
            Step::Stopped(at) => return Run::Stopped { at },
            Step::End => {
                return Run::Finished {
                    visits,
                    steps,
                    on_data: on_data.into_iter().collect(),
                }
            }
        }
    }
}

/// The machine at the entry: the arguments, `main`'s command line, the constants the code
/// loads and the global sizes.
fn start(subject: &Subject, arguments: &[i64], values: &Binding, way: Way) -> Machine {
    let mut m = Machine::at_entry(arguments);
    if way.mirrored {
        m.allocate_descending();
    }
    command_line::store(&mut m, &subject.inputs, values);
    for (address, bytes) in &subject.constants {
        for (k, b) in bytes.iter().enumerate() {
            m.store(address + k as u64, i64::from(*b), 1);
        }
    }
    for g in &subject.globals {
        if let Some(&v) = values.get(&g.name) {
            m.store(g.address, v, g.bytes);
        }
    }
    m
}

/// Joins the ways not taken whose join is block `b` into `m`.
fn join_at(m: &mut Machine, pending: &mut Pending, b: usize) {
    pending.retain(|(join, other)| match *join == b {
        true => {
            m.join(other);
            false
        }
        false => true,
    });
}

impl Walker<'_, '_> {
    /// Runs block `b`; where control goes, and whether it went there on data.
    fn step(&self, m: &mut Machine, b: usize) -> (Step, bool) {
        let Subject {
            function,
            cfg,
            assumed,
            callees,
            ..
        } = *self.subject;
        let block = &cfg.blocks[b];
        match m.run_block(function, block, callees) {
            Flow::Return => (Step::End, false),
            Flow::Goto(next) => (self.resolve(next), false),
            // A branch the model assumes (an error path not taken) goes the assumed way.
            Flow::Stop => match assumed.take.get(&b) {
                Some(&taken) => (Step::To(taken), false),
                // A branch on data goes the run's way: the blocks whose counts that
                // changes are the model's (`Runs::data_dependent`).
                None => match data_branch(function, block, self.way.taken) {
                    Some(to) => (self.resolve(to), true),
                    None => (Step::Stopped(block.start), false),
                },
            },
        }
    }

    /// The block at `address`; a jump out of the function is a tail call, where this
    /// function's part ends.
    fn resolve(&self, address: u64) -> Step {
        match self.by_start.get(&address) {
            Some(&b) => Step::To(b),
            None if self.subject.function.contains(address) => Step::Stopped(address),
            None => Step::End,
        }
    }

    /// Runs the way not taken at the branch on data ending block `b` (`m` as the branch left
    /// it) to the branch's join, and leaves it there to be joined.
    fn fork(&self, m: &Machine, b: usize, depth: usize, spare: &mut usize, pending: &mut Pending) {
        // Only joins within the branch's own loop: a branch whose ways meet past the loop (a
        // `break`, an exit on data) would run the rest of the loop once per iteration.
        let cfg = self.subject.cfg;
        let Some(join) = self.subject.post_dominators[b]
            .filter(|&j| (cfg.innermost_loop(b)).is_none_or(|l| cfg.loops[l].blocks.contains(&j)))
        else {
            return;
        };
        let block = &self.subject.cfg.blocks[b];
        let other = data_branch(self.subject.function, block, !self.way.taken);
        let Some(Step::To(from)) = other.map(|o| self.resolve(o)) else {
            return;
        };
        let mut budget = OTHER_WAY_BUDGET.min(*spare);
        let before = budget;
        let joined = self.other_way(m.clone(), from, join, depth, &mut budget);
        *spare -= before - budget;
        // Ways that meet at the same block are one way to join there.
        match (joined, pending.iter_mut().find(|(j, _)| *j == join)) {
            (Some(o), Some((_, waiting))) => waiting.join(&o),
            (Some(o), None) => pending.push((join, o)),
            (None, _) => {}
        }
    }

    /// The machine as the way from block `b` leaves it at block `join`, if it gets there
    /// within `budget` instructions.
    fn other_way(
        &self,
        mut m: Machine,
        mut b: usize,
        join: usize,
        depth: usize,
        budget: &mut usize,
    ) -> Option<Machine> {
        let mut pending = Pending::new();
        loop {
            join_at(&mut m, &mut pending, b);
            if b == join {
                return Some(m);
            }
            let block = &self.subject.cfg.blocks[b];
            *budget = budget.checked_sub(block.end - block.first)?;
            let (step, data) = self.step(&mut m, b);
            if data && depth < NESTED_WAYS {
                self.fork(&m, b, depth + 1, budget, &mut pending);
            }
            match step {
                Step::To(next) => b = next,
                _ => return None,
            }
        }
    }
}

/// Where a block ending in a conditional branch on an unknown value goes, the `taken` way.
fn data_branch(function: &Function, block: &crate::cfg::BasicBlock, taken: bool) -> Option<u64> {
    let last = function.instructions.get(block.end.checked_sub(1)?)?;
    if last.flow != iced_x86::FlowControl::ConditionalBranch {
        return None;
    }
    match taken {
        true => last.target,
        false => Some(last.address + u64::from(last.length)),
    }
}
