//! The simulator's check against reality (`cosched calibrate --check MIX`):
//! the same mix of `cosched-bench` jobs runs for real (solo runs, then
//! together under `linux`) and simulated on the calibrated preset (solo,
//! then together under the model of the host kernel's fair class: `eevdf`
//! from Linux 6.6 on, `cfs` before, or `--model`), and each job's slowdown
//! is compared.
//!
//! Each `cosched-bench` job becomes one simulated phase:
//! - instructions = operations × [`INSTR_PER_OP`] (an assumption: only the
//!   ratio of memory accesses to instructions matters, and it cancels in
//!   the solo time, which is fitted exactly through the phase's solo IPC);
//! - solo IPC from the measured solo turnaround at the preset's clock;
//! - pointer chase over W MiB: every operation one LLC access (W above L2),
//!   one miss outstanding (MLP 1), `access = "random"`: the miss ratio at
//!   the LLC share it holds comes from the machine's measured latency sweep
//!   (`cache.latency_curve`, issue #31 item 2), or `1 − share/W` without one;
//! - stream: one LLC access per 64-byte line, MLP 10, misses at every size;
//! - compute: no memory traffic.
//!
//! Jobs that are not `cosched-bench` with `--mops` (fixed work) have no
//! model and are listed as skipped.

use cosched_core::policies::PolicyOptions;
use cosched_linux::mix::{belongs, Mix};
use cosched_machine::MachineSpec;
use cosched_sim::engine::SimOptions;
use cosched_sim::experiment::{simulate, solo_times, RunConfig as SimRun};
use cosched_sim::{presets, Plan};
use serde::Serialize;

/// Instructions per `cosched-bench` operation assumed by the model.
pub const INSTR_PER_OP: f64 = 4.0;

/// One job's prediction.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Prediction {
    /// Mix job.
    pub job: String,
    /// Measured slowdown (mean over its instances).
    pub real: f64,
    /// Simulated slowdown (mean over its instances).
    pub simulated: f64,
    /// simulated / real − 1.
    pub error: f64,
}

/// What a `cosched-bench` command does.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchJob {
    /// pointer-chase, stream or compute.
    pub kind: String,
    /// Working set, MiB.
    pub wss_mb: f64,
    /// Million operations.
    pub mops: f64,
}

/// Parse a `cosched-bench` command line with fixed work (`--mops`).
pub fn parse_bench(cmd: &[String]) -> Option<BenchJob> {
    if !cmd.first()?.ends_with("cosched-bench") {
        return None;
    }
    let kind = cmd.get(1)?.clone();
    let mut b = BenchJob { kind, wss_mb: 16.0, mops: 0.0 };
    let mut it = cmd[2..].iter();
    while let (Some(f), Some(v)) = (it.next(), it.next()) {
        let v: f64 = v.parse().ok()?;
        match f.as_str() {
            "--wss-mb" | "--mb" => b.wss_mb = v,
            "--mops" => b.mops = v,
            "--gbs" if v > 0.0 => return None, // paced: time-bound by design
            _ => {}
        }
    }
    (b.mops > 0.0 && ["pointer-chase", "stream", "compute"].contains(&b.kind.as_str())).then_some(b)
}

/// The workload TOML of a mix's modelled jobs, given each job's measured solo turnaround.
pub fn workload_toml(mix: &Mix, solo_s: &[f64], m: &MachineSpec) -> (String, Vec<String>) {
    let mut out = String::from(
        "name = \"calibration-check\"\ndescription = \"cosched-bench jobs modelled from their measured solo runs\"\n",
    );
    let mut skipped = vec![];
    for (j, job) in mix.jobs.iter().enumerate() {
        let Some(b) = parse_bench(&job.cmd) else {
            skipped.push(job.name.clone());
            continue;
        };
        let instr = b.mops * 1e6 * INSTR_PER_OP;
        let ipc = instr / (solo_s[j] * m.freq_ghz * 1e9);
        let c = m.cache.llc_mb;
        let phase = match b.kind.as_str() {
            "pointer-chase" => chase_phase(b.wss_mb),
            "stream" => {
                let apki = 1000.0 / INSTR_PER_OP / 8.0;
                format!(
                    "llc_apki = {apki}\nllc_mpki = {apki}\nmrc_ref_mb = {c}\nfootprint_mb = {}\nmlp = 10\nl1_apki = {}\n",
                    b.wss_mb.max(c * 4.0),
                    apki * 8.0
                )
            }
            _ => format!("llc_apki = 0.01\nllc_mpki = 0.001\nmrc_ref_mb = {c}\nfootprint_mb = 0.01\nl1_apki = 100\n"),
        };
        out.push_str(&format!(
            "\n[[job]]\nname = \"{}\"\ninstances = {}\n[[job.phase]]\ninstructions = {instr}\nipc = {ipc}\n{phase}",
            job.name, job.count
        ));
    }
    (out, skipped)
}

