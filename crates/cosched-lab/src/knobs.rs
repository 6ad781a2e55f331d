//! The knobs of a simulated run, declared once: the run's own (machine,
//! workload, engine budgets, noise) here, every policy's next to its code
//! (`cosched_policies::knob`). The command line builds its flags from
//! these declarations and Python passes its keywords through them
//! ([`crate::RunSpec::set`]), so both faces offer the same knobs with the same
//! defaults and refuse a bad value in the same words.

use crate::error::RunError;
use cosched_policies::knob::{self, Given, Kind, KnobSpec, Value};
use cosched_policies::PolicyOptions;
use serde::Serialize;

const fn run_knob(name: &'static str, kind: Kind, default: &'static str, doc: &'static str) -> KnobSpec {
    KnobSpec { name, kind, default, real_default: "", unit: "", doc, paper: "the run" }
}

/// A cost charged per call or decision, µs: from none to a second.
const COST_US: Kind = Kind::Float { min: 0.0, max: 1e6 };
/// Any count that fits 32 bits; its range is checked where the run uses it.
const COUNT: Kind = Kind::Int { min: 0, max: u32::MAX as u64 };

/// Declares the run's own knobs once: the `KnobSpec` lists (flags,
/// keywords, `list knobs` rows, defaults) and the setter of the
/// [`RunSpec`](crate::RunSpec) field each one names (a field of that name
/// must exist: the setter does not compile otherwise).
macro_rules! run_knobs {
    ($( $(#[$doc:meta])* $group:ident: [ $( $field:ident => ($kind:expr, $default:expr, $help:expr $(,)?) ),+ $(,)? ]; )+) => {
        $(
            $(#[$doc])*
            pub const $group: [KnobSpec; [$(stringify!($field)),+].len()] =
                [$(run_knob(stringify!($field), $kind, $default, $help)),+];
        )+

        impl crate::RunSpec {
            /// Put the checked value `v` of run knob `name` into its field.
            pub(crate) fn put_run(&mut self, name: &str, v: Value) {
                use crate::declared::FromValue;
                match name {
                    $($(stringify!($field) => self.$field = FromValue::from_value(v),)+)+
                    other => unreachable!("`{other}` is not a run knob"),
                }
            }
        }
    };
}

run_knobs! {
    /// The machine and workload knobs, listed before the policies' knobs.
    PLACE: [
    machine => ( Kind::Text, "xeon-e5645", "Machine preset name or TOML file (`cosched list machines`)."),
    workload => ( Kind::Text, "spec-mix24", "Workload preset name or TOML file (`cosched list workloads`)."),
    threads => (
        COUNT,
        "",
        "Thread count of the workload's multi-threaded jobs (refused when it has none: see --copies).",
    ),
    copies => (
        COUNT,
        "",
        "Run N copies of every job of the workload (multiprogrammed copies, e.g. EFS's 4× one benchmark).",
    ),
    ];

    /// The engine's knobs, listed after the policies' knobs.
    ENGINE: [
    pp_cost_us => (
        COST_US,
        cosched_core::pp_wire::MEASURED_PP_CALL_US_TEXT,
        "Cost of each pp_begin / pp_end call charged to the calling thread, µs (default: measured on cosched's real \
         runtime by scripts/bench-pp, `cosched_core::pp_wire::MEASURED_PP_CALL_US`).",
    ),
    decision_cost_us => (
        COST_US,
        "0",
        "Scheduler overhead charged at every thread start, µs: the context stalls this long (active, drawing power) \
         before the thread runs (default 0: decisions are free; `cosched paper efs` measures each policy's mean \
         decision time and charges it in its overhead ablation).",
    ),
    counter_noise => ( Kind::Float { min: 0.0, max: 0.5 }, "0", "Relative noise on the counters policies read (0 = exact)."),
    noise => (
        Kind::Float { min: 0.0, max: cosched_sim::variation::MAX_NOISE },
        "1",
        "Run-to-run variation of the ground truth, in units of the published magnitudes (1: each seed draws its own \
         machine and program speeds, as repeated real runs differ; 0: the exact model). See docs/model.md, \
         \"Run-to-run variation\".",
    ),
    timing => (
        Kind::Switch,
        "true",
        "Do not measure the policies' decision time (wall clock); outputs are then byte-identical for identical \
         inputs and seeds.",
    ),
    max_sim_time_s => ( Kind::Float { min: 1e-6, max: 1e9 }, "3600", "Abort a run whose simulated time passes this many seconds."),
    max_events => (
        Kind::Int { min: 0, max: u64::MAX },
        cosched_sim::engine::DEFAULT_MAX_EVENTS_TEXT,
        "Abort a run after this many engine events (stops a runaway input: a vanishing quantum, billions of \
         iterations); the default, 10⁸, is over 1,000× what the presets' runs take.",
    ),
    ];
}

/// The run knob of keyword `name`.
pub fn run_knob_named(name: &str) -> Option<&'static KnobSpec> {
    PLACE.iter().chain(ENGINE.iter()).find(|k| k.name == name)
}

/// The policies' knobs of a run, typed ([`knob::PolicyKnobs`]), with the
/// backend whose defaults apply (`REAL`: the real runtime's, e.g. a 100 ms
/// quantum). A face sets each knob it was given from its text; the value is
/// checked then, and a policy reads the typed field.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PolicyKnobs<const REAL: bool> {
    knobs: knob::PolicyKnobs,
}

impl<const REAL: bool> Default for PolicyKnobs<REAL> {
    fn default() -> Self {
        PolicyKnobs { knobs: knob::PolicyKnobs::defaults(REAL) }
    }
}

/// The simulator's policy knobs.
pub type SimKnobs = PolicyKnobs<false>;
/// The real runtime's policy knobs (`cosched run`).
pub type RealKnobs = PolicyKnobs<true>;

impl<const REAL: bool> PolicyKnobs<REAL> {
    /// The keywords of the knobs the user gave, in name order.
    pub fn given(&self) -> Vec<&'static str> {
        self.knobs.given().collect()
    }

    /// Set policy knob `name` from `text`, checked against its declaration
    /// (`assignment` may name a file, read here); a name no policy declares is refused.
    pub fn set(&mut self, name: &str, text: &str) -> Result<(), RunError> {
        self.give(name, Given::Text(text))
    }

    /// Set policy knob `name` from a flag's text or a typed value (a Python
    /// keyword's), checked against its declaration.
    pub fn give(&mut self, name: &str, given: Given) -> Result<(), RunError> {
        if knob::spec(name).is_none() {
            return Err(RunError::knob(name, "is not a knob"));
        }
        let arg = match &given {
            Given::Text(t) => Some(*t),
            Given::Value(Value::Text(t)) => Some(t.as_str()),
            Given::Value(_) => None,
        };
        if let Some(t) = arg.filter(|_| name == "assignment") {
            let text = assignment_text(t)?;
            return Ok(self.knobs.set(name, &text)?);
        }
        Ok(self.knobs.give(name, given)?)
    }

    /// The options `policies` are built from, seeded `seed`: a given knob none
    /// of them reads is refused naming the policies that read it; one that only
    /// some read gives a note (returned) naming those.
    pub fn options(&self, policies: &[&str], seed: u64) -> Result<(PolicyOptions, Vec<String>), RunError> {
        let notes = knob::unread(&self.given(), policies)?;
        Ok((PolicyOptions::from_knobs(&self.knobs, seed)?, notes))
    }
}

