//! Calibration and check points of a machine description: published
//! measurements of the machine that `cosched validate` reproduces on the
//! simulated one, as written in `[[check]]` entries.

use crate::error::ConfigError;
use serde::{Deserialize, Serialize};

/// How `cosched validate` measures a [`CheckPoint`] on the simulated machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckKind {
    /// M accesses/s a miss-only benchmark reaches at best over 1..=contexts copies (EFS §5.1).
    BusRate,
    /// Largest error, %, of the EFS bus model against the machine for `copies`
    /// (default: every context) identical synthetic threads at solo utilisations
    /// 0.1-0.9 (EFS Fig. 4).
    EfsModelFit,
    /// Time of `copies` synthetic instances at solo bus utilisation 0.97 in
    /// parallel under `cfs` over one after another on one core (EFS Table 1).
    ParallelOverSerial,
    /// Instruction throughput of `copies` instances of `workload` over
    /// `base_copies` instances, both under `cfs`.
    ThroughputRatio,
    /// Spread of performance between thread assignments of one workload:
    /// the largest, over `workloads`, of best / worst − 1 among `samples`
    /// uniformly random assignments (statistical thread assignment §3, "variation
    /// of up to 49% between different thread assignments of the same workload").
    AssignmentSpread,
    /// Geometric mean over the Perf&Fair study's 13 mixes (24 SPEC CPU2006
    /// processes, 40-140 transactions/µs, `cosched paper perf-fair`'s
    /// defaults) of max/min slowdown − 1 under `cfs` (Perf&Fair §7, Fig. 1's Linux).
    LinuxUnfairness,
    /// Aggregate throughput (sum of solo time / co-run time) of `copies`
    /// identical EFS synthetic threads at solo bus utilisation `utilisation`
    /// under `cfs` (EFS Fig. 4's measured curve).
    AggregateThroughput,
    /// Mean power, W, of `copies` EFS synthetic instances at solo bus
    /// utilisation 0.97 run one after another on one core (`serial = true`)
    /// or in parallel under `cfs`, over the whole system or the CPU package
    /// (`domain`; EFS Table 1's energy over its time).
    MeanPower,
    /// Loads/s of two pointer chases over `footprint_mb` each, one per core,
    /// over one alone (`cosched calibrate`'s co-run measurement); the chase's
    /// solo rate `solo_rate_m` (M loads/s) fixes its solo IPC.
    ChaseCorun,
    /// Wall time of two pointer chases over `footprint_mb` each pinned to one
    /// context and alternating at `quantum_ms`, over one alone (`cosched
    /// calibrate`'s time-sharing measurement, each copy running `solo_s`
    /// alone; the time-sharing mechanisms).
    Timeshare,
    /// Largest, over `workloads`, of 1 − performance of the load-balanced
    /// assignment (threads spread over cores, then pipes, then strands) over
    /// the best of `samples` random assignments (statistical thread assignment
    /// §1: load balancing "up to 48%" below the optimal). The best sample is
    /// a lower bound of the optimum, so the loss is a lower bound too.
    BalancerLoss,
    /// Mean over `workloads` of the relative standard deviation of the
    /// makespan under `cfs` over `samples` seeds of the run-to-run variation
    /// at `--noise 1` (RDA §5: "The average standard deviation between all
    /// runs is 2%").
    RunToRunSd,
    /// Largest, over `workloads` run with `threads` threads under `g-rrs` and
    /// `random`, of the share, %, of all sets of co-running threads (one per
    /// context: C(threads, contexts)) that the run ever has running at once
    /// (SLITS §2.2, Fig. 1: "explored thread permutations").
    ExploredPermutations,
    /// IPC of `workload` alone on this machine altered to its first phase's
    /// `measured_on` reference (clock, idle memory latency, LLC; bandwidth
    /// ample), i.e. where its published IPC was measured (docs/model.md,
    /// "Programs measured elsewhere").
    SoloIpc,
    /// One cell of a paper rerun's table (`rerun`, `table`, `row`, `column`)
    /// on this machine at one seed of the exact model: a result the paper
    /// states for its machine under its baseline or its policy, so the point
    /// tests the machine model and our reading of the policy together.
    RerunCell,
}

/// The paper reruns a `rerun_cell` point can read (`cosched paper NAME`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rerun {
    /// SLITS's Figs. 1-8 (`cosched paper slits`).
    Slits,
    /// EFS's Table 1 and Figs. 4-10 (`cosched paper efs`).
    Efs,
    /// RDA's Figs. 7-13 (`cosched paper rda`).
    Rda,
    /// Perf&Fair's Figs. 1-3 (`cosched paper perf-fair`).
    PerfFair,
}

