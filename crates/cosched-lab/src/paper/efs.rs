//! `cosched paper efs`: the EFS paper's evaluation (§5) on `i5-2500`.

use super::efs_bench::{pct, per_trial_mean, secs, speedup_pct, synthetic, unfairness, Pair};
use super::{machine, mix, over_trials, run_one, Seeds, Trial};
use crate::error::RunError;
use crate::failure::StudyError;
use crate::report::Sink;
use crate::table::{Cell, Table};
use cosched_core::ids::{CtxId, SECOND};
use cosched_machine::MachineSpec;
use cosched_policies::efs::{solve_interaction, Newton};
use cosched_policies::PolicyOptions;
use cosched_sim::engine::RunOutput;
use cosched_sim::{Plan, WorkloadSpec};

/// Options of the EFS rerun.
#[derive(Clone, Debug)]
pub struct Options {
    /// Machine preset or file.
    pub machine: String,
    /// A few benchmarks only (for a quick look).
    pub quick: bool,
    /// Seeds and run-to-run variation.
    pub seeds: Seeds,
    /// Include wall-clock timings (the decision-time table); off for byte-identical reruns.
    pub timing: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options { machine: "i5-2500".into(), quick: false, seeds: Seeds::default(), timing: true }
    }
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

/// One trial of Table 1: the serial run and the parallel CFS/EFS pair.
type Table1Trial = (RunOutput, Pair);
/// Which run of a Table 1 trial a row shows.
type Table1Row<'a> = (&'a str, &'a dyn Fn(&Table1Trial) -> &RunOutput);

fn pair(m: &MachineSpec, w: &WorkloadSpec, mu: f64, t: &Trial) -> Result<Pair, RunError> {
    let mt = t.machine(m);
    let p = t.plan(w, &mt)?;
    let mut o = PolicyOptions::default();
    o.efs.mu = Some(mu);
    Ok(Pair { cfs: t.run(&mt, &p, "cfs", &o)?, efs: t.run(&mt, &p, "efs", &o)? })
}

/// EFS §5.1: the bus rate μ is what a benchmark that only misses achieves:
/// 1..=cores copies of the synthetic benchmark at solo utilisation 0.99, the
/// best delivered rate of memory accesses (lines) per second. Measured once on
/// the exact model, as the paper measured its machine once.
pub fn measure_mu(m: &MachineSpec, cores: u32) -> Result<f64, RunError> {
    let mut best: f64 = 0.0;
    for n in 1..=cores {
        let w = synthetic(0.99, n, 2e8)?;
        let p = Plan::new(&w, m, None, 1, "syn").map_err(RunError::from)?;
        let r = run_one(m, &p, "cfs", &PolicyOptions::default())?;
        best = best.max((r.totals.mem_reads + r.totals.mem_writes) / secs(r.makespan));
    }
    Ok(best)
}

/// EFS Fig. 4 at solo utilisation `u`: the throughput of `cores` identical
/// synthetic threads by the EFS model (Eqs. 10-12) and on the simulated machine
/// as trial `t` finds it (sum of solo time over each thread's time).
pub fn fig4_point(m: &MachineSpec, u: f64, cores: u32, t: &Trial) -> Result<(f64, f64), RunError> {
    let model = solve_interaction(&vec![u; cores as usize], Newton::CONVERGED)
        .map_err(|e| RunError::Study(StudyError::Model(e)))?
        .throughput;
    let w = synthetic(u, cores, 4e8)?;
    let mt = t.machine(m);
    let p = t.plan(&w, &mt)?;
    let all = t.run(&mt, &p, "cfs", &PolicyOptions::default())?;
    let measured = (0..p.jobs.len())
        .map(|j| Ok(secs(t.run(&mt, &p.solo(j), "cfs", &PolicyOptions::default())?.makespan) / secs(all.job_finish[j])))
        .sum::<Result<f64, RunError>>()?;
    Ok((model, measured))
}

/// EFS Table 1's serial execution: the instances of `w` one after another on one core.
pub fn serial_run(m: &MachineSpec, w: &WorkloadSpec, cores: u32, t: &Trial) -> Result<RunOutput, RunError> {
    let mt = t.machine(m);
    let p = t.plan(w, &mt)?;
    let o = PolicyOptions {
        assignment: Some(vec![CtxId(0); cores as usize]),
        quantum: 1000 * SECOND,
        ..PolicyOptions::default()
    };
    t.run(&mt, &p, "static", &o)
}

