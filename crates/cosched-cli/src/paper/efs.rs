//! `cosched paper efs`: the EFS paper's evaluation (§5) on `i5-2500`.

use super::{markdown, mix, run_one, write_csv};
use clap::Args as ClapArgs;
use cosched_core::efs::{solve_interaction, Newton};
use cosched_core::ids::{CtxId, SECOND};
use cosched_core::policies::PolicyOptions;
use cosched_machine::MachineSpec;
use cosched_sim::engine::RunOutput;
use cosched_sim::{presets, Plan, WorkloadSpec};
use rayon::prelude::*;

#[derive(ClapArgs)]
pub struct Args {
    /// Machine preset or file.
    #[arg(long, default_value = "i5-2500")]
    machine: String,
    /// Also write each table as CSV into this directory.
    #[arg(long)]
    out: Option<String>,
    /// A few benchmarks only (for a quick look).
    #[arg(long)]
    quick: bool,
}

const SPEC: [&str; 28] = [
    "astar",
    "bwaves",
    "bzip2",
    "cactusadm",
    "calculix",
    "dealii",
    "gamess",
    "gcc",
    "gemsfdtd",
    "gobmk",
    "h264ref",
    "hmmer",
    "lbm",
    "leslie3d",
    "libquantum",
    "mcf",
    "milc",
    "namd",
    "omnetpp",
    "perlbench",
    "povray",
    "sjeng",
    "soplex",
    "sphinx3",
    "tonto",
    "wrf",
    "xalancbmk",
    "zeusmp",
];

fn pct(new: f64, old: f64) -> f64 {
    (1.0 - new / old) * 100.0
}

/// `n` instances of the EFS synthetic benchmark (§3.2) at solo bus utilisation `u`.
pub(crate) fn synthetic(u: f64, n: u32, instructions: f64) -> Result<WorkloadSpec, String> {
    let s = format!(
        "name = \"efs-synthetic-{u}\"\ndescription = \"EFS synthetic at solo bus utilisation {u}\"\n[[job]]\nname = \"syn\"\ninstances = {n}\n\
         [[job.phase]]\ninstructions = {instructions:e}\nipc = 0.5\nllc_apki = 60\nsolo_bus_util = {u}\nfootprint_mb = 1024\nmlp = 10\nwb_ratio = 0.0\nrow_locality = 0.9\n"
    );
    presets::workload_from_toml("efs-synthetic", &s).map_err(|e| e.to_string())
}

struct Pair {
    cfs: RunOutput,
    efs: RunOutput,
}

fn pair(m: &MachineSpec, w: &WorkloadSpec, mu: f64) -> Result<Pair, String> {
    let p = Plan::new(w, m, None, 1, &w.name).map_err(|e| e.to_string())?;
    let mut o = PolicyOptions::default();
    o.efs.mu = Some(mu);
    Ok(Pair { cfs: run_one(m, &p, "cfs", &o)?, efs: run_one(m, &p, "efs", &o)? })
}

/// EFS §5.1: the bus rate μ is what a benchmark that only misses achieves:
/// 1..=cores copies of the synthetic benchmark at solo utilisation 0.99, the
/// best delivered rate of memory accesses (lines) per second.
pub(crate) fn measure_mu(m: &MachineSpec, cores: u32) -> Result<f64, String> {
    let mut best: f64 = 0.0;
    for n in 1..=cores {
        let w = synthetic(0.99, n, 2e8)?;
        let p = Plan::new(&w, m, None, 1, "syn").map_err(|e| e.to_string())?;
        let r = run_one(m, &p, "cfs", &PolicyOptions::default())?;
        best = best.max((r.totals.mem_reads + r.totals.mem_writes) / secs(r.makespan));
    }
    Ok(best)
}

