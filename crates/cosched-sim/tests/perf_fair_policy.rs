//! Perf&Fair on the simulated Xeon E5645 (Perf&Fair §3, §5).

mod common;
use common::*;
use cosched_core::ids::{Nanos, ThreadId};
use cosched_core::policy::{Decision, Event, MachineView};
use cosched_policies::{PerfFair, PerfFairParams, Variant};
use cosched_sim::engine::{run, SimOptions};

/// Decisions emitted at each quantum boundary, with its time.
type BoundaryLog = Vec<(Nanos, Vec<Decision>)>;

/// What one run leaves for the assertions.
type Outcome = (cosched_sim::Plan, PerfFair, BoundaryLog, cosched_sim::RunOutput);

fn mix() -> cosched_sim::WorkloadSpec {
    let mut s = String::from("name = \"m\"\ndescription = \"d\"\n");
    for p in [
        "mcf",
        "lbm",
        "povray",
        "hmmer",
        "gcc",
        "milc",
        "namd",
        "libquantum",
        "sjeng",
        "soplex",
        "astar",
        "bzip2",
        "gobmk",
        "h264ref",
    ] {
        s += &format!("[[job]]\npreset = \"{p}\"\n");
    }
    let mut w = workload(&s);
    for j in &mut w.jobs {
        j.scale_work(0.25);
    }
    w
}

/// Mean |progress / solo-equivalent time − 1| over the mix's processes at the end of a run.
fn progress_error(o: &Outcome) -> f64 {
    let (p, pf, _, _) = o;
    let m = machine("xeon-e5645");
    let errs: Vec<f64> = (0..p.jobs.len())
        .map(|j| {
            let solo_s = p.job_instructions(j) / (p.solo_rates(j).0 * m.freq_ghz * 1e9);
            (pf.progress(ThreadId(p.jobs[j].threads.start)).unwrap() * 0.2 / solo_s - 1.0).abs()
        })
        .collect();
    errs.iter().sum::<f64>() / errs.len() as f64
}

#[test]
fn re_estimating_ipc_alone_tracks_program_phases() {
    // The SPEC presets have phases with distinct IPC alone, so an estimate
    // taken once goes stale; refreshing it every 40 quanta (Perf&Fair §5.1) must measure
    // progress more accurately than never refreshing it. 20 s of solo work per process.
    let every_40 = progress_error(&go_with(Variant::PerfFair, PerfFairParams::default(), 4.0));
    let once = progress_error(&go_with(
        Variant::PerfFair,
        PerfFairParams { validity: u32::MAX, ..PerfFairParams::default() },
        4.0,
    ));
    assert!(every_40 < 0.8 * once, "progress error: re-estimating {every_40:.4}, estimating once {once:.4}");
}

fn go(variant: Variant) -> Outcome {
    go_with(variant, PerfFairParams::default(), 0.25)
}

/// One run of `variant` with `params` on the mix, each process's work × `work`.
fn go_with(variant: Variant, params: PerfFairParams, work: f64) -> Outcome {
    let m = machine("xeon-e5645");
    let mut w = mix();
    for j in &mut w.jobs {
        j.scale_work(work * 4.0);
    }
    let p = plan(&w, &m);
    // The decisions of every quantum boundary (timer key 0), read after the run.
    let mut log: BoundaryLog = vec![];
    let mut logged = Watched {
        name: "logged",
        inner: PerfFair::new(variant, params),
        after: |_: &PerfFair, ev: &Event, v: &dyn MachineView, out: &mut Vec<Decision>| {
            if matches!(ev, Event::Timer { key: 0 }) {
                log.push((v.now(), out.clone()));
            }
        },
    };
    let out = run(&m, &p, &mut logged, &SimOptions::default(), None).unwrap();
    (p, logged.inner, log, out)
}

#[test]
fn with_exact_ipc_alone_progress_equals_ground_truth() {
    let (p, pf, _, _) = go(Variant::Oracle);
    let m = machine("xeon-e5645");
    for j in 0..p.jobs.len() {
        let t = p.jobs[j].threads.start;
        let solo_s = p.job_instructions(j) / (p.solo_rates(j).0 * m.freq_ghz * 1e9);
        let progress = pf.progress(ThreadId(t)).unwrap() * 0.2;
        assert!((progress / solo_s - 1.0).abs() < 0.01, "job {j}: progress {progress} s vs solo-equivalent {solo_s} s");
    }
}

#[test]
fn estimation_quanta_give_the_estimated_process_a_whole_core() {
    let (_, _, log, _) = go(Variant::PerfFair);
    let m = machine("xeon-e5645");
    let topo = m.topology();
    // Rebuild who runs where after each boundary and find estimation quanta (100 ms long).
    let mut on: Vec<Option<ThreadId>> = vec![None; topo.n_contexts()];
    let mut alone_core_quanta = 0;
    for w in log.windows(2) {
        let (at, ds) = (&w[0].0, &w[0].1);
        for d in ds {
            match *d {
                Decision::Run { thread, ctx } => {
                    for o in on.iter_mut() {
                        if *o == Some(thread) {
                            *o = None;
                        }
                    }
                    on[ctx.idx()] = Some(thread);
                }
                Decision::Preempt { ctx } => on[ctx.idx()] = None,
                _ => {}
            }
        }
        if w[1].0 - at == 100_000_000 {
            // some core runs exactly one process while its sibling context is free
            let any = (0..topo.n_cores).any(|core| {
                let ctxs: Vec<usize> = topo.ctx_ids().filter(|c| topo.ctx(*c).core == core).map(|c| c.idx()).collect();
                ctxs.iter().filter(|&&c| on[c].is_some()).count() == 1
            });
            assert!(any, "estimation quantum at {at} without a reserved core");
            alone_core_quanta += 1;
        }
    }
    assert!(alone_core_quanta > 0, "no estimation quanta seen");
}

#[test]
fn perf_fair_is_fairer_than_perf_and_every_process_finishes() {
    let (p, _, _, pf) = go(Variant::PerfFair);
    let (_, _, _, perf) = go(Variant::Perf);
    let spread = |o: &cosched_sim::RunOutput| {
        let f: Vec<f64> = o.job_finish.iter().map(|&x| x as f64).collect();
        f.iter().cloned().fold(0.0, f64::max) / f.iter().cloned().fold(f64::MAX, f64::min)
    };
    assert_eq!(pf.job_finish.len(), p.jobs.len());
    assert!(spread(&pf) < spread(&perf), "perf-fair {} vs perf {}", spread(&pf), spread(&perf));
}
