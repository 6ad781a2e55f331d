//! `cosched characterise`: any command characterised without a PMU. The experiment is
//! `cosched_host::characterise` (each job of a mix alone and beside cache pirates, bandwidth
//! bandits and a compute loop, measured or read from `--from-record`, then fitted by the lab);
//! this face checks the flags, reads and writes the files and prints the fit.

use crate::live::ProcessOpts;
use crate::OneLine;
use clap::Args as ClapArgs;
use cosched_host::characterise::{self, Characterised, Source};
use cosched_lab::characterise::{
    search::{coarse_points, REFINE},
    unfit, Pattern, APKI, FOOTPRINTS, PATTERNS, WITH_NONE,
};
use cosched_linux::characterise::{CoRun, Record};
use std::path::PathBuf;

#[derive(ClapArgs)]
pub struct Args {
    /// Mix file whose jobs are characterised (one instance each; every job must end on its own: fixed work).
    #[arg(long, short = 'w', required_unless_present = "from_record")]
    workload: Option<PathBuf>,
    /// Fit a record written earlier by --record instead of measuring.
    #[arg(long, conflicts_with = "workload")]
    from_record: Option<PathBuf>,
    /// Calibrated preset of this machine (name or file from `cosched calibrate`): its LLC, latency sweep and bandwidth model the co-runners.
    #[arg(long, short = 'm')]
    machine: String,
    /// Write the workload file here.
    #[arg(long, short = 'o')]
    out: PathBuf,
    /// Also write the measurements (JSON), to fit again later with --from-record.
    #[arg(long)]
    record: Option<PathBuf>,
    /// Rounds of each job's measurements at least (a round: one solo run and one of each co-run; medians are used, every run is kept in --record).
    #[arg(long, default_value_t = characterise::DEFAULT_REPEAT)]
    repeat: u32,
    /// Go on after --repeat rounds until every co-run's slowdown is known within ±this percent at 95% (0: exactly --repeat rounds).
    #[arg(long, default_value_t = characterise::DEFAULT_WITHIN_PCT)]
    within: f64,
    /// Most rounds of one job (also --max-repeat, its name before the checks shared the rounds' options).
    #[arg(long, default_value_t = characterise::DEFAULT_MAX_ROUNDS, alias = "max-repeat")]
    max_rounds: u32,
    /// Most seconds of one job's rounds (checked between rounds).
    #[arg(long, default_value_t = characterise::DEFAULT_BUDGET_S)]
    budget_s: f64,
    /// Pirates added to each job where its slowdown changes most between neighbouring pirates, beyond its noise (the adaptive sweep, an option: measuring, default 0, the fixed sweep only; at most 8; with --from-record: keep the first N the record added, default all; 0: the fixed sweep only, its ablation).
    #[arg(long)]
    added_pirates: Option<u32>,
    /// Access patterns the fit may choose.
    #[arg(long, value_enum, default_value = "both")]
    access: Access,
    /// Fit each job whole even where its own progress reports show phases (the ablation of the phases).
    #[arg(long)]
    whole: bool,
    /// Also run each job beside a compute loop, which holds no cache, and fit the slowdown there as the factor another busy core stretches its time by (design note 67; an option: on held-out mixes it made no prediction measurably better); with --from-record: fit with the record's compute-loop runs.
    #[arg(long)]
    presence: bool,
    #[command(flatten)]
    live: ProcessOpts,
}

/// The models `characterise --access` lets the fit choose (design notes 61 and 64).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Access {
    /// Random, or sequential where the data exclude random.
    Both,
    /// Random only (the ablation of the sequential pattern).
    Random,
    /// No memory traffic first, where the data do not exclude it (not better on held-out replays, design note 64).
    All,
}

impl Access {
    /// The patterns the fit tries, in their order of preference.
    fn patterns(self) -> &'static [Pattern] {
        match self {
            Access::Both => &PATTERNS,
            Access::Random => &[Pattern::Random],
            Access::All => &WITH_NONE,
        }
    }
}

/// `cosched characterise`.
pub fn run(a: Args) -> Result<(), String> {
    crate::output::check_out_file("--out", Some(&a.out))?;
    crate::output::check_out_file("--record", a.record.as_deref())?;
    let settings = characterise::settings(
        a.repeat,
        a.within,
        a.max_rounds,
        a.budget_s,
        a.added_pirates,
        a.access.patterns(),
        !a.whole,
        a.presence,
    )
    .one_line()?;
    let job = Job {
        workload: a.workload.as_deref(),
        from_record: a.from_record.as_deref(),
        machine: &a.machine,
        out: &a.out,
        record: a.record.as_deref(),
        settings,
        live: &a.live,
        fit_to_stderr: false,
    };
    characterise(&job)
}

