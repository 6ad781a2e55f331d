//! A characterisation of real programs without a PMU (docs/runtime.md, "Characterising a
//! program"; the co-run method of Perf&Fair §4's IPC-alone estimation carried to the LLC and the
//! bus): each job of a mix runs alone and beside cache pirates, bandwidth bandits and a compute
//! loop (`cosched_linux::characterise` measures), or an earlier record is read; the lab fits the
//! record (`cosched_lab::characterise`) and writes the workload file's text. The experiment in
//! three steps, so that a face can load its mix after the machine is found fit and keep the record
//! before the fit checks it: [`machine_ready`], [`record`] (measure, or take a record and keep its
//! pirates), [`fit`]. The faces parse, read and write the files and print the fit.

use crate::error::HostError;
use crate::until::RoundsUntil;
use cosched_core::knob::flag_of;
use cosched_core::progress::Reporter;
use cosched_core::topology::corun_pair;
use cosched_lab::characterise::{
    bandit_rates, check_record, fit_record, pirate_sizes, round2, workload_file, Fitted, Pattern, MAX_REPEAT,
};
use cosched_lab::RunError;
use cosched_linux::characterise::{measure, JobRecord, Record, Sweep, Until};
use cosched_linux::runtime::RunConfig;
use cosched_machine::mix::Mix;
use cosched_machine::pirate_sweep::{keep_added, ADDED, MAX_ADDED};
use cosched_machine::MachineSpec;

/// What a characterisation measures with, or reads.
pub enum Source<'a> {
    /// Measure `mix` on this host, each run built by `base` (the runtime's settings for the
    /// machine), the record dated `date`.
    Measure {
        /// The programs measured.
        mix: &'a Mix,
        /// A run's configuration for a mix on the machine named.
        base: &'a dyn Fn(Mix, &str) -> RunConfig,
        /// The record's date (`YYYY-MM-DD`).
        date: &'a str,
    },
    /// A record measured before (`--from-record`, named `file` in messages).
    Record {
        /// Where it was read (for messages).
        file: &'a str,
        /// The record.
        record: Record,
    },
}

/// Rounds of each job's measurements at least, by default (every face's).
pub const DEFAULT_REPEAT: u32 = 3;
/// Rounds go on until every co-run's slowdown is known within ±this percent, by default.
pub const DEFAULT_WITHIN_PCT: f64 = 5.0;
/// Most rounds of one job, by default.
pub const DEFAULT_MAX_ROUNDS: u32 = 9;
/// Most seconds of one job's rounds, by default.
pub const DEFAULT_BUDGET_S: f64 = 120.0;

/// How a characterisation runs and fits.
#[derive(Clone, Copy)]
pub struct Settings<'a> {
    /// Rounds of each job's measurements at least.
    pub repeat: u32,
    /// When a job's rounds stop.
    pub until: Until,
    /// Pirates the adaptive sweep adds (measuring; `None`: [`ADDED`]) or keeps of a record's
    /// (`None`: all).
    pub added_pirates: Option<u32>,
    /// The access patterns the fit may choose, in order of preference.
    pub patterns: &'a [Pattern],
    /// Whether a job whose progress reports show phases is fitted per phase.
    pub phases: bool,
    /// Whether each job is measured beside a compute loop and its presence factor fitted (design
    /// note 67; off by default, the fit as before it).
    pub presence: bool,
}

/// The settings of a characterisation checked, each refusal naming its knob: `repeat` rounds at
/// least (1 to [`MAX_REPEAT`]), then until every co-run's slowdown is known within ±`within`
/// percent (0: exactly `repeat`), at most `max_rounds` rounds (at least `repeat`) and `budget_s`
/// seconds a job; `added_pirates` at most [`MAX_ADDED`].
#[allow(clippy::too_many_arguments)]
pub fn settings(
    repeat: u32,
    within: f64,
    max_rounds: u32,
    budget_s: f64,
    added_pirates: Option<u32>,
    patterns: &[Pattern],
    phases: bool,
    presence: bool,
) -> Result<Settings<'_>, HostError> {
    if !(1..=MAX_REPEAT).contains(&repeat) {
        return Err(RunError::knob("repeat", format!("must be from 1 to {MAX_REPEAT}, got {repeat}")).into());
    }
    let rounds = RoundsUntil::new(within, u64::from(max_rounds), budget_s)?;
    if max_rounds < repeat {
        let problem = format!("must be at least {} ({repeat}), got {max_rounds}", flag_of("repeat"));
        return Err(RunError::knob("max_rounds", problem).into());
    }
    if let Some(n) = added_pirates.filter(|&n| n > MAX_ADDED) {
        return Err(RunError::knob("added_pirates", format!("must be from 0 to {MAX_ADDED}, got {n}")).into());
    }
    let until = Until { within: rounds.map_or(0.0, |u| u.within()), max_rounds, budget_s };
    Ok(Settings { repeat, until, added_pirates, patterns, phases, presence })
}

