//! The user-level scheduler (`cosched run`): launches a mix of real
//! commands and drives any [`Policy`](cosched_core::Policy) with them, the
//! way Perf&Fair §6.1 and EFS §4 run their policies at user level on Linux.
//!
//! Vocabulary mapping: a policy *thread* is one managed process tree (a mix
//! instance); its *job* is the mix entry. `Run{thread, ctx}` pins every
//! thread of the tree to the context's CPU and thaws it; a tree the policy
//! does not run is frozen. The event loop wakes every `tick` to reap exits,
//! detect blocking (no task of a running tree runnable for `block_ticks`
//! ticks → `Blocked`; a blocked tree with a runnable task → frozen and
//! `Runnable`), fire policy timers and sample energy; progress-period
//! requests arrive from the [`pp`](crate::pp) server between ticks.
//!
//! `--policy linux` launches everything and leaves scheduling to the
//! kernel (no freezing, no pinning): the baseline of every real comparison.
//!
//! * [`setup`]: the policy checked against this machine, the runtime assembled;
//! * [`launch`]: one instance started as a managed tree;
//! * [`decisions`]: the policy's decisions applied to process trees;
//! * [`tick`]: reaping, exits, blocking detection, timers;
//! * [`periods`]: progress periods of real programs;
//! * [`config`]: what a run is given and what it reports (`RunConfig`, `RealReport`);
//! * [`view`], [`meter`], [`report`], [`signals`], [`state`];
//! * this file: the event loop.

mod config;
mod decisions;
mod error;
mod launch;
mod meter;
mod periods;
mod report;
mod setup;
mod signals;
mod solo;
mod state;
mod stop;
mod tick;
mod view;

pub use config::{RealJob, RealReport, RunConfig, DEFAULT_GRACE, LINUX, MIN_QUANTUM_NS};
pub use error::{Refusal, RuntimeError};
pub use solo::{solo_runs, solo_turnarounds};
pub use stop::StopRecord;

/// The exit status the last real run's stop signal gives a command that ends
/// because of it (130 for SIGINT, 143 for SIGTERM: docs/formats.md, "Exit
/// status"), or `None` when no stop signal arrived during the last run. A
/// command whose error is not a [`RuntimeError::Stopped`] of its own (a
/// characterisation's, a check's rounds) still exits as the signal asks.
pub fn stop_status() -> Option<u8> {
    signals::stop_signal().map(|sig| if sig == "SIGINT" { 130 } else { 143 })
}

use crate::pp::{PpMsg, PpServer};
use crate::sys;
use cosched_core::dispatch::{ContractError, Dispatcher};
use cosched_core::{PeriodId, ThreadId};
use report::RunRecord;
use state::Runtime;
use std::path::PathBuf;
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::Instant;

/// The run's temporary folder (progress-period socket), removed and the
/// signal dispositions restored on every way out of [`run`].
struct RunTmp(PathBuf);

impl Drop for RunTmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
        signals::restore();
    }
}

/// Run a mix under a policy until every tree is gone; returns the report.
pub fn run(cfg: RunConfig) -> Result<RealReport, RuntimeError> {
    if cfg.opts.quantum < MIN_QUANTUM_NS {
        return Err(RuntimeError::QuantumTooShort { quantum_ns: cfg.opts.quantum });
    }
    // Declared before the runtime, so dropped after it: the trees are released first.
    let run_tmp = RunTmp(std::env::temp_dir().join(format!("cosched-run-{}", std::process::id())));
    let setup = setup::prepare_policy(&cfg)?;
    let counters_provenance = setup.counters_provenance.clone();
    let (mut rt, energy_provenance, description) = setup::start(&cfg, setup)?;
    rt.dry_init(&cfg)?;
    if let Some(w) = rt.watchdog.as_mut() {
        w.tell(&format!("tmp {}", run_tmp.0.display()))
            .map_err(|source| RuntimeError::Host { what: "watchdog".into(), source })?;
    }
    let (tx, rx) = channel();
    let server = PpServer::start(&run_tmp.0, tx)
        .map_err(|source| RuntimeError::Host { what: "cannot start the progress-period server".into(), source })?;
    let cpu0 = sys::self_cpu_s();
    let (launched, failures) = rt.launch_all(&cfg, server.path());
    rt.start_policy(&cfg)?;
    let cut = match rt.event_loop(&cfg, &rx) {
        Ok(cut) => cut,
        Err(e) => {
            rt.release(true);
            return Err(RuntimeError::Contract(e));
        }
    };
    let wall_s = rt.t0.elapsed().as_secs_f64();
    let stop = cut.map(|reason| {
        let mut names = vec![String::new(); rt.instances.len()];
        for (e, n) in &launched {
            names[*e] = n.clone();
        }
        rt.stop(reason, cfg.grace, &names)
    });
    rt.close_open_slices();
    let scheduler_cpu_s = sys::self_cpu_s() - cpu0;
    let record = RunRecord {
        launched,
        failures,
        wall_s,
        scheduler_cpu_s,
        stop,
        energy_provenance,
        counters_provenance,
        description,
    };
    let report = rt.report(&cfg, record)?;
    drop(server);
    drop(rt);
    Ok(report)
}

