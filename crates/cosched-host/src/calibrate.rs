//! The simulator's check against reality, run (`cosched calibrate --check
//! MIX`, Python's `cosched.host.calibrate_check`): the mix runs for real in
//! interleaved rounds ([`crate::rounds`]) and is simulated on the calibrated
//! machine from its model (`cosched_lab::mix_model`: characterised programs,
//! `cosched-bench` models), and [`crate::check::judge`] sets the two side by side.

use crate::check::{judge, Check};
use crate::error::HostError;
use crate::rounds::{self, Bound};
use crate::until::narrow_enough;
use cosched_core::progress::Reporter;
use cosched_lab::mix_model::{
    model_mix, predicted_profile, simulate_policy, unmodelled_jobs, MixModel, Programs, Source,
};
use cosched_linux::runtime::{self, RunConfig, LINUX};
use cosched_machine::mix::Mix;
use cosched_machine::MachineSpec;
use cosched_policies::PolicyOptions;

/// Round drift beyond which a round is marked (as `cosched run --policies`' default).
pub const DRIFT_THRESHOLD: f64 = 0.10;
/// Smallest makespan change claimed as a difference (as `cosched run --policies`' default).
pub const MIN_EFFECT: f64 = 0.01;

/// What the check runs and predicts.
pub struct CheckPlan<'a> {
    /// Policies run and predicted (`linux` is always run: the baseline).
    pub policies: Vec<String>,
    /// The simulated fair class `linux` is compared against (`cfs`, `eevdf`); `None`: the host kernel's.
    pub model: Option<String>,
    /// Interleaved rounds.
    pub repeat: usize,
    /// Seed of the round orders, the randomised policies and the bootstrap.
    pub seed: u64,
    /// Every policy's options (the real runtime's defaults and the knobs given); the simulation uses the same.
    pub opts: PolicyOptions,
    /// Characterised programs the mix's jobs are simulated as.
    pub programs: Option<&'a Programs>,
    /// Where the check says what it does.
    pub report: Reporter,
    /// Rounds beyond `repeat` until every measured slowdown is narrow enough (none: exactly `repeat`).
    pub until: Option<crate::until::RoundsUntil>,
}

/// A check: the judgement, the fair class `linux` ran as, and the mix's model.
pub struct Checked {
    /// Predictions against measurements.
    pub check: Check,
    /// The simulated fair class `linux` was compared against.
    pub model: String,
    /// The mix's model (its sources and the jobs without one).
    pub mix_model: MixModel,
}

cosched_core::metric_fields! {
    /// A check as JSON shows it (`calibrate --check --format json`'s `check`,
    /// Python's `cosched.host.Check.data`); fields in JSON's (alphabetical) order.
    #[derive(serde::Serialize)]
    pub struct CheckReport {
        /// The mix's jobs in order (the rounds' solo times).
        pub mix_jobs: Vec<String>,
        /// The simulated fair class `linux` was compared against.
        pub model: String,
        /// Predictions against measurements.
        pub result: Check,
        /// Mix jobs with no model.
        pub skipped: Vec<String>,
        /// Each modelled mix job and where its model came from.
        pub source: Vec<(String, Source)>,
        /// Why some jobs' characterisations are not to be trusted on the host they were measured
        /// on, one per such job: their predictions are guesses (empty: all trusted).
        pub untrusted: Vec<String>,
    }
}

impl Checked {
    /// The check as JSON shows it, for `mix`.
    pub fn report(self, mix: &Mix) -> CheckReport {
        CheckReport {
            mix_jobs: mix.jobs.iter().map(|j| j.name.clone()).collect(),
            model: self.model,
            result: self.check,
            untrusted: self.mix_model.untrusted(),
            skipped: self.mix_model.skipped,
            source: self.mix_model.source,
        }
    }
}

/// The simulated fair class `linux` is compared against: the one given, else the host kernel's.
fn fair_model(given: &Option<String>, report: &Reporter) -> String {
    match given {
        Some(m) => m.clone(),
        None => {
            let rel = cosched_linux::host::kernel_release().unwrap_or_default();
            let m = cosched_linux::host::fair_class_of(&rel).unwrap_or("eevdf");
            report.line(|| {
                format!(
                    "check: kernel {rel}: comparing `linux` against the simulated `{m}` (the `model` option chooses)"
                )
            });
            m.to_string()
        }
    }
}

/// The refusal of a check whose policies include slits-* (which run on the
/// pair slowdowns the model predicts, SLITS §4) while some job of `mix` has
/// no model: known from the files alone, so a face calls it before it
/// measures anything (the host's calibration included), and [`check`] again.
pub fn refuse_unmodelled(mix: &Mix, programs: Option<&Programs>, policies: &[String]) -> Result<(), HostError> {
    let missing = unmodelled_jobs(mix, programs);
    if policies.iter().any(|p| p.starts_with("slits")) && !missing.is_empty() {
        return Err(HostError::Unmodelled { jobs: missing });
    }
    Ok(())
}

