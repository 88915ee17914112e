//! A run of the whole program from `main`, with the data its own code computes: the visits of
//! every block of every function of the binary it enters, as callgrind would count them, for
//! a branch profile recorded without running the program natively
//! (`crate::interpreted_profile`). Branches on data the program made itself (bases read from
//! a string table, weights derived from the index, floating-point pixels) are decided as they
//! would be; a branch on anything the machine does not know (a file's contents, an
//! instruction it does not model) stops the run, and there is no profile.

use std::cell::RefCell;

use metron_symbolic::Binding;

use super::{callees, command_line, constants};
use crate::binary::{Binary, Function};
use crate::callgrind::ObjectCounts;
use crate::loop_copy::machine::{Callee, Flow, Machine, Tally};
use crate::source::ProgramInput;

/// Read-only data a run stores whole; past it, only the constants operands name.
const READ_ONLY_BYTES: usize = 1 << 20;

/// Per-instruction executions of one run of `main` with the sizes `values` on its command
/// line (`inputs`), within `budget` instructions; `None` when it stops or goes over.
pub fn program_run(
    binary: &Binary,
    main: &Function,
    inputs: &[ProgramInput],
    values: &Binding,
    budget: usize,
) -> Option<ObjectCounts> {
    let mut entered = callees(binary, main);
    entered.tally = Some(RefCell::new(Tally {
        budget,
        ..Tally::default()
    }));
    let me = Callee::new(main);
    let mut m = Machine::at_entry(&command_line::arguments(inputs));
    m.allocated_data = true;
    command_line::store(&mut m, inputs, values);
    // All of the read-only data, as the loader maps it: a program indexes its tables
    // (`"ACGT"[k]`) from an address it computed, which no one operand names.
    let read_only: usize = binary.read_only.iter().map(|(_, d)| d.len()).sum();
    let tables = match read_only <= READ_ONLY_BYTES {
        true => binary.read_only.clone(),
        false => constants(binary, main, &entered),
    };
    for (address, bytes) in tables {
        for (k, b) in bytes.iter().enumerate() {
            m.store(address + k as u64, i64::from(*b), 1);
        }
    }
    let by_start = me.cfg.blocks_by_start();
    let tally = entered.tally.as_ref()?;
    let mut b = *by_start.get(&main.address)?;
    loop {
        let block = &me.cfg.blocks[b];
        if !tally.borrow_mut().visit(block) {
            return None;
        }
        let flow = m.run_block(main, block, &entered);
        // A call within the block may have stopped.
        if tally.borrow().stopped {
            if std::env::var_os("METRON_CALIBRATE_TRACE").is_some() {
                eprintln!(
                    "program run at {values:?} stopped in a call from {:#x}",
                    block.start
                );
            }
            return None;
        }
        match flow {
            Flow::Return => break,
            // A jump out of `main` (a tail call) is not followed.
            Flow::Goto(next) => b = *by_start.get(&next)?,
            Flow::Stop => return None,
        }
    }
    let tally = entered.tally.take()?.into_inner();
    if std::env::var_os("METRON_CALIBRATE_TRACE").is_some() {
        let mut v: Vec<_> = tally.visits.iter().collect();
        v.sort();
        eprintln!(
            "program run at {values:?}: {} left of the budget, visits {v:x?}",
            tally.budget
        );
    }
    let mut counts = ObjectCounts::default();
    for f in std::iter::once(&me).chain(entered.enter.values()) {
        for block in &f.cfg.blocks {
            let Some(&n) = tally.visits.get(&block.start) else {
                continue;
            };
            for ins in block.code(f.function) {
                counts.instructions.insert(ins.address, n);
            }
        }
    }
    Some(counts)
}
