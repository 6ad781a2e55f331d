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
    comparison, default_policies, gap_legend, identical_lines, regime_lines, BoundCache, BoundCost, Comparing,
    Comparison, Steps, COLUMNS,
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
    #[arg(long, default_value = cosched_lab::compare::DEFAULT_BASELINE)]
    baseline: String,
    /// Number of seeds (seed, seed+1, …).
    #[arg(long, default_value_t = cosched_lab::compare::DEFAULT_SEEDS)]
    seeds: u64,
    /// First seed.
    #[arg(long, default_value_t = cosched_lab::compare::DEFAULT_FIRST_SEED)]
    seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
    /// Skip the bound of each seed (the gap_to_bound_pct column: the best static partition with
    /// idle contexts allowed, exact or its EVT estimate, for any thread count; most of the run's time).
    #[arg(long = "no-bound", visible_alias = "no-gap-to-best")]
    no_bound: bool,
    /// Compute each seed's bound again rather than reuse the one kept in the cache folder
    /// (COSCHED_CACHE_DIR, else ~/.cache/cosched; a bound is reused only for the same machine,
    /// workload, seed and model version: any change to the code or the presets is a new model).
    #[arg(long = "fresh-bound", conflicts_with = "no_bound")]
    fresh_bound: bool,
    /// The table's columns, comma-separated, or `all` (default: those that fit 160 characters:
    /// speedup, gap_to_bound_pct, makespan_s, antt, unfairness, energy_j, ctx_switches, migrations,
    /// decide_p99_us). CSV and JSON always carry every column.
    #[arg(long, value_delimiter = ',')]
    columns: Option<Vec<String>>,
    /// Do not name the policies that run outside their paper's regime, nor rerun them in it (under
    /// the table: Perf&Fair's family on jobs shorter than the paper's 100 s alone is rerun with every
    /// job stretched to 100 s, same machine, mix and seeds; RDA on a workload that declares no
    /// progress period is named).
    #[arg(long = "no-regime")]
    no_regime: bool,
}

/// The table's metric columns, their precision and whether the default table
/// shows them: `(name, digits, default?)`; a precision of `None` prints in
/// scientific notation. Every cell is a mean ±half-width of its 95% interval.
const TABLE: [(&str, Option<usize>, bool); 13] = [
    ("speedup", Some(3), true),
    ("gap_to_bound_pct", Some(2), true),
    ("makespan_s", Some(3), true),
    ("antt", Some(3), true),
    ("unfairness", Some(3), true),
    ("energy_j", Some(1), true),
    ("edp_js", Some(1), false),
    ("llc_misses", None, false),
    ("ctx_switches", Some(0), true),
    ("migrations", Some(0), true),
    ("explored_pct", Some(2), false),
    ("decide_p50_us", Some(2), false),
    ("decide_p99_us", Some(2), true),
];

/// The width the default table and the notes under it fit, in characters.
const WIDTH: usize = 160;

/// The table's columns (`--columns`: names of [`TABLE`], or `all`), in [`TABLE`]'s order.
fn chosen(columns: Option<&[String]>) -> Result<Vec<usize>, String> {
    let Some(names) = columns else { return Ok((0..TABLE.len()).filter(|&i| TABLE[i].2).collect()) };
    if names.is_empty() || names.iter().all(|n| n.is_empty()) {
        return Err("--columns: the list is empty (give column names, or all)".into());
    }
    if names.iter().any(|n| n == "all") {
        return Ok((0..TABLE.len()).collect());
    }
    let known: Vec<&str> = TABLE.iter().map(|t| t.0).collect();
    if let Some(bad) = names.iter().find(|n| !known.contains(&n.as_str())) {
        return Err(format!("--columns: `{bad}` is not a column of the table (known: {}, or all)", known.join(", ")));
    }
    Ok((0..TABLE.len()).filter(|&i| names.iter().any(|n| n == TABLE[i].0)).collect())
}