/// One characterisation: what `cosched characterise` was given (and what
/// `cosched run --characterise` gives it, `crate::characterised`).
pub(crate) struct Job<'a> {
    /// The mix measured (or `from_record`).
    pub workload: Option<&'a std::path::Path>,
    /// A record to fit instead of measuring.
    pub from_record: Option<&'a std::path::Path>,
    /// The calibrated machine (name or file).
    pub machine: &'a str,
    /// The workload file written.
    pub out: &'a std::path::Path,
    /// Where the measurements are written too, if anywhere.
    pub record: Option<&'a std::path::Path>,
    /// How it measures and fits.
    pub settings: characterise::Settings<'a>,
    /// How processes are run.
    pub live: &'a ProcessOpts,
    /// Print the fit on stderr (stdout is the run's report).
    pub fit_to_stderr: bool,
}

/// Measure (or read) and fit a mix's jobs (`cosched_host::characterise`), write the workload
/// file and print the fit.
pub(crate) fn characterise(a: &Job) -> Result<(), String> {
    let m = cosched_machine::presets::machine(a.machine).map_err(|e| e.to_string())?;
    let report = crate::progress::stderr();
    characterise::machine_ready(&m, &report).one_line()?;
    let settings = &a.settings;
    let rec: Record = match (a.from_record, a.workload) {
        (Some(p), _) => {
            let text = crate::input::read_config(p)?;
            let record = serde_json::from_str(&text).map_err(|e| {
                // The flag takes the JSON a measuring run wrote with --record, not a mix: say so.
                format!(
                    "{}: not a characterisation record (the JSON `characterise --record FILE` writes; a mix \
                     goes to -w): {e}",
                    p.display()
                )
            })?;
            let file = p.display().to_string();
            characterise::record(&m, settings, Source::Record { file: &file, record }, &report).one_line()?
        }
        (None, Some(w)) => {
            let mix = crate::live::load_mix(w)?;
            let base = a.live.builder(a.machine)?;
            // Each co-run is a real run of the job: a long one is not silent for ten seconds.
            crate::progress::begin(format!("characterise {}", w.display()));
            let date = characterise::today();
            characterise::record(&m, settings, Source::Measure { mix: &mix, base: &base, date: &date }, &report)
                .one_line()?
        }
        (None, None) => return Err("give -w MIX to measure or --from-record FILE to fit".into()),
    };
    if let Some(p) = a.record {
        let text = serde_json::to_string_pretty(&rec).map_err(|e| e.to_string())?;
        crate::output::write_whole(p, &(text + "\n"))?;
    }
    let out_name = a.out.display().to_string();
    let Characterised { record: rec, fitted, workload: text } =
        characterise::fit(&m, a.machine, settings, rec, &out_name, &|j| {
            eprintln!(
                "characterise: fitting {} ({} grid points, {} more around the best)",
                j.name,
                coarse_points(settings.patterns),
                REFINE * REFINE
            )
        })
        .one_line()?;
    // Whole or not at all: an interrupted characterisation leaves no half file.
    crate::output::write_whole(a.out, &text)?;
    use std::fmt::Write;
    let mut shown = String::new();
    let mut rows = vec![[
        "job",
        "solo s",
        "spread",
        "access",
        "footprint MB (95%)",
        "× the LLC",
        "LLC apki (95%)",
        "MLP",
        "presence",
        "fit RMS",
    ]
    .map(String::from)
    .to_vec()];
    // Each job's whole-run fit, then its phases' where its progress reports show phases.
    let mut fitted_rows: Vec<(&cosched_linux::characterise::JobRecord, &cosched_lab::characterise::Fit, &[f64])> =
        vec![];
    for (i, j) in rec.jobs.iter().enumerate() {
        fitted_rows.push((j, &fitted.fits[i], &fitted.predicted[i]));
        for p in fitted.phased[i].iter() {
            fitted_rows.extend(p.records.iter().zip(&p.fits).zip(&p.predicted).map(|((r, f), v)| (r, f, v.as_slice())));
        }
    }
    for &(j, f, _) in &fitted_rows {
        let flags = unfit(j);
        if !flags.is_empty() {
            let what: Vec<String> = flags.iter().map(ToString::to_string).collect();
            eprintln!(
                "characterise: {}: not characterisable on this host as measured: {}; its fit is kept but not to be \
                 trusted: rerun with a larger --repeat or on a quieter host",
                j.name,
                what.join("; ")
            );
        }
        rows.push(vec![
            j.name.clone(),
            format!("{:.3}", j.solo_s),
            // The spread a job is judged by (the flag's figure), not the runs' raw range.
            format!("{:.1}%", 100.0 * cosched_lab::characterise::solo_spread(j)),
            format!("{}{}", f.access, if f.either { "?" } else { "" }),
            format!("{} ({}-{})", f.footprint_mb, f.footprint_range.0, f.footprint_range.1),
            format!("{:.2}", f.footprint_mb / m.cache.llc_mb),
            format!("{} ({}-{})", f.llc_apki, f.apki_range.0, f.apki_range.1),
            f.mlp.to_string(),
            j.presence.as_ref().map_or("-".into(), |_| format!("{:.3}", f.presence)),
            format!("{:.1}%", 100.0 * f.rms),
        ]);
    }
    // Aligned by display width: a job's name may hold wide characters.
    shown.push_str(&crate::output::table_string(&rows));
    let _ = writeln!(
        shown,
        "spread: of its solo runs, as three runs would show it (d₂ = {} × their relative standard deviation; \
         above {:.0}% its fit is not to be trusted); access: random (hits shrink with the LLC \
         held) or sequential (every access misses until the footprint fits; prefetched), told apart by the \
         response to pirates versus bandits (?: another pattern fits inside the interval too), or none (no \
         memory traffic, --access all: its intervals are those of every model inside it); footprint: the LLC share the job's misses fit (× the LLC: of this host's {} \
         MB; 1.00 or more: it misses beyond the whole LLC); LLC apki: LLC accesses per 1,000 instructions; \
         (95%): the lowest and highest value of the models inside the fit's 95% confidence region (Beale's, \
         floored at the noise of the runs; bounded by the grid's {}-{} × the LLC and {}-{} apki); MLP: misses in \
         flight (random: assumed 1, only accesses per MLP show in wall time; sequential: Little's law at the \
         machine's bandwidth and latency); presence: its slowdown beside a compute loop on the other core, \
         which holds no cache (the factor that stretches its time while another core is busy, at least 1; -: not \
         fitted, without --presence); fit RMS: how far the fitted slowdowns lie from the measured ones",
        cosched_lab::characterise::D2_THREE,
        100.0 * cosched_lab::characterise::NOISY_SPREAD,
        m.cache.llc_mb,
        FOOTPRINTS[0],
        FOOTPRINTS[FOOTPRINTS.len() - 1],
        APKI[0],
        APKI[APKI.len() - 1]
    );
    let _ = writeln!(
        shown,
        "\nco-runs: slowdown beside each cache pirate (a program holding SIZE MiB of the LLC) and bandwidth bandit \
         (one drawing GB/s from memory), and a compute loop (one holding no cache), measured/fitted (1.00: as fast as alone; pirates past the fixed sweep's \
         were added where the slowdown changed most, --added-pirates):"
    );
    for &(j, f, p) in &fitted_rows {
        let each = |v: &[CoRun], p: &[f64], unit: &str| {
            v.iter()
                .zip(p)
                .map(|(r, p)| format!("{}{unit} {:.2}/{p:.2}", r.size, r.slowdown))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let (pp, bp) = p.split_at(j.pirates.len());
        let compute = j
            .presence
            .as_ref()
            .map_or(String::new(), |r| format!("; compute loop {:.2}/{:.2}", r.slowdown, f.presence));
        let _ = writeln!(
            shown,
            "  {}: pirates {}; bandits {}{compute}",
            j.name,
            each(&j.pirates, pp, " MiB"),
            each(&j.bandits, bp, " GB/s")
        );
    }
    let _ = writeln!(
        shown,
        "wrote {} ({} job(s); fields tagged [M] measured, [D] fitted, [A] assumed in its sources)",
        a.out.display(),
        rec.jobs.len()
    );
    if fitted.phased.iter().any(Option::is_some) {
        let _ = writeln!(
            shown,
            "JOB phase K: the job's time in its K-th kind of phase, told apart by its own progress reports \
             (`progress ... OPS ops T s` lines), alone and beside each co-runner; the workload file runs its phases \
             in the order its solo run showed them, not the whole-run fit"
        );
    }
    // Beside a run's JSON (`run --characterise --format json`) the fit goes to stderr.
    if a.fit_to_stderr {
        eprint!("{shown}");
    } else {
        print!("{shown}");
    }
    Ok(())
}
