//! The characterisation on synthetic programs whose truth is known
//! (the fit tested without a host): recorded pirate and bandit responses, made by the
//! simulated host from a known model, fitted back.

use super::*;

/// The machines the truths are fitted on: a preset (LLC 16.45 MiB) and a
/// calibrated host of the development mixes (LLC 6.76 MiB).
fn machines() -> Vec<MachineSpec> {
    let host = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/results/runtime/host-check/host.toml");
    vec![
        cosched_machine::presets::machine("kvm-epyc-2c-nov24").unwrap(),
        cosched_machine::presets::machine(host).unwrap(),
    ]
}

/// What the simulated host `m` records of a job whose truth is `truth`: its
/// slowdowns beside the pirates and bandits `characterise` runs, its solo runs
/// spread `spread` (so the fit's region is a measurement's, not a point).
fn recorded(m: &MachineSpec, truth: &Fit, spread: f64) -> JobRecord {
    let solo_s = 2.0;
    let co = |pirate: bool, sizes: Vec<f64>| -> Vec<CoRun> {
        sizes
            .into_iter()
            .map(|s| CoRun {
                size: s,
                slowdown: predict(m, solo_s, truth, pirate, s).unwrap(),
                covered: true,
                runs: vec![],
                progress: vec![],
            })
            .collect()
    };
    JobRecord {
        name: "known".into(),
        cmd: vec!["x".into()],
        solo_s,
        solo_spread: spread,
        pirates: co(true, pirate_sizes(m.cache.llc_mb)),
        bandits: co(false, bandit_rates(m.memory.bandwidth_gbs)),
        solo_runs: vec![],
        solo_progress: vec![],
        presence: None,
    }
}

fn inside(x: f64, (lo, hi): (f64, f64)) -> bool {
    lo * 0.999 <= x && x <= hi * 1.001
}

#[test]
fn a_random_working_set_between_grid_sizes_is_recovered_with_its_interval() {
    for m in machines() {
        let c = m.cache.llc_mb;
        // 0.6 × the LLC: between the grid's 0.5 and 0.707, so only the refinement finds it.
        let truth = Fit::point(Pattern::Random, round2(0.6 * c), 20.0, MLP);
        let job = recorded(&m, &truth, 0.02);
        assert!(job.pirates.iter().any(|r| r.slowdown > 1.05), "{}: the pirates must bite: {:?}", m.name, job.pirates);
        let (f, predicted) = fit(&m, &job).unwrap();
        assert_eq!(predicted.len(), job.pirates.len() + job.bandits.len());
        assert_eq!(f.access, Pattern::Random, "{}: {f:?}", m.name);
        assert!((f.footprint_mb / truth.footprint_mb - 1.0).abs() < 0.10, "{}: {f:?}", m.name);
        assert!(inside(truth.footprint_mb, f.footprint_range), "{}: {f:?}", m.name);
        assert!(inside(truth.llc_apki, f.apki_range), "{}: {f:?}", m.name);
        assert!(f.footprint_range.1 <= c, "{}: a working set that fits must fit: {f:?}", m.name);
        assert!(f.rms < 0.03, "{}: {f:?}", m.name);
    }
}

#[test]
fn a_48_mb_stream_is_sequential_with_a_footprint_above_the_llc() {
    for m in machines() {
        // A sweep drawing half the bus alone at IPC 1 (one copy of cosched-bench's stream drew
        // 74% of the two copies' bandwidth on the host of the development mixes).
        let apki = 1000.0 * m.memory.bandwidth_gbs / 2.0 / 64.0 / m.freq_ghz;
        let truth = Fit::point(Pattern::Sequential, 48.0, round2(apki), sequential_mlp(&m));
        // Solo runs spread 0.5%, as the random family's m05-3-stream measured: at 2% a random
        // pattern over 4 × the LLC is inside the region on the preset (not told apart).
        let job = recorded(&m, &truth, 0.005);
        let (f, _) = fit(&m, &job).unwrap();
        assert_eq!((f.access, f.either), (Pattern::Sequential, false), "{}: {f:?}", m.name);
        // Every model inside the region misses beyond the LLC (the interval's end widened to the
        // next model tried outside it may reach the LLC itself).
        assert!(f.footprint_mb > m.cache.llc_mb && f.footprint_range.0 >= m.cache.llc_mb, "{}: {f:?}", m.name);
        assert!(f.rms < 0.01, "{}: {f:?}", m.name);
    }
}

