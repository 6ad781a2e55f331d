//! The simulated model of a real mix: each job of
//! a mix file becomes a simulated job, from
//! - the **characterised program** of the same name (`cosched characterise`
//!   output, `--programs FILE`): its phases as fitted, or else
//! - the **`cosched-bench` model** of its command line (fixed work, see
//!   [`parse_bench`]), or else
//! - nothing: the job is listed as skipped.
//!
//! Each job's instructions are then scaled so that its simulated solo time is
//! the solo time measured for it in this session: a solo run, never a co-run,
//! so nothing is fitted to the slowdowns the model predicts. The model runs
//! under any policy ([`simulate_policy`]) and gives SLITS the slowdown of
//! every job beside every other ([`predicted_profile`], SLITS §3.2's TIM at
//! job level, predicted instead of probed).
//!
//! `cosched-bench` jobs become one phase each:
//! - instructions = operations × [`INSTR_PER_OP`] (an assumption: only the
//!   ratio of memory accesses to instructions matters, and it cancels in
//!   the solo time, which is fitted exactly through the phase's solo IPC);
//! - pointer chase over W MiB: every operation one LLC access (W above L2),
//!   one miss outstanding (MLP 1), `access = "random"`: the miss ratio at
//!   the LLC share it holds comes from the machine's measured latency sweep
//!   (`cache.latency_curve`), or `1 − share/W` without one;
//! - stream: one LLC access per 64-byte line, MLP 10, misses at every size;
//! - compute: no memory traffic.

use crate::error::RunError;
pub use crate::programs::Programs;
use cosched_core::topology::corun_pair;
use cosched_machine::mix::{belongs, Mix};
use cosched_machine::ConfigError;
use cosched_machine::MachineSpec;
use cosched_policies::slits::{PairObservation, PairProfile};
use cosched_policies::PolicyOptions;
use cosched_sim::engine::SimOptions;
use cosched_sim::experiment::{simulate, solo_times, RunConfig as SimRun};
use cosched_sim::spec::workload::{JobSpec, WorkloadSpec};
use cosched_sim::{presets, Plan};

/// Instructions per `cosched-bench` operation assumed by the model.
pub const INSTR_PER_OP: f64 = 4.0;

/// Work of a co-runner in a predicted pair, as a multiple of the job's own
/// solo time: long enough to cover the job's whole run (a probe's co-runner
/// is restarted until the job ends).
const CORUNNER_WORK: f64 = 10.0;

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

/// The memory behaviour of a `cosched-bench` pointer chase over `wss_mb` MiB
/// (phase fields without `instructions` and `ipc`; see the module doc): one
/// LLC access per operation, random over the working set.
pub fn chase_phase(wss_mb: f64) -> String {
    let apki = 1000.0 / INSTR_PER_OP;
    format!("llc_apki = {apki}\naccess = \"random\"\nfootprint_mb = {wss_mb}\nmlp = 1\nl1_apki = {apki}\n")
}

/// The phase of a `cosched-bench` job of `b` that ran `solo_s` seconds alone on `m`.
fn bench_phase(b: &BenchJob, solo_s: f64, m: &MachineSpec) -> String {
    let instr = b.mops * 1e6 * INSTR_PER_OP;
    let ipc = instr / (solo_s * m.freq_ghz * 1e9);
    let c = m.cache.llc_mb;
    let memory = match b.kind.as_str() {
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
    format!("instructions = {instr}\nipc = {ipc}\n{memory}")
}

/// Where a mix job's model comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// A characterised program of the same name.
    Characterised,
    /// The `cosched-bench` model of its command line.
    Bench,
}

/// A mix as the simulator runs it.
pub struct MixModel {
    /// The simulated workload: one job per modelled mix job, same name and instance count.
    pub workload: WorkloadSpec,
    /// Each modelled mix job (by name) and where its model came from.
    pub source: Vec<(String, Source)>,
    /// Mix jobs with no model.
    pub skipped: Vec<String>,
}

impl MixModel {
    /// Whether every job of the mix is modelled.
    pub fn complete(&self) -> bool {
        self.skipped.is_empty()
    }

    /// Why the characterisations of its jobs are not to be trusted, one per such job (the
    /// programs file's `untrusted`, written by `cosched characterise`): every prediction built on
    /// them says so.
    pub fn untrusted(&self) -> Vec<String> {
        self.workload.jobs.iter().filter_map(|j| j.untrusted.clone()).collect()
    }
}