/// `assignment`'s text: the list itself, or the contents of the file it
/// names. Anything that reads as numbers (`-1`, `1.5`, `0,1`) is a list, so
/// its error is about the number, not a missing file.
fn assignment_text(arg: &str) -> Result<String, RunError> {
    if arg.trim().is_empty() {
        return Err(RunError::knob(
            "assignment",
            "is empty: give context ids (`0,1,2`, thread 0 first) or a file holding them",
        ));
    }
    if arg.contains(',') || arg.trim().parse::<f64>().is_ok() {
        Ok(arg.to_string())
    } else {
        use cosched_machine::input;
        let text = input::read_text(std::path::Path::new(arg), arg, input::Kind::Data)?;
        // Name the file in a parse error, as the context-id check does.
        cosched_policies::parse_assignment(Some(arg), &text)?;
        Ok(text)
    }
}

/// One knob as the faces list it (`cosched.knobs()`): its keyword, flag,
/// default, value type and help line.
#[derive(Clone, Debug, Serialize)]
pub struct Knob {
    /// Python keyword (`quantum_ms`).
    pub name: String,
    /// Command-line flag (`--quantum-ms`).
    pub flag: String,
    /// Default as text (empty when none).
    pub default: String,
    /// Whether the knob is a switch (true/false) rather than a value.
    pub switch: bool,
    /// The value's type, for keyword checks: `switch`, `number`, `integer`,
    /// `word` (one of `choices`), `words` (several of `choices`) or `text`.
    pub kind: &'static str,
    /// The accepted words of a `word` or `words` knob.
    pub choices: Vec<&'static str>,
    /// The help line.
    pub help: String,
}

