//! `cosched paper slits`: the SLITS paper's evaluation (§5-6) on `xeon-x5550-16c`.
#![allow(clippy::needless_range_loop)] // cells are addressed by (workload, threads, policy, seed) indices

use super::{markdown, write_csv};
use clap::Args as ClapArgs;
use cosched_core::learn::{Fm, FmParams};
use cosched_core::policies::{self, PolicyOptions, Slits, SlitsObjective, SlitsParams, Trigger};
use cosched_core::policy::{Decision, Event, MachineView, Needs, Policy};
use cosched_core::slits::features;
use cosched_core::stats::geomean;
use cosched_machine::MachineSpec;
use cosched_sim::engine::{run, RunOutput, SimOptions};
use cosched_sim::{presets, Plan};
use rayon::prelude::*;
use std::sync::{Arc, Mutex};

#[derive(ClapArgs)]
pub struct Args {
    /// Machine preset or file.
    #[arg(long, default_value = "xeon-x5550-16c")]
    machine: String,
    /// Seeds per cell.
    #[arg(long, default_value_t = 3)]
    seeds: u64,
    /// Also write each table as CSV into this directory.
    #[arg(long)]
    out: Option<String>,
    /// Leave out the wall-clock decision-time table, so that identical inputs give byte-identical output.
    #[arg(long)]
    no_timing: bool,
}

/// A predictor of one sparse input.
type Predictor<'a> = &'a dyn Fn(&[(usize, f64)]) -> f64;

const WORKLOADS: [&str; 11] = presets::SLITS_WORKLOADS;
const PARSEC: [&str; 6] = ["blackscholes", "canneal", "facesim", "fluidanimate", "swaptions", "vips"];
const POLICIES: [&str; 6] = ["g-rrs", "p-rrs", "wss", "cfs", "slits-contention", "slits-fairness"];
const THREADS: [u32; 3] = [32, 64, 128];

fn one(
    m: &MachineSpec,
    w: &str,
    threads: u32,
    seed: u64,
    policy: &str,
    slits: SlitsParams,
    timing: bool,
) -> Result<RunOutput, String> {
    let spec = presets::workload(w).map_err(|e| e.to_string())?;
    let plan = Plan::new(&spec, m, Some(threads), seed, w).map_err(|e| e.to_string())?;
    let o = PolicyOptions { seed, slits, ..PolicyOptions::default() };
    run(m, &plan, policies::make(policy, &o)?, &SimOptions { seed, timing, ..SimOptions::default() }, None)
}

/// Lets the caller read a SLITS policy's Thread-Interaction Matrix after the run.
struct Shared(Arc<Mutex<Slits>>);

impl Policy for Shared {
    fn name(&self) -> &'static str {
        "slits-contention"
    }
    fn needs(&self) -> Needs {
        self.0.lock().expect("lock").needs()
    }
    fn init(&mut self, v: &dyn MachineView) -> Result<(), String> {
        self.0.lock().expect("lock").init(v)
    }
    fn on_event(&mut self, ev: &Event, v: &dyn MachineView, out: &mut Vec<Decision>) {
        self.0.lock().expect("lock").on_event(ev, v, out)
    }
}

fn pct(x: f64) -> String {
    format!("{:+.1}", (x - 1.0) * 100.0)
}

