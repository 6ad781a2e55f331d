//! The metric registry: every figure a command prints has one name, unit,
//! description and direction here (docs/architecture.md, "Metrics everyone
//! shares"). `simulate`, `compare`, `run`, `run --rounds`, their JSON and CSV,
//! Python's frames, `compare --help` and docs/formats.md all take their
//! column names from this list; `tests/metric_names.rs` (cosched-cli) fails
//! when a printed column is not in it.

use serde::Serialize;

/// Which way a metric is better.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Better {
    /// A larger value is better (speedup, STP, throughput).
    Higher,
    /// A smaller value is better (makespan, ANTT, energy).
    Lower,
    /// A count that describes the run, good or bad by context (instructions, policy events).
    Neither,
}

/// One metric: its name in every table, JSON key, CSV column and Python frame.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Metric {
    /// The one name (snake case, unit suffix where it has one).
    pub name: &'static str,
    /// Unit (`1` for a ratio, `count` for a count).
    pub unit: &'static str,
    /// Which way is better.
    pub better: Better,
    /// One line: what it is and where it is defined.
    pub about: &'static str,
}

const fn m(name: &'static str, unit: &'static str, better: Better, about: &'static str) -> Metric {
    Metric { name, unit, better, about }
}

use Better::{Higher, Lower, Neither};

/// Every metric, in the order tables print them.
pub const METRICS: &[Metric] = &[
    m("speedup", "1", Higher, "baseline makespan / policy makespan, same seed (or round)"),
    m("makespan_s", "s", Lower, "time until the last job finished"),
    m("throughput_gips", "GIPS", Higher, "instructions retired per second of makespan, billions"),
    m("stp", "1", Higher, "system throughput: sum of solo/turnaround (Eyerman & Eeckhout 2008)"),
    m("antt", "1", Lower, "mean slowdown against solo runs (Eyerman & Eeckhout 2008)"),
    m(
        "unfairness",
        "1",
        Lower,
        "largest slowdown over the smallest among the jobs, a ratio >= 1 (1: all slowed alike; Perf&Fair §6); printed as the ratio everywhere (a paper's \"33 percent\" is 1.33)",
    ),
    m("energy_j", "J", Lower, "system (wall) energy"),
    m("energy_cpu_j", "J", Lower, "CPU package energy"),
    m("energy_dram_j", "J", Lower, "DRAM energy"),
    m("edp_js", "J·s", Lower, "energy-delay product: system energy x makespan"),
    m("instructions_per_joule", "1/J", Higher, "instructions retired per joule of system energy"),
    m("instructions", "count", Neither, "instructions retired"),
    m("llc_misses", "count", Lower, "LLC misses, refills after switches and migrations included"),
    m("l1_hits", "count", Higher, "L1 data-cache hits (SLITS Fig. 5)"),
    m("ctx_switches", "count", Lower, "dispatches of a different thread onto a context"),
    m("migrations", "count", Lower, "dispatches onto another core than last time"),
    m("explored_pct", "%", Neither, "share of ordered thread pairs that ever co-ran (SLITS Fig. 1 sparsity)"),
    m(
        "gap_to_bound_pct",
        "%",
        Lower,
        "throughput below the bound of the same seed: the best static partition with idle contexts allowed (each thread pinned to one context, a context's threads taking turns, any context idle), exact or its EVT estimate; on the real machine, `best-static` (the partition of least predicted makespan) run in the same round; negative: above it (beating it takes a paired interval below zero at 10 seeds or more)",
    ),
    m("policy_events", "count", Neither, "events the policy handled"),
    m(
        "decide_p50_us",
        "µs",
        Lower,
        "the policy's decision time per event, median (wall clock; dropped by --no-timing)",
    ),
    m("decide_p99_us", "µs", Lower, "the policy's decision time per event, 99th percentile (wall clock)"),
    m("turnaround_s", "s", Lower, "a job's finish - arrival"),
    m("solo_s", "s", Neither, "the same job's turnaround alone on the same machine"),
    m("slowdown", "1", Lower, "a job's turnaround / its solo turnaround"),
    m("mean_turnaround_s", "s", Lower, "mean of the jobs' turnarounds"),
    m("cpu_s", "s", Neither, "a real job's CPU time (user + system)"),
    m("scheduler_cpu_pct", "%", Lower, "the real scheduler's own CPU time, % of one core"),
];