/// A policy knob's help line: its doc, unit, paper section and readers.
pub fn policy_help(k: &KnobSpec) -> String {
    let readers = knob::readers(k.name).join(", ");
    let unit = if k.unit.is_empty() || k.unit == "1" { String::new() } else { format!(", {}", k.unit) };
    format!("{}{unit} ({}; read by {readers})", capital(k.doc), k.paper)
}

/// The doc line with its first letter up.
fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
}

fn listed(spec: &KnobSpec, flag: String, help: String) -> Knob {
    let (kind, choices) = match spec.kind {
        Kind::Float { .. } => ("number", vec![]),
        Kind::Int { .. } => ("integer", vec![]),
        Kind::Switch => ("switch", vec![]),
        Kind::Choice { choices } => ("word", choices.to_vec()),
        Kind::Subset { choices } => ("words", choices.to_vec()),
        Kind::Text => ("text", vec![]),
    };
    Knob {
        name: spec.name.to_string(),
        flag: format!("--{flag}"),
        default: spec.default.to_string(),
        switch: matches!(spec.kind, Kind::Switch),
        kind,
        choices,
        help,
    }
}

/// Every option of declared options `T` as the faces list them.
pub fn declared_knobs<T: crate::declared::Declared>() -> Vec<Knob> {
    T::DECLARED.iter().map(|k| listed(k, crate::declared::long(k), k.doc.trim().to_string())).collect()
}

/// Every knob of a simulated run, in the command line's order: the machine
/// and workload, every policy's, the engine's.
pub fn knobs() -> Vec<Knob> {
    let run = |k: &KnobSpec| listed(k, crate::declared::long(k), k.doc.to_string());
    let mut out: Vec<Knob> = PLACE.iter().map(run).collect();
    out.extend(knob::all().into_iter().map(|k| listed(k, k.name.replace('_', "-"), policy_help(k))));
    out.extend(ENGINE.iter().map(run));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_knob_is_listed_once_with_a_parseable_default() {
        let all = knobs();
        for (i, k) in all.iter().enumerate() {
            assert!(all[..i].iter().all(|o| o.name != k.name && o.flag != k.flag), "{} twice", k.name);
        }
        for k in PLACE.iter().chain(&ENGINE) {
            if !k.default.is_empty() {
                k.parse(k.default).unwrap_or_else(|e| panic!("{}: {e}", k.name));
            }
        }
        assert_eq!(crate::declared::long(run_knob_named("timing").unwrap()), "no-timing");
    }

    /// Every number a user can give a run is bounded where it is declared (a
    /// cost, a rate, a scale, a confidence): a huge value or a non-number is
    /// refused by its flag before anything runs, never carried into a result.
    #[test]
    fn every_numeric_knob_declares_a_bounded_range_and_refuses_the_extremes() {
        use crate::declared::Declared;
        let specs = PLACE
            .iter()
            .chain(&ENGINE)
            .chain(knob::all())
            .chain(crate::assign::AssignOptions::DECLARED)
            .chain(crate::best_static::OptimumOptions::DECLARED);
        let mut floats = 0;
        for k in specs {
            if let Kind::Float { min, max } = k.kind {
                floats += 1;
                assert!(min > -1e12 && max < 1e12 && min < max, "{}: range {min} to {max}", k.name);
                for bad in ["1e308", "-1e308", "NaN", "inf", "-inf"] {
                    let e = k.parse(bad).expect_err(&format!("{} took {bad}", k.name)).to_string();
                    assert!(e.starts_with(&format!("--{}", k.name.replace('_', "-"))), "{e}");
                    assert!(e.len() < 200, "{e}");
                }
            }
        }
        assert!(floats >= 20, "only {floats} numeric knobs: has the registry changed?");
    }

    #[test]
    fn only_given_knobs_count_as_given_and_an_unread_one_is_refused_by_keyword() {
        let mut k = SimKnobs::default();
        k.set("efs_window_ms", "5").unwrap();
        k.set("slits_global_queue", "true").unwrap();
        assert_eq!(k.given(), ["efs_window_ms", "slits_global_queue"]);
        let (o, _) = k.options(&["efs", "slits-contention"], 1).unwrap();
        assert_eq!(o.efs.window, 5_000_000);
        let e = k.options(&["cfs"], 1).unwrap_err();
        assert_eq!(e, RunError::knob("efs_window_ms", "policy `cfs` does not read it; it is read by efs"));
        assert!(e.to_string().starts_with("--efs-window-ms: policy `cfs` does not read it"), "{e}");
        assert!(k.set("no_such_knob", "1").is_err());
    }
}