/// Which statistic of EFS Fig. 4's model errors an `efs_model_fit` point reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Statistic {
    /// Largest |error|, % ("within 10%").
    Max,
    /// Standard deviation of the signed error, % ("the standard deviation of the error is 3.3%").
    Sd,
}

/// What a `mean_power` point meters (EFS Table 1's two columns).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PowerDomain {
    /// The whole system at the wall (EFS's external meter).
    System,
    /// The CPU package (EFS's RAPL reading).
    Cpu,
}

/// Which side of a published bound passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// Anything at or below the published value passes.
    Upper,
    /// Anything at or above the published value passes ("scales well").
    Lower,
}

/// One published measurement of a machine and how to reproduce it in the
/// simulator (`cosched validate`).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CheckPoint {
    /// What is measured, as the paper says it.
    pub name: String,
    /// How the simulator measures it.
    pub kind: CheckKind,
    /// The published value.
    pub published: f64,
    /// Largest accepted relative error `|simulated/published − 1|`; with
    /// `bound = "upper"`, the simulated value may also be anything below `published`.
    pub tolerance: f64,
    /// `upper`: the published value is a bound ("within 10%").
    #[serde(default)]
    pub bound: Option<Bound>,
    /// Where the published value comes from.
    pub source: String,
    /// Whether a preset constant was set from this point (else it is held out).
    pub fitted: bool,
    /// Whether the point shaped a mechanism of the model (it failed, and the
    /// mechanism that makes it pass was built after): a development point,
    /// not held out, though no constant was set from it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub development: bool,
    /// Workload preset (`throughput_ratio`).
    #[serde(default)]
    pub workload: Option<String>,
    /// Instances measured.
    #[serde(default)]
    pub copies: Option<u32>,
    /// Instances of the reference measurement (`throughput_ratio`).
    #[serde(default)]
    pub base_copies: Option<u32>,
    /// Workload presets (`assignment_spread`).
    #[serde(default)]
    pub workloads: Option<Vec<String>>,
    /// Random assignments drawn per workload (`assignment_spread`, default 1,000).
    #[serde(default)]
    pub samples: Option<u32>,
    /// Statistic of the model errors (`efs_model_fit`; default `max`).
    #[serde(default)]
    pub statistic: Option<Statistic>,
    /// Solo bus utilisation of the synthetic threads (`aggregate_throughput`).
    #[serde(default)]
    pub utilisation: Option<f64>,
    /// One instance after another on one core, else in parallel (`mean_power`).
    #[serde(default)]
    pub serial: Option<bool>,
    /// What is metered (`mean_power`).
    #[serde(default)]
    pub domain: Option<PowerDomain>,
    /// Mean over the this many most unfair mixes instead of the geometric
    /// mean over all (`linux_unfairness`).
    #[serde(default)]
    pub top: Option<u32>,
    /// Working set of each pointer chase, MiB (`chase_corun`).
    #[serde(default)]
    pub footprint_mb: Option<f64>,
    /// Measured solo rate of the chase, M loads/s (`chase_corun`).
    #[serde(default)]
    pub solo_rate_m: Option<f64>,
    /// CPU seconds one copy took alone (`timeshare`).
    #[serde(default)]
    pub solo_s: Option<f64>,
    /// The kernel's measured quantum: CPU time per involuntary switch, ms (`timeshare`).
    #[serde(default)]
    pub quantum_ms: Option<f64>,
    /// Threads per workload (`explored_permutations`).
    #[serde(default)]
    pub threads: Option<u32>,
    /// The paper rerun whose table holds the value (`rerun_cell`).
    #[serde(default)]
    pub rerun: Option<Rerun>,
    /// The rerun's CSV table, without `.csv` (`rerun_cell`).
    #[serde(default)]
    pub table: Option<String>,
    /// The row: its leading cells, in order (`rerun_cell`); the last may be
    /// a prefix of its cell when that cell carries a count (`affected (10: …)`).
    #[serde(default)]
    pub row: Option<Vec<String>>,
    /// The column's header (`rerun_cell`).
    #[serde(default)]
    pub column: Option<String>,
    /// The day the point was written down, before any mechanism it could
    /// judge was tuned: a pre-registered held-out point.
    #[serde(default)]
    pub registered: Option<String>,
    /// A point known to be out of tolerance, with the reason (reported, and
    /// not failing `cosched validate` while the model gap it names is open).
    #[serde(default)]
    pub known_gap: Option<String>,
    /// The mechanism the model lacks that a known gap needs (a
    /// non-reproduction the model cannot act on is a gap of the model, and
    /// names what is missing); required with `known_gap`.
    #[serde(default)]
    pub missing_mechanism: Option<String>,
}