/// EFS Fig. 4 at solo utilisation `u`: the throughput of `cores` identical
/// synthetic threads by the EFS model (Eqs. 10-12) and on the simulated machine
/// (sum of solo time over each thread's time).
pub(crate) fn fig4_point(m: &MachineSpec, u: f64, cores: u32) -> Result<(f64, f64), String> {
    let model = solve_interaction(&vec![u; cores as usize], Newton::CONVERGED).map_err(|e| e.to_string())?.throughput;
    let w = synthetic(u, cores, 4e8)?;
    let p = Plan::new(&w, m, None, 1, "syn").map_err(|e| e.to_string())?;
    let solo = secs(run_one(m, &p.solo(0), "cfs", &PolicyOptions::default())?.makespan);
    let all = run_one(m, &p, "cfs", &PolicyOptions::default())?;
    Ok((model, all.job_finish.iter().map(|&f| solo / secs(f)).sum()))
}

/// EFS Table 1's serial execution: the instances of `w` one after another on one core.
pub(crate) fn serial_run(m: &MachineSpec, w: &WorkloadSpec, cores: u32) -> Result<RunOutput, String> {
    let p = Plan::new(w, m, None, 1, "syn").map_err(|e| e.to_string())?;
    let o = PolicyOptions {
        assignment: Some(vec![CtxId(0); cores as usize]),
        quantum: 1000 * SECOND,
        ..PolicyOptions::default()
    };
    run_one(m, &p, "static", &o)
}

pub(crate) fn secs(n: u64) -> f64 {
    n as f64 / SECOND as f64
}