#[test]
fn a_2_mb_chase_is_random_and_fits() {
    for m in machines() {
        // A chase: every operation an LLC access, a few instructions each.
        let truth = Fit::point(Pattern::Random, 2.0, 200.0, MLP);
        let job = recorded(&m, &truth, 0.02);
        let (f, _) = fit(&m, &job).unwrap();
        assert_eq!(f.access, Pattern::Random, "{}: {f:?}", m.name);
        assert!(inside(2.0, f.footprint_range) && f.footprint_range.1 <= m.cache.llc_mb, "{}: {f:?}", m.name);
    }
}

#[test]
fn a_compute_bound_program_fits_the_least_memory_traffic() {
    for m in machines() {
        let truth = Fit::point(Pattern::Random, round2(1.414 * m.cache.llc_mb), 2.0, MLP);
        let job = recorded(&m, &truth, 0.02);
        let flat = JobRecord {
            pirates: job.pirates.iter().map(|r| CoRun { slowdown: 1.0, ..r.clone() }).collect(),
            bandits: job.bandits.iter().map(|r| CoRun { slowdown: 1.0, ..r.clone() }).collect(),
            ..job.clone()
        };
        let (f, _) = fit_patterns(&m, &flat, &WITH_NONE).unwrap();
        // Nothing bites: no memory traffic, exactly, where the fit may say so (design note 64).
        assert_eq!((f.access, f.llc_apki, f.footprint_mb), (Pattern::None, 0.0, 0.0), "{}: {f:?}", m.name);
        assert!(f.rms < 1e-4, "{}: the simulator runs it as fast beside any co-runner: {f:?}", m.name);
        // The models with traffic inside the region reach a footprint that is not measured: from 0
        // to at least the LLC.
        assert!(f.footprint_range.0 == 0.0 && f.footprint_range.1 >= m.cache.llc_mb, "{}: {f:?}", m.name);
        // By default (no model without traffic), the least traffic the grid has.
        let (t, _) = fit(&m, &flat).unwrap();
        assert!(t.access != Pattern::None && t.llc_apki <= 1.0 && t.rms < 0.02, "{}: {t:?}", m.name);
        // The same program whose slowdowns are the truth's (up to a few percent) is not taken
        // for one with no traffic: its noise (2%) excludes slowdowns of 1.
        let (f, _) = fit_patterns(&m, &job, &WITH_NONE).unwrap();
        assert_ne!(f.access, Pattern::None, "{}: {:?} {f:?}", m.name, job.pirates);
    }
}

#[test]
fn slowdowns_inside_the_noise_keep_no_traffic_and_beyond_it_do_not() {
    let m = machines().remove(0);
    let truth = Fit::point(Pattern::Random, round2(1.414 * m.cache.llc_mb), 2.0, MLP);
    let base = recorded(&m, &truth, 0.02);
    // Every co-run 3% slower than alone: noise of 20% between solo runs (σ = ln 1.2 / 2 ≈ 0.091 a
    // co-run) cannot tell that from no traffic; noise of 0.2% can.
    let slowed = |spread: f64| JobRecord {
        solo_spread: spread,
        pirates: base.pirates.iter().map(|r| CoRun { slowdown: 1.03, ..r.clone() }).collect(),
        bandits: base.bandits.iter().map(|r| CoRun { slowdown: 1.03, ..r.clone() }).collect(),
        ..base.clone()
    };
    assert_eq!(fit_patterns(&m, &slowed(0.2), &WITH_NONE).unwrap().0.access, Pattern::None);
    assert_ne!(fit_patterns(&m, &slowed(0.002), &WITH_NONE).unwrap().0.access, Pattern::None);
}

