//! Executors run units' stages. Local: a pool with a core budget, so that units needing one or
//! two cores run side by side (002 Ch. 6, future-work item 3). Slurm: `slurm.rs`.

use std::collections::VecDeque;
use std::sync::mpsc;

use crate::error::Result;
use crate::unit_library::{Outcome, StageContext, UnitJob};

/// What an executor reports, in the caller's thread, as units start and finish.
pub enum Event<'a> {
    Started(&'a UnitJob),
    Finished(&'a UnitJob, Outcome),
}

/// Runs `jobs` with at most `budget` cores busy. A unit needing more than the budget runs
/// alone. The first `Err` (a wrong project) stops new starts; running units are waited for.
pub fn run_local(
    ctx: &StageContext,
    jobs: Vec<UnitJob>,
    budget: usize,
    on: &mut dyn FnMut(Event) -> Result<()>,
) -> Result<()> {
    let budget = budget.max(1);
    let mut queue: VecDeque<UnitJob> = jobs.into();
    let mut free = budget;
    let mut running = 0usize;
    let mut first_error = None;
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel();
        loop {
            let mut i = 0;
            while first_error.is_none() && i < queue.len() {
                let need = queue[i].cores.clamp(1, budget);
                if need > free {
                    i += 1;
                    continue;
                }
                let job = queue.remove(i).expect("index checked");
                if let Err(e) = on(Event::Started(&job)) {
                    first_error = Some(e);
                    break;
                }
                free -= need;
                running += 1;
                let tx = tx.clone();
                scope.spawn(move || {
                    let result = ctx.run_unit(&job);
                    let _ = tx.send((job, need, result));
                });
            }
            if running == 0 {
                break;
            }
            let Ok((job, need, result)) = rx.recv() else {
                break;
            };
            free += need;
            running -= 1;
            let reported = result.and_then(|o| on(Event::Finished(&job, o)));
            if let Err(e) = reported {
                first_error.get_or_insert(e);
            }
        }
    });
    first_error.map_or(Ok(()), Err)
}