/// Most random assignments an `assignment_spread` point may draw per workload.
pub const MAX_SPREAD_SAMPLES: u32 = 100_000;

/// Most instances a point may run (`copies`, `base_copies`): the machine loader's bound on contexts.
pub const MAX_COPIES: u32 = 4096;

/// Most seeds a `run_to_run_sd` point may run (each a whole run of its workloads).
pub const MAX_SEEDS: u32 = 1000;

/// Most threads an `explored_permutations` point may run (sets are bitsets of this many bits).
pub const MAX_PERMUTATION_THREADS: u32 = 256;

/// A known gap's text with every `{simulated:.N}` (N decimals, 0 to 6)
/// replaced by the simulated value, so that the gap quotes the run it explains
/// instead of a hand-typed number that goes stale when a rerun moves (the
/// numbers-from-results rule). With `simulated` absent the text is
/// only checked (the loader); `Err` names `file`, `field` and what is malformed.
pub fn fill_known_gap(text: &str, simulated: Option<f64>, file: &str, field: &str) -> Result<String, ConfigError> {
    let bad = |problem: String| ConfigError::new(file, field, problem);
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let end = tail.find('}').ok_or_else(|| bad(format!("unclosed `{{` at byte {}", text.len() - tail.len())))?;
        let token = &tail[1..end];
        let decimals =
            token.strip_prefix("simulated:.").and_then(|n| n.parse::<usize>().ok()).filter(|&n| n <= 6).ok_or_else(
                || bad(format!("`{{{token}}}`: the only placeholder is `{{simulated:.N}}`, N from 0 to 6")),
            )?;
        if let Some(v) = simulated {
            out.push_str(&format!("{v:.decimals$}"));
        }
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

impl CheckPoint {
    /// The first field this point's kind needs and lacks or has out of range,
    /// with what is wrong, for the loader's one-line error.
    pub fn missing(&self) -> Option<(&'static str, String)> {
        let need = |ok: bool, field: &'static str, what: &str| (!ok).then(|| (field, what.to_string()));
        let has_workloads = self.workloads.as_ref().is_some_and(|w| !w.is_empty());
        let kind_needs = match self.kind {
            CheckKind::SoloIpc => need(self.workload.is_some(), "workload", "`solo_ipc` needs a workload"),
            CheckKind::ThroughputRatio => need(
                self.workload.is_some() && self.copies.is_some() && self.base_copies.is_some(),
                "workload",
                "`throughput_ratio` needs workload, copies and base_copies",
            ),
            CheckKind::AssignmentSpread | CheckKind::BalancerLoss | CheckKind::RunToRunSd => {
                need(has_workloads, "workloads", "this kind needs at least one workload")
            }
            CheckKind::ExploredPermutations => {
                need(has_workloads, "workloads", "this kind needs at least one workload").or_else(|| {
                    need(
                        self.threads.is_some_and(|t| (2..=MAX_PERMUTATION_THREADS).contains(&t)),
                        "threads",
                        &format!("`explored_permutations` needs threads from 2 to {MAX_PERMUTATION_THREADS}"),
                    )
                })
            }
            CheckKind::RerunCell => {
                need(self.rerun.is_some(), "rerun", "`rerun_cell` needs the rerun (slits, efs, rda, perf-fair)")
                    .or_else(|| {
                        need(
                            self.table.as_ref().is_some_and(|t| !t.trim().is_empty()),
                            "table",
                            "`rerun_cell` needs the rerun's table",
                        )
                    })
                    .or_else(|| {
                        need(
                            self.row.as_ref().is_some_and(|r| !r.is_empty()),
                            "row",
                            "`rerun_cell` needs the row's leading cells",
                        )
                    })
                    .or_else(|| {
                        need(
                            self.column.as_ref().is_some_and(|c| !c.trim().is_empty()),
                            "column",
                            "`rerun_cell` needs the column's header",
                        )
                    })
            }
            CheckKind::AggregateThroughput => need(
                self.utilisation.is_some_and(|u| u > 0.0 && u < 1.0),
                "utilisation",
                "`aggregate_throughput` needs a solo bus utilisation strictly between 0 and 1",
            ),
            CheckKind::MeanPower => {
                need(self.serial.is_some() && self.domain.is_some(), "domain", "`mean_power` needs serial and domain")
            }
            CheckKind::ChaseCorun => need(
                self.footprint_mb.is_some_and(|f| f > 0.0 && f <= 1e6),
                "footprint_mb",
                "`chase_corun` needs footprint_mb, MiB, above 0 and at most 1e6",
            )
            .or_else(|| {
                need(
                    self.solo_rate_m.is_some_and(|r| r > 0.0 && r <= 1e6),
                    "solo_rate_m",
                    "`chase_corun` needs solo_rate_m, M loads/s, above 0 and at most 1e6",
                )
            }),
            CheckKind::Timeshare => need(
                self.footprint_mb.is_some_and(|f| f > 0.0 && f <= 1e6),
                "footprint_mb",
                "`timeshare` needs footprint_mb, MiB, above 0 and at most 1e6",
            )
            .or_else(|| {
                need(
                    self.solo_s.is_some_and(|s| s > 0.0 && s <= 60.0),
                    "solo_s",
                    "`timeshare` needs solo_s, s, above 0 and at most 60",
                )
            })
            .or_else(|| {
                need(
                    self.quantum_ms.is_some_and(|q| (0.1..=1000.0).contains(&q)),
                    "quantum_ms",
                    "`timeshare` needs quantum_ms from 0.1 to 1000",
                )
            }),
            _ => None,
        };
        let copies_out = |c: Option<u32>| c.is_some_and(|c| c == 0 || c > MAX_COPIES);
        let seeds_out = self.kind == CheckKind::RunToRunSd && self.samples.is_some_and(|n| n > MAX_SEEDS);
        if seeds_out {
            return Some(("samples", format!("`run_to_run_sd` runs the workload once per seed: at most {MAX_SEEDS}")));
        }
        kind_needs.or_else(|| match (self.copies, self.base_copies, self.samples, self.top) {
            _ if copies_out(self.copies) => Some(("copies", format!("must be from 1 to {MAX_COPIES}"))),
            _ if copies_out(self.base_copies) => Some(("base_copies", format!("must be from 1 to {MAX_COPIES}"))),
            (_, _, Some(n), _) if !(2..=MAX_SPREAD_SAMPLES).contains(&n) => {
                Some(("samples", format!("must be from 2 to {MAX_SPREAD_SAMPLES}, got {n}")))
            }
            (_, _, _, Some(0)) => Some(("top", "must be at least 1".into())),
            _ => None,
        })
    }
}

/// Time-sharing one CPU: two copies of a pointer chase
/// over `wss_mb`, each of fixed work, pinned to the same CPU, so that the
/// kernel alternates them at its own quantum and each refills, at every
/// switch, what the other evicted. CPU times and switch counts are the
/// kernel's accounting of each copy (`wait4` rusage).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Timeshare {
    /// Working set of each copy, MiB.
    pub wss_mb: f64,
    /// Work of each copy, million loads.
    pub mops: f64,
    /// CPU time of one copy alone, s.
    pub solo_s: f64,
    /// Wall time until both copies of the pair ended, s.
    pub pair_s: f64,
    /// Mean CPU time of a copy in the pair, s.
    pub cpu_s: f64,
    /// Mean involuntary context switches of a copy in the pair.
    pub switches: f64,
}

