//! The Perf&Fair study's mixes (§6): 24 SPEC CPU2006 processes per mix, composed for average
//! bandwidths spread over a range, each process's work worth its seconds alone.

use crate::compare::stretched;
use crate::error::RunError;
use cosched_machine::MachineSpec;
use cosched_policies::PerfFairParams;
use cosched_sim::{presets, Plan, WorkloadSpec};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The paper's study: "a set of thirteen mixes composed of twenty-four SPEC CPU2006 benchmarks" (§6) ...
pub const PAPER_MIXES: usize = 13;
/// ... spanning about 40-140 transactions/µs of average bandwidth: our reading of Fig. 2's span (the
/// text gives only §7's bands, below 80, 80-120 and above 120 trans/usec) ...
pub const PAPER_BW_RANGE: BwRange = BwRange { lo: 40.0, hi: 140.0 };
/// ... each benchmark's work what it executes "during 100 seconds in standalone execution" (§2).
pub const PAPER_SOLO_S: f64 = 100.0;

/// Longest solo time a process of a mix may be given, s (100 × the paper's).
pub const MAX_SOLO_S: f64 = 10_000.0;

/// The SPEC CPU2006 presets mixes are drawn from.
const BENCHMARKS: [&str; 28] = [
    "mcf",
    "milc",
    "soplex",
    "gemsfdtd",
    "lbm",
    "libquantum",
    "bwaves",
    "leslie3d",
    "omnetpp",
    "gcc",
    "zeusmp",
    "wrf",
    "cactusadm",
    "dealii",
    "xalancbmk",
    "astar",
    "sjeng",
    "perlbench",
    "calculix",
    "bzip2",
    "gobmk",
    "sphinx3",
    "h264ref",
    "hmmer",
    "namd",
    "povray",
    "gamess",
    "tonto",
];

/// The average memory bandwidth of the lightest and the heaviest mix, transactions/µs (Perf&Fair
/// §6-7: the span of its mixes; `--bw-range LOW:HIGH`, Python's `bw_range`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BwRange {
    /// The lightest mix's.
    pub lo: f64,
    /// The heaviest mix's.
    pub hi: f64,
}

impl BwRange {
    /// `LOW:HIGH` with 0 < LOW <= HIGH, refused naming the knob `bw_range`.
    pub fn parse(s: &str) -> Result<BwRange, RunError> {
        let bad = || bad_range(&format!("{s:?}"));
        let (l, h) = s.split_once(':').ok_or_else(bad)?;
        let (lo, hi): (f64, f64) = (l.trim().parse().map_err(|_| bad())?, h.trim().parse().map_err(|_| bad())?);
        BwRange { lo, hi }.checked()
    }

    /// The range itself when 0 < LOW <= HIGH (finite), else refused naming the knob `bw_range`.
    pub fn checked(self) -> Result<BwRange, RunError> {
        if self.lo > 0.0 && self.lo <= self.hi && self.hi.is_finite() {
            Ok(self)
        } else {
            Err(bad_range(&format!("\"{self}\"")))
        }
    }
}

/// The refusal of a range, `got` as the user gave it.
fn bad_range(got: &str) -> RunError {
    RunError::knob("bw_range", format!("expected LOW:HIGH transactions/µs with 0 < LOW <= HIGH, got {got}"))
}

impl std::fmt::Display for BwRange {
    /// `LOW:HIGH`, each in its shortest exact form (what [`BwRange::parse`] reads back).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.lo, self.hi)
    }
}

