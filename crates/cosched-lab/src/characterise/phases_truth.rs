//! The characterisation per phase on synthetic programs whose truth is known
//! (the test "a two-phase program yields two phases"): recorded
//! progress reports, made by the simulated host from a known model of each
//! phase (its slowdown beside each pirate and bandit), with seeded noise on
//! every report, split and fitted back.

use super::*;
use cosched_machine::characterised::Series;
use cosched_sim::engine::SimOptions;
use cosched_sim::{presets, Plan};

/// Seconds between reports alone (cosched-bench's `--report-ms 20`).
const REPORT_S: f64 = 0.02;

/// A uniform draw in [−1, 1) from `(run, k)` (splitmix64): the reports' noise.
fn noise(run: u64, k: u64) -> f64 {
    let mut z = run.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ k.wrapping_add(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 52) as f64 - 1.0
}

/// A run's reports: each phase `(seconds alone, operations per second alone, slowdown)` in order,
/// every report's interval off by up to ±`jitter`.
fn series(phases: &[(f64, f64, f64)], run: u64, jitter: f64) -> Series {
    let (mut t, mut ops, mut k, mut s) = (0.0, 0.0, 0u64, vec![]);
    for &(secs, rate, slowdown) in phases {
        for _ in 0..(secs / REPORT_S).round() as usize {
            k += 1;
            t += REPORT_S * slowdown * (1.0 + jitter * noise(run, k));
            ops += rate * REPORT_S;
            s.push([t, ops]);
        }
    }
    s
}

/// The record of a job whose phases are `truth` (each `(seconds alone, operations per second,
/// model)`, in order), three runs of each, reports jittered by ±2%.
fn recorded(m: &MachineSpec, truth: &[(f64, f64, Fit)]) -> JobRecord {
    let runs = |slowdown: &dyn Fn(&Fit, f64) -> f64, seed: u64| -> (Vec<f64>, Vec<Series>) {
        let p: Vec<(f64, f64, f64)> = truth.iter().map(|(secs, rate, f)| (*secs, *rate, slowdown(f, *secs))).collect();
        let s: Vec<Series> = (0..3).map(|r| series(&p, seed * 10 + r, 0.02)).collect();
        (s.iter().map(|x| x[x.len() - 1][0]).collect(), s)
    };
    let (solo_runs, solo_progress) = runs(&|_, _| 1.0, 0);
    let solo_s = solo_runs[1];
    let co = |pirate: bool, sizes: Vec<f64>, seed: u64| -> Vec<CoRun> {
        sizes
            .into_iter()
            .enumerate()
            .map(|(i, size)| {
                let (t, progress) = runs(&|f, secs| predict(m, secs, f, pirate, size).unwrap(), seed + i as u64);
                CoRun { size, slowdown: t[1] / solo_s, covered: true, runs: t, progress }
            })
            .collect()
    };
    JobRecord {
        name: "two".into(),
        cmd: vec!["x".into()],
        solo_s,
        solo_spread: 0.0,
        pirates: co(true, pirate_sizes(m.cache.llc_mb), 1),
        bandits: co(false, bandit_rates(m.memory.bandwidth_gbs), 20),
        solo_runs,
        solo_progress,
        presence: None,
    }
}

/// A 48 MB sweep drawing half the bus alone, and a compute loop.
fn stream_and_compute(m: &MachineSpec) -> (Fit, Fit) {
    let apki = 1000.0 * m.memory.bandwidth_gbs / 2.0 / 64.0 / m.freq_ghz;
    let stream = Fit::point(Pattern::Sequential, 48.0, round2(apki), sequential_mlp(m));
    (stream, Fit::point(Pattern::Random, round2(0.1 * m.cache.llc_mb), 0.1, MLP))
}

fn machines() -> Vec<MachineSpec> {
    let host = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/results/runtime/host-check/host.toml");
    vec![
        cosched_machine::presets::machine("kvm-epyc-2c-nov24").unwrap(),
        cosched_machine::presets::machine(host).unwrap(),
    ]
}

