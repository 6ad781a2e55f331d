//! `cosched paper perf-fair`: the Perf&Fair paper's evaluation (§6-7) on `xeon-e5645`.

pub use super::perf_fair_mixes::{mixes, BwRange, MAX_SOLO_S, PAPER_BW_RANGE, PAPER_MIXES, PAPER_SOLO_S};
use super::{machine, over_trials, Seeds, Trial};
use crate::error::RunError;
use crate::report::Sink;
use crate::table::{Cell as TCell, Table};
use cosched_core::stats::geomean;
use cosched_machine::MachineSpec;
use cosched_policies::{self as policies, PolicyOptions};
use cosched_sim::engine::{self, SimOptions};
use cosched_sim::experiment::solo_times;

/// Options of the Perf&Fair rerun.
#[derive(Clone, Debug)]
pub struct Options {
    /// Machine preset or file.
    pub machine: String,
    /// Seeds and run-to-run variation.
    pub seeds: Seeds,
    /// Seconds of solo execution each process's target instruction count amounts to (the paper: 100).
    pub solo_seconds: f64,
    /// Number of mixes (the paper: 13).
    pub mixes: usize,
    /// Average memory bandwidth of the lightest and heaviest mix, transactions/µs.
    pub bw_range: BwRange,
    /// Whether the job-length study follows the mixes ([`super::perf_fair_length`]).
    pub job_length: bool,
    /// Include wall-clock timings; off for byte-identical reruns.
    pub timing: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            machine: "xeon-e5645".into(),
            seeds: Seeds::default(),
            solo_seconds: PAPER_SOLO_S,
            mixes: PAPER_MIXES,
            bw_range: PAPER_BW_RANGE,
            job_length: true,
            timing: true,
        }
    }
}

/// The schedulers compared (each run also once more as Perf&Fair estimating once, `ONCE`).
const SCHEDULERS: [&str; 5] = ["cfs", "perf", "fair", "perf-fair", "perf-fair-oracle"];
/// Label of Perf&Fair with its IPC-alone estimate taken once and never renewed (the re-estimation ablation).
const ONCE: &str = "perf-fair (estimate once)";
/// Max slowdown over min slowdown of one run's jobs (Perf&Fair §7, Fig. 1).
pub fn unfairness(finish_s: &[f64], solo_s: &[f64]) -> f64 {
    let slow: Vec<f64> = finish_s.iter().zip(solo_s).map(|(f, s)| f / s).collect();
    cosched_core::metrics::unfairness(&slow)
}

struct Cell {
    makespan: f64,
    unfairness: f64,
    finish: Vec<f64>,
}

/// §7, Fig. 2 ("speedups closer to the Perf scheduler than to the Fair scheduler"): in how many
/// mixes Perf&Fair's mean speedup is nearer Fair's than Perf's. `per_mix` holds each mix's mean
/// speedups (Perf&Fair, Fair, Perf); mixes are numbered from 1.
pub fn nearer_line(per_mix: &[[f64; 3]]) -> String {
    let (mut fair, mut perf, mut level) = (Vec::new(), Vec::new(), Vec::new());
    for (i, [pf, f, p]) in per_mix.iter().enumerate() {
        let (to_fair, to_perf) = ((pf - f).abs(), (pf - p).abs());
        match to_fair.partial_cmp(&to_perf) {
            Some(std::cmp::Ordering::Less) => fair.push(i + 1),
            Some(std::cmp::Ordering::Greater) => perf.push(i + 1),
            _ => level.push(i + 1),
        }
    }
    let list = |v: &[usize]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", ")
        }
    };
    format!(
        "Perf&Fair's mean speedup is nearer Fair's than Perf's in {} of {} mixes (mixes nearer Perf's: {}; equidistant: {}).\n",
        fair.len(),
        per_mix.len(),
        list(&perf),
        list(&level)
    )
}