/// Mix k of n: 24 processes whose average solo memory bandwidth × contexts
/// comes as close as the benchmarks allow to `target` transactions/µs.
/// Start from 24 light processes (solo bandwidth under the paper's 3.5
/// trans/µs heavy-sharing threshold, drawn with a seeded RNG), then swap
/// random light ones for random heavier benchmarks while the mix is below
/// its target, taking the candidate that lands closest. The paper designed
/// its 13 mixes to span its bandwidth range this way (Appendix 2, not in the
/// text); the targets are spread evenly over `--bw-range`.
fn compose(k: usize, target: f64, solo_bw: &[(&'static str, f64)], contexts: usize) -> Vec<&'static str> {
    let mut rng = ChaCha8Rng::seed_from_u64(0xF00D + k as u64);
    let scale = contexts as f64 / 24.0;
    let heavy = PerfFairParams::default().mm_threshold; // 3.5 trans/µs
    let light: Vec<usize> = (0..solo_bw.len()).filter(|&i| solo_bw[i].1 < heavy).collect();
    let heavier: Vec<usize> = (0..solo_bw.len()).filter(|&i| solo_bw[i].1 >= heavy).collect();
    let mut v: Vec<usize> = (0..24).map(|_| *light.choose(&mut rng).expect("light benchmarks")).collect();
    let bw = |v: &[usize]| v.iter().map(|&i| solo_bw[i].1).sum::<f64>() * scale;
    while bw(&v) < target {
        let slots: Vec<usize> = (0..24).filter(|&j| solo_bw[v[j]].1 < heavy).collect();
        let Some(&j) = slots.choose(&mut rng) else { break };
        let gap = target - bw(&v) + solo_bw[v[j]].1 * scale;
        // A few random candidates; keep the one whose bandwidth best fills the gap.
        let fit =
            |a: &usize, b: &usize| (solo_bw[*a].1 * scale - gap).abs().total_cmp(&(solo_bw[*b].1 * scale - gap).abs());
        let overshoots = |c: usize| solo_bw[c].1 * scale - gap > gap - solo_bw[v[j]].1 * scale;
        let mut best = (0..4).map(|_| *heavier.choose(&mut rng).expect("heavy benchmarks")).min_by(fit).expect("four");
        if overshoots(best) {
            best = heavier.iter().copied().min_by(fit).expect("heavy benchmarks");
        }
        if overshoots(best) {
            break; // the swap would overshoot by more than it gains
        }
        v[j] = best;
    }
    let mut names: Vec<&str> = v.iter().map(|&i| solo_bw[i].0).collect();
    names.sort();
    names
}

/// Whole-run solo IPC, solo memory bandwidth (transactions/µs) and instructions of a preset on `m`.
fn solo_profile(m: &MachineSpec, preset: &str) -> Result<(f64, f64, f64), RunError> {
    let w = presets::workload(preset).map_err(RunError::from)?;
    let p = Plan::new(&w, m, None, 1, preset).map_err(RunError::from)?;
    let (ipc, lines) = p.solo_rates(0);
    Ok((ipc, ipc * m.freq_ghz * 1e9 * lines / 1e6, p.job_instructions(0)))
}

/// Mix `name` of presets `progs`, each job's work worth `solo_s` seconds alone ([`stretched`]),
/// and its average solo bandwidth × contexts.
fn build(m: &MachineSpec, name: &str, progs: &[&str], solo_s: f64) -> Result<(WorkloadSpec, f64), RunError> {
    let mut s = format!("name = \"{name}\"\ndescription = \"Perf&Fair-style mix of 24 SPEC CPU2006 processes\"\n");
    for p in progs {
        s += &format!("[[job]]\npreset = \"{p}\"\n");
    }
    let w = presets::workload_from_toml(name, &s).map_err(RunError::from)?;
    let bw: f64 = progs.iter().map(|p| solo_profile(m, p).map(|x| x.1)).sum::<Result<f64, RunError>>()?;
    Ok((stretched(m, &w, solo_s)?, bw / progs.len() as f64 * m.n_contexts() as f64))
}

/// The study's mixes on `m`: `n` mixes of 24 SPEC CPU2006 processes with
/// average bandwidth targets spread evenly over `lo..hi` transactions/µs,
/// each process's work worth `solo_s` seconds alone; sorted by bandwidth.
/// Each: its programs, its workload and its average bandwidth (× contexts).
pub(crate) type Mix = (Vec<&'static str>, WorkloadSpec, f64);

/// See [`Mix`].
pub fn mixes(m: &MachineSpec, n: usize, BwRange { lo, hi }: BwRange, solo_s: f64) -> Result<Vec<Mix>, RunError> {
    let solo_bw: Vec<(&str, f64)> =
        BENCHMARKS.iter().map(|&b| solo_profile(m, b).map(|p| (b, p.1))).collect::<Result<_, _>>()?;
    let mut mixes = vec![];
    for k in 0..n {
        let target = lo + (hi - lo) * k as f64 / (n.max(2) - 1) as f64;
        let progs = compose(k, target, &solo_bw, m.n_contexts());
        let (w, bw) = build(m, &format!("mix{k}"), &progs, solo_s)?;
        mixes.push((progs, w, bw));
    }
    mixes.sort_by(|x, y| x.2.total_cmp(&y.2));
    Ok(mixes)
}