/// Scale every phase's instructions (the job's own and its classes').
fn scale_instructions(job: &mut JobSpec, k: f64) {
    for p in job.phases.iter_mut().chain(job.classes.iter_mut().flat_map(|c| c.phases.iter_mut())) {
        p.instructions *= k;
    }
}

/// The simulated solo time of one instance of `job` on `m`, s.
fn simulated_solo(job: &JobSpec, m: &MachineSpec) -> Result<f64, RunError> {
    let w = WorkloadSpec {
        name: "solo".into(),
        description: String::new(),
        sources: vec![],
        jobs: vec![JobSpec { instances: 1, ..job.clone() }],
    };
    let plan = Plan::new(&w, m, None, 1, "solo").map_err(RunError::from)?;
    Ok(solo_times(m, &plan, &SimOptions::default()).map_err(RunError::from)?[0])
}

/// The jobs of `mix` no model can be built for: neither in `programs` nor a
/// `cosched-bench` kernel (whose model needs only its solo time). Known from
/// the files alone, so a check that needs every job modelled refuses before
/// it runs anything.
pub fn unmodelled_jobs(mix: &Mix, programs: Option<&Programs>) -> Vec<String> {
    mix.jobs
        .iter()
        .filter(|mj| programs.and_then(|p| p.find(&mj.name)).is_none() && parse_bench(&mj.cmd).is_none())
        .map(|mj| mj.name.clone())
        .collect()
}

/// The model of `mix` on `m`, each job's solo time set to `solo_s` (measured,
/// one per mix job; `None`: a characterised program keeps the solo time it
/// was characterised with, and a `cosched-bench` job, whose speed only a
/// solo run gives, is skipped).
pub fn model_mix(
    mix: &Mix,
    solo_s: &[Option<f64>],
    m: &MachineSpec,
    programs: Option<&Programs>,
) -> Result<MixModel, RunError> {
    let mut jobs = vec![];
    let mut source = vec![];
    let mut skipped = vec![];
    for (j, mj) in mix.jobs.iter().enumerate() {
        let (mut job, from) = match (programs.and_then(|p| p.find(&mj.name)), parse_bench(&mj.cmd), solo_s[j]) {
            (Some(p), _, _) => (p.clone(), Source::Characterised),
            (None, Some(b), Some(solo)) => {
                let text = format!("name = \"b\"\n[[job]]\nname = \"b\"\n[[job.phase]]\n{}", bench_phase(&b, solo, m));
                let w = presets::workload_from_toml("cosched-bench model", &text).map_err(RunError::from)?;
                (w.jobs[0].clone(), Source::Bench)
            }
            _ => {
                skipped.push(mj.name.clone());
                continue;
            }
        };
        job.name = mj.name.clone();
        job.instances = mj.count;
        job.arrival_s = 0.0;
        let sim = simulated_solo(&job, m).map_err(|e| {
            RunError::Config(ConfigError::new(
                programs.map_or("mix model", |p| p.file.as_str()),
                format!("job `{}`", mj.name),
                e.to_string(),
            ))
        })?;
        if let Some(solo) = solo_s[j] {
            scale_instructions(&mut job, solo / sim);
        }
        jobs.push(job);
        source.push((mj.name.clone(), from));
    }
    let workload = WorkloadSpec {
        name: mix.name.clone().unwrap_or_else(|| "mix".into()),
        description: "a real mix as the simulator runs it (docs/runtime.md)".into(),
        sources: vec![],
        jobs,
    };
    Ok(MixModel { workload, source, skipped })
}

/// What the simulator predicts of a mix under one policy.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Predicted {
    /// Mean slowdown of each modelled mix job (over its instances and the seeds), by name.
    pub slowdown: Vec<(String, f64)>,
    /// Makespan, s (mean over the seeds).
    pub makespan_s: f64,
    /// Each modelled mix job's time-sharing figures (over its instances and the seeds), by name, for
    /// the jobs that ran.
    pub sched: Vec<(String, crate::job_sched::JobSched)>,
}

