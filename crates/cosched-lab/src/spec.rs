//! A simulated run's specification: the machine, the workload and every knob
//! ([`crate::knobs`]), turned into the machine, the planned workload, the
//! policies' options and the engine's options that one seed's run uses.

use crate::error::RunError;
use crate::knobs::{run_knob_named, SimKnobs};
use cosched_core::knob::{float_bits, Given};
use cosched_core::progress::Reporter;
use cosched_machine::MachineSpec;
use cosched_policies::PolicyOptions;
use cosched_sim::engine::{Cancel, SimOptions};
use cosched_sim::{presets, Plan, WorkloadSpec};

/// Machine, workload and engine options of a simulated run (the command
/// line's shared flags, Python's keywords); defaults are the declarations'.
#[derive(Clone, Debug)]
pub struct RunSpec {
    /// Machine preset name or TOML file.
    pub machine: String,
    /// Workload preset name or TOML file.
    pub workload: String,
    /// Thread count of the workload's multi-threaded jobs.
    pub threads: Option<u32>,
    /// Copies of every job of the workload.
    pub copies: Option<u32>,
    /// The policies' knobs given.
    pub knobs: SimKnobs,
    /// Cost of each pp_begin / pp_end call, µs.
    pub pp_cost_us: f64,
    /// Scheduler overhead charged at every thread start, µs.
    pub decision_cost_us: f64,
    /// Relative noise on the counters policies read.
    pub counter_noise: f64,
    /// Run-to-run variation of the ground truth.
    pub noise: f64,
    /// Measure the policies' decision time (wall clock; off: byte-identical outputs).
    pub timing: bool,
    /// Simulated-time budget of a run, s.
    pub max_sim_time_s: f64,
    /// Event budget of a run.
    pub max_events: u64,
    /// The machine's TOML text when given in memory (Python's `cosched.Machine`);
    /// `machine` then only names it in messages.
    pub machine_toml: Option<String>,
    /// The workload's TOML text when given in memory (Python's `cosched.Workload`).
    pub workload_toml: Option<String>,
    /// Where progress lines go during runs longer than a few seconds (the
    /// face's choice; off by default).
    pub progress: Reporter,
    /// Set from outside to stop every run of this specification (Ctrl-C).
    pub cancel: Cancel,
}

impl Default for RunSpec {
    fn default() -> RunSpec {
        let mut r = RunSpec {
            machine: String::new(),
            workload: String::new(),
            threads: None,
            copies: None,
            knobs: SimKnobs::default(),
            pp_cost_us: 0.0,
            decision_cost_us: 0.0,
            counter_noise: 0.0,
            noise: 0.0,
            timing: true,
            max_sim_time_s: 0.0,
            max_events: 0,
            machine_toml: None,
            workload_toml: None,
            progress: Reporter::default(),
            cancel: Cancel::default(),
        };
        for k in crate::knobs::PLACE.iter().chain(&crate::knobs::ENGINE) {
            if !k.default.is_empty() {
                r.set(k.name, k.default).unwrap_or_else(|e| panic!("declared default: {e}"));
            }
        }
        r
    }
}

impl RunSpec {
    /// Set knob `name` (a keyword: the run's own or a policy's) from `text`,
    /// checked against its declaration.
    pub fn set(&mut self, name: &str, text: &str) -> Result<(), RunError> {
        self.give(name, Given::Text(text))
    }

    /// Set knob `name` from a flag's text or a typed value (a Python
    /// keyword's), checked against its declaration.
    pub fn give(&mut self, name: &str, given: Given) -> Result<(), RunError> {
        let Some(k) = run_knob_named(name) else { return self.knobs.give(name, given) };
        let v = k.read(given)?;
        self.put_run(k.name, v);
        Ok(())
    }

    /// The machine: the in-memory TOML when given, else the preset or file `machine` names.
    pub fn machine_spec(&self) -> Result<MachineSpec, RunError> {
        Ok(match &self.machine_toml {
            Some(src) => MachineSpec::from_toml(&self.machine, src)?,
            None => cosched_machine::presets::machine(&self.machine)?,
        })
    }

    /// The workload, with `copies` applied (`threads` is checked by `Plan::new`).
    pub fn workload_spec(&self) -> Result<WorkloadSpec, RunError> {
        let mut w = match &self.workload_toml {
            Some(src) => presets::workload_from_toml(&self.workload, src)?,
            None => presets::workload(&self.workload)?,
        };
        if let Some(n) = self.copies {
            if n == 0 || n > 4096 {
                return Err(RunError::knob("copies", format!("must be from 1 to 4096, got {n}")));
            }
            for j in &mut w.jobs {
                j.instances *= n;
            }
        }
        Ok(w)
    }

    /// The machine and the planned workload as the run seeded `seed` finds them (`noise`).
    pub fn plan(&self, m: &MachineSpec, w: &WorkloadSpec, seed: u64) -> Result<(MachineSpec, Plan), RunError> {
        // A bad noise is the option's fault, not the workload's.
        cosched_sim::variation::check_noise(self.noise).map_err(|e| RunError::knob("noise", e.to_string()))?;
        let plan = Plan::varied(w, m, self.threads, seed, &self.workload, self.noise)?;
        Ok((cosched_sim::variation::machine(m, self.noise, seed), plan))
    }