impl Runtime {
    /// Launch every instance of the mix; an instance that cannot start is
    /// reported and the rest of the run goes on.
    fn launch_all(&mut self, cfg: &RunConfig, socket: &std::path::Path) -> (Vec<(usize, String)>, Vec<RealJob>) {
        let mut failures: Vec<RealJob> = vec![];
        let mut launched: Vec<(usize, String)> = vec![];
        for inst in cfg.mix.instances() {
            match launch::launch(self, cfg, inst.job, &inst.name, socket) {
                Ok(e) => launched.push((e, inst.name.clone())),
                Err(why) => {
                    cfg.report.line(|| format!("warning: {}: {why}; the rest of the run goes on", inst.name));
                    failures.push(RealJob {
                        name: inst.name.clone(),
                        turnaround_s: None,
                        solo_s: cfg.solo[inst.job],
                        slowdown: None,
                        cpu_s: 0.0,
                        voluntary_switches: None,
                        involuntary_switches: None,
                        migrations: None,
                        exit_code: None,
                        error: Some(why),
                    });
                }
            }
        }
        (launched, failures)
    }

    /// Start the policy on the launched trees: the contract over them,
    /// `init`, every tree frozen, then each one's first event (`Arrived`, or
    /// `PeriodBegin` off a context for a job declared to start in a period).
    /// A late `init` failure terminates what was launched.
    fn start_policy(&mut self, cfg: &RunConfig) -> Result<(), RuntimeError> {
        let Some(mut p) = self.policy.take() else { return Ok(()) };
        let n_ctx = self.host.topology.n_contexts();
        let started = Dispatcher::new(p.name(), p.needs(), &self.offer, self.job_of.clone(), n_ctx)
            .map_err(Refusal::from)
            .and_then(|d| {
                self.d = Some(d);
                p.init(&self.view()).map_err(Refusal::from)
            });
        self.policy = Some(p);
        if let Err(e) = started {
            self.release(true);
            return Err(RuntimeError::Policy { policy: self.policy_name.clone(), problem: Box::new(e) });
        }
        for note in self.d().notes().to_vec() {
            cfg.report.line(|| format!("note: {note}"));
        }
        for e in 0..self.instances.len() {
            self.control.freeze(&mut self.instances[e].tree);
        }
        for e in 0..self.instances.len() {
            let declared = cfg.mix.jobs[self.instances[e].mix_job].profile.as_ref().map(|p| p.demand());
            match declared.filter(|_| self.d().admits_periods()) {
                Some(demand) => {
                    let id = self.new_period(e, None, demand, None);
                    self.d().begin_period(ThreadId(e as u32), PeriodId(id as u32), demand);
                }
                None => self.d().wake(ThreadId(e as u32)),
            }
        }
        self.dispatch();
        Ok(())
    }

    /// Serve progress-period requests and tick until every tree is gone;
    /// returns why the run was cut short (timeout or signal), if it was, or
    /// the broken contract that stopped it.
    fn event_loop(&mut self, cfg: &RunConfig, rx: &Receiver<PpMsg>) -> Result<Option<String>, ContractError> {
        let deadline = cfg.timeout.map(|t| self.t0 + t);
        let mut next_tick = Instant::now() + cfg.tick;
        let mut others_ended = false;
        while self.instances.iter().any(|e| e.end.is_none()) {
            if let Some(lead) = cfg.end_with.filter(|_| !others_ended) {
                if self.instances.iter().filter(|e| e.mix_job == lead).all(|e| e.end.is_some()) {
                    self.end_others(lead);
                    others_ended = true;
                }
            }
            if let Some(e) = self.broken.take() {
                return Err(e);
            }
            if let Some(sig) = signals::stop_signal() {
                return Ok(Some(format!("was interrupted by {sig}")));
            }
            if let (Some(d), Some(t)) = (deadline, cfg.timeout) {
                if Instant::now() >= d {
                    return Ok(Some(format!("timed out after {} s", cosched_core::num::shortest(t.as_secs_f64()))));
                }
            }
            let wait = self.next_wake(next_tick.saturating_duration_since(Instant::now()));
            match rx.recv_timeout(wait) {
                Ok(msg) => {
                    self.on_pp(msg);
                    while let Ok(m) = rx.try_recv() {
                        self.on_pp(m);
                    }
                    self.dispatch();
                }
                Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => {}
            }
            let timer_due = self.d.as_ref().and_then(|d| d.next_timer()).is_some_and(|t| t <= self.now());
            if Instant::now() >= next_tick || timer_due {
                self.tick();
                next_tick = Instant::now() + cfg.tick;
            }
        }
        self.broken.take().map_or(Ok(None), Err)
    }

    /// Release every live tree but those of mix job `lead` and send its processes SIGTERM.
    fn end_others(&mut self, lead: usize) {
        for e in 0..self.instances.len() {
            if self.instances[e].mix_job == lead || self.instances[e].end.is_some() {
                continue;
            }
            let members = self.control.members(&mut self.instances[e].tree);
            self.control.release(&mut self.instances[e].tree);
            for p in members {
                sys::signal(p, libc::SIGTERM);
            }
        }
    }

    /// Close every trace slice still open.
    fn close_open_slices(&mut self) {
        for e in 0..self.instances.len() {
            if self.instances[e].slice.is_some() {
                self.close_slice(e);
            }
        }
    }
}
