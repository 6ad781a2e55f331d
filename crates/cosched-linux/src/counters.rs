//! Per-tree counters for the policies that read them (SLITS §3.2, EFS §4,
//! Perf&Fair §6.1), from one of two sources behind [`CounterSource`]:
//!
//! - [`PerfSource`]: hardware counters through `perf_event_open`
//!   (perf-event2), one counter per event per managed tree, opened on the
//!   tree's leader with `inherit` so children forked later are counted too.
//!   Each event is read with `time_enabled`/`time_running` and scaled
//!   ([`scale`]); a reading that was multiplexed (running < enabled) is
//!   flagged. Separate counters, not one group, because the kernel refuses
//!   group reads of inherited counters before Linux 6.4. Without uncore
//!   counters, memory reads are taken as LLC misses and writes as 0.
//! - [`RecordedSource`]: rates per CPU-second recorded elsewhere (a file),
//!   replayed against each tree's measured CPU time: counters advance only
//!   while the tree really runs, so a policy sees the consequences of its
//!   own decisions. This is how counter-driven policies run, and are tested,
//!   on machines without a PMU (this project's development VM).

use cosched_core::counters::Counters;
use perf_event::events::{Cache, CacheId, CacheOp, CacheResult, Hardware};
use perf_event::{Builder, Counter};
use serde::Deserialize;
use std::collections::BTreeMap;

/// A counter source that cannot deliver: the PMU refused, or a recorded
/// stream is unreadable or lacks a job.
#[derive(Debug, thiserror::Error)]
pub enum CounterError {
    /// `perf_event_open` (or enabling an event) failed.
    #[error("perf_event_open{event}: {error}")]
    Perf {
        /// The event and the process (`(Instructions) on 123`), empty for the first probe.
        event: String,
        /// What the kernel said.
        #[source]
        error: std::io::Error,
    },
    /// Enabling an opened event failed.
    #[error("perf_event_open{event}: enable: {error}")]
    Enable {
        /// The event and the process (`(Instructions) on 123`).
        event: String,
        /// What the kernel said.
        #[source]
        error: std::io::Error,
    },
    /// A recorded-counters file: unreadable, malformed, or without a job's rates.
    #[error("{file}: {problem}")]
    File {
        /// The file.
        file: String,
        /// What is wrong.
        problem: RecordedProblem,
    },
}

/// What is wrong with a recorded-counters file.
#[derive(Debug, thiserror::Error)]
pub enum RecordedProblem {
    /// It cannot be read as text (missing, not a regular file, too large).
    #[error("{}", .0.problem)]
    Unreadable(Box<cosched_machine::ConfigError>),
    /// It is not JSON of the recorded shape.
    #[error("not a recorded-counters file: {0}")]
    NotRecorded(#[source] serde_json::Error),
    /// A rate that is not a non-negative number.
    #[error("{job}.{field}: must be a non-negative number, got {}", cosched_core::num::shortest(*.value))]
    BadRate {
        /// The job.
        job: String,
        /// The rate's field.
        field: &'static str,
        /// The value given.
        value: f64,
    },
    /// A job of the run without rates.
    #[error("no rates for job `{0}`")]
    NoRates(String),
}

/// A source of cumulative per-tree counters.
pub trait CounterSource {
    /// How the counters are obtained, for the report's provenance.
    fn label(&self) -> String;
    /// Start counting tree `thread` (leader `pid`, mix job `job`).
    fn attach(&mut self, thread: usize, pid: i32, job: &str) -> Result<(), CounterError>;
    /// Cumulative counters of tree `thread`; `cpu_s` is its CPU time so far.
    fn read(&mut self, thread: usize, cpu_s: f64) -> Option<Counters>;
    /// Readings that were multiplexed so far.
    fn multiplexed(&self) -> u64 {
        0
    }
}

/// Scale a counter by `time_enabled / time_running` (the kernel's
/// multiplexing estimate); returns the estimate and whether it was
/// multiplexed. A counter that never ran reads 0.
pub fn scale(count: u64, enabled_ns: u64, running_ns: u64) -> (f64, bool) {
    if running_ns == 0 {
        return (0.0, enabled_ns > 0);
    }
    if running_ns >= enabled_ns {
        return (count as f64, false);
    }
    (count as f64 * enabled_ns as f64 / running_ns as f64, true)
}

/// The events read per tree, in [`Counters`] order of use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ev {
    Instructions,
    Cycles,
    LlcAccesses,
    LlcMisses,
    L1Accesses,
    L1Misses,
}

const EVENTS: [Ev; 6] = [Ev::Instructions, Ev::Cycles, Ev::LlcAccesses, Ev::LlcMisses, Ev::L1Accesses, Ev::L1Misses];