/// `compare --help`'s column legend, from the metric registry.
fn legend() -> String {
    let names: Vec<&str> = COLUMNS.iter().map(|(n, _)| *n).collect();
    format!(
        "Columns: {}. Table: mean ±half-width of the 95% interval over seeds (speedup is headed \
         speedup_vs_<baseline>); ` *` after a gap_to_bound_pct cell: above the bound on average. Under the \
         table: rows that are the same simulated outcome on every seed, with what each policy found to act \
         on; the bound per seed; policies outside their paper's regime. --format csv: <metric>_mean, \
         <metric>_lo, <metric>_hi as numbers (loads with pandas.read_csv). Every metric: cosched list metrics.",
        cosched_core::metrics::registry::legend(&names)
    )
}

/// `cosched compare`: print the comparison.
pub fn run(a: Args) -> Result<(), String> {
    let columns = chosen(a.columns.as_deref())?;
    let resolved = a.run.resolve()?; // a machine file's notes
    let names = a.policies.clone().unwrap_or_else(default_policies);
    let started = std::time::Instant::now();
    let cache = bound_cache(&a)?;
    let bar = Progress::new(format!("compare: {} on {}", a.run.workload, a.run.machine), "runs");
    let what = Comparing {
        policies: &names,
        customs: &[],
        baseline: &a.baseline,
        first_seed: a.seed,
        seeds: a.seeds,
        gap: !a.no_bound,
        regimes: !a.no_regime,
        bound_cache: cache.as_ref(),
    };
    let steps = Steps { total: &|n| bar.add(n as u64), tick: &|| bar.tick() };
    let cmp = comparison(&resolved, &what, &steps).one_line()?;
    bar.finish();
    for note in &cmp.notes {
        eprintln!("note: {note}");
    }
    if let Some(cost) = &cmp.bound_cost {
        eprintln!("{}", bound_cost_line(cost, started.elapsed().as_secs_f64(), cache.as_ref()));
    }
    print(&cmp, a.format, &columns)
}

/// Where the bound is kept: the cache folder, unless it was not asked for
/// (`--no-bound`, `--fresh-bound`). A folder named by COSCHED_CACHE_DIR that
/// cannot keep anything is refused before any run; the default one is noted
/// and the bound computed without it.
fn bound_cache(a: &Args) -> Result<Option<BoundCache>, String> {
    if a.no_bound || a.fresh_bound {
        return Ok(None);
    }
    match cosched_lab::cache::folder() {
        Ok(dir) => Ok(Some(BoundCache::new(&dir))),
        Err(e) if cosched_lab::cache::given() => Err(e.to_string()),
        Err(e) => {
            eprintln!("note: the bound is computed and not kept ({e})");
            Ok(None)
        }
    }
}

/// The line on stderr under a comparison: the bound's share of the whole
/// command's time, and whether it was computed or reused.
fn bound_cost_line(cost: &BoundCost, total_s: f64, cache: Option<&BoundCache>) -> String {
    let share = if total_s > 0.0 { 100.0 * cost.seconds / total_s } else { 0.0 };
    let mut line = format!(
        "compare: the bound took {:.1} s of {:.1} s ({share:.0}%): {} seed{} computed, {} reused",
        cost.seconds,
        total_s,
        cost.computed,
        if cost.computed == 1 { "" } else { "s" },
        cost.reused
    );
    match (cache, &cost.not_kept) {
        (_, Some(why)) => line += &format!("; not kept ({why})"),
        (Some(c), None) if cost.computed > 0 => {
            line += &format!(" (kept in {}: the same machine, workload and seeds reuse it)", c.dir().display())
        }
        (Some(_), None) => line += " (--fresh-bound computes it again)",
        (None, None) => {}
    }
    line
}

