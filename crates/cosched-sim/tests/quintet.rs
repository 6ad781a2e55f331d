//! `quintet`, the policy combining the papers
//! (docs/quintet.md). Each borrowed mechanism is checked on the simulator
//! against the same policy with it switched off, under the same seeds; with
//! its choices switched off, `quintet` must be exactly the policy it is
//! built on (CFS, or RDA Strict where periods are declared).

use cosched_machine::presets::machine;
use cosched_machine::MachineSpec;
use cosched_policies::{self as policies, Mechanism, PolicyOptions, QuintetObjective, QuintetParams};
use cosched_sim::engine::{run, RunOutput, SimOptions};
use cosched_sim::experiment::solo_times;
use cosched_sim::variation;
use cosched_sim::{presets, Plan};

const SEEDS: [u64; 3] = [1, 2, 3];

/// The machine and plan as the run seeded `seed` finds them (run-to-run variation on).
fn setup(machine_name: &str, workload: &str, copies: u32, seed: u64) -> (MachineSpec, Plan) {
    let m = variation::machine(&machine(machine_name).unwrap(), 1.0, seed);
    let mut w = presets::workload(workload).unwrap();
    for j in &mut w.jobs {
        j.instances *= copies;
    }
    let plan = Plan::varied(&w, &m, None, seed, workload, 1.0).unwrap();
    (m, plan)
}

fn quintet(objective: QuintetObjective, without: &[Mechanism]) -> PolicyOptions {
    PolicyOptions {
        quintet: QuintetParams { objective, without: without.to_vec(), ..QuintetParams::default() },
        ..PolicyOptions::default()
    }
}

fn run_with(m: &MachineSpec, plan: &Plan, policy: &str, o: &PolicyOptions, seed: u64) -> RunOutput {
    let o = PolicyOptions { seed, ..o.clone() };
    let sim = SimOptions { seed, ..SimOptions::default() };
    run(m, plan, &mut *policies::make(policy, &o).unwrap(), &sim, None).unwrap()
}

/// Without pairing (and with no objective mechanism acting), quintet's choice
/// is the fair class's own: byte-identical to CFS where nothing is declared,
/// and to RDA Strict where every kernel call is a progress period.
#[test]
fn with_its_choices_off_quintet_is_the_policy_it_is_built_on() {
    let off = quintet(QuintetObjective::Throughput, &[Mechanism::Pairing]);
    for (mach, w, base) in [("xeon-e5645", "spec-mix24", "cfs"), ("xeon-e5-2420", "rda-blas3", "rda-strict")] {
        let (m, plan) = setup(mach, w, 1, 1);
        let q = run_with(&m, &plan, "quintet", &off, 1);
        let b = run_with(&m, &plan, base, &PolicyOptions::default(), 1);
        assert_eq!((q.makespan, q.job_finish.clone()), (b.makespan, b.job_finish.clone()), "{w}: quintet vs {base}");
    }
    // Without periods too, RDA's workload runs as under CFS.
    let (m, plan) = setup("xeon-e5-2420", "rda-blas3", 1, 1);
    let q = run_with(
        &m,
        &plan,
        "quintet",
        &quintet(QuintetObjective::Throughput, &[Mechanism::Pairing, Mechanism::Periods]),
        1,
    );
    let c = run_with(&m, &plan, "cfs", &PolicyOptions::default(), 1);
    assert_eq!(q.job_finish, c.job_finish);
}

/// Pairing (SLITS's TIM + FM on relative speeds): on the oversubscribed SPEC
/// mix of the E5645 (SMT siblings to pair), every seed finishes sooner with it.
#[test]
fn learned_pairing_shortens_the_spec_mix_on_every_seed() {
    for seed in SEEDS {
        let (m, plan) = setup("xeon-e5645", "spec-mix24", 1, seed);
        let on = run_with(&m, &plan, "quintet", &quintet(QuintetObjective::Throughput, &[]), seed);
        let off = run_with(&m, &plan, "quintet", &quintet(QuintetObjective::Throughput, &[Mechanism::Pairing]), seed);
        assert!(on.makespan < off.makespan, "seed {seed}: {} !< {}", on.makespan, off.makespan);
    }
}