/// Run `mix` for real in interleaved rounds (each run built by `base`) and
/// simulated from its model on `spec`, and judge the predictions.
pub fn check(
    mix: &Mix,
    spec: &MachineSpec,
    plan: &CheckPlan,
    base: &dyn Fn(Mix, &str) -> RunConfig,
) -> Result<Checked, HostError> {
    let model = fair_model(&plan.model, &plan.report);
    let slits = plan.policies.iter().any(|p| p.starts_with("slits"));
    refuse_unmodelled(mix, plan.programs, &plan.policies)?;
    // A first solo run gives the cosched-bench models their speed, so that the
    // pair slowdowns SLITS runs on can be predicted before the rounds.
    plan.report.line(|| "check: solo runs for the model".into());
    let first: Vec<Option<f64>> = runtime::solo_turnarounds(mix, base)?;
    let first_model = model_mix(mix, &first, spec, plan.programs)?;
    let profile = if first_model.complete() {
        Some(predicted_profile(spec, &first_model)?)
    } else if slits {
        return Err(HostError::Unmodelled { jobs: first_model.skipped.clone() });
    } else {
        None
    };
    let untrusted = Some(first_model.untrusted().join("; ")).filter(|t| !t.is_empty());
    if let Some(why) = &untrusted {
        plan.report.line(|| format!("warning: check: predictions rest on fits not to be trusted: {why}"));
    }
    let config = |m: Mix, p: &str| {
        let mut c = base(m, p);
        c.opts = plan.opts.clone();
        c.profile = profile.clone();
        // SLITS's runs pair the jobs on these predictions (their reports say so too).
        if p.starts_with("slits") {
            c.untrusted_fits = untrusted.clone();
        }
        c
    };
    let why = "not computed by the check (it compares the simulator's predictions with the runs)";
    let job_names: Vec<String> = mix.jobs.iter().map(|j| j.name.clone()).collect();
    let within = plan.until.map_or(0.0, |u| u.within());
    let enough = |runs: &[Vec<cosched_linux::runtime::RealReport>]| narrow_enough(runs, &job_names, within);
    let rounds_plan = rounds::Plan {
        policies: plan.policies.clone(),
        baseline: LINUX.into(),
        rounds: plan.repeat,
        seed: plan.seed,
        drift_threshold: DRIFT_THRESHOLD,
        min_effect: MIN_EFFECT,
        config: &config,
        bound: Bound::Absent { why: why.into() },
        report: plan.report.clone(),
        until: plan.until.map(|u| rounds::Until { max_rounds: u.max_rounds, budget_s: u.budget_s, enough: &enough }),
    };
    let real = rounds::run(mix, &rounds_plan)?;
    // The model the predictions run on: each job's median solo time over the rounds (the mean of
    // the two middle ones for an even count, as a replay takes it: before, the upper one, so a
    // check that went on to an even number of rounds predicted from a slightly longer solo time
    // than its replay).
    let solo: Vec<Option<f64>> = (0..mix.jobs.len())
        .map(|j| {
            let v: Vec<f64> = real.round.iter().map(|r| r.solo_s[j]).collect();
            (!v.is_empty()).then(|| cosched_core::stats::median(&v))
        })
        .collect();
    let mix_model = model_mix(mix, &solo, spec, plan.programs)?;
    let seeds: Vec<u64> = real.round.iter().map(|r| r.policy_seed).collect();
    let predict = |on: &MachineSpec| {
        real.policies
            .iter()
            .map(|row| {
                let name = row.policy.split('#').next().unwrap_or(&row.policy);
                let sim = if name == LINUX { model.as_str() } else { name };
                plan.report.line(|| format!("check: simulating {} as `{sim}` on `{}`", row.policy, on.name));
                simulate_policy(on, &mix_model, sim, &plan.opts, &seeds)
            })
            .collect::<Result<Vec<_>, _>>()
    };
    let predicted = predict(spec)?;
    // The ablation: the same predictions on the preset without the host's other tenants.
    let without = if spec.cache.tenant_lines_per_s > 0.0 {
        let mut alone = spec.clone();
        alone.cache.tenant_lines_per_s = 0.0;
        alone.name = format!("{} without tenants", spec.name);
        Some(predict(&alone)?)
    } else {
        None
    };
    let names: Vec<String> = mix.jobs.iter().map(|j| j.name.clone()).collect();
    let mut check = judge(&real, &predicted, without.as_deref(), &names);
    check.within_pct = plan.until.map(|u| u.within_pct);
    Ok(Checked { check, model, mix_model })
}