pub fn run(a: Args) -> Result<(), String> {
    let m = cosched_machine::presets::machine(&a.machine).map_err(|e| e.to_string())?;
    let cores = m.n_contexts() as u32;
    println!("# EFS on `{}` (simulated)\n", m.name);
    let mu = measure_mu(&m, cores)?;
    println!(
        "Bus rate measured with the miss-only micro-benchmark (§5.1): mu = {:.1} M accesses/s (preset's sustained maximum {:.1} M/s; the paper measured 150 M/s on its i5-2500).\n",
        mu / 1e6,
        m.bus_lines_per_s() / 1e6
    );

    // Fig. 4: model prediction vs simulator for `cores` identical synthetic threads.
    let utils: Vec<f64> = (1..=9).map(|k| k as f64 / 10.0).chain([0.95]).collect();
    let fig4: Vec<(f64, f64, f64)> = utils
        .par_iter()
        .map(|&u| fig4_point(&m, u, cores).map(|(model, measured)| (u, model, measured)))
        .collect::<Result<_, String>>()?;
    let mut rows = vec![vec![
        "solo bus utilisation".into(),
        "model (Eq. 10-12)".into(),
        "simulator".into(),
        "model error %".into(),
    ]];
    for (u, mo, me) in &fig4 {
        rows.push(vec![
            format!("{u:.2}"),
            format!("{mo:.3}"),
            format!("{me:.3}"),
            format!("{:+.1}", (mo / me - 1.0) * 100.0),
        ]);
    }
    println!("## Fig. 4: throughput of {cores} identical threads\n");
    markdown(&rows);
    write_csv(&a.out, "fig4.csv", &rows)?;

    // Table 1: four synthetic instances at maximum bus use.
    let w = synthetic(0.97, cores, 2.5e9)?;
    let serial = serial_run(&m, &w, cores)?;
    let par = pair(&m, &w, mu)?;
    let mut rows = vec![vec!["schedule".into(), "time s".into(), "CPU energy J".into(), "system energy J".into()]];
    for (name, r) in [("serial (CFS, one core)", &serial), ("parallel CFS", &par.cfs), ("parallel EFS", &par.efs)] {
        rows.push(vec![
            name.into(),
            format!("{:.2}", secs(r.makespan)),
            format!("{:.0}", r.energy.cpu),
            format!("{:.0}", r.energy.system),
        ]);
    }
    rows.push(vec![
        "EFS over parallel CFS".into(),
        format!("{:+.1}% speedup", (secs(par.cfs.makespan) / secs(par.efs.makespan) - 1.0) * 100.0),
        format!("{:.1}% less", pct(par.efs.energy.cpu, par.cfs.energy.cpu)),
        format!("{:.1}% less", pct(par.efs.energy.system, par.cfs.energy.system)),
    ]);
    println!("## Table 1: {cores} synthetic instances at solo bus utilisation 0.97\n");
    println!("Paper: serial 21.84 s / 527 J / 904 J; parallel CFS 27.76 s / 1376 J / 2079 J; parallel EFS 23.48 s / 527 J / 1089 J (19.2% speedup, 61.7% CPU and 47.6% system energy reduction).\n");
    markdown(&rows);
    write_csv(&a.out, "table1.csv", &rows)?;

    // Fig. 8: four instances of each SPEC benchmark.
    let bench: Vec<&str> = if a.quick { vec!["libquantum", "lbm", "mcf", "povray", "gemsfdtd"] } else { SPEC.to_vec() };
    let fig8: Vec<(&str, Pair)> =
        bench.par_iter().map(|&b| Ok((b, pair(&m, &mix(b, &[(b, cores)])?, mu)?))).collect::<Result<_, String>>()?;
    let mut rows = vec![vec![
        "benchmark".into(),
        "system energy saving %".into(),
        "CPU energy saving %".into(),
        "speedup %".into(),
    ]];
    let (mut ss, mut cs, mut sp) = (vec![], vec![], vec![]);
    for (b, r) in &fig8 {
        let (s, c) = (pct(r.efs.energy.system, r.cfs.energy.system), pct(r.efs.energy.cpu, r.cfs.energy.cpu));
        let v = (secs(r.cfs.makespan) / secs(r.efs.makespan) - 1.0) * 100.0;
        ss.push(s);
        cs.push(c);
        sp.push(v);
        rows.push(vec![b.to_string(), format!("{s:+.1}"), format!("{c:+.1}"), format!("{v:+.1}")]);
    }
    let avg = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let affected: Vec<usize> = (0..ss.len()).filter(|&i| ss[i].abs() > 3.0).collect();
    rows.push(vec![
        "average".into(),
        format!("{:+.1}", avg(&ss)),
        format!("{:+.1}", avg(&cs)),
        format!("{:+.1}", avg(&sp)),
    ]);
    if !affected.is_empty() {
        let pick = |v: &[f64]| affected.iter().map(|&i| v[i]).sum::<f64>() / affected.len() as f64;
        rows.push(vec![
            format!("affected ({})", affected.len()),
            format!("{:+.1}", pick(&ss)),
            format!("{:+.1}", pick(&cs)),
            format!("{:+.1}", pick(&sp)),
        ]);
    }
    println!("## Fig. 8: EFS over CFS, {cores} instances of each SPEC CPU2006 benchmark\n");
    println!("Paper: system energy −7.7% on average (up to −32.2%, libquantum, with 3.7% slowdown), CPU energy −12.3%, average slowdown 1.9%; 12 of 25 benchmarks affected, −17.6% system energy and 2.1% slowdown on those.\n");
    markdown(&rows);
    write_csv(&a.out, "fig8.csv", &rows)?;

    // Fig. 9: CFS on 1..cores-1 active cores, and EFS, against CFS on all cores.
    let mut rows = vec![vec!["scheduler".into(), "system energy saving %".into(), "speedup %".into()]];
    for k in 1..cores {
        let mut mk = m.clone();
        mk.topology.sockets = 1;
        mk.topology.llc_per_socket = 1;
        mk.topology.cores_per_llc = k;
        mk.topology.pipes_per_core = 1;
        mk.topology.contexts_per_pipe = 1;
        let res: Vec<(f64, f64)> = fig8
            .par_iter()
            .map(|(b, full)| {
                let w = mix(b, &[(b, cores)])?;
                let p = Plan::new(&w, &mk, None, 1, b).map_err(|e| e.to_string())?;
                let r = run_one(&mk, &p, "cfs", &PolicyOptions::default())?;
                Ok((
                    pct(r.energy.system, full.cfs.energy.system),
                    (secs(full.cfs.makespan) / secs(r.makespan) - 1.0) * 100.0,
                ))
            })
            .collect::<Result<_, String>>()?;
        let e: Vec<f64> = res.iter().map(|x| x.0).collect();
        let s: Vec<f64> = res.iter().map(|x| x.1).collect();
        rows.push(vec![format!("CFS-{k}"), format!("{:+.1}", avg(&e)), format!("{:+.1}", avg(&s))]);
    }
    rows.push(vec!["EFS".into(), format!("{:+.1}", avg(&ss)), format!("{:+.1}", avg(&sp))]);
    println!("## Fig. 9: CFS restricted to fewer cores vs EFS (averages over the Fig. 8 benchmarks, against CFS on all cores)\n");
    println!("Paper: EFS outperforms every static restriction.\n");
    markdown(&rows);
    write_csv(&a.out, "fig9.csv", &rows)?;

    // Fig. 10: mixed workloads, including more programs than cores.
    let mixes: Vec<(&str, Vec<(&str, u32)>)> = vec![
        ("libquantum+lbm+milc+gemsfdtd", vec![("libquantum", 1), ("lbm", 1), ("milc", 1), ("gemsfdtd", 1)]),
        ("mcf+libquantum+soplex+lbm", vec![("mcf", 1), ("libquantum", 1), ("soplex", 1), ("lbm", 1)]),
        ("libquantum+lbm+povray+hmmer", vec![("libquantum", 1), ("lbm", 1), ("povray", 1), ("hmmer", 1)]),
        ("milc+soplex+bwaves+leslie3d", vec![("milc", 1), ("soplex", 1), ("bwaves", 1), ("leslie3d", 1)]),
        (
            "6 programs: libquantum lbm milc gemsfdtd soplex mcf",
            vec![("libquantum", 1), ("lbm", 1), ("milc", 1), ("gemsfdtd", 1), ("soplex", 1), ("mcf", 1)],
        ),
        (
            "8 programs: 2x lbm libquantum milc gemsfdtd",
            vec![("lbm", 2), ("libquantum", 2), ("milc", 2), ("gemsfdtd", 2)],
        ),
    ];
    let fig10: Vec<(&str, Pair)> = mixes
        .par_iter()
        .map(|(name, jobs)| Ok((*name, pair(&m, &mix(name, jobs)?, mu)?)))
        .collect::<Result<_, String>>()?;
    let mut rows = vec![vec![
        "mix".into(),
        "system energy saving %".into(),
        "speedup %".into(),
        "unfairness CFS".into(),
        "unfairness EFS".into(),
    ]];
    let (mut e10, mut s10) = (vec![], vec![]);
    for (name, r) in &fig10 {
        let e = pct(r.efs.energy.system, r.cfs.energy.system);
        let s = (secs(r.cfs.makespan) / secs(r.efs.makespan) - 1.0) * 100.0;
        e10.push(e);
        s10.push(s);
        let unf = |o: &RunOutput| {
            let t: Vec<f64> = o.job_finish.iter().map(|&f| secs(f)).collect();
            t.iter().cloned().fold(0.0, f64::max) / t.iter().cloned().fold(f64::MAX, f64::min)
        };
        rows.push(vec![
            name.to_string(),
            format!("{e:+.1}"),
            format!("{s:+.1}"),
            format!("{:.2}", unf(&r.cfs)),
            format!("{:.2}", unf(&r.efs)),
        ]);
    }
    rows.push(vec![
        "average".into(),
        format!("{:+.1}", avg(&e10)),
        format!("{:+.1}", avg(&s10)),
        String::new(),
        String::new(),
    ]);
    println!("## Fig. 10: mixed workloads\n");
    println!("Paper: 23.7% average system energy saving and 0.3% speedup on mixes with high resource requirements, also with more programs than cores.\n");
    markdown(&rows);
    write_csv(&a.out, "fig10.csv", &rows)?;
    println!("(unfairness here: longest / shortest turnaround of the mix's jobs)");
    Ok(())
}