/// Simulate `model` under `policy` (a simulator policy name; the caller maps
/// `linux` to `cfs` or `eevdf`) with `opts`, once per policy seed in `seeds`
/// (the measured rounds' seeds, `crate::rounds::round_seed`, so that a
/// seeded policy such as `random` is predicted over the very seeds it ran
/// with); the prediction is the mean over the seeds.
pub fn simulate_policy(
    m: &MachineSpec,
    model: &MixModel,
    policy: &str,
    opts: &PolicyOptions,
    seeds: &[u64],
) -> Result<Predicted, RunError> {
    if seeds.is_empty() {
        return Err(RunError::option("simulate_policy: no seeds"));
    }
    let n = seeds.len() as f64;
    let w = &model.workload;
    let plan = Plan::new(w, m, None, 1, &w.name).map_err(RunError::from)?;
    let sim = SimOptions::default();
    let solo = solo_times(m, &plan, &sim).map_err(RunError::from)?;
    let mut slow = vec![0.0; model.source.len()];
    let mut makespan = 0.0;
    let mut sched = vec![vec![]; model.source.len()];
    for &seed in seeds {
        let policy_opts = PolicyOptions { seed, ..opts.clone() };
        let cfg = SimRun { policy: policy.into(), policy_opts, sim: sim.clone(), threads: None };
        let r = simulate(m, &plan, &cfg, &solo, None).map_err(RunError::from)?;
        makespan += r.metrics.run.makespan_s / n;
        for (i, (name, _)) in model.source.iter().enumerate() {
            let s: Vec<f64> = r.jobs.iter().filter(|j| belongs(&j.name, name)).filter_map(|j| j.slowdown).collect();
            slow[i] += s.iter().sum::<f64>() / s.len().max(1) as f64 / n;
            sched[i].extend(crate::job_sched::JobSched::in_report(&r, name));
        }
    }
    let slowdown = model.source.iter().map(|(n, _)| n.clone()).zip(slow).collect();
    let sched = model
        .source
        .iter()
        .zip(&sched)
        .filter_map(|((n, _), s)| Some((n.clone(), crate::job_sched::JobSched::mean(s)?)))
        .collect();
    Ok(Predicted { slowdown, makespan_s: makespan, sched })
}

/// The slowdown of every modelled job beside every other (self-pairs
/// included: beside a second instance of itself), each pair simulated on the
/// machine's first two cores sharing an LLC, the co-runner working throughout:
/// the job-level TIM `cosched probe` measures, predicted.
pub fn predicted_profile(m: &MachineSpec, model: &MixModel) -> Result<PairProfile, RunError> {
    let (c0, c1) = corun_pair(&m.topology())
        .ok_or_else(|| RunError::Config(ConfigError::new(&m.name, "topology", "no two cores share an LLC")))?;
    let jobs = &model.workload.jobs;
    let one = |j: &JobSpec| JobSpec { instances: 1, ..j.clone() };
    let solo: Vec<f64> = jobs.iter().map(|j| simulated_solo(&one(j), m)).collect::<Result<_, _>>()?;
    let mut observed = vec![];
    for (a, ja) in jobs.iter().enumerate() {
        for (b, jb) in jobs.iter().enumerate() {
            let mut co = one(jb);
            co.name = format!("{}~", jb.name);
            scale_instructions(&mut co, CORUNNER_WORK * solo[a] / solo[b]);
            let w = WorkloadSpec {
                name: "pair".into(),
                description: String::new(),
                sources: vec![],
                jobs: vec![one(ja), co],
            };
            let plan = Plan::new(&w, m, None, 1, "pair").map_err(RunError::from)?;
            let opts = PolicyOptions { assignment: Some(vec![c0, c1]), quantum: 1_000_000_000, ..Default::default() };
            let mut policy = cosched_policies::make("static", &opts)?;
            let out = cosched_sim::engine::run(m, &plan, &mut *policy, &SimOptions::default(), None)
                .map_err(RunError::from)?;
            observed.push(PairObservation { job: a, next_to: b, slowdown: out.job_finish[0] as f64 * 1e-9 / solo[a] });
        }
    }
    Ok(PairProfile {
        jobs: jobs.iter().map(|j| j.name.clone()).collect(),
        solo_s: solo,
        observed,
        source: cosched_core::pair_profile::PairSource::Predicted { machine: m.name.clone() },
    })
}