fn unfairness(m: &MachineSpec, plan: &Plan, out: &RunOutput, seed: u64) -> f64 {
    let solo = solo_times(m, plan, &SimOptions { seed, ..SimOptions::default() }).unwrap();
    let slow: Vec<f64> = out.job_finish.iter().zip(&solo).map(|(&f, s)| f as f64 * 1e-9 / s).collect();
    cosched_core::metrics::unfairness(&slow)
}

/// Progress accounting (Perf&Fair Eq. 1) under the fairness objective: the
/// max/min slowdown ratio is lower with it than without it on every seed.
#[test]
fn progress_accounting_cuts_unfairness_on_every_seed() {
    for seed in SEEDS {
        let (m, plan) = setup("xeon-e5645", "spec-mix24", 1, seed);
        let on = run_with(&m, &plan, "quintet", &quintet(QuintetObjective::Fairness, &[]), seed);
        let off = run_with(&m, &plan, "quintet", &quintet(QuintetObjective::Fairness, &[Mechanism::Progress]), seed);
        let (u_on, u_off) = (unfairness(&m, &plan, &on, seed), unfairness(&m, &plan, &off, seed));
        assert!(u_on < u_off, "seed {seed}: unfairness {u_on} !< {u_off}");
    }
}

/// EFS admission under the energy objective: four copies of a bus-saturating
/// benchmark on the i5-2500 use less system energy with it, as under EFS itself.
#[test]
fn bus_model_admission_saves_energy_under_the_energy_objective() {
    for seed in SEEDS {
        let (m, plan) = setup("i5-2500", "libquantum", 4, seed);
        let on = run_with(&m, &plan, "quintet", &quintet(QuintetObjective::Energy, &[]), seed);
        let off = run_with(&m, &plan, "quintet", &quintet(QuintetObjective::Energy, &[Mechanism::Admission]), seed);
        let efs = run_with(&m, &plan, "efs", &PolicyOptions::default(), seed);
        assert!(on.energy.system < off.energy.system, "seed {seed}");
        assert!((on.energy.system / efs.energy.system - 1.0).abs() < 0.02, "seed {seed}: as EFS does");
    }
}

/// Under the throughput objective the energy mechanism does not act: no context is left idle on purpose.
#[test]
fn admission_acts_only_when_energy_is_the_objective() {
    let (m, plan) = setup("i5-2500", "libquantum", 4, 1);
    let thr = run_with(&m, &plan, "quintet", &quintet(QuintetObjective::Throughput, &[]), 1);
    let cfs = run_with(&m, &plan, "cfs", &PolicyOptions::default(), 1);
    assert_eq!(thr.job_finish, cfs.job_finish);
}

/// Pipes (statistical assignment §3.1's IntraPipe level): on the UltraSPARC T2
/// (two pipelines of four strands per core, one issue per pipeline per cycle),
/// spreading each core's threads over its pipelines finishes the packet
/// pipelines sooner on every seed; switched off, quintet places as CFS does
/// (byte-identical with pairing off too); where a core has one pipeline it
/// changes nothing.
#[test]
fn pipe_placement_spreads_threads_over_the_t2_pipelines() {
    let t = QuintetObjective::Throughput;
    for seed in SEEDS {
        let (m, plan) = setup("ultrasparc-t2", "ipfwd-mem", 1, seed);
        let on = run_with(&m, &plan, "quintet", &quintet(t, &[Mechanism::Pairing]), seed);
        let off = run_with(&m, &plan, "quintet", &quintet(t, &[Mechanism::Pairing, Mechanism::Pipes]), seed);
        let cfs = run_with(&m, &plan, "cfs", &PolicyOptions::default(), seed);
        assert!(on.makespan < off.makespan, "seed {seed}: {} !< {}", on.makespan, off.makespan);
        assert_eq!(off.job_finish, cfs.job_finish, "seed {seed}: without pipes, CFS's placement");
    }
    let (m, plan) = setup("xeon-e5645", "spec-mix24", 1, 1);
    let on = run_with(&m, &plan, "quintet", &quintet(t, &[]), 1);
    let off = run_with(&m, &plan, "quintet", &quintet(t, &[Mechanism::Pipes]), 1);
    assert_eq!(on.job_finish, off.job_finish, "one pipeline per core: nothing to spread");
}