fn builder(ev: Ev) -> Builder<'static> {
    let l1 = |result| Cache { which: CacheId::L1D, operation: CacheOp::READ, result };
    match ev {
        Ev::Instructions => Builder::new(Hardware::INSTRUCTIONS),
        Ev::Cycles => Builder::new(Hardware::CPU_CYCLES),
        Ev::LlcAccesses => Builder::new(Hardware::CACHE_REFERENCES),
        Ev::LlcMisses => Builder::new(Hardware::CACHE_MISSES),
        Ev::L1Accesses => Builder::new(l1(CacheResult::ACCESS)),
        Ev::L1Misses => Builder::new(l1(CacheResult::MISS)),
    }
}

/// Hardware counters through `perf_event_open`.
#[derive(Default)]
pub struct PerfSource {
    trees: BTreeMap<usize, Vec<(Ev, Counter)>>,
    multiplexed: u64,
}

impl PerfSource {
    /// Whether this machine can open the first event at all (for a clear refusal up front).
    pub fn available() -> Result<(), CounterError> {
        builder(Ev::Instructions)
            .build()
            .map(|_| ())
            .map_err(|error| CounterError::Perf { event: String::new(), error })
    }

    /// Each event the runtime reads and whether this machine opens it (`cosched doctor`).
    pub fn event_support() -> Vec<(String, Result<(), std::io::Error>)> {
        EVENTS.iter().map(|&ev| (format!("{ev:?}"), builder(ev).build().map(|_| ()))).collect()
    }
}

impl CounterSource for PerfSource {
    fn label(&self) -> String {
        "measured (perf_event_open per tree, inherited by children, scaled by time_enabled/time_running)".into()
    }

    fn attach(&mut self, thread: usize, pid: i32, _job: &str) -> Result<(), CounterError> {
        let mut v = vec![];
        for ev in EVENTS {
            let mut c = builder(ev)
                .observe_pid(pid)
                .inherit(true)
                .enabled(true)
                .build()
                .map_err(|error| CounterError::Perf { event: format!("({ev:?}) on {pid}"), error })?;
            c.enable().map_err(|error| CounterError::Enable { event: format!("({ev:?}) on {pid}"), error })?;
            v.push((ev, c));
        }
        self.trees.insert(thread, v);
        Ok(())
    }

    fn read(&mut self, thread: usize, _cpu_s: f64) -> Option<Counters> {
        let v = self.trees.get_mut(&thread)?;
        let mut c = Counters::default();
        for (ev, counter) in v.iter_mut() {
            let d = counter.read_full().ok()?;
            let ns = |t: Option<std::time::Duration>| t.map(|t| t.as_nanos() as u64).unwrap_or(0);
            let (x, mux) = scale(d.count(), ns(d.time_enabled()), ns(d.time_running()));
            self.multiplexed += mux as u64;
            match ev {
                Ev::Instructions => c.instructions = x,
                Ev::Cycles => c.cycles = x,
                Ev::LlcAccesses => c.llc_accesses = x,
                Ev::LlcMisses => {
                    c.llc_misses = x;
                    c.mem_reads = x;
                }
                Ev::L1Accesses => c.l1_accesses = x,
                Ev::L1Misses => c.l1_misses = x,
            }
        }
        Some(c)
    }

    fn multiplexed(&self) -> u64 {
        self.multiplexed
    }
}

/// Counter rates per CPU-second of one job (a recorded profile).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Rates {
    /// Instructions per CPU-second.
    pub instructions: f64,
    /// Cycles per CPU-second.
    pub cycles: f64,
    /// LLC accesses per CPU-second.
    #[serde(default)]
    pub llc_accesses: f64,
    /// LLC misses per CPU-second.
    #[serde(default)]
    pub llc_misses: f64,
    /// Memory reads (lines) per CPU-second (default: the LLC misses).
    #[serde(default)]
    pub mem_reads: Option<f64>,
    /// Memory writes (lines) per CPU-second.
    #[serde(default)]
    pub mem_writes: f64,
    /// L1 data accesses per CPU-second.
    #[serde(default)]
    pub l1_accesses: f64,
    /// L1 data misses per CPU-second.
    #[serde(default)]
    pub l1_misses: f64,
}

/// Recorded rates replayed against measured CPU time.
pub struct RecordedSource {
    file: String,
    rates: BTreeMap<String, Rates>,
    trees: BTreeMap<usize, Counters>,
}

