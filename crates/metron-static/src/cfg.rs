//! Control-flow recovery of one function: basic blocks from iced's `FlowControl`, dominators,
//! natural loops and the loop-nesting forest. The loops are what 004 §III.C.1 models with
//! trip counts; here they are found in the binary, where the compiler left them.

use std::collections::{BTreeMap, BTreeSet};

use iced_x86::FlowControl;
use serde::Serialize;

use crate::binary::{Function, Instruction};

/// A maximal straight-line run of instructions: all execute equally often.
#[derive(Debug, Clone, Serialize)]
pub struct BasicBlock {
    pub start: u64,
    /// Index range into the function's instructions.
    pub first: usize,
    pub end: usize,
    pub successors: Vec<usize>,
    pub predecessors: Vec<usize>,
    /// Ends in an indirect jump whose targets are unknown (a jump table).
    pub indirect: bool,
}

impl BasicBlock {
    /// The block's instructions in `function`, the one its CFG was built from.
    pub fn code<'f>(&self, function: &'f Function) -> &'f [Instruction] {
        &function.instructions[self.first..self.end]
    }
}

pub use metron_graph::NaturalLoop;

impl metron_graph::Successors for Cfg {
    fn successors(&self, b: usize) -> &[usize] {
        self.blocks.get(b).map_or(&[], |x| x.successors.as_slice())
    }
}

/// The control-flow graph of one function.
#[derive(Debug, Clone)]
pub struct Cfg {
    pub blocks: Vec<BasicBlock>,
    /// Immediate dominator per block (`None` for the entry and unreachable blocks).
    pub idom: Vec<Option<usize>>,
    /// The loop-nesting forest, outer loops before inner ones.
    pub loops: Vec<NaturalLoop>,
}

impl Cfg {
    /// Block index by start address (where a run of the machine code goes next).
    pub fn blocks_by_start(&self) -> std::collections::HashMap<u64, usize> {
        self.blocks
            .iter()
            .enumerate()
            .map(|(i, b)| (b.start, i))
            .collect()
    }

    pub fn build(function: &Function) -> Cfg {
        let blocks = basic_blocks(&function.instructions, function);
        let succ: Vec<Vec<usize>> = blocks.iter().map(|b| b.successors.clone()).collect();
        let pred: Vec<Vec<usize>> = blocks.iter().map(|b| b.predecessors.clone()).collect();
        let mut idom = metron_graph::immediate_dominators(&succ, &pred);
        let loops = metron_graph::natural_loops(&succ, &pred, &idom);
        // The entry has no immediate dominator, as `idom` documents.
        if let Some(entry) = idom.first_mut() {
            *entry = None;
        }
        Cfg {
            blocks,
            idom,
            loops,
        }
    }

    /// Whether block `a` dominates block `b`.
    pub fn dominates(&self, a: usize, b: usize) -> bool {
        metron_graph::dominates(&self.idom, a, b)
    }

    /// The blocks reachable from the entry, each after every block that dominates it.
    pub fn reverse_postorder(&self) -> Vec<usize> {
        let succ: Vec<Vec<usize>> = self.blocks.iter().map(|b| b.successors.clone()).collect();
        metron_graph::reverse_postorder(&succ)
    }

    /// Each block's immediate post-dominator: where the ways from it meet again (`None` where
    /// only the function's end is, or no end is reached).
    pub fn post_dominators(&self) -> Vec<Option<usize>> {
        let succ: Vec<Vec<usize>> = self.blocks.iter().map(|b| b.successors.clone()).collect();
        metron_graph::immediate_post_dominators(&succ)
    }

    /// Whether block `d` is the only way into block `b`: alignment padding before a block falls
    /// into it but never runs (no entry reaches it).
    pub fn only_way_in(&self, b: usize, d: usize) -> bool {
        (self.blocks[b].predecessors.iter()).all(|&p| p == d || (p != 0 && self.idom[p].is_none()))
    }

    /// The innermost loop containing block `b`.
    pub fn innermost_loop(&self, b: usize) -> Option<usize> {
        (0..self.loops.len())
            .filter(|l| self.loops[*l].blocks.contains(&b))
            .max_by_key(|l| self.loops[*l].depth)
    }

    /// Index of the block holding instruction index `i`.
    pub fn block_of(&self, i: usize) -> Option<usize> {
        self.blocks.iter().position(|b| i >= b.first && i < b.end)
    }
}

fn ends_block(flow: FlowControl) -> bool {
    !matches!(flow, FlowControl::Next | FlowControl::Call)
}

fn basic_blocks(instructions: &[Instruction], function: &Function) -> Vec<BasicBlock> {
    let mut leaders = BTreeSet::new();
    if !instructions.is_empty() {
        leaders.insert(0usize);
    }
    let index: BTreeMap<u64, usize> = instructions
        .iter()
        .enumerate()
        .map(|(i, ins)| (ins.address, i))
        .collect();
    for (i, ins) in instructions.iter().enumerate() {
        if ends_block(ins.flow) && i + 1 < instructions.len() {
            leaders.insert(i + 1);
        }
        if matches!(
            ins.flow,
            FlowControl::ConditionalBranch | FlowControl::UnconditionalBranch
        ) {
            if let Some(&t) = ins.target.and_then(|t| index.get(&t)) {
                leaders.insert(t);
            }
        }
    }
    let leaders: Vec<usize> = leaders.into_iter().collect();
    let block_of_leader: BTreeMap<usize, usize> =
        leaders.iter().enumerate().map(|(b, &i)| (i, b)).collect();
    let mut blocks: Vec<BasicBlock> = leaders
        .iter()
        .enumerate()
        .map(|(b, &first)| {
            let end = leaders.get(b + 1).copied().unwrap_or(instructions.len());
            BasicBlock {
                start: instructions[first].address,
                first,
                end,
                successors: Vec::new(),
                predecessors: Vec::new(),
                indirect: false,
            }
        })
        .collect();
    for b in 0..blocks.len() {
        let last = &instructions[blocks[b].end - 1];
        let target = last
            .target
            .filter(|t| function.contains(*t))
            .and_then(|t| index.get(&t))
            .and_then(|i| block_of_leader.get(i))
            .copied();
        let fallthrough = (b + 1 < blocks.len()).then_some(b + 1);
        let successors: Vec<usize> = match last.flow {
            FlowControl::Next | FlowControl::Call => fallthrough.into_iter().collect(),
            FlowControl::ConditionalBranch => target.into_iter().chain(fallthrough).collect(),
            FlowControl::UnconditionalBranch => target.into_iter().collect(),
            FlowControl::IndirectBranch => {
                blocks[b].indirect = true;
                Vec::new()
            }
            _ => Vec::new(),
        };
        let mut unique = Vec::new();
        for s in successors {
            if !unique.contains(&s) {
                unique.push(s);
            }
        }
        blocks[b].successors = unique;
    }
    for b in 0..blocks.len() {
        for s in blocks[b].successors.clone() {
            blocks[s].predecessors.push(b);
        }
    }
    blocks
}