/// Rerun EFS §5: Fig. 4, Figs. 6-7, Table 1, Figs. 8-10, the ablations and (with timing) the decision time.
pub fn run(a: &Options, out: &mut dyn Sink) -> Result<(), RunError> {
    run_on(&machine(&a.machine)?, a, out)
}

/// As [`run`], on machine `m` (`a.machine` unread): `cosched validate` reads
/// its `rerun_cell` points from the EFS rerun of the point's own machine.
pub fn run_on(m: &MachineSpec, a: &Options, out: &mut dyn Sink) -> Result<(), RunError> {
    a.seeds.check()?;
    let m = m.clone();
    let cores = m.n_contexts() as u32;
    let trials = a.seeds.trials();
    out.heading(a.seeds.title("EFS", &m.name));
    let mu = measure_mu(&m, cores)?;
    out.line(format!(
        "Bus rate measured with the miss-only micro-benchmark (§5.1) on the exact model: mu = {:.1} M accesses/s (preset's sustained maximum {:.1} M/s; the paper measured 150 M/s on its i5-2500).\n",
        mu / 1e6,
        m.bus_lines_per_s() / 1e6
    ));

    // Fig. 4: model prediction vs simulator for `cores` identical synthetic threads.
    let utils: Vec<f64> = (1..=9).map(|k| k as f64 / 10.0).chain([0.95]).collect();
    let fig4 = over_trials(&utils, &trials, |&u, t| fig4_point(&m, u, cores, t))?;
    let mut t4 = Table::new(&["solo bus utilisation", "model (Eq. 10-12)", "simulator", "model error %"]);
    for (u, r) in utils.iter().zip(&fig4) {
        let meas: Vec<f64> = r.iter().map(|x| x.1).collect();
        let err: Vec<f64> = r.iter().map(|x| (x.0 / x.1 - 1.0) * 100.0).collect();
        t4.push(vec![
            format!("{u:.2}").into(),
            format!("{:.3}", r[0].0).into(),
            Cell::value(&meas, 3),
            Cell::diff(&err, 1),
        ]);
    }
    out.heading(format!("## Fig. 4: throughput of {cores} identical threads\n"));
    out.table(t4, "fig4.csv");
    super::efs_figs::fig6(&m, mu, &trials, out)?;
    super::efs_figs::fig7(&m, mu, &trials, out)?;

    // Table 1: four synthetic instances at maximum bus use.
    let w = synthetic(0.97, cores, 2.5e9)?;
    let t1 = over_trials(&[()], &trials, |_, t| Ok((serial_run(&m, &w, cores, t)?, pair(&m, &w, mu, t)?)))?;
    let t1 = &t1[0];
    let mut tab = Table::new(&["schedule", "time s", "CPU energy J", "system energy J"]);
    let col = |f: &dyn Fn(&Table1Trial) -> f64, d| Cell::value(&t1.iter().map(f).collect::<Vec<_>>(), d);
    let rows: [Table1Row; 3] =
        [("serial (CFS on one core)", &|x| &x.0), ("parallel CFS", &|x| &x.1.cfs), ("parallel EFS", &|x| &x.1.efs)];
    for (name, r) in rows {
        tab.push(vec![
            name.into(),
            col(&|x| secs(r(x).makespan), 2),
            col(&|x| r(x).energy.cpu, 0),
            col(&|x| r(x).energy.system, 0),
        ]);
    }
    let d = |f: &dyn Fn(&Table1Trial) -> f64| Cell::diff(&t1.iter().map(f).collect::<Vec<_>>(), 1);
    tab.push(vec![
        "EFS over parallel CFS: speedup % / CPU and system energy saving %".into(),
        d(&|x| speedup_pct(&x.1.cfs, &x.1.efs)),
        d(&|x| pct(x.1.efs.energy.cpu, x.1.cfs.energy.cpu)),
        d(&|x| pct(x.1.efs.energy.system, x.1.cfs.energy.system)),
    ]);
    tab.push(vec![
        "serial over parallel CFS: speedup %".into(),
        d(&|x| speedup_pct(&x.1.cfs, &x.0)),
        "".into(),
        "".into(),
    ]);
    out.heading(format!("## Table 1: {cores} synthetic instances at solo bus utilisation 0.97\n"));
    out.line("Paper: serial 21.84 s / 527 J / 904 J; parallel CFS 27.76 s / 1376 J / 2079 J; parallel EFS 23.48 s / 527 J / 1089 J (19.2% speedup, 61.7% CPU and 47.6% system energy reduction).\n".to_string());
    out.table(tab, "table1.csv");
    if m.memory.dram.is_some() {
        out.heading(
            "## Table 1 at the DRAM alone: one versus several read streams on the cycle-level controller\n".to_string(),
        );
        out.line(format!(
            "The machine's `[memory.dram]` (device timings, ranks and banks) on an FR-FCFS open-page controller (`cosched dram`); each stream reads {} lines with {} outstanding; parallel / serial is the time of the streams together over the sum of their times alone (1: they cost each other nothing). Paper: Table 1's 4 instances take 27.76 / 21.84 = 1.271 times as long together.\n",
            cosched_sim::dram::table::LINES,
            cosched_sim::dram::table::MLP
        ));
        out.table(crate::dram_check::check(&m)?, "table1-dram.csv");
    }

    // Fig. 8: four instances of each SPEC benchmark.
    let bench: Vec<&str> = if a.quick { vec!["libquantum", "lbm", "mcf", "povray", "gemsfdtd"] } else { SPEC.to_vec() };
    let fig8 = over_trials(&bench, &trials, |&b, t| pair(&m, &mix(b, &[(b, cores)])?, mu, t))?;
    let sys = |r: &Pair| pct(r.efs.energy.system, r.cfs.energy.system);
    let cpu = |r: &Pair| pct(r.efs.energy.cpu, r.cfs.energy.cpu);
    let spd = |r: &Pair| speedup_pct(&r.cfs, &r.efs);
    let mut t8 = Table::new(&["benchmark", "system energy saving %", "CPU energy saving %", "speedup %"]);
    let cells = |rs: &[f64], cs: &[f64], ps: &[f64]| vec![Cell::diff(rs, 1), Cell::diff(cs, 1), Cell::diff(ps, 1)];
    for (b, r) in bench.iter().zip(&fig8) {
        let v = |f: &dyn Fn(&Pair) -> f64| r.iter().map(f).collect::<Vec<f64>>();
        let mut row = vec![Cell::from(*b)];
        row.extend(cells(&v(&sys), &v(&cpu), &v(&spd)));
        t8.push(row);
    }
    let all: Vec<usize> = (0..bench.len()).collect();
    let affected: Vec<usize> = all
        .iter()
        .copied()
        .filter(|&i| (fig8[i].iter().map(sys).sum::<f64>() / trials.len() as f64).abs() > 3.0)
        .collect();
    let avg_ss = per_trial_mean(&fig8, &all, sys);
    let avg_sp = per_trial_mean(&fig8, &all, spd);
    let mut row = vec![Cell::from("average")];
    row.extend(cells(&avg_ss, &per_trial_mean(&fig8, &all, cpu), &avg_sp));
    t8.push(row);
    if !affected.is_empty() {
        let mut row = vec![Cell::from(format!("affected ({}: mean system saving beyond ±3%)", affected.len()))];
        row.extend(cells(
            &per_trial_mean(&fig8, &affected, sys),
            &per_trial_mean(&fig8, &affected, cpu),
            &per_trial_mean(&fig8, &affected, spd),
        ));
        t8.push(row);
    }
    out.heading(format!("## Fig. 8: EFS over CFS, {cores} instances of each SPEC CPU2006 benchmark\n"));
    out.line("Paper: system energy −7.7% on average (up to −32.2%, libquantum, with 3.7% slowdown), CPU energy −12.3%, average slowdown 1.9%; 12 of 25 benchmarks affected, −17.6% system energy and 2.1% slowdown on those.\n".to_string());
    out.table(t8, "fig8.csv");

    // Fig. 9: CFS on 1..cores-1 active cores, and EFS, against CFS on all cores.
    let mut t9 = Table::new(&["scheduler", "system energy saving %", "speedup %"]);
    for k in 1..cores {
        let mut mk = m.clone();
        mk.topology.sockets = 1;
        mk.topology.llc_per_socket = 1;
        mk.topology.cores_per_llc = k;
        mk.topology.pipes_per_core = 1;
        mk.topology.contexts_per_pipe = 1;
        let res = over_trials(&all, &trials, |&i, t| {
            let b = bench[i];
            let k = trials.iter().position(|x| x.seed == t.seed).expect("one of this run's trials");
            let full = &fig8[i][k];
            let mt = t.machine(&mk);
            let r = t.run(&mt, &t.plan(&mix(b, &[(b, cores)])?, &mt)?, "cfs", &PolicyOptions::default())?;
            Ok((pct(r.energy.system, full.cfs.energy.system), speedup_pct(&full.cfs, &r)))
        })?;
        t9.push(vec![
            format!("CFS-{k}").into(),
            Cell::diff(&per_trial_mean(&res, &all, |x| x.0), 1),
            Cell::diff(&per_trial_mean(&res, &all, |x| x.1), 1),
        ]);
    }
    t9.push(vec!["EFS".into(), Cell::diff(&avg_ss, 1), Cell::diff(&avg_sp, 1)]);
    out.heading("## Fig. 9: CFS restricted to fewer cores vs EFS (averages over the Fig. 8 benchmarks, against CFS on all cores)\n".to_string());
    out.line("Paper: EFS outperforms every static restriction.\n".to_string());
    out.table(t9, "fig9.csv");

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
    let fig10 = over_trials(&mixes, &trials, |(name, jobs), t| pair(&m, &mix(name, jobs)?, mu, t))?;
    let mut t10 = Table::new(&["mix", "system energy saving %", "speedup %", "unfairness CFS", "unfairness EFS"]);
    for ((name, _), r) in mixes.iter().zip(&fig10) {
        let v = |f: &dyn Fn(&Pair) -> f64| r.iter().map(f).collect::<Vec<f64>>();
        t10.push(vec![
            (*name).into(),
            Cell::diff(&v(&sys), 1),
            Cell::diff(&v(&spd), 1),
            Cell::value(&v(&|p| unfairness(&p.cfs)), 2),
            Cell::value(&v(&|p| unfairness(&p.efs)), 2),
        ]);
    }
    let every: Vec<usize> = (0..mixes.len()).collect();
    t10.push(vec![
        "average".into(),
        Cell::diff(&per_trial_mean(&fig10, &every, sys), 1),
        Cell::diff(&per_trial_mean(&fig10, &every, spd), 1),
        "".into(),
        "".into(),
    ]);
    out.heading("## Fig. 10: mixed workloads\n".to_string());
    out.line("Paper: 23.7% average system energy saving and 0.3% speedup on mixes with high resource requirements, also with more programs than cores.\n".to_string());
    out.table(t10, "fig10.csv");
    out.line("(unfairness here: longest / shortest turnaround of the mix's jobs)\n".to_string());

    // Ablations: one item per (workload, trial), Fig. 8's benchmarks first, then Fig. 10's mixes.
    let nt = trials.len();
    let mut runs = vec![];
    let mut unaffected = vec![];
    let mut fig8_workloads = vec![];
    for (i, b) in bench.iter().enumerate() {
        let w = mix(b, &[(b, cores)])?;
        let quiet = (fig8[i].iter().map(sys).sum::<f64>() / nt as f64).abs() <= 3.0;
        runs.extend(fig8[i].iter().zip(&trials).map(|(p, t)| (w.clone(), *t, p)));
        unaffected.extend(std::iter::repeat_n(quiet, nt));
        fig8_workloads.push(w);
    }
    let n8 = runs.len();
    for (i, (name, jobs)) in mixes.iter().enumerate() {
        let w = mix(name, jobs)?;
        runs.extend(fig10[i].iter().zip(&trials).map(|(p, t)| (w.clone(), *t, p)));
        unaffected.extend(std::iter::repeat_n(false, nt));
    }
    super::efs_ablation::run(&m, mu, &super::efs_ablation::Items { runs, n8, unaffected }, nt, out)?;
    if a.timing {
        super::efs_ablation::decision_times(&m, mu, &fig8_workloads, &trials[0], out)?;
    }
    Ok(())
}