/// Rerun Perf&Fair §5: Figs. 1-3, the regimes, the paired comparison and the re-estimation ablation.
/// Then the job-length study on the default comparison's mix ([`super::perf_fair_length`]).
pub fn run(a: &Options, out: &mut dyn Sink) -> Result<(), RunError> {
    let m = machine(&a.machine)?;
    run_on(&m, a, out)?;
    if a.job_length {
        super::perf_fair_length::run(&m, &a.seeds, out)?;
    }
    Ok(())
}

/// As [`run`], on machine `m` (`a.machine` unread): `cosched validate` reads
/// its `rerun_cell` points from the Perf&Fair rerun of the point's own machine.
pub fn run_on(m: &MachineSpec, a: &Options, out: &mut dyn Sink) -> Result<(), RunError> {
    let m = m.clone();
    a.seeds.check()?;
    crate::limits::MIXES.check(a.mixes as u64)?;
    if !(a.solo_seconds > 0.0 && a.solo_seconds <= MAX_SOLO_S) {
        return Err(RunError::knob(
            "solo_seconds",
            format!(
                "must be above 0 and at most {MAX_SOLO_S} s (each process's work, simulated under every scheduler and seed), got {}",
                cosched_core::num::shortest(a.solo_seconds)
            ),
        ));
    }
    let mixes = mixes(&m, a.mixes, a.bw_range.checked()?, a.solo_seconds)?;
    let trials = a.seeds.trials();
    let nt = trials.len();
    // Each trial: the machine and the mix as that run finds them (run-to-run
    // variation), their solo times measured there, every scheduler under that
    // seed with 1% counter noise.
    let ids: Vec<usize> = (0..mixes.len()).collect();
    let plans = over_trials(&ids, &trials, |&i, t| {
        let mm = t.machine(&m);
        let p = t.plan(&mixes[i].1, &mm)?;
        let solo = solo_times(&mm, &p, &SimOptions { seed: t.seed, ..SimOptions::default() })?;
        Ok((mm, p, solo))
    })?;
    let runs = SCHEDULERS.len() + 1; // the five schedulers, then Perf&Fair estimating once
    let tasks: Vec<(usize, usize)> = (0..mixes.len()).flat_map(|i| (0..runs).map(move |s| (i, s))).collect();
    let cells = over_trials(&tasks, &trials, |&(i, s), t: &Trial| {
        let k = trials.iter().position(|x| x.seed == t.seed).expect("a trial of this study");
        let (mm, plan, solo) = &plans[i][k];
        let mut o = PolicyOptions { seed: t.seed, ..Default::default() };
        if s == SCHEDULERS.len() {
            o.perf_fair.validity = u32::MAX; // never expires: the first estimate stands
        }
        let sim = SimOptions { seed: t.seed, counter_noise: 0.01, ..SimOptions::default() };
        let out = engine::run(
            mm,
            plan,
            &mut *policies::make(SCHEDULERS.get(s).copied().unwrap_or("perf-fair"), &o)?,
            &sim,
            None,
        )?;
        let finish: Vec<f64> = out.job_finish.iter().map(|&f| f as f64 * 1e-9).collect();
        let unfairness = unfairness(&finish, solo);
        Ok(Cell { makespan: out.makespan as f64 * 1e-9, unfairness, finish })
    })?;
    let cell = |i: usize, s: usize, k: usize| &cells[i * runs + s][k];
    out.heading(format!(
        "# Perf&Fair on `{}` (simulated, {} mixes x 24 processes, {} s solo each; {} seeds with run-to-run variation {} and 1% counter noise, mean ±95% interval: simulation precision)\n",
        m.name,
        mixes.len(),
        a.solo_seconds,
        a.seeds.seeds,
        a.seeds.noise
    ));
    // Fig. 1: unfairness (%), Fig. 2: speedup over Linux (%).
    let mut h1: Vec<String> = vec!["mix".into(), "avg BW_MM trans/µs".into()];
    h1.extend(SCHEDULERS.iter().map(|s| format!("{s} unfairness")));
    let mut h2: Vec<String> = vec!["mix".into(), "avg BW_MM trans/µs".into()];
    h2.extend(SCHEDULERS.iter().skip(1).map(|s| format!("{s} speedup %")));
    let s1: Vec<&str> = h1.iter().map(String::as_str).collect();
    let s2: Vec<&str> = h2.iter().map(String::as_str).collect();
    let (mut fig1, mut fig2) = (Table::new(&s1), Table::new(&s2));
    let unf = |i: usize, s: usize, k: usize| cell(i, s, k).unfairness;
    let spd = |i: usize, s: usize, k: usize| cell(i, 0, k).makespan / cell(i, s, k).makespan;
    for (i, (_, _, bw)) in mixes.iter().enumerate() {
        let mut r1: Vec<TCell> = vec![format!("{}", i + 1).into(), format!("{bw:.1}").into()];
        let mut r2: Vec<TCell> = vec![format!("{}", i + 1).into(), format!("{bw:.1}").into()];
        for s in 0..SCHEDULERS.len() {
            r1.push(TCell::value(&(0..nt).map(|k| unf(i, s, k)).collect::<Vec<_>>(), 3));
            if s > 0 {
                r2.push(TCell::diff(&(0..nt).map(|k| (spd(i, s, k) - 1.0) * 100.0).collect::<Vec<_>>(), 1));
            }
        }
        fig1.push(r1);
        fig2.push(r2);
    }
    let all: Vec<usize> = (0..mixes.len()).collect();
    // Per seed, the geometric mean of f(mix, seed) over `idx`.
    let geo_of = |idx: &[usize], f: &dyn Fn(usize, usize) -> f64| -> Vec<f64> {
        (0..nt).map(|k| geomean(&idx.iter().map(|&i| f(i, k)).collect::<Vec<_>>())).collect()
    };
    let geo = |f: &dyn Fn(usize, usize) -> f64| geo_of(&all, f);
    let pct = |xs: Vec<f64>| xs.iter().map(|x| (x - 1.0) * 100.0).collect::<Vec<_>>();
    let mut g1: Vec<TCell> = vec!["geomean".into(), "".into()];
    g1.extend((0..SCHEDULERS.len()).map(|s| TCell::value(&geo(&|i, k| cell(i, s, k).unfairness), 3)));
    fig1.push(g1);
    let mut g2: Vec<TCell> = vec!["geomean".into(), "".into()];
    g2.extend(
        (1..SCHEDULERS.len())
            .map(|s| TCell::diff(&geo(&|i, k| spd(i, s, k)).iter().map(|x| (x - 1.0) * 100.0).collect::<Vec<_>>(), 1)),
    );
    fig2.push(g2);
    out.heading("## Fig. 1: unfairness (max slowdown / min slowdown), mean ±95% interval over seeds\n".to_string());
    out.line("Paper (geometric means, printed there as percent above 1): Perf 2.49 (149%), Linux 1.33 (33%), Fair 1.135 (13.5%), Perf&Fair 1.185 (18.5%), Oracle 1.035 (3.5%).\n".to_string());
    out.table(fig1, "fig1-unfairness.csv");
    out.heading("## Fig. 2: turnaround-time speedup over Linux (cfs), mean ±95% interval over seeds\n".to_string());
    out.line("Paper (geometric means): Perf&Fair +5.6%, Perf +5.0%, Fair +2.2%; Oracle above Perf&Fair.\n".to_string());
    out.table(fig2, "fig2-speedup.csv");
    let pos = |name: &str| SCHEDULERS.iter().position(|&s| s == name).expect("a compared scheduler");
    let mean_spd = |i: usize, s: usize| (0..nt).map(|k| (spd(i, s, k) - 1.0) * 100.0).sum::<f64>() / nt as f64;
    let per_mix: Vec<[f64; 3]> = (0..mixes.len())
        .map(|i| [mean_spd(i, pos("perf-fair")), mean_spd(i, pos("fair")), mean_spd(i, pos("perf"))])
        .collect();
    out.line(nearer_line(&per_mix));
    // §7's three bandwidth regimes.
    let mut h3: Vec<String> = vec!["regime trans/µs".into(), "mixes".into()];
    h3.extend(SCHEDULERS.iter().skip(1).map(|s| format!("{s} speedup %")));
    let s3: Vec<&str> = h3.iter().map(String::as_str).collect();
    let mut regimes = Table::new(&s3);
    for (name, lo, hi) in [("below 80", 0.0, 80.0), ("80 to 120", 80.0, 120.0), ("above 120", 120.0, f64::MAX)] {
        let idx: Vec<usize> = (0..mixes.len()).filter(|&i| mixes[i].2 >= lo && mixes[i].2 < hi).collect();
        let mut r: Vec<TCell> = vec![name.into(), format!("{}", idx.len()).into()];
        for s in 1..SCHEDULERS.len() {
            r.push(if idx.is_empty() { "".into() } else { TCell::diff(&pct(geo_of(&idx, &|i, k| spd(i, s, k))), 1) });
        }
        regimes.push(r);
    }
    out.heading(
        "## Fig. 2 by bandwidth regime (§7): geometric mean speedup over Linux of the mixes in each\n".to_string(),
    );
    out.line("Paper: below 80 trans/µs Perf and Fair \"reach similar speedup\" and Perf&Fair \"improves the speedups achieved by both\"; between 80 and 120 Perf beats Fair and Perf&Fair reaches \"speedups closely resembling Perf\"; above 120 Perf&Fair \"widely improves the results of both Fair and Linux\" but not Perf's.\n".to_string());
    out.table(regimes, "regimes.csv");
    // Paired comparisons: the §7 claims order schedulers, so
    // each pair is compared seed by seed (same machine, mix and seed), not by
    // the overlap of two unpaired intervals.
    let mut paired = Table::new(&[
        "comparison",
        "speedup difference (points)",
        "seeds to resolve",
        "unfairness difference (ratio)",
        "mixes A ahead / no difference / B ahead (speed)",
    ]);
    let at = |name: &str| SCHEDULERS.iter().position(|&s| s == name).expect("a compared scheduler");
    for (x, y) in [("perf", "fair"), ("perf-fair", "fair"), ("perf-fair", "perf"), ("perf-fair-oracle", "perf-fair")] {
        let (sx, sy) = (at(x), at(y));
        let points = |a: Vec<f64>, b: Vec<f64>| a.iter().zip(&b).map(|(p, q)| (p - q) * 100.0).collect::<Vec<_>>();
        let d_spd = points(geo(&|i, k| spd(i, sx, k)), geo(&|i, k| spd(i, sy, k)));
        let d_unf: Vec<f64> = geo(&|i, k| cell(i, sx, k).unfairness)
            .iter()
            .zip(geo(&|i, k| cell(i, sy, k).unfairness))
            .map(|(p, q)| p - q)
            .collect();
        let (mut ahead, mut level, mut behind) = (0, 0, 0);
        for i in 0..mixes.len() {
            let d: Vec<f64> = (0..nt).map(|k| (spd(i, sx, k) - spd(i, sy, k)) * 100.0).collect();
            let ci = cosched_core::stats::mean_ci(&d);
            match () {
                _ if ci.n >= 2 && ci.lo > 0.0 => ahead += 1,
                _ if ci.n >= 2 && ci.hi < 0.0 => behind += 1,
                _ => level += 1,
            }
        }
        paired.push(vec![
            format!("A = {x}, B = {y}: A − B").into(),
            TCell::diff(&d_spd, 2),
            TCell::resolve(&d_spd),
            TCell::diff(&d_unf, 3),
            format!("{ahead} / {level} / {behind}").into(),
        ]);
    }
    out.heading(String::from(
        "## Paired comparisons: differences of the geometric means over the mixes, seed by seed
",
    ));
    out.line("Speedup over Linux and unfairness of scheduler A minus scheduler B on the same seeds (machine, mixes and variation as each seed draws them); the last column counts the mixes whose own paired speed difference excludes 0 either way.
".to_string());
    out.table(paired, "paired.csv");
    // Ablation: the IPC-alone estimate renewed every `validity` quanta vs taken once.
    let once = SCHEDULERS.len();
    let p_f = SCHEDULERS.iter().position(|&s| s == "perf-fair").expect("perf-fair is compared");
    let mut abl = Table::new(&["variant", "unfairness", "speedup over Linux %"]);
    let unf_of = |s: usize| geo(&|i, k| cell(i, s, k).unfairness);
    let spd_of = |s: usize| pct(geo(&|i, k| spd(i, s, k)));
    for (label, s) in [("perf-fair (re-estimates every 40 quanta)", p_f), (ONCE, once)] {
        abl.push(vec![label.into(), TCell::value(&unf_of(s), 3), TCell::diff(&spd_of(s), 1)]);
    }
    let minus = |a: Vec<f64>, b: Vec<f64>| a.iter().zip(&b).map(|(x, y)| x - y).collect::<Vec<_>>();
    abl.push(vec![
        "estimate once − re-estimate (unfairness: ratio; speed: points)".into(),
        TCell::diff(&minus(unf_of(once), unf_of(p_f)), 3),
        TCell::diff(&minus(spd_of(once), spd_of(p_f)), 1),
    ]);
    out.heading("## Ablation: re-estimation of IPC alone (geometric means over the mixes, same seeds)\n".to_string());
    out.line(format!("`{ONCE}` runs one estimation quantum per process and never renews it (`--pf-validity 4294967295`: never expires); the paper renews every 8 s (40 quanta, §3 and Appendix 1).\n"));
    out.table(abl, "ablation-reestimation.csv");
    // Fig. 3: remaining processes over time for the mix where the schedulers differ most.
    let spread = |i: usize| {
        let ms: Vec<f64> = (0..SCHEDULERS.len()).map(|s| cell(i, s, 0).makespan).collect();
        ms.iter().cloned().fold(0.0, f64::max) / ms.iter().cloned().fold(f64::MAX, f64::min)
    };
    let worst = (0..mixes.len()).max_by(|&x, &y| spread(x).total_cmp(&spread(y))).unwrap_or(0);
    let mut fig3 = vec![vec!["scheduler".to_string(), "first done s".into(), "12 done s".into(), "last done s".into()]];
    let mut curve = vec![vec!["scheduler".to_string(), "time_s".into(), "remaining".into()]];
    for (s, name) in SCHEDULERS.iter().enumerate() {
        let mut f = cell(worst, s, 0).finish.clone();
        f.sort_by(f64::total_cmp);
        fig3.push(vec![
            name.to_string(),
            format!("{:.1}", f[0]),
            format!("{:.1}", f[11]),
            format!("{:.1}", f[f.len() - 1]),
        ]);
        for (k, t) in f.iter().enumerate() {
            curve.push(vec![name.to_string(), format!("{t:.3}"), format!("{}", f.len() - k - 1)]);
        }
    }
    out.heading(format!(
        "## Fig. 3: completion of mix {} (largest spread of turnaround between schedulers; one run: seed 1, not a mean over the seeds)\n",
        worst + 1
    ));
    out.line("Paper (mix 9): Perf finishes its first process earliest and the whole mix first; Linux finishes 12 first but the mix last; Perf&Fair's curve resembles Fair's with a turnaround close to Perf's.\n".to_string());
    out.rows(fig3.clone());
    out.file("fig3-remaining.csv", curve);
    out.heading("## Mixes\n".to_string());
    let mut comp = vec![vec!["mix".to_string(), "avg BW_MM trans/µs".into(), "processes".into()]];
    for (i, (progs, _, bw)) in mixes.iter().enumerate() {
        comp.push(vec![format!("{}", i + 1), format!("{bw:.1}"), progs.join(" ")]);
    }
    out.rows(comp.clone());
    out.file("mixes.csv", comp);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::nearer_line;

    #[test]
    fn nearer_line_counts_each_mix_once() {
        // Mix 1 nearer Fair, mix 2 nearer Perf, mix 3 equidistant.
        let line = nearer_line(&[[3.0, 2.9, 1.0], [3.0, 1.0, 3.2], [2.0, 1.0, 3.0]]);
        assert_eq!(
            line,
            "Perf&Fair's mean speedup is nearer Fair's than Perf's in 1 of 3 mixes (mixes nearer Perf's: 2; equidistant: 3).\n"
        );
    }
}