    /// The options `policy` is built from, seeded `seed`; a knob given that
    /// none of `among` (the policies run with these options, `policy` among
    /// them) reads is refused, one that only some read is noted.
    pub fn policy_opts(&self, among: &[&str], seed: u64) -> Result<(PolicyOptions, Vec<String>), RunError> {
        self.knobs.options(among, seed)
    }

    /// The engine's options for `seed`.
    pub fn sim_opts(&self, seed: u64) -> Result<SimOptions, RunError> {
        // A spec built in code is held to the same declared ranges a face's text is (one rule,
        // `knobs::ENGINE`), so a value set directly cannot pass what a flag could not.
        for (name, v) in [
            ("counter_noise", self.counter_noise),
            ("pp_cost_us", self.pp_cost_us),
            ("decision_cost_us", self.decision_cost_us),
            ("max_sim_time_s", self.max_sim_time_s),
        ] {
            let spec = run_knob_named(name).expect("a declared engine knob");
            spec.accept(cosched_core::knob::Value::Float(v))?;
        }
        let bad = |knob: &str, problem: String| Err(RunError::knob(knob, problem));
        if self.max_events == 0 {
            return bad("max_events", "must be at least 1".into());
        }
        Ok(SimOptions {
            seed,
            counter_noise: self.counter_noise,
            timing: self.timing,
            pp_cost_ns: (self.pp_cost_us * 1000.0).round() as u64,
            decision_cost_ns: (self.decision_cost_us * 1000.0).round() as u64,
            max_time_s: self.max_sim_time_s,
            max_events: self.max_events,
            progress: self.progress.clone(),
            cancel: self.cancel.clone(),
            shared: Default::default(),
            whole_sockets: false,
        })
    }

    /// The machine and workload resolved from their names (or in-memory
    /// TOML) once, for everything below the face to share.
    pub fn resolve(&self) -> Result<Resolved, RunError> {
        Ok(Resolved { machine: self.machine_spec()?, workload: self.workload_spec()?, spec: self.clone() })
    }

    /// Everything that makes two runs' results differ, in one tuple (what
    /// `PartialEq` and `Hash` compare): the progress handle and the cancel
    /// flag are left out. Destructured, so a field added to the struct must
    /// be placed here or named as left out.
    fn identity(&self) -> impl PartialEq + std::hash::Hash + '_ {
        let RunSpec {
            machine,
            workload,
            threads,
            copies,
            knobs,
            pp_cost_us,
            decision_cost_us,
            counter_noise,
            noise,
            timing,
            max_sim_time_s,
            max_events,
            machine_toml,
            workload_toml,
            progress: _,
            cancel: _,
        } = self;
        let numbers = [*pp_cost_us, *decision_cost_us, *counter_noise, *noise, *max_sim_time_s].map(float_bits);
        ((machine, workload, threads, copies, knobs), numbers, (timing, max_events, machine_toml, workload_toml))
    }
}

/// Equal specifications give equal results (batches share one preparation per specification and seed).
impl PartialEq for RunSpec {
    fn eq(&self, other: &RunSpec) -> bool {
        self.identity() == other.identity()
    }
}

impl Eq for RunSpec {}

impl std::hash::Hash for RunSpec {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.identity().hash(h);
    }
}

/// A run specification with its machine and workload resolved: what the face
/// hands down (`comparison`, `prepare`), so nothing below it reads a name
/// again.
#[derive(Clone, Debug)]
pub struct Resolved {
    /// The specification (names for messages, knobs, engine options).
    pub spec: RunSpec,
    /// The machine.
    pub machine: MachineSpec,
    /// The workload, `copies` applied.
    pub workload: WorkloadSpec,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_the_declared_ones_and_their_texts_the_constants() {
        let r = RunSpec::default();
        assert_eq!((r.machine.as_str(), r.workload.as_str()), ("xeon-e5645", "spec-mix24"));
        assert_eq!(r.pp_cost_us, cosched_core::pp_wire::MEASURED_PP_CALL_US);
        assert_eq!(r.max_events, cosched_sim::engine::DEFAULT_MAX_EVENTS);
        assert!(r.timing && r.noise == 1.0 && r.max_sim_time_s == 3600.0);
        r.sim_opts(1).unwrap();
    }

    #[test]
    fn a_bad_value_names_the_knob_by_keyword_and_flag() {
        let mut r = RunSpec::default();
        let e = r.set("max_events", "many").unwrap_err();
        assert_eq!(e.in_keywords(), "max_events: `many` is not a whole number");
        assert_eq!(e.to_string(), "--max-events: `many` is not a whole number");
        // Refused where it is declared, before any run (the run's own check stays for a spec
        // built in code).
        let e = r.set("counter_noise", "0.9").unwrap_err();
        assert_eq!(e.to_string(), "--counter-noise: must be from 0 to 0.5, got 0.9");
        r.counter_noise = 0.9;
        assert_eq!(r.sim_opts(1).unwrap_err().to_string(), "--counter-noise: must be from 0 to 0.5, got 0.9");
        r.set("timing", "false").unwrap();
        assert!(!r.timing);
        r.set("quantum_ms", "4").unwrap();
        assert_eq!(r.knobs.given(), ["quantum_ms"]);
    }
}
