//! The flags of `cosched paper NAME`, turned into the lab's options
//! (`cosched_lab::paper::*::Options`; their defaults are the papers').

use super::printer::Printer;
use clap::{Args as ClapArgs, Subcommand};
use cosched_lab::paper::{self as lab, perf_fair, Seeds};

#[derive(ClapArgs)]
pub struct Args {
    #[command(subcommand)]
    paper: Paper,
}

#[derive(Subcommand)]
enum Paper {
    /// EFS (Energy-Friendly Scheduler): Table 1, Figs. 4, 8, 9, 10 on `i5-2500`.
    Efs(Efs),
    /// Perf&Fair: Figs. 1-3 (unfairness, speedup over Linux, completion curve) on `xeon-e5645`.
    PerfFair(PerfFair),
    /// SLITS: Figs. 1, 3-8, FM accuracy on simulator TIMs, decision time, on `xeon-x5550-16c`.
    Slits(Slits),
    /// Statistical thread assignment: POT estimates, sample size, SP-POT, random sampling on `ultrasparc-t2`.
    Evt(Evt),
    /// RDA: energy and performance of Strict and Compromise on the Table 2 workloads, and the overhead study, on `xeon-e5-2420`.
    Rda(Rda),
    /// How far from the best: the exact optimum of static co-schedules beside pairwise matching, the EVT estimate and every policy.
    Optimum(Optimum),
    /// The combined policy `quintet` on each paper's workloads and objective, against the paper's policy and CFS, with ablations.
    Quintet(Quintet),
}

/// `--out` and `--no-timing`, common to every rerun.
#[derive(ClapArgs)]
struct Common {
    /// Also write each table as CSV into this directory.
    #[arg(long)]
    out: Option<String>,
    /// Leave out wall-clock timings (only `paper slits` and `paper efs` have any: their decision-time tables), so that identical inputs give byte-identical output.
    #[arg(long)]
    no_timing: bool,
}

/// `--seeds` and `--noise` of a paper rerun.
#[derive(ClapArgs, Clone, Copy)]
struct SeedArgs {
    /// Repetitions, each a run of the machine with its own run-to-run variation; tables give mean ±95% interval.
    #[arg(long, default_value_t = Seeds::default().seeds)]
    seeds: u64,
    /// Run-to-run variation of the ground truth (docs/model.md; 0 = exact model, then seeds differ only in policy randomness).
    #[arg(long, default_value_t = Seeds::default().noise)]
    noise: f64,
}

impl From<SeedArgs> for Seeds {
    fn from(s: SeedArgs) -> Seeds {
        Seeds { seeds: s.seeds, noise: s.noise }
    }
}

#[derive(ClapArgs)]
struct Efs {
    /// Machine preset or file.
    #[arg(long, default_value_t = lab::efs::Options::default().machine)]
    machine: String,
    /// A few benchmarks only (for a quick look).
    #[arg(long)]
    quick: bool,
    #[command(flatten)]
    seeds: SeedArgs,
    #[command(flatten)]
    common: Common,
}

#[derive(ClapArgs)]
struct PerfFair {
    /// Machine preset or file.
    #[arg(long, default_value_t = perf_fair::Options::default().machine)]
    machine: String,
    #[command(flatten)]
    seeds: SeedArgs,
    /// Seconds of solo execution each process's target instruction count amounts to (the paper: 100).
    #[arg(long, default_value_t = perf_fair::PAPER_SOLO_S)]
    solo_seconds: f64,
    /// Number of mixes (the paper: 13).
    #[arg(long, default_value_t = perf_fair::PAPER_MIXES)]
    mixes: usize,
    /// Average memory bandwidth of the lightest and heaviest mix, `LOW:HIGH` transactions/µs
    /// (solo bandwidth of the 24 processes averaged, × contexts; default: our reading of Fig. 2's span,
    /// whose values the paper's text lacks; its text names the bands below 80, 80-120 and above 120).
    #[arg(long, default_value_t = perf_fair::PAPER_BW_RANGE.to_string())]
    bw_range: String,
    /// Leave out the job-length study (`spec-mix24`, the default `compare` mix, from its preset
    /// length to the paper's 100 s alone, and the Linux model's tick and rotation taken out), which
    /// reads none of the options above but the machine and seeds.
    #[arg(long = "no-job-length")]
    no_job_length: bool,
    #[command(flatten)]
    common: Common,
}