/// The predicted pair profile of `mix`'s jobs from characterised `programs`
/// alone (each keeps the solo time it was characterised with; `solo_s`, when
/// measured, replaces it and lets `cosched-bench` jobs be modelled too).
pub fn programs_profile(
    mix: &Mix,
    solo_s: &[Option<f64>],
    m: &MachineSpec,
    programs: &Programs,
) -> Result<PairProfile, RunError> {
    let model = model_mix(mix, solo_s, m, Some(programs))?;
    if !model.complete() {
        return Err(RunError::option(format!(
            "{} {}: no characterised program (and no cosched-bench model) for {}",
            cosched_policies::knob::flag_of("programs"),
            programs.file,
            model.skipped.join(", ")
        )));
    }
    predicted_profile(m, &model)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    fn machine() -> MachineSpec {
        cosched_machine::presets::machine("kvm-epyc-2c-nov24").unwrap()
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

    fn mix() -> Mix {
        Mix::parse(
            "m.toml",
            "[[job]]\nname = \"c\"\ncmd = [\"cosched-bench\", \"pointer-chase\", \"--wss-mb\", \"16\", \"--mops\", \"2\"]\n\
             [[job]]\nname = \"k\"\ncount = 2\ncmd = [\"cosched-bench\", \"compute\", \"--mops\", \"100\"]\n\
             [[job]]\nname = \"x\"\ncmd = [\"xz\"]\n",
        )
        .unwrap()
    }

    #[test]
    fn every_modelled_job_runs_alone_in_its_measured_solo_time() {
        let m = machine();
        let p = std::env::temp_dir().join(format!("cosched-programs-{}.toml", std::process::id()));
        // `x` characterised: a random walk over half the LLC (fits alone, not beside the 16 MiB chase).
        std::fs::write(
            &p,
            format!(
                "name = \"p\"\n[[job]]\nname = \"x\"\n[[job.phase]]\ninstructions = 1e9\nipc = 1.0\nllc_apki = 5\naccess = \"random\"\nfootprint_mb = {}\nmlp = 1\nl1_apki = 300\n",
                0.5 * m.cache.llc_mb
            ),
        )
        .unwrap();
        let programs = Programs::load(&p).unwrap();
        std::fs::remove_file(&p).unwrap();
        let solo = [Some(0.5), Some(0.25), Some(1.5)];
        let bench_only = model_mix(&mix(), &solo, &m, None).unwrap();
        assert_eq!(bench_only.skipped, ["x"]);
        let model = model_mix(&mix(), &solo, &m, Some(&programs)).unwrap();
        assert!(model.complete());
        assert_eq!(model.source[2], ("x".to_string(), Source::Characterised));
        assert_eq!(model.workload.jobs[1].instances, 2);
        for (j, job) in model.workload.jobs.iter().enumerate() {
            let t = simulated_solo(job, &m).unwrap();
            let want = solo[j].unwrap();
            assert!((t / want - 1.0).abs() < 1e-3, "{}: {t} s simulated, {want} s measured", job.name);
        }
        // Alone, nothing slows it; beside the chase, the characterised walk slows, and beside a compute job it does not.
        let pr = predicted_profile(&m, &model).unwrap();
        let at = |a: usize, b: usize| pr.observed.iter().find(|o| o.job == a && o.next_to == b).unwrap().slowdown;
        assert_eq!(pr.observed.len(), 9);
        assert!(at(2, 0) > at(2, 1) + 0.02 && (at(2, 1) - 1.0).abs() < 0.02, "{:?}", pr.observed);
        assert!((at(1, 1) - 1.0).abs() < 0.01, "compute beside compute: {}", at(1, 1));
        let p = simulate_policy(&m, &model, "eevdf", &PolicyOptions::default(), &[1, 2]).unwrap();
        assert!(simulate_policy(&m, &model, "eevdf", &PolicyOptions::default(), &[]).is_err());
        assert_eq!(p.slowdown.len(), 3);
        assert!(p.slowdown.iter().all(|(_, s)| *s >= 0.99 && s.is_finite()), "{p:?}");
        assert!(p.makespan_s >= 1.5, "{p:?}");
        // Without solo times, the characterised program keeps its own and the bench jobs have no model.
        let own = model_mix(&mix(), &[None, None, None], &m, Some(&programs)).unwrap();
        assert_eq!(own.skipped, ["c", "k"]);
        assert!(
            (simulated_solo(&own.workload.jobs[0], &m).unwrap() / simulated_solo(&programs.spec.jobs[0], &m).unwrap()
                - 1.0)
                .abs()
                < 1e-9
        );
    }

    #[test]
    fn a_program_file_that_is_not_a_workload_is_refused_naming_it() {
        let p = std::env::temp_dir().join(format!("cosched-bad-{}.toml", std::process::id()));
        std::fs::write(&p, "name = \"p\"\n[[job]]\nname = \"x\"\n[[job.phase]]\nipc = 1.0\n").unwrap();
        let e = Programs::load(&p).err().unwrap().to_string();
        std::fs::remove_file(&p).unwrap();
        assert!(e.contains("cosched-bad-") && e.contains("instructions"), "{e}");
    }
}