impl Timeshare {
    /// The kernel's effective quantum: CPU time per involuntary switch, s.
    pub fn slice_s(&self) -> f64 {
        self.cpu_s / self.switches.max(1.0)
    }

    /// Refill cost of one switch, µs: a copy's CPU time beyond its solo run's, per switch.
    pub fn refill_us(&self) -> f64 {
        (self.cpu_s - self.solo_s).max(0.0) / self.switches.max(1.0) * 1e6
    }

    /// Pair wall time over the solo time: 2 when the switches cost nothing.
    pub fn slowdown(&self) -> f64 {
        self.pair_s / self.solo_s
    }
}

#[cfg(test)]
mod tests {
    use super::fill_known_gap;

    #[test]
    fn a_known_gap_quotes_the_simulated_value() {
        let t = "runs {simulated:.1}% against 2.2%; ratio {simulated:.3}";
        assert_eq!(
            fill_known_gap(t, Some(1.3149), "m.toml", "known_gap").unwrap(),
            "runs 1.3% against 2.2%; ratio 1.315"
        );
        assert_eq!(fill_known_gap("no placeholder", Some(1.0), "m.toml", "known_gap").unwrap(), "no placeholder");
    }

    #[test]
    fn a_malformed_placeholder_is_named() {
        for bad in ["{value}", "{simulated}", "{simulated:.9}", "open {simulated:.1"] {
            let e = fill_known_gap(bad, None, "m.toml", "check[0].known_gap").unwrap_err().to_string();
            assert!(e.starts_with("m.toml: check[0].known_gap: "), "{bad}: {e}");
            assert!(e.contains("simulated") || e.contains("unclosed"), "{bad}: {e}");
        }
    }
}