#[test]
fn pirates_added_where_the_response_bends_find_the_footprint() {
    use cosched_machine::pirate_sweep::next_pirate;
    let width = |f: &Fit| f.footprint_range.1 - f.footprint_range.0;
    for m in machines() {
        let c = m.cache.llc_mb;
        for (share, apki) in [(0.3, 20.0), (0.45, 50.0), (0.8, 5.0)] {
            let truth = Fit::point(Pattern::Random, round2(share * c), apki, MLP);
            let mut job = recorded(&m, &truth, 0.02);
            let (fixed, _) = fit(&m, &job).unwrap();
            // Two pirates added (`characterise --added-pirates 2`).
            for _ in 0..2 {
                let Some(size) = next_pirate(&job) else { break };
                let slowdown = predict(&m, job.solo_s, &truth, true, size).unwrap();
                job.pirates.push(CoRun { size, slowdown, covered: true, runs: vec![], progress: vec![] });
            }
            let (f, _) = fit(&m, &job).unwrap();
            let case = format!("{} {share}×LLC: {:?} {f:?} (fixed sweep: {fixed:?})", m.name, job.pirates);
            assert!(inside(truth.footprint_mb, f.footprint_range), "{case}");
            assert!(width(&f) <= width(&fixed) + 1e-9 || !inside(truth.footprint_mb, fixed.footprint_range), "{case}");
            // On the preset, 0.45 × the LLC at 50 accesses/KI bends only between the pirates of
            // 0.5 and 1 × the LLC: the four fixed sizes are fitted as well by a 3 MiB working set
            // at fewer accesses, outside the truth; the added pirates (0.71 and 0.6 × the LLC)
            // tell them apart. Why the sweep adds pirates.
            if m.name == "kvm-epyc-2c-nov24" && share == 0.45 {
                assert!(!inside(truth.footprint_mb, fixed.footprint_range), "{case}");
            }
        }
    }
}

#[test]
fn a_program_slowed_by_any_busy_core_is_fitted_with_its_presence_and_not_without() {
    // Design note 67: a random working set of 0.6 × the LLC whose time another busy core stretches
    // by 1.4 (what a compute loop on the other core measures), fitted with the compute-loop runs
    // and without them (the default: `characterise` fits with them only with `--presence`).
    for m in machines() {
        let truth = Fit { presence: 1.4, ..Fit::point(Pattern::Random, round2(0.6 * m.cache.llc_mb), 20.0, MLP) };
        let mut job = recorded(&m, &truth, 0.02);
        assert!(job.pirates.iter().all(|r| r.slowdown >= 1.4), "{}: every co-runner is another busy core", m.name);
        job.presence = Some(CoRun { size: 0.0, slowdown: 1.4, covered: true, runs: vec![], progress: vec![] });
        let (f, _) = fit(&m, &job).unwrap();
        assert_eq!((f.access, f.presence), (Pattern::Random, 1.4), "{}: {f:?}", m.name);
        assert!(inside(truth.footprint_mb, f.footprint_range) && f.rms < 0.03, "{}: {f:?}", m.name);
        // Without the compute loop the fit spends the cache on it: a footprint and access rate
        // that slow the job by 1.4 beside the smallest pirate, far from the truth's.
        let (blind, _) = fit(&m, &JobRecord { presence: None, ..job.clone() }).unwrap();
        assert_eq!(blind.presence, 1.0);
        assert!(
            !inside(truth.footprint_mb, blind.footprint_range)
                || !inside(truth.llc_apki, blind.apki_range)
                || blind.rms > 0.05,
            "{}: {blind:?}",
            m.name
        );
        // The workload file carries the factor, and its source line what was measured.
        let text = workload_file(
            &m,
            "m",
            &Record { machine: m.name.clone(), date: "d".into(), jobs: vec![job] },
            &Fitted { fits: vec![f], predicted: vec![vec![]], phased: vec![None] },
        );
        assert!(
            text.contains("presence_slowdown = 1.4\n") && text.contains("1.400 x its time alone beside a compute loop"),
            "{text}"
        );
    }
}
