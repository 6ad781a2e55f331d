//! Calibration and check points of a machine description: published
//! measurements of the machine that `cosched validate` reproduces on the
//! simulated one (issue #12 item 7), as written in `[[check]]` entries.

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
}

/// Which side of a published bound passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// Anything at or below the published value passes.
    Upper,
}

/// One published measurement of a machine and how to reproduce it in the
/// simulator (`cosched validate`, issue #12 item 7).
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
    /// A point known to be out of tolerance, with the reason (reported, and
    /// not failing `cosched validate` while the model gap it names is open).
    #[serde(default)]
    pub known_gap: Option<String>,
    /// The mechanism the model lacks that a known gap needs (issue #30: a
    /// non-reproduction the model cannot act on is a gap of the model, and
    /// names what is missing); required with `known_gap`.
    #[serde(default)]
    pub missing_mechanism: Option<String>,
}

/// Most random assignments an `assignment_spread` point may draw per workload.
pub const MAX_SPREAD_SAMPLES: u32 = 100_000;