#[test]
fn a_two_phase_program_yields_two_phases() {
    for m in machines() {
        let (stream, compute) = stream_and_compute(&m);
        let job = recorded(&m, &[(1.0, 5e7, stream), (1.0, 2e8, compute)]);
        let rec = Record { machine: m.name.clone(), date: "d".into(), jobs: vec![job.clone()] };
        let fitted = fit_record(&m, &rec, &PATTERNS, true, &|_| {}).unwrap();
        let p = fitted.phased[0].as_ref().unwrap_or_else(|| panic!("{}: no phases", m.name));
        assert_eq!((p.phases.kind.clone(), p.phases.kinds()), (vec![0, 1], 2), "{}: {:?}", m.name, p.phases);
        assert!((p.phases.share[0] - 0.5).abs() < 0.1, "{}: {:?}", m.name, p.phases);
        // The stream phase is sequential and misses beyond the LLC; the compute phase is not slowed.
        let (s, c) = (&p.fits[0], &p.fits[1]);
        assert_eq!(s.access, Pattern::Sequential, "{}: {s:?}", m.name);
        assert!(s.footprint_range.0 >= m.cache.llc_mb, "{}: {s:?}", m.name);
        // Each phase's slowdowns are the truth's, read off the reports at the phase's bounds.
        for (r, truth) in p.records.iter().zip([stream, compute]) {
            for (c, pirate) in r.pirates.iter().map(|c| (c, true)).chain(r.bandits.iter().map(|c| (c, false))) {
                let want = predict(&m, 1.0, &truth, pirate, c.size).unwrap();
                assert!((c.slowdown / want - 1.0).abs() < 0.01, "{}: {}: {} vs {want}", m.name, r.name, c.slowdown);
            }
        }
        assert!(c.llc_apki < s.llc_apki && c.rms < 0.03, "{}: {c:?}", m.name);
        // The workload file runs both phases, in order, for the job's solo time.
        let text = workload_file(&m, &m.name, &rec, &fitted);
        assert!(text.contains("2 kinds of phase in its own progress reports, in the order 1, 2"), "{text}");
        let w = presets::workload_from_toml("c.toml", &text).unwrap();
        assert_eq!(w.jobs[0].phases.len(), 2);
        let plan = Plan::new(&w, &m, None, 1, "c").unwrap();
        let solo = cosched_sim::experiment::solo_times(&m, &plan, &SimOptions::default()).unwrap();
        assert!((solo[0] / job.solo_s - 1.0).abs() < 0.02, "{}: {solo:?} vs {}", m.name, job.solo_s);
        // The ablation (`characterise --whole`): one phase, the whole-run fit.
        let whole = fit_record(&m, &rec, &PATTERNS, false, &|_| {}).unwrap();
        assert!(whole.phased[0].is_none() && whole.fits == fitted.fits);
        let w = presets::workload_from_toml("c.toml", &workload_file(&m, &m.name, &rec, &whole)).unwrap();
        assert_eq!(w.jobs[0].phases.len(), 1);
    }
}

#[test]
fn alternating_phases_are_two_kinds_and_one_rate_is_one_phase() {
    let m = cosched_machine::presets::machine("kvm-epyc-2c-nov24").unwrap();
    let (stream, compute) = stream_and_compute(&m);
    let (a, b) = ((0.5, 5e7, stream), (0.5, 2e8, compute));
    let job = recorded(&m, &[a, b, a, b]);
    let p = phases::split(&job).unwrap();
    assert_eq!(p.kind, vec![0, 1, 0, 1], "{p:?}");
    // One rate throughout, reports jittered: no phase.
    let flat = recorded(&m, &[(2.0, 5e7, compute)]);
    assert_eq!(phases::split(&flat), None);
    // A run without reports: the job is fitted whole.
    let mut none = job.clone();
    none.pirates[0].progress.clear();
    assert_eq!(phases::split(&none), None);
}