#[derive(ClapArgs)]
struct Slits {
    /// Machine preset or file.
    #[arg(long, default_value_t = lab::slits::Options::default().machine)]
    machine: String,
    #[command(flatten)]
    seeds: SeedArgs,
    /// Seeds of the ablation and FM-accuracy tables (at least --seeds): the effects there are a few tenths of a percent, so they need more seeds than the headline.
    #[arg(long, default_value_t = lab::slits::Options::default().ablation_seeds)]
    ablation_seeds: u64,
    #[command(flatten)]
    common: Common,
}

#[derive(ClapArgs)]
struct Evt {
    /// Machine preset or file.
    #[arg(long, default_value_t = lab::evt::Options::default().machine)]
    machine: String,
    /// Random assignments per workload (the paper: 5,000).
    #[arg(long, default_value_t = lab::evt::Options::default().samples)]
    samples: usize,
    /// Independent samples per application (each its own assignments and measurement runs).
    #[arg(long, default_value_t = lab::evt::Options::default().seeds.seeds)]
    seeds: u64,
    /// Run-to-run variation of each measurement (docs/model.md; 0 = exact model, a staircase population).
    #[arg(long, default_value_t = lab::evt::Options::default().seeds.noise)]
    noise: f64,
    #[command(flatten)]
    common: Common,
}

#[derive(ClapArgs)]
struct Rda {
    /// Machine preset or file.
    #[arg(long, default_value_t = lab::rda::Options::default().machine)]
    machine: String,
    /// Cost of one pp_begin / pp_end call in the overhead study, µs (default: measured on cosched's
    /// real runtime by scripts/bench-pp).
    #[arg(long, default_value_t = lab::rda::Options::default().pp_cost_us)]
    pp_cost_us: f64,
    #[command(flatten)]
    seeds: SeedArgs,
    #[command(flatten)]
    common: Common,
}

#[derive(ClapArgs)]
struct Optimum {
    #[command(flatten)]
    seeds: SeedArgs,
    /// Seeds of the EVT coverage check (each: random assignments, a POT estimate and its interval).
    #[arg(long, default_value_t = lab::optimum::Options::default().coverage_seeds)]
    coverage_seeds: u64,
    /// Random assignments per EVT estimate (the statistical study's 1,000).
    #[arg(long, default_value_t = lab::optimum::Options::default().samples)]
    samples: usize,
    #[command(flatten)]
    common: Common,
}

#[derive(ClapArgs)]
struct Quintet {
    #[command(flatten)]
    seeds: SeedArgs,
    /// Random assignments per estimate of the best static co-schedule (where threads fit the contexts).
    #[arg(long, default_value_t = lab::quintet::Options::default().samples)]
    samples: usize,
    /// Random time-shared partitions per estimate of the best partition (where threads outnumber contexts).
    #[arg(long, default_value_t = lab::quintet::Options::default().partition_samples)]
    partition_samples: usize,
    /// Run only these papers' studies, comma-separated: slits, efs, rda, perf-fair, statistical (default: all five).
    #[arg(long, value_delimiter = ',')]
    studies: Option<Vec<String>>,
    /// Seeds of the distance to the bound (at least --seeds; the further seeds run CFS, the paper's policy and quintet only): a policy beats the bound only at 10 or more.
    #[arg(long, default_value_t = lab::quintet::Options::default().bound_seeds)]
    bound_seeds: u64,
    #[command(flatten)]
    common: Common,
}

