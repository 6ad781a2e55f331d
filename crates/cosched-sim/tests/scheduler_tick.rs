//! Premises of the Linux models' scheduler tick and of a refill's share of a
//! thread's time (docs/model.md, "The scheduler tick" and
//! "Switches, migrations and absences").

mod common;
use common::*;
use cosched_machine::{MachineSpec, TraceSlice};
use cosched_policies::PolicyOptions;
use cosched_sim::engine::{run, SimOptions};

/// The slices of `policy` running the spinners on `m`.
fn slices(m: &MachineSpec, policy: &str) -> Vec<TraceSlice> {
    let p = plan(&spinners(4), m);
    let mut out = vec![];
    let mut keep = |s: TraceSlice| out.push(s);
    let mut pol = cosched_policies::make(policy, &PolicyOptions::default()).unwrap();
    run(m, &p, &mut *pol, &SimOptions::default(), Some(&mut keep)).unwrap();
    out
}

/// For each thread of context 0, the largest share of its running time spent
/// beside any one thread of context 1 (1.0: always beside the same one).
fn largest_beside_share(sl: &[TraceSlice]) -> f64 {
    let on = |c: u32| sl.iter().filter(move |s| s.ctx == c);
    let mut worst: f64 = 0.0;
    for t in 0..4 {
        let mine: Vec<&TraceSlice> = on(0).filter(|s| s.thread == t).collect();
        if mine.is_empty() {
            continue;
        }
        let mut beside = [0u64; 4];
        for a in &mine {
            for b in on(1) {
                let o = a.end.min(b.end).saturating_sub(a.start.max(b.start));
                beside[b.thread as usize] += o;
            }
        }
        let total: u64 = beside.iter().sum();
        worst = worst.max(*beside.iter().max().unwrap() as f64 / total as f64);
    }
    worst
}

fn with_tick(ms: f64) -> MachineSpec {
    let mut m = machine("kvm-epyc-2c");
    m.costs.scheduler_tick_ms = ms;
    m
}

/// The kernel's run queues drift out of step (measured on this host by
/// `scripts/tick-phase`: each spinner spent half its time beside each
/// of the other CPU's two); without the tick, the model's stay in step and
/// every thread always runs beside the same one.
#[test]
fn two_contexts_run_queues_drift_out_of_step_under_the_tick() {
    for policy in ["eevdf", "cfs"] {
        let locked = largest_beside_share(&slices(&with_tick(0.0), policy));
        let sl = slices(&with_tick(4.0), policy);
        let drifting = largest_beside_share(&sl);
        // Each off-grid slice flips which of the other context's threads a thread meets: with
        // n flips the share is a mean of about n alternating runs, so it strays from 1/2 by about
        // 1/(2 sqrt n); 4 of those either side.
        let flips = sl.iter().filter(|s| s.ctx == 0).count() as f64 * machine("kvm-epyc-2c").costs.scheduler_off_grid;
        let margin = 4.0 / (2.0 * flips.sqrt());
        eprintln!("{policy}: largest share beside one thread: {locked:.3} without the tick, {drifting:.3} with it ({flips:.0} flips, margin {margin:.3})");
        assert!(locked > 0.99, "{policy}: without the tick the run queues should stay in step ({locked})");
        assert!(drifting < 0.5 + margin, "{policy}: under the tick the pairs should mix ({drifting})");
    }
}

/// Without HRTICK a slice lasts until the tick after it is used up: two
/// spinners per context under EEVDF (a 1.5-ms request on 2 contexts) switch
/// at every tick, as this host's did (median 3.98 ms at HZ 250).
#[test]
fn a_short_request_runs_to_the_next_tick() {
    let sl = slices(&with_tick(4.0), "eevdf");
    let mut lens: Vec<u64> = sl.iter().map(|s| s.end - s.start).collect();
    lens.sort_unstable();
    assert_eq!(lens[lens.len() / 2], 4_000_000, "median slice");
    let exact = slices(&with_tick(0.0), "eevdf");
    assert!(exact.iter().all(|s| s.end - s.start < 4_000_000), "without the tick, slices are the request");
}

/// A chase that resumes with its data evicted progresses while it refills:
/// each access is one miss at the memory latency, so four random chases of
/// 3/4 of the LLC each, two per context, run at most the all-miss time per
/// access, doubled by the time-sharing, beside their time alone. A refill's
/// share of the time taken against the thread's speed alone (not its speed
/// beside its co-runner) charged the co-runner's slowdown twice.
#[test]
fn a_refilling_chase_is_never_slower_than_all_misses() {
    let m = machine("kvm-epyc-2c-hostcheck");
    let mb = 0.75 * m.cache.llc_mb;
    let text = format!(
        "name = \"chases\"\n[[job]]\nname = \"chase\"\ninstances = 4\n[[job.phase]]\ninstructions = 4e8\nipc = 0.05\nllc_apki = 250\naccess = \"random\"\nfootprint_mb = {mb}\nmlp = 1\nl1_apki = 250\n"
    );
    let w = workload(&text);
    let p = plan(&w, &m);
    let solo = cosched_sim::experiment::solo_times(&m, &p, &SimOptions::default()).unwrap();
    let out = run_policy(&m, &p, "eevdf", PolicyOptions::default());
    // Time per access alone, from the solo run; the all-miss bound at a quarter of the bus
    // (four chases of MLP 1 use far less).
    let accesses = 4e8 * 250.0 / 1000.0;
    let latency = m.memory.loaded_latency.iter().find(|p| p[0] >= 0.25).unwrap()[1] * 1e-9;
    for (j, &s) in solo.iter().enumerate() {
        let slowdown = secs(out.job_finish[j]) / s;
        let bound = 2.0 * latency / (s / accesses);
        eprintln!("chase {j}: slowdown {slowdown:.2}, all-miss bound {bound:.2}");
        assert!(slowdown <= bound, "chase {j}: {slowdown} beyond the all-miss bound {bound}");
        assert!(slowdown > 2.0, "chase {j}: time-sharing alone doubles its time ({slowdown})");
    }
}