/// A fitted characterisation.
pub struct Characterised {
    /// The record fitted: without the compute-loop runs unless [`Settings::presence`].
    pub record: Record,
    /// Each job's fit, its phases' and the slowdowns it predicts.
    pub fitted: Fitted,
    /// The workload file's text (checked to load as a workload).
    pub workload: String,
}

/// Whether machine `m` can characterise: it has two cores sharing an LLC (a job's co-runner beside
/// it). A machine without a measured latency sweep is said on `report`: random access is then
/// modelled as the share of the footprint held.
pub fn machine_ready(m: &MachineSpec, report: &Reporter) -> Result<(), HostError> {
    if corun_pair(&m.topology()).is_none() {
        return Err(HostError::NoCoRunner { machine: m.name.clone() });
    }
    if m.cache.latency_curve.is_none() {
        report.line(|| {
            format!(
                "characterise: {} has no measured latency sweep (cache.latency_curve); random access is modelled as 1 - held/footprint",
                m.name
            )
        });
    }
    Ok(())
}

/// The record a characterisation fits: measured on this host, or read, with `added_pirates` of
/// its adaptive sweep's pirates kept. The record as measured is what a face keeps (`--record`),
/// before [`fit`] checks it. `m` is the calibrated machine the record is measured against.
pub fn record(m: &MachineSpec, s: &Settings, source: Source, report: &Reporter) -> Result<Record, HostError> {
    match source {
        Source::Measure { mix, base, date } => {
            let c = m.cache.llc_mb;
            let sweep = Sweep {
                pirate_mb: pirate_sizes(c),
                bandit_gbs: bandit_rates(m.memory.bandwidth_gbs),
                stream_mb: round2(4.0 * c),
                added: s.added_pirates.unwrap_or(ADDED),
                presence: s.presence,
            };
            Ok(measure(mix, &m.name, date, s.repeat, &s.until, &sweep, base, report)?)
        }
        Source::Record { file, record } => {
            let Some(n) = s.added_pirates else { return Ok(record) };
            // A record's pirates past the fixed sweep's are the adaptive sweep's: N keeps the first
            // N (the ablation at 0), told apart by size: a record measured on another machine's
            // sweep has none of the fixed ones.
            let fixed = pirate_sizes(m.cache.llc_mb);
            let of_this = |j: &&JobRecord| {
                j.pirates.is_empty() || j.pirates.iter().any(|r| fixed.iter().any(|f| (f - r.size).abs() < 0.005))
            };
            if let Some(j) = record.jobs.iter().find(|j| !of_this(j)) {
                return Err(HostError::ForeignPirates {
                    file: file.to_string(),
                    job: j.name.clone(),
                    machine: m.name.clone(),
                    fixed,
                });
            }
            Ok(Record { jobs: record.jobs.iter().map(|j| keep_added(j, &fixed, n as usize)).collect(), ..record })
        }
    }
}

/// Check `rec` against machine `m` (a bad figure is refused whether or not the fit reads it),
/// set its compute-loop runs aside unless [`Settings::presence`], fit every job (`fitting` is told
/// each job as its fit begins) and write the workload file's text, checked to load as the
/// workload file `file`. `machine_arg` is the machine as the user named it (a preset's name or a
/// file), written into the workload file.
pub fn fit(
    m: &MachineSpec,
    machine_arg: &str,
    s: &Settings,
    rec: Record,
    file: &str,
    fitting: &dyn Fn(&JobRecord),
) -> Result<Characterised, HostError> {
    check_record(m, &rec)?;
    let rec = if s.presence {
        rec
    } else {
        Record { jobs: rec.jobs.into_iter().map(|j| JobRecord { presence: None, ..j }).collect(), ..rec }
    };
    let fitted = fit_record(m, &rec, s.patterns, s.phases, fitting)?;
    let workload = workload_file(m, machine_arg, &rec, &fitted);
    cosched_sim::presets::workload_from_toml(file, &workload)
        .map_err(|e| HostError::Lab(cosched_lab::RunError::Config(e)))?;
    Ok(Characterised { record: rec, fitted, workload })
}

/// Today's date (UTC) from the system clock, `YYYY-MM-DD`.
pub fn today() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    // Days since 1970-01-01 to a civil date (proleptic Gregorian; H. Hinnant's algorithm).
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(mo <= 2);
    format!("{y:04}-{mo:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn today_is_a_civil_date() {
        let d = today();
        assert_eq!(d.len(), 10);
        assert!(d.starts_with("20") && &d[4..5] == "-" && &d[7..8] == "-", "{d}");
    }
}
