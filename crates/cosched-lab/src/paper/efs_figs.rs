//! EFS Figs. 6 and 7 (§5.2): the solo-utilisation estimate of Eq. 9 under
//! interference against the additive model, and the core-utilisation
//! timeline of four bandwidth-hungry instances under CFS and EFS.

use super::efs_bench::{secs, synthetic_jobs};
use super::{over_trials, Trial};
use crate::error::RunError;
use crate::failure::StudyError;
use crate::report::Sink;
use crate::table::{Cell, Table};
use cosched_core::counters::Counters;
use cosched_core::ids::{CtxId, Nanos, ThreadId, MILLI};
use cosched_core::policy::{Decision, Event, MachineView, Needs, Policy};
use cosched_machine::trace::TraceSlice;
use cosched_machine::MachineSpec;
use cosched_policies::efs::interval_estimate;
use cosched_policies::PolicyOptions;
use cosched_sim::engine::{self, SimOptions};

/// Thread i on context i for the whole run; every `window` the scheduler's
/// own estimate of thread 0's solo utilisation from the window's counter
/// deltas (`efs::interval_estimate`, as EFS computes it; and the additive
/// model's, u_0 itself).
/// Windows are kept while every thread runs.
struct SoloProbe {
    mu: f64,
    window: Nanos,
    alive: usize,
    last: Option<(Nanos, Counters, Counters)>,
    out: Vec<(f64, f64)>,
}

impl Policy for SoloProbe {
    fn name(&self) -> &'static str {
        "efs-fig6-probe"
    }
    fn needs(&self) -> Needs {
        Needs { counters: true, ..Needs::default() }
    }
    fn on_event(&mut self, ev: &Event, view: &dyn MachineView, out: &mut Vec<Decision>) {
        match *ev {
            Event::Arrived { thread, .. } => {
                self.alive += 1;
                out.push(Decision::Run { thread, ctx: CtxId(thread.0) });
                out.push(Decision::Timer { key: 0, at: Some(view.now() + self.window) });
            }
            Event::Exited { .. } => self.alive -= 1,
            Event::Timer { .. } => {
                let now = view.now();
                let (Some(th), Some(so)) = (view.thread_counters(ThreadId(0)), view.socket_counters(0)) else { return };
                if let Some((at, th0, so0)) = self.last {
                    if self.alive == view.n_threads_total() {
                        let dt = (now - at) as f64 * 1e-9;
                        let est = interval_estimate(&th.since(&th0), &so.since(&so0), self.mu, dt);
                        self.out.push(est);
                    }
                }
                self.last = Some((now, th, so));
                if self.alive > 0 {
                    out.push(Decision::Timer { key: 0, at: Some(now + self.window) });
                }
            }
            _ => {}
        }
    }
}

/// Mean (Eq. 9 estimate, additive estimate) of thread 0 over the windows of one run.
fn probe(m: &MachineSpec, jobs: &[(f64, u32, f64)], mu: f64, t: &Trial) -> Result<(f64, f64), RunError> {
    let w = synthetic_jobs("efs-fig6", jobs)?;
    let mt = t.machine(m);
    let plan = t.plan(&w, &mt)?;
    let mut p = SoloProbe { mu, window: MILLI, alive: 0, last: None, out: vec![] };
    engine::run(&mt, &plan, &mut p, &SimOptions { seed: t.seed, ..SimOptions::default() }, None)?;
    let v = &p.out;
    if v.is_empty() {
        return Err(RunError::Study(StudyError::NoWindow));
    }
    let n = v.len() as f64;
    Ok((v.iter().map(|x| x.0).sum::<f64>() / n, v.iter().map(|x| x.1).sum::<f64>() / n))
}

