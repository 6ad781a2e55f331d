//! `cosched compare`: the project's main job. Every policy on the same
//! machine and workload over several seeds; speedup against a baseline
//! measured in the same run (per seed), mean and 95% t-interval.

use crate::opts::{Format, RunOpts};
use crate::output::{ci_cells, csv, table_fit};
use crate::progress::Progress;
use crate::OneLine;
use clap::Args as ClapArgs;
use cosched_core::stats::MeanCi;
use cosched_lab::compare::{
    comparison, default_policies, gap_legend, regime_lines, Comparing, Comparison, Steps, COLUMNS,
};

/// `cosched compare`'s arguments.
#[derive(ClapArgs)]
#[command(after_long_help = legend())]
pub struct Args {
    #[command(flatten)]
    run: RunOpts,
    /// Comma-separated policies (default: every non-oracle policy that needs no extra input).
    #[arg(long, value_delimiter = ',')]
    policies: Option<Vec<String>>,
    /// The policy speedups are measured against.
    #[arg(long, default_value = "cfs")]
    baseline: String,
    /// Number of seeds (seed, seed+1, …).
    #[arg(long, default_value_t = 3)]
    seeds: u64,
    /// First seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
    /// Skip the bound of each seed (the gap_to_bound_pct column: the best static partition with
    /// idle contexts allowed, exact or its EVT estimate, for any thread count; most of the run's time).
    #[arg(long = "no-bound", visible_alias = "no-gap-to-best")]
    no_bound: bool,
    /// Do not name the policies that run outside their paper's regime, nor rerun them in it (under
    /// the table: Perf&Fair's family on jobs shorter than the paper's 100 s alone is rerun with every
    /// job stretched to 100 s, same machine, mix and seeds; RDA on a workload that declares no
    /// progress period is named).
    #[arg(long = "no-regime")]
    no_regime: bool,
}

/// The table's metric columns and their precision: `(name, digits, interval?)`;
/// a precision of `None` prints in scientific notation.
const TABLE: [(&str, Option<usize>, bool); 13] = [
    ("speedup", Some(3), true),
    ("gap_to_bound_pct", Some(2), true),
    ("makespan_s", Some(4), true),
    ("antt", Some(3), true),
    ("unfairness", Some(3), true),
    ("energy_j", Some(1), false),
    ("edp_js", Some(2), false),
    ("llc_misses", None, false),
    ("ctx_switches", Some(0), false),
    ("migrations", Some(0), false),
    ("explored_pct", Some(2), false),
    ("decide_p50_us", Some(2), false),
    ("decide_p99_us", Some(2), false),
];

/// `compare --help`'s column legend, from the metric registry.
fn legend() -> String {
    let names: Vec<&str> = COLUMNS.iter().map(|(n, _)| *n).collect();
    format!(
        "Columns: {}. Table: mean ±half-width of the 95% interval over seeds (speedup is headed \
         speedup_vs_<baseline>). --format csv: <metric>_mean, <metric>_lo, <metric>_hi as numbers \
         (loads with pandas.read_csv). Every metric: cosched list metrics.",
        cosched_core::metrics::registry::legend(&names)
    )
}

/// `cosched compare`: print the comparison.
pub fn run(a: Args) -> Result<(), String> {
    let resolved = a.run.resolve()?; // a machine file's notes
    let names = a.policies.clone().unwrap_or_else(default_policies);
    let bar = Progress::new(format!("compare: {} on {}", a.run.workload, a.run.machine), "runs");
    let what = Comparing {
        policies: &names,
        customs: &[],
        baseline: &a.baseline,
        first_seed: a.seed,
        seeds: a.seeds,
        gap: !a.no_bound,
        regimes: !a.no_regime,
    };
    let steps = Steps { total: &|n| bar.add(n as u64), tick: &|| bar.tick() };
    let cmp = comparison(&resolved, &what, &steps).one_line()?;
    bar.finish();
    for note in &cmp.notes {
        eprintln!("note: {note}");
    }
    print(&cmp, a.format)
}

fn ci(m: &MeanCi, prec: usize) -> String {
    if m.n > 1 {
        format!("{:.prec$} ±{:.prec$}", m.mean, (m.hi - m.lo) / 2.0)
    } else {
        format!("{:.prec$}", m.mean)
    }
}

/// The CSV for pandas: one row per policy, every metric as three numeric
/// columns `<metric>_mean`, `<metric>_lo`, `<metric>_hi` (the 95% interval
/// over seeds; empty where a metric is not defined, e.g. antt without solo runs).
fn print_csv(c: &Comparison) {
    let mut header =
        vec!["policy".to_string(), "oracle".into(), "baseline".into(), "seeds".into(), "beats_bound".into()];
    for (name, _) in &COLUMNS {
        for part in ["mean", "lo", "hi"] {
            header.push(format!("{name}_{part}"));
        }
    }
    let mut rows = vec![header];
    for r in &c.policies {
        let beats = r.beats_bound.map_or(String::new(), |b| b.to_string());
        let mut row =
            vec![r.policy.clone(), r.oracle.to_string(), c.baseline.clone(), r.makespan_s.n.to_string(), beats];
        for (_, get) in &COLUMNS {
            row.extend(ci_cells(get(r)));
        }
        rows.push(row);
    }
    csv(&rows);
}

fn print(c: &Comparison, format: Format) -> Result<(), String> {
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(c).map_err(|e| e.to_string())?),
        Format::Csv => print_csv(c),
        Format::Table => {
            let mut head = vec!["policy".to_string()];
            head.extend(TABLE.iter().map(|(n, _, _)| match *n {
                "speedup" => format!("speedup_vs_{}", c.baseline),
                n => n.to_string(),
            }));
            let mut rows = vec![head];
            let get = |n: &str| COLUMNS.iter().find(|(c, _)| *c == n).expect("a column of COLUMNS").1;
            for r in &c.policies {
                let mut row = vec![format!("{}{}", r.policy, if r.oracle { " [oracle]" } else { "" })];
                for (n, prec, interval) in TABLE {
                    row.push(match (get(n)(r), prec) {
                        (None, _) => "-".into(),
                        (Some(m), Some(p)) if interval => ci(m, p),
                        (Some(m), Some(p)) => format!("{:.p$}", m.mean),
                        (Some(m), None) => format!("{:.3e}", m.mean),
                    });
                }
                rows.push(row);
            }
            println!(
                "{} on {} ({} threads), {} seed(s); speedup = {} makespan / policy makespan, mean ±95% CI",
                c.workload,
                c.machine,
                c.threads.map_or("preset".into(), |t| t.to_string()),
                c.seeds.len(),
                c.baseline
            );
            table_fit(&rows);
            match (&c.best_static, &c.no_best_static) {
                (Some(b), _) => println!("{}", gap_legend(b, &c.policies)),
                (None, why) => println!("gap_to_bound_pct: -, {}", why.as_deref().unwrap_or_default()),
            }
            for line in regime_lines(&c.regimes, &c.baseline) {
                println!("{line}");
            }
        }
    }
    Ok(())
}