pub fn run_cmd(a: Args) -> Result<(), String> {
    let m = cosched_machine::presets::machine(&a.machine).map_err(|e| e.to_string())?;
    let seeds: Vec<u64> = (1..=a.seeds).collect();
    println!("# SLITS on `{}` (simulated, {} seeds per cell)\n", m.name, a.seeds);
    // Fig. 3 grid.
    let cells: Vec<(usize, usize, usize, u64)> = (0..WORKLOADS.len())
        .flat_map(|w| {
            (0..THREADS.len())
                .flat_map(move |t| (0..POLICIES.len()).flat_map(move |p| (1..=a.seeds).map(move |s| (w, t, p, s))))
        })
        .collect();
    let outs: Vec<RunOutput> = cells
        .par_iter()
        .map(|&(w, t, p, s)| one(&m, WORKLOADS[w], THREADS[t], s, POLICIES[p], SlitsParams::default(), false))
        .collect::<Result<_, String>>()?;
    let at = |w: usize, t: usize, p: usize, s: u64| {
        &outs[((w * THREADS.len() + t) * POLICIES.len() + p) * a.seeds as usize + (s - 1) as usize]
    };
    let mean = |f: &dyn Fn(u64) -> f64| seeds.iter().map(|&s| f(s)).sum::<f64>() / seeds.len() as f64;
    let mut fig3 = vec![vec!["workload".to_string(), "threads".into()]];
    fig3[0].extend(POLICIES.iter().skip(1).map(|p| format!("{p} speedup %")));
    let mut ratios = vec![vec![]; POLICIES.len()]; // speedup over g-rrs per cell
    for (w, wl) in WORKLOADS.iter().enumerate() {
        for (t, th) in THREADS.iter().enumerate() {
            let mut row = vec![wl.to_string(), th.to_string()];
            for p in 1..POLICIES.len() {
                let r = mean(&|s| at(w, t, 0, s).makespan as f64 / at(w, t, p, s).makespan as f64);
                ratios[p].push(r);
                row.push(pct(r));
            }
            fig3.push(row);
        }
    }
    let mut g = vec!["geomean".to_string(), String::new()];
    g.extend((1..POLICIES.len()).map(|p| pct(geomean(&ratios[p]))));
    fig3.push(g);
    println!("## Fig. 3: speedup over G-RRS (makespan), 16 cores, 32/64/128 threads\n");
    markdown(&fig3);
    write_csv(&a.out, "fig3-speedup.csv", &fig3)?;
    // Headline: SLITS over each baseline, geomean over all cells.
    let mut head = vec![vec![
        "SLITS variant".to_string(),
        "over G-RRS".into(),
        "over P-RRS".into(),
        "over WSS".into(),
        "over CFS".into(),
    ]];
    let paper = [["1.27", "1.18", "1.12", "1.09"], ["1.25", "1.14", "1.09", "1.06"]];
    for (k, sp) in [4usize, 5].iter().enumerate() {
        let mut row = vec![POLICIES[*sp].to_string()];
        for b in 0..4 {
            let r: Vec<f64> = ratios[*sp]
                .iter()
                .zip(if b == 0 { vec![1.0; ratios[*sp].len()] } else { ratios[b].clone() })
                .map(|(s, base)| s / base)
                .collect();
            row.push(format!("{:.3}x (paper {}x)", geomean(&r), paper[k][b]));
        }
        head.push(row);
    }
    println!("## Headline: SLITS speedup over each baseline (geometric mean over 11 workloads x 3 thread counts)\n");
    markdown(&head);
    write_csv(&a.out, "headline.csv", &head)?;
    // Fig. 4/5: cache behaviour relative to G-RRS.
    let mut fig45 = vec![vec!["policy".to_string(), "LLC misses vs G-RRS %".into(), "L1 hits vs G-RRS %".into()]];
    for p in 1..POLICIES.len() {
        let (mut llc, mut l1) = (vec![], vec![]);
        for w in 0..WORKLOADS.len() {
            for t in 0..THREADS.len() {
                llc.push(mean(&|s| at(w, t, p, s).totals.llc_misses / at(w, t, 0, s).totals.llc_misses));
                l1.push(mean(&|s| {
                    let h = |o: &RunOutput| o.totals.l1_accesses - o.totals.l1_misses;
                    h(at(w, t, p, s)) / h(at(w, t, 0, s))
                }));
            }
        }
        fig45.push(vec![POLICIES[p].to_string(), pct(geomean(&llc)), format!("{:+.3}", (geomean(&l1) - 1.0) * 100.0)]);
    }
    println!("## Figs. 4-5: cache behaviour (geometric mean over the grid)\n");
    println!("Paper: SLITS +21.45% L1 D-cache hits and −10.05% cycles in the L3.\n");
    markdown(&fig45);
    write_csv(&a.out, "fig45-cache.csv", &fig45)?;
    // Fig. 1: explored permutations of RS and G-RRS.
    let mut fig1 =
        vec![vec!["workload".to_string(), "threads".into(), "random explored %".into(), "g-rrs explored %".into()]];
    for wl in PARSEC {
        for th in [32u32, 64] {
            let r = one(&m, wl, th, 1, "random", SlitsParams::default(), false)?;
            let g = one(&m, wl, th, 1, "g-rrs", SlitsParams::default(), false)?;
            fig1.push(vec![
                wl.into(),
                th.to_string(),
                format!("{:.1}", r.explored_pairs_pct),
                format!("{:.1}", g.explored_pairs_pct),
            ]);
        }
    }
    println!("## Fig. 1: share of ordered thread pairs that ever co-ran (sparsity of the TIM)\n");
    println!("Paper: RS and G-RRS explore only a small fraction of the thread permutations (their measure counts placements too, so its fractions are far smaller than pair fractions).\n");
    markdown(&fig1);
    write_csv(&a.out, "fig1-explored.csv", &fig1)?;
    // Figs. 6-8 at 64 threads.
    let variants: Vec<(&str, SlitsParams, &str)> = vec![
        ("full SLITS", SlitsParams::default(), "slits-contention"),
        (
            "without FM (lazy, round-robin choice)",
            SlitsParams { use_fm: false, ..Default::default() },
            "slits-contention",
        ),
        (
            "without Lazy Reschedule (periodic, 4 ms quota)",
            SlitsParams { trigger: Trigger::Periodic(4_000_000), ..Default::default() },
            "slits-contention",
        ),
        (
            "periodic 0.5 ms",
            SlitsParams { trigger: Trigger::Periodic(500_000), ..Default::default() },
            "slits-contention",
        ),
        (
            "periodic 1 ms",
            SlitsParams { trigger: Trigger::Periodic(1_000_000), ..Default::default() },
            "slits-contention",
        ),
        (
            "periodic 1.5 ms",
            SlitsParams { trigger: Trigger::Periodic(1_500_000), ..Default::default() },
            "slits-contention",
        ),
        ("coverage 0%", SlitsParams { coverage: 0.0, ..Default::default() }, "slits-contention"),
        ("coverage 25%", SlitsParams { coverage: 0.25, ..Default::default() }, "slits-contention"),
        ("coverage 50%", SlitsParams { coverage: 0.5, ..Default::default() }, "slits-contention"),
        ("coverage 75%", SlitsParams { coverage: 0.75, ..Default::default() }, "slits-contention"),
    ];
    let vt: Vec<(usize, usize, u64)> = (0..variants.len())
        .flat_map(|v| (0..WORKLOADS.len()).flat_map(move |w| (1..=a.seeds).map(move |s| (v, w, s))))
        .collect();
    let vo: Vec<f64> = vt
        .par_iter()
        .map(
            |&(v, w, s)| Ok(one(&m, WORKLOADS[w], 64, s, variants[v].2, variants[v].1.clone(), false)?.makespan as f64),
        )
        .collect::<Result<_, String>>()?;
    let vat = |v: usize, w: usize, s: u64| vo[(v * WORKLOADS.len() + w) * a.seeds as usize + (s - 1) as usize];
    let t64 = 1; // index of 64 threads
    let mut fig68 = vec![vec![
        "configuration (64 threads)".to_string(),
        "change vs full SLITS %".into(),
        "speedup over P-RRS (PARSEC) %".into(),
    ]];
    for (v, (name, _, _)) in variants.iter().enumerate() {
        let vs_full: Vec<f64> = (0..WORKLOADS.len()).map(|w| mean(&|s| vat(0, w, s) / vat(v, w, s))).collect();
        let over_prrs: Vec<f64> =
            (0..PARSEC.len()).map(|w| mean(&|s| at(w, t64, 1, s).makespan as f64 / vat(v, w, s))).collect();
        fig68.push(vec![name.to_string(), pct(geomean(&vs_full)), pct(geomean(&over_prrs))]);
    }
    println!("## Figs. 6-8: components, FM coverage, Lazy vs periodic (64 threads; geometric means)\n");
    println!("Paper: disabling FM or Lazy Reschedule costs 24-33% (FM more); speedup grows about linearly with FM coverage, 0% beats 25%; Lazy beats every periodic window.\n");
    markdown(&fig68);
    write_csv(&a.out, "fig678-ablation.csv", &fig68)?;
    // FM accuracy on a TIM collected in the simulator.
    let spec = presets::workload("vips").map_err(|e| e.to_string())?;
    let plan = Plan::new(&spec, &m, Some(128), 1, "vips").map_err(|e| e.to_string())?;
    let shared = Arc::new(Mutex::new(Slits::new(SlitsObjective::Contention, SlitsParams::default(), 1)));
    run(&m, &plan, Box::new(Shared(shared.clone())), &SimOptions::default(), None)?;
    let slits = shared.lock().map_err(|_| "lock")?;
    let tim = slits.tim();
    let n = 128;
    let data: Vec<(Vec<(usize, f64)>, f64)> =
        tim.iter().map(|((r, w), e)| (features(n, r as usize, w as usize, 0)[..2].to_vec(), e.value)).collect();
    let (train, test): (Vec<_>, Vec<_>) = data.iter().cloned().enumerate().partition(|(i, _)| i % 5 != 0);
    let train: Vec<_> = train.into_iter().map(|x| x.1).collect();
    let test: Vec<_> = test.into_iter().map(|x| x.1).collect();
    let mut fm = Fm::new(2 * n, FmParams { k: 4, learning_rate: 0.01, reg_w: 0.001, reg_v: 0.01, init_std: 0.05 }, 3);
    fm.fit(&train, 200, 5);
    let mu = train.iter().map(|e| e.1).sum::<f64>() / train.len().max(1) as f64;
    let rmse =
        |f: Predictor| (test.iter().map(|(x, y)| (f(x) - y).powi(2)).sum::<f64>() / test.len().max(1) as f64).sqrt();
    let (mut rs, mut rc) = (vec![0.0; 2 * n], vec![0.0; 2 * n]);
    for (x, y) in &train {
        for &(i, _) in x {
            rs[i] += y - mu;
            rc[i] += 1.0;
        }
    }
    let rowcol =
        |x: &[(usize, f64)]| mu + x.iter().map(|&(i, _)| if rc[i] > 0.0 { rs[i] / rc[i] } else { 0.0 }).sum::<f64>();
    let acc = vec![
        vec![
            "TIM (vips, 128 threads, LLC MPKI)".to_string(),
            "entries".into(),
            "density %".into(),
            "FM RMSE".into(),
            "global mean RMSE".into(),
            "row/col mean RMSE".into(),
        ],
        vec![
            String::new(),
            tim.len().to_string(),
            format!("{:.1}", tim.density(n) * 100.0),
            format!("{:.3}", rmse(&|x| fm.predict(x))),
            format!("{:.3}", rmse(&|_| mu)),
            format!("{:.3}", rmse(&rowcol)),
        ],
    ];
    drop(slits);
    println!("## FM accuracy on a Thread-Interaction Matrix gathered by SLITS in the simulator (held-out 20%)\n");
    markdown(&acc);
    write_csv(&a.out, "fm-accuracy-tim.csv", &acc)?;
    if a.no_timing {
        return Ok(());
    }
    // Decision time at 16 cores x 128 threads.
    let mut rows = vec![vec![
        "policy (16 cores, 128 threads, canneal)".to_string(),
        "decision p50 µs".into(),
        "decision p99 µs".into(),
    ]];
    for p in ["g-rrs", "slits-contention", "slits-fairness"] {
        let o = one(&m, "canneal", 128, 1, p, SlitsParams::default(), true)?;
        let (p50, p99) = o.decision_us.unwrap_or((f64::NAN, f64::NAN));
        rows.push(vec![p.to_string(), format!("{p50:.2}"), format!("{p99:.2}")]);
    }
    println!("## Decision time per scheduling event (wall clock, includes TIM/FM updates)\n");
    markdown(&rows);
    write_csv(&a.out, "decision-time.csv", &rows)?;
    Ok(())
}