/// Columns that name a row rather than measure it (policy, machine, …).
pub const LABELS: &[(&str, &str)] = &[
    ("policy", "policy name (or entry label: `name#2` for a second entry)"),
    ("oracle", "whether the policy read the simulator's ground truth"),
    ("machine", "machine preset or file"),
    ("workload", "workload preset or file"),
    ("mix", "a real run's mix"),
    ("seed", "seed of the run"),
    ("seeds", "number of seeds behind a mean"),
    ("baseline", "policy speedups are measured against"),
    ("threads", "threads of a job, or the workload's thread override"),
    ("noise", "the workload's noise"),
    ("job", "job instance name"),
    ("exit_code", "a real job's exit code"),
    ("error", "why a real job did not start or finish"),
    ("run", "a real run's index among repetitions"),
    ("rounds", "interleaved rounds run"),
    ("drifted_rounds", "rounds whose solo times drifted beyond the threshold"),
    ("verdict", "the paired comparison in words: faster, slower, no difference"),
    (
        "beats_bound",
        "whether the policy beats the bound: 10 seeds or more and the paired interval of gap_to_bound_pct to each seed's upper interval end below zero (empty: no bound)",
    ),
    ("rounds_needed", "rounds that would separate the estimate from zero"),
    ("metric", "a metric's name (one-run tables)"),
    ("value", "a metric's value (one-run tables)"),
];

/// The suffixes of a metric summarised over seeds or rounds: mean and the
/// 95% interval's ends (CSV and Python summary frames).
pub const SUMMARY_PARTS: [&str; 3] = ["mean", "lo", "hi"];