/// Fig. 6: thread 0 at solo utilisation 0.57 beside one interfering thread of
/// solo utilisation x; its solo utilisation as measured alone, as Eq. 9
/// estimates it under interference, and as the additive model takes it.
pub fn fig6(m: &MachineSpec, mu: f64, trials: &[Trial], out: &mut dyn Sink) -> Result<(), RunError> {
    const TARGET: f64 = 0.57;
    let xs: Vec<f64> = (1..=9).map(|k| k as f64 / 10.0).collect();
    let alone = over_trials(&[()], trials, |_, t| probe(m, &[(TARGET, 1, 4e8)], mu, t))?;
    let alone: Vec<f64> = alone[0].iter().map(|x| x.1).collect();
    let res = over_trials(&xs, trials, |&x, t| probe(m, &[(TARGET, 1, 4e8), (x, 1, 2e9)], mu, t))?;
    let mut tab = Table::new(&[
        "interferer solo utilisation",
        "thread alone (measured)",
        "EFS estimate (Eq. 9)",
        "additive model (u measured)",
        "EFS error %",
        "additive error %",
    ]);
    for (x, r) in xs.iter().zip(&res) {
        let est: Vec<f64> = r.iter().map(|v| v.0).collect();
        let add: Vec<f64> = r.iter().map(|v| v.1).collect();
        let err = |e: &[f64]| e.iter().zip(&alone).map(|(e, a)| (e / a - 1.0) * 100.0).collect::<Vec<_>>();
        tab.push(vec![
            format!("{x:.1}").into(),
            Cell::value(&alone, 3),
            Cell::value(&est, 3),
            Cell::value(&add, 3),
            Cell::diff(&err(&est), 1),
            Cell::diff(&err(&add), 1),
        ]);
    }
    out.heading(format!("## Fig. 6: solo utilisation of a thread at {TARGET} estimated under interference (1 ms windows while both run)\n"));
    out.line("Paper: the additive model's estimate (the measured utilisation) \"strays significantly from the actual solo utilization\" as interference grows; EFS's estimates are \"very close to the actual solo utilization for virtually any level of interference\".\n".to_string());
    out.table(tab, "fig6.csv");
    Ok(())
}

/// Contexts busy over time from a run's slices, sampled every `step` in [from, to).
fn busy_timeline(slices: &[TraceSlice], from: Nanos, to: Nanos, step: Nanos) -> Vec<usize> {
    (0..(to - from) / step)
        .map(|k| {
            let at = from + k * step;
            slices.iter().filter(|s| s.start <= at && at < s.end).count()
        })
        .collect()
}

/// Fig. 7: `cores` instances of the synthetic benchmark at maximum bus use,
/// a 300 ms section of each context's activity under CFS and under EFS.
pub fn fig7(m: &MachineSpec, mu: f64, trials: &[Trial], out: &mut dyn Sink) -> Result<(), RunError> {
    let cores = m.n_contexts();
    let w = synthetic_jobs("efs-fig7", &[(0.97, cores as u32, 1e9)])?;
    let (from, to) = (500 * MILLI, 800 * MILLI);
    let res = over_trials(&["cfs", "efs"], trials, |&pol, t| {
        let mt = t.machine(m);
        let plan = t.plan(&w, &mt)?;
        let mut o = PolicyOptions::default();
        o.efs.mu = Some(mu);
        o.seed = t.seed;
        let mut slices = vec![];
        let mut sink = |s: TraceSlice| slices.push(s);
        let r = engine::run(
            &mt,
            &plan,
            &mut *cosched_policies::make(pol, &o)?,
            &SimOptions { seed: t.seed, ..SimOptions::default() },
            Some(&mut sink),
        )?;
        if r.makespan < to {
            return Err(RunError::Study(StudyError::EndedEarly { end_s: secs(r.makespan) }));
        }
        Ok(busy_timeline(&slices, from, to, MILLI / 10))
    })?;
    let mut head: Vec<String> = vec!["scheduler".into(), "mean busy contexts".into()];
    head.extend((0..=cores).map(|k| format!("time with {k} busy %")));
    let h: Vec<&str> = head.iter().map(String::as_str).collect();
    let mut tab = Table::new(&h);
    let mut curve = vec![vec!["scheduler".to_string(), "time_ms".into(), "busy_contexts".into()]];
    for (pol, r) in ["cfs", "efs"].iter().zip(&res) {
        let mean: Vec<f64> = r.iter().map(|tl| tl.iter().sum::<usize>() as f64 / tl.len() as f64).collect();
        let mut row: Vec<Cell> = vec![(*pol).into(), Cell::value(&mean, 2)];
        for k in 0..=cores {
            let share: Vec<f64> =
                r.iter().map(|tl| tl.iter().filter(|&&b| b == k).count() as f64 / tl.len() as f64 * 100.0).collect();
            row.push(Cell::value(&share, 1));
        }
        tab.push(row);
        for (i, b) in r[0].iter().enumerate() {
            curve.push(vec![pol.to_string(), format!("{:.1}", 500.0 + i as f64 * 0.1), b.to_string()]);
        }
    }
    out.heading(format!("## Fig. 7: busy contexts during 300 ms (0.5-0.8 s) of {cores} synthetic instances at solo bus utilisation 0.97\n"));
    out.line("Paper: \"all four cores are busy all of the time on CFS, whereas EFS makes sure only one instance is active at any time\". Timeline of seed 1 (0.1 ms steps): `fig7-timeline.csv`.\n".to_string());
    out.table(tab, "fig7.csv");
    out.file("fig7-timeline.csv", curve);
    Ok(())
}