/// A mean ±half-width of its 95% interval (`None`: scientific notation); the
/// mean alone from one seed, where there is no interval.
fn ci(m: &MeanCi, prec: Option<usize>) -> String {
    let half = (m.hi - m.lo) / 2.0;
    match prec {
        Some(p) if m.n > 1 => format!("{:.p$} ±{:.p$}", m.mean, half),
        Some(p) => format!("{:.p$}", m.mean),
        None if m.n > 1 => format!("{:.3e} ±{:.1e}", m.mean, half),
        None => format!("{:.3e}", m.mean),
    }
}

/// Print a note under the table, wrapped to [`WIDTH`] (continuation lines indented by two).
fn note(text: &str) {
    for line in text.lines() {
        let opts = textwrap::Options::new(WIDTH).subsequent_indent("  ");
        for part in textwrap::wrap(line, opts) {
            println!("{part}");
        }
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

fn print(c: &Comparison, format: Format, columns: &[usize]) -> Result<(), String> {
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(c).map_err(|e| e.to_string())?),
        Format::Csv => print_csv(c),
        Format::Table => print_table(c, columns),
    }
    Ok(())
}

/// The marker of a policy above the bound on average (mean gap below zero).
const ABOVE: &str = " *";

fn print_table(c: &Comparison, columns: &[usize]) {
    let mut head = vec!["policy".to_string()];
    head.extend(columns.iter().map(|&i| match TABLE[i].0 {
        "speedup" => format!("speedup_vs_{}", c.baseline),
        n => n.to_string(),
    }));
    let mut rows = vec![head];
    let get = |n: &str| COLUMNS.iter().find(|(c, _)| *c == n).expect("a column of COLUMNS").1;
    let mut above = vec![];
    for r in &c.policies {
        let mut row = vec![format!("{}{}", r.policy, if r.oracle { " [oracle]" } else { "" })];
        for &i in columns {
            let (n, prec, _) = TABLE[i];
            row.push(match get(n)(r) {
                None => "-".into(),
                Some(m) if n == "gap_to_bound_pct" && m.mean < 0.0 => {
                    above.push(r.policy.as_str());
                    format!("{}{ABOVE}", ci(m, prec))
                }
                Some(m) => ci(m, prec),
            });
        }
        rows.push(row);
    }
    if !above.is_empty() {
        // Unmarked gap cells take the marker's width, so the numbers stay aligned.
        let k = 1 + columns.iter().position(|&i| TABLE[i].0 == "gap_to_bound_pct").expect("the marked column");
        for row in rows.iter_mut().skip(1).filter(|r| !r[k].ends_with(ABOVE)) {
            row[k].push_str(&" ".repeat(ABOVE.len()));
        }
    }
    println!(
        "{} on {} ({} threads), {} seed(s); speedup = {} makespan / policy makespan; every cell mean ±95% CI",
        c.workload,
        c.machine,
        c.threads.map_or("preset".into(), |t| t.to_string()),
        c.seeds.len(),
        c.baseline
    );
    table_fit(&rows);
    let hidden: Vec<&str> = (0..TABLE.len()).filter(|i| !columns.contains(i)).map(|i| TABLE[i].0).collect();
    if !hidden.is_empty() {
        note(&format!("more columns: {} (--columns all, or --format csv)", hidden.join(", ")));
    }
    for line in identical_lines(&c.identical) {
        note(&line);
    }
    if !above.is_empty() {
        note(&format!(
            "*{} above the bound on average (mean gap below 0): the bound is the best of a family of static \
             partitions (below), which a policy that moves threads can exceed; whether it beats the bound is decided below",
            if above.len() == 1 { format!(" {} is", above[0]) } else { format!(" {} are", above.join(", ")) },
        ));
    }
    match (&c.best_static, &c.no_best_static) {
        (Some(b), _) => note(&gap_legend(b, &c.policies)),
        (None, why) => note(&format!("gap_to_bound_pct: -, {}", why.as_deref().unwrap_or_default())),
    }
    for line in regime_lines(&c.regimes, &c.baseline) {
        note(&line);
    }
}