/// Whether two names are the same (usable in constants).
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// `name`, which must be a registered metric: used in a constant (a table's
/// column list, [`metric_fields!`](crate::metric_fields)), an unregistered
/// or misspelt name fails the build rather than a test.
pub const fn named(name: &'static str) -> &'static str {
    let mut i = 0;
    while i < METRICS.len() {
        if same(METRICS[i].name, name) {
            return name;
        }
        i += 1;
    }
    panic!("not a registered metric: add it to cosched_core::metrics::registry::METRICS or fix the name")
}

/// A report struct whose fields marked `[metric]` carry registered metric
/// names: each marked field's name is checked against [`METRICS`] when the
/// crate is built (the unit, direction and meaning are declared once, in the
/// registry; the field is its value). Other fields and every attribute
/// (docs, serde) pass through unchanged; every field is `pub`.
///
/// ```
/// cosched_core::metric_fields! {
///     /// A run's figures.
///     pub struct Figures {
///         /// Time until the last job finished, s.
///         [metric] pub makespan_s: f64,
///         /// Not a metric.
///         pub label: String,
///     }
/// }
/// ```
///
/// A field marked `[metric]` whose name is not in the registry does not build:
///
/// ```compile_fail,E0080
/// cosched_core::metric_fields! {
///     /// A run's figures.
///     pub struct Figures {
///         /// Misspelt: the registry says `makespan_s`.
///         [metric] pub makespan: f64,
///     }
/// }
/// ```
#[macro_export]
macro_rules! metric_fields {
    (
        $(#[$sattr:meta])*
        $vis:vis struct $name:ident {
            $(
                $(#[$fattr:meta])*
                $([$marker:ident])? pub $field:ident : $ty:ty
            ),* $(,)?
        }
    ) => {
        $(#[$sattr])*
        $vis struct $name {
            $( $(#[$fattr])* pub $field : $ty ),*
        }
        const _: () = {
            $( $( let _ = stringify!($marker); $crate::metrics::registry::named(stringify!($field)); )? )*
        };
        impl $crate::metrics::registry::Shaped for $name {
            const SHAPE: $crate::metrics::registry::Shape = $crate::metrics::registry::Shape {
                name: stringify!($name),
                fields: &[$(
                    $crate::metrics::registry::FieldShape {
                        name: stringify!($field),
                        ty: stringify!($ty),
                        flatten: $crate::metrics::registry::flattened(&[$(stringify!($fattr)),*]),
                        skip: $crate::metrics::registry::skipped(&[$(stringify!($fattr)),*]),
                    }
                ),*],
            };
        }
    };
}

/// A report struct's fields as JSON shows them: what the Python package's
/// result types are generated from (`python -m cosched._report_gen`), so a field is declared once, in Rust.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// The struct's name.
    pub name: &'static str,
    /// Its fields in order.
    pub fields: &'static [FieldShape],
}

/// One field of a [`Shape`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldShape {
    /// The field's name (its JSON key).
    pub name: &'static str,
    /// Its Rust type as written (`Option<f64>`, `Vec<JobReport>`).
    pub ty: &'static str,
    /// `#[serde(flatten)]`: its own fields appear in place of the key.
    pub flatten: bool,
    /// `#[serde(skip)]`: not in the JSON at all.
    pub skip: bool,
}

/// A struct written through [`metric_fields!`](crate::metric_fields), with its shape.
pub trait Shaped {
    /// Its fields as JSON shows them.
    const SHAPE: Shape;
}

/// Whether a field's attributes (as written) flatten it into its parent
/// (`#[serde(flatten)]`; a doc comment naming the word does not).
pub const fn flattened(attrs: &[&str]) -> bool {
    serde_says(attrs, b"flatten")
}

/// Whether a field's attributes (as written) leave it out of the JSON
/// (`#[serde(skip)]`; `skip_serializing_if` keeps it, absent or not).
pub const fn skipped(attrs: &[&str]) -> bool {
    serde_says(attrs, b"skip")
}

/// Whether a `#[serde(...)]` attribute among `attrs` holds the word `word`
/// (a whole word: `skip` is not `skip_serializing_if`).
const fn serde_says(attrs: &[&str], word: &[u8]) -> bool {
    let mut i = 0;
    while i < attrs.len() {
        let a = attrs[i].as_bytes();
        let serde = a.len() >= 5 && a[0] == b's' && a[1] == b'e' && a[2] == b'r' && a[3] == b'd' && a[4] == b'e';
        if serde && has_word(a, word) {
            return true;
        }
        i += 1;
    }
    false
}

const fn has_word(hay: &[u8], needle: &[u8]) -> bool {
    let mut i = 0;
    while i + needle.len() <= hay.len() {
        let mut j = 0;
        while j < needle.len() && hay[i + j] == needle[j] {
            j += 1;
        }
        let end = i + needle.len();
        let whole = end == hay.len() || !(hay[end].is_ascii_alphanumeric() || hay[end] == b'_');
        let start = i == 0 || !(hay[i - 1].is_ascii_alphanumeric() || hay[i - 1] == b'_');
        if j == needle.len() && whole && start {
            return true;
        }
        i += 1;
    }
    false
}

/// The metric called `name`.
pub fn metric(name: &str) -> Option<&'static Metric> {
    METRICS.iter().find(|m| m.name == name)
}

/// Whether `column` is a registered metric, a summary column of one
/// (`<metric>_mean`, `_lo`, `_hi`), a speedup against a named baseline
/// (`speedup_vs_<policy>`) or a label.
pub fn is_known_column(column: &str) -> bool {
    if metric(column).is_some() || LABELS.iter().any(|(l, _)| *l == column) {
        return true;
    }
    if column.strip_prefix("speedup_vs_").is_some_and(|p| !p.is_empty()) {
        return true;
    }
    SUMMARY_PARTS
        .iter()
        .any(|p| column.strip_suffix(p).and_then(|c| c.strip_suffix('_')).is_some_and(|c| metric(c).is_some()))
}

/// `name = about (unit)` for each of `names`, joined by `; ` (a command's
/// `--help` legend). Panics on a name not in the registry: a legend lists
/// only registered metrics.
pub fn legend(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| {
            let m = metric(n).unwrap_or_else(|| panic!("`{n}` is not a registered metric"));
            match m.better {
                Better::Neither => format!("{} = {} ({})", m.name, m.about, m.unit),
                b => format!("{} = {} ({}, {} is better)", m.name, m.about, m.unit, better_word(b)),
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn better_word(b: Better) -> &'static str {
    match b {
        Better::Higher => "higher",
        Better::Lower => "lower",
        Better::Neither => "neither",
    }
}

/// The registry as the Markdown table docs/formats.md carries ("Output metrics").
pub fn markdown() -> String {
    let mut s = String::from("| metric | unit | better | meaning |\n|---|---|---|---|\n");
    for m in METRICS {
        s += &format!("| `{}` | {} | {} | {} |\n", m.name, m.unit, better_word(m.better), m.about);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_words_are_read_whole_and_only_from_serde_attributes() {
        assert!(flattened(&["doc = \" x\"", "serde(flatten)"]));
        assert!(!flattened(&["doc = \" serde(flatten) is not here\""]));
        assert!(skipped(&["serde(skip)"]));
        assert!(skipped(&["serde(default, skip)"]));
        assert!(!skipped(&["serde(skip_serializing_if = \"Option::is_none\")"]));
        assert!(!flattened(&["serde(flattened_name)"]));
    }

    #[test]
    fn names_are_unique_snake_case_and_not_labels() {
        for (i, m) in METRICS.iter().enumerate() {
            assert!(METRICS[..i].iter().all(|o| o.name != m.name), "{} twice", m.name);
            assert!(m.name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'), "{}", m.name);
            assert!(LABELS.iter().all(|(l, _)| *l != m.name), "{} is a label too", m.name);
        }
    }

    #[test]
    fn summary_and_speedup_columns_are_known_and_others_are_not() {
        assert!(is_known_column("energy_j_lo") && is_known_column("speedup_vs_cfs") && is_known_column("policy"));
        for bad in ["energy_system_j", "explored_permutations_pct", "decision_p50_us", "speedup_vs_", "_mean", "edp"] {
            assert!(!is_known_column(bad), "{bad}");
        }
    }

    #[test]
    fn named_accepts_registered_names_only() {
        assert_eq!(named("makespan_s"), "makespan_s");
        assert!(std::panic::catch_unwind(|| named("makespan")).is_err());
        assert!(!same("energy_j", "energy_jj") && same("stp", "stp"));
    }

    #[test]
    fn a_legend_names_each_metric_with_unit_and_direction() {
        let l = legend(&["makespan_s", "instructions"]);
        assert_eq!(l, "makespan_s = time until the last job finished (s, lower is better); instructions = instructions retired (count)");
    }
}
