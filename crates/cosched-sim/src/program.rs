//! Walking a thread through its program: per iteration, for each phase of its
//! class: acquire the phase's lock, begin its progress period, compute, end
//! the period, release the lock, wait for I/O; then a barrier between
//! iterations (none after the last: the job's end is the join); then exit. A cursor, not an expanded list, so memory
//! stays O(threads).

use crate::plan::Plan;
use cosched_core::ids::Nanos;
use cosched_core::policy::Demand;

/// Where a thread is in its program.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cursor {
    iter: u32,
    phase: u32,
    sub: u8,
}

/// One step of a program.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Step {
    /// Take a lock (blocks if held).
    Acquire(u32),
    /// Begin a declared progress period.
    PpBegin(Demand),
    /// Execute instructions of a phase (index into the plan's models).
    Compute {
        /// Index into the plan's models and steps.
        model: u32,
        /// Instructions to retire.
        instructions: f64,
    },
    /// End the progress period.
    PpEnd,
    /// Release a lock.
    Release(u32),
    /// Wait for I/O.
    Io(Nanos),
    /// Wait for all threads of the job.
    Barrier,
    /// Done.
    Exit,
}

impl Cursor {
    /// The next step of a thread of `class` with work multiplier `scale`, advancing the cursor.
    pub fn next(&mut self, plan: &Plan, class: u32, scale: f64) -> Step {
        let c = &plan.classes[class as usize];
        let nph = c.phases.end - c.phases.start;
        loop {
            if self.iter >= c.iterations {
                return Step::Exit;
            }
            if self.phase >= nph {
                // end of iteration
                self.phase = 0;
                self.sub = 0;
                self.iter += 1;
                if c.barrier && self.iter < c.iterations {
                    return Step::Barrier;
                }
                continue;
            }
            let idx = c.phases.start + self.phase;
            let st = &plan.steps[idx as usize];
            let sub = self.sub;
            self.sub += 1;
            let step = match sub {
                0 => st.lock.map(Step::Acquire),
                1 => st.pp.map(Step::PpBegin),
                2 => Some(Step::Compute { model: idx, instructions: st.instructions * scale }),
                3 => st.pp.map(|_| Step::PpEnd),
                4 => st.lock.map(Step::Release),
                5 => (st.io > 0).then_some(Step::Io(st.io)),
                _ => {
                    self.sub = 0;
                    self.phase += 1;
                    None
                }
            };
            if let Some(s) = step {
                return s;
            }
        }
    }
}