impl RecordedSource {
    /// Load `{ "<mix job>": { "instructions": …, "cycles": …, … }, … }` (JSON).
    pub fn load(path: &std::path::Path) -> Result<RecordedSource, CounterError> {
        let file = path.display().to_string();
        let bad = |problem: RecordedProblem| CounterError::File { file: file.clone(), problem };
        let text = cosched_machine::input::read_text(path, &file, cosched_machine::input::Kind::Config)
            .map_err(|e| bad(RecordedProblem::Unreadable(Box::new(e))))?;
        let rates: BTreeMap<String, Rates> =
            serde_json::from_str(&text).map_err(|e| bad(RecordedProblem::NotRecorded(e)))?;
        for (job, r) in &rates {
            for (field, v) in [("instructions", r.instructions), ("cycles", r.cycles), ("llc_misses", r.llc_misses)] {
                if !(v.is_finite() && v >= 0.0) {
                    return Err(bad(RecordedProblem::BadRate { job: job.clone(), field, value: v }));
                }
            }
        }
        Ok(RecordedSource { file, rates, trees: BTreeMap::new() })
    }
}

impl RecordedSource {
    /// Check that every job of a run has rates (before anything is launched).
    pub fn covers(&self, jobs: &[String]) -> Result<(), CounterError> {
        match jobs.iter().find(|j| !self.rates.contains_key(*j)) {
            Some(j) => {
                Err(CounterError::File { file: self.file.clone(), problem: RecordedProblem::NoRates(j.clone()) })
            }
            None => Ok(()),
        }
    }
}

impl CounterSource for RecordedSource {
    fn label(&self) -> String {
        format!("recorded (rates per CPU-second from {}, replayed against each tree's measured CPU time)", self.file)
    }

    fn attach(&mut self, thread: usize, _pid: i32, job: &str) -> Result<(), CounterError> {
        let r = self.rates.get(job).ok_or_else(|| CounterError::File {
            file: self.file.clone(),
            problem: RecordedProblem::NoRates(job.to_string()),
        })?;
        let per_s = Counters {
            instructions: r.instructions,
            cycles: r.cycles,
            llc_accesses: r.llc_accesses,
            llc_misses: r.llc_misses,
            mem_reads: r.mem_reads.unwrap_or(r.llc_misses),
            mem_writes: r.mem_writes,
            l1_accesses: r.l1_accesses,
            l1_misses: r.l1_misses,
        };
        self.trees.insert(thread, per_s);
        Ok(())
    }

    fn read(&mut self, thread: usize, cpu_s: f64) -> Option<Counters> {
        Some(self.trees.get(&thread)?.scaled(cpu_s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaling_follows_enabled_over_running() {
        assert_eq!(scale(1000, 10, 10), (1000.0, false));
        assert_eq!(scale(1000, 40, 10), (4000.0, true));
        assert_eq!(scale(5, 10, 0), (0.0, true));
        assert_eq!(scale(0, 0, 0), (0.0, false));
    }

    #[test]
    fn recorded_rates_replay_against_cpu_time() {
        let p = std::env::temp_dir().join(format!("cosched-rates-{}.json", std::process::id()));
        std::fs::write(&p, r#"{"chase": {"instructions": 1e9, "cycles": 2e9, "llc_misses": 5e6}}"#).unwrap();
        let mut s = RecordedSource::load(&p).unwrap();
        s.attach(0, 1, "chase").unwrap();
        assert!(s.attach(1, 1, "other").unwrap_err().to_string().contains("no rates for job `other`"));
        let c = s.read(0, 0.5).unwrap();
        assert_eq!((c.instructions, c.cycles, c.llc_misses, c.mem_reads), (5e8, 1e9, 2.5e6, 2.5e6));
        std::fs::write(&p, r#"{"chase": {"instructions": -1, "cycles": 2e9}}"#).unwrap();
        assert!(RecordedSource::load(&p)
            .err()
            .unwrap()
            .to_string()
            .contains("chase.instructions: must be a non-negative number"));
        std::fs::write(&p, r#"{"chase": {"instrs": 1}}"#).unwrap();
        assert!(RecordedSource::load(&p).err().unwrap().to_string().contains("not a recorded-counters file"));
        let _ = std::fs::remove_file(p);
    }

    #[test]
    fn perf_source_opens_or_explains() {
        // On a machine with a PMU this counts our own process; without one it explains why not.
        match PerfSource::available() {
            Ok(()) => {
                let mut s = PerfSource::default();
                // SAFETY: gettid has no preconditions.
                let tid = unsafe { libc::gettid() };
                s.attach(0, tid, "me").unwrap();
                let mut x = 0u64;
                for i in 0..1_000_000u64 {
                    x = x.wrapping_mul(31).wrapping_add(i);
                }
                std::hint::black_box(x);
                assert!(s.read(0, 0.0).unwrap().instructions > 0.0);
            }
            Err(e) => assert!(e.to_string().starts_with("perf_event_open: "), "{e}"),
        }
    }
}