/// Run the named rerun, printing its report and writing its CSVs.
pub fn run(a: Args) -> Result<(), String> {
    let name = match &a.paper {
        Paper::Efs(_) => "efs",
        Paper::PerfFair(_) => "perf-fair",
        Paper::Slits(_) => "slits",
        Paper::Evt(_) => "evt",
        Paper::Rda(_) => "rda",
        Paper::Optimum(_) => "optimum",
        Paper::Quintet(_) => "quintet",
    };
    crate::progress::begin(format!("paper {name}"));
    lab::report_progress_to(crate::progress::stderr());
    match a.paper {
        Paper::Efs(a) => {
            let o = lab::efs::Options {
                machine: a.machine,
                quick: a.quick,
                seeds: a.seeds.into(),
                timing: !a.common.no_timing,
            };
            Printer::run(&a.common.out, |s| lab::efs::run(&o, s))
        }
        Paper::PerfFair(a) => {
            let o = perf_fair::Options {
                machine: a.machine,
                seeds: a.seeds.into(),
                solo_seconds: a.solo_seconds,
                mixes: a.mixes,
                bw_range: perf_fair::BwRange::parse(&a.bw_range).map_err(|e| e.to_string())?,
                job_length: !a.no_job_length,
                timing: !a.common.no_timing,
            };
            Printer::run(&a.common.out, |s| perf_fair::run(&o, s))
        }
        Paper::Slits(a) => {
            let o = lab::slits::Options {
                machine: a.machine,
                seeds: a.seeds.into(),
                ablation_seeds: a.ablation_seeds,
                timing: !a.common.no_timing,
            };
            Printer::run(&a.common.out, |s| lab::slits::run(&o, s))
        }
        Paper::Evt(a) => {
            let o = lab::evt::Options {
                machine: a.machine,
                samples: a.samples,
                seeds: Seeds { seeds: a.seeds, noise: a.noise },
                timing: !a.common.no_timing,
            };
            Printer::run(&a.common.out, |s| lab::evt::run(&o, s))
        }
        Paper::Rda(a) => {
            let o = lab::rda::Options {
                machine: a.machine,
                pp_cost_us: a.pp_cost_us,
                seeds: a.seeds.into(),
                timing: !a.common.no_timing,
            };
            Printer::run(&a.common.out, |s| lab::rda::run(&o, s))
        }
        Paper::Optimum(a) => {
            let o = lab::optimum::Options {
                seeds: a.seeds.into(),
                coverage_seeds: a.coverage_seeds,
                samples: a.samples,
                timing: !a.common.no_timing,
            };
            Printer::run(&a.common.out, |s| lab::optimum::run(&o, s))
        }
        Paper::Quintet(a) => {
            let o = lab::quintet::Options {
                seeds: a.seeds.into(),
                samples: a.samples,
                partition_samples: a.partition_samples,
                studies: a.studies,
                bound_seeds: a.bound_seeds,
                timing: !a.common.no_timing,
            };
            Printer::run(&a.common.out, |s| lab::quintet::run(&o, s))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(subcommand)]
        paper: Paper,
    }

    fn parse(name: &str) -> Paper {
        Cli::try_parse_from(["paper", name]).map(|c| c.paper).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    fn same_seeds(flags: SeedArgs, declared: Seeds) {
        let s = Seeds::from(flags);
        assert_eq!((s.seeds, s.noise.to_bits()), (declared.seeds, declared.noise.to_bits()));
    }

    /// Each rerun's flags default to its options' declared defaults (the lab's `Default`), so a
    /// default changed there is the command line's too.
    #[test]
    fn every_flag_defaults_to_the_labs_declared_default() {
        let Paper::Efs(a) = parse("efs") else { unreachable!() };
        let d = lab::efs::Options::default();
        assert_eq!((a.machine, a.quick), (d.machine, d.quick));
        same_seeds(a.seeds, d.seeds);
        let Paper::PerfFair(a) = parse("perf-fair") else { unreachable!() };
        let d = perf_fair::Options::default();
        let bw = perf_fair::BwRange::parse(&a.bw_range).unwrap();
        assert_eq!((a.machine, a.mixes, bw, !a.no_job_length), (d.machine, d.mixes, d.bw_range, d.job_length));
        assert_eq!(a.solo_seconds.to_bits(), d.solo_seconds.to_bits());
        same_seeds(a.seeds, d.seeds);
        let Paper::Slits(a) = parse("slits") else { unreachable!() };
        let d = lab::slits::Options::default();
        assert_eq!((a.machine, a.ablation_seeds), (d.machine, d.ablation_seeds));
        same_seeds(a.seeds, d.seeds);
        let Paper::Evt(a) = parse("evt") else { unreachable!() };
        let d = lab::evt::Options::default();
        assert_eq!(
            (a.machine, a.samples, a.seeds, a.noise.to_bits()),
            (d.machine, d.samples, d.seeds.seeds, d.seeds.noise.to_bits())
        );
        let Paper::Rda(a) = parse("rda") else { unreachable!() };
        let d = lab::rda::Options::default();
        assert_eq!((a.machine, a.pp_cost_us.to_bits()), (d.machine, d.pp_cost_us.to_bits()));
        same_seeds(a.seeds, d.seeds);
        let Paper::Optimum(a) = parse("optimum") else { unreachable!() };
        let d = lab::optimum::Options::default();
        assert_eq!((a.coverage_seeds, a.samples), (d.coverage_seeds, d.samples));
        same_seeds(a.seeds, d.seeds);
        let Paper::Quintet(a) = parse("quintet") else { unreachable!() };
        let d = lab::quintet::Options::default();
        assert_eq!(
            (a.samples, a.partition_samples, a.bound_seeds, a.studies),
            (d.samples, d.partition_samples, d.bound_seeds, d.studies)
        );
        same_seeds(a.seeds, d.seeds);
    }
}