/// The memory behaviour of a `cosched-bench` pointer chase over `wss_mb` MiB
/// (phase fields without `instructions` and `ipc`; see the module doc): one
/// LLC access per operation, random over the working set.
pub fn chase_phase(wss_mb: f64) -> String {
    let apki = 1000.0 / INSTR_PER_OP;
    format!("llc_apki = {apki}\naccess = \"random\"\nfootprint_mb = {wss_mb}\nmlp = 1\nl1_apki = {apki}\n")
}

/// Mean slowdown per mix job, by name.
pub type JobSlowdowns = Vec<(String, f64)>;

/// Simulated slowdown per modelled mix job under `model` (`cfs` or `eevdf`; mean over instances).
pub fn simulate_mix(
    mix: &Mix,
    solo_s: &[f64],
    m: &MachineSpec,
    model: &str,
) -> Result<(JobSlowdowns, Vec<String>), String> {
    let (text, skipped) = workload_toml(mix, solo_s, m);
    let w = presets::workload_from_toml("calibration-check", &text).map_err(|e| e.to_string())?;
    let plan = Plan::new(&w, m, None, 1, "calibration-check").map_err(|e| e.to_string())?;
    let opts = SimOptions { timing: false, ..SimOptions::default() };
    let solo = solo_times(m, &plan, &opts)?;
    let cfg = SimRun { policy: model.into(), policy_opts: PolicyOptions::default(), sim: opts, threads: None };
    let r = simulate(m, &plan, &cfg, &solo, None)?;
    let mut out = vec![];
    for job in &mix.jobs {
        let s: Vec<f64> = r.jobs.iter().filter(|j| belongs(&j.name, &job.name)).filter_map(|j| j.slowdown).collect();
        if !s.is_empty() {
            out.push((job.name.clone(), s.iter().sum::<f64>() / s.len() as f64));
        }
    }
    Ok((out, skipped))
}

/// Pair real and simulated slowdowns by job.
pub fn compare(real: &[(String, f64)], sim: &[(String, f64)]) -> Vec<Prediction> {
    sim.iter()
        .filter_map(|(name, s)| {
            let r = real.iter().find(|(n, _)| n == name)?.1;
            Some(Prediction { job: name.clone(), real: r, simulated: *s, error: s / r - 1.0 })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn bench_commands_parse_and_others_are_skipped() {
        assert_eq!(
            parse_bench(&s(&["cosched-bench", "pointer-chase", "--wss-mb", "4", "--mops", "8"])),
            Some(BenchJob { kind: "pointer-chase".into(), wss_mb: 4.0, mops: 8.0 })
        );
        assert_eq!(parse_bench(&s(&["cosched-bench", "compute", "--seconds", "2"])), None);
        assert_eq!(parse_bench(&s(&["cosched-bench", "stream", "--gbs", "2", "--mops", "5"])), None);
        assert_eq!(parse_bench(&s(&["xz", "-9"])), None);
    }

    #[test]
    fn modelled_solo_matches_the_measured_solo() {
        let m = cosched_machine::presets::machine("i5-2500").unwrap();
        let mix = Mix::parse(
            "m.toml",
            "[[job]]\nname = \"c\"\ncmd = [\"cosched-bench\", \"pointer-chase\", \"--wss-mb\", \"16\", \"--mops\", \"2\"]\n\
             [[job]]\nname = \"k\"\ncmd = [\"cosched-bench\", \"compute\", \"--mops\", \"100\"]\n\
             [[job]]\nname = \"x\"\ncmd = [\"xz\"]\n",
        )
        .unwrap();
        let (text, skipped) = workload_toml(&mix, &[0.5, 0.25, 1.0], &m);
        assert_eq!(skipped, vec!["x".to_string()]);
        let w = presets::workload_from_toml("t", &text).unwrap();
        let plan = Plan::new(&w, &m, None, 1, "t").unwrap();
        let solo = solo_times(&m, &plan, &SimOptions { timing: false, ..SimOptions::default() }).unwrap();
        assert!((solo[0] - 0.5).abs() < 0.02 && (solo[1] - 0.25).abs() < 0.01, "{solo:?}");
        let p = compare(&[("c".into(), 2.0)], &[("c".into(), 2.5), ("k".into(), 1.0)]);
        assert_eq!(p, vec![Prediction { job: "c".into(), real: 2.0, simulated: 2.5, error: 0.25 }]);
    }
}
