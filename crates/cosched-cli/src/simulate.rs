//! `cosched simulate`: one policy, one machine, one workload.

use crate::error::RunError;
use crate::opts::{Format, RunOpts};
use crate::output::{csv, opt, table};
use crate::sweep::{config, prepare};
use crate::OneLine;
use clap::Args as ClapArgs;
use cosched_core::num::{count_text, shortest};
use cosched_machine::ChromeTrace;
use cosched_machine::TraceSlice;
use cosched_sim::experiment::Report;

/// `cosched simulate`'s arguments.
#[derive(ClapArgs)]
pub struct Args {
    #[command(flatten)]
    run: RunOpts,
    /// Policy (`cosched list policies`).
    #[arg(long, short = 'p', default_value = "cfs")]
    policy: String,
    /// Seed of every random draw (workload jitter, policy, counter noise).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
    /// Write the schedule as Chrome/Perfetto trace JSON (open in ui.perfetto.dev).
    #[arg(long)]
    trace: Option<String>,
}

/// `cosched simulate`: print one run's report.
pub fn run(mut a: Args) -> Result<(), String> {
    crate::output::check_out_file("--trace", a.trace.as_deref().map(std::path::Path::new))?;
    // Runs longer than a few seconds print progress lines on stderr (the engine's).
    a.run.progress = crate::progress::stderr();
    // Before the first event (the plan, solo runs) a large machine can take a minute: the
    // heartbeat says it is still running at least every 10 s.
    crate::progress::begin(format!("simulate {} on {}", a.run.workload, a.run.machine));
    let resolved = a.run.resolve()?; // a machine file's notes
    let cfg = config(&a.run, &a.policy, a.seed).one_line()?;
    let prep = prepare(&resolved, a.seed).one_line()?;
    let report = match &a.trace {
        Some(path) => {
            // A regular file is written whole (a failed run leaves no half trace and the old file
            // as it was); a device or FIFO is written into, never replaced.
            let name = format!("--trace {path}");
            let out = cosched_machine::output::Output::create(path.as_ref(), &name).map_err(|e| e.to_string())?;
            let mut tr =
                ChromeTrace::new(out, &prep.varied.topology(), prep.plan.jobs.iter().map(|j| j.name.clone()).collect())
                    .map_err(|e| format!("{name}: cannot write: {e}"))?;
            let mut sink = |s| tr.slice(s);
            let r = prep.run(&a.run, &cfg, Some(&mut sink)).one_line()?;
            let out = tr.finish().map_err(|e| format!("{name}: cannot write: {e}"))?;
            out.commit().map_err(|e| e.to_string())?;
            eprintln!("trace: wrote {path} (open it in ui.perfetto.dev or chrome://tracing)");
            r
        }
        None => prep.run(&a.run, &cfg, None).one_line()?,
    };
    print_report(&report, a.format)
}

/// One policy on one machine and workload: the report `cosched simulate
/// --format json` prints (Python's `cosched.simulate` returns the same);
/// `trace` receives every slice of the schedule.
pub fn report(
    run: &RunOpts,
    policy: &str,
    seed: u64,
    trace: Option<&mut dyn FnMut(TraceSlice)>,
) -> Result<Report, RunError> {
    let resolved = cosched_lab::RunSpec::resolve(run)?;
    let cfg = config(run, policy, seed)?;
    prepare(&resolved, seed)?.run(run, &cfg, trace)
}

fn print_report(r: &Report, format: Format) -> Result<(), String> {
    let m = &r.metrics;
    // Each metric as the table shows it and as the CSV writes it: counts whole, other numbers in
    // their shortest form that reads back to the same value (for pandas, as the JSON has them).
    let exact = |v: f64| shortest(v);
    let exact_opt = |v: Option<f64>| v.map_or(String::new(), shortest);
    let rows = vec![
        ("makespan_s", format!("{:.6}", m.run.makespan_s), exact(m.run.makespan_s)),
        ("throughput_gips", format!("{:.3}", m.run.throughput_gips), exact(m.run.throughput_gips)),
        ("stp", opt(m.run.stp, 3), exact_opt(m.run.stp)),
        ("antt", opt(m.run.antt, 3), exact_opt(m.run.antt)),
        ("unfairness", opt(m.run.unfairness, 3), exact_opt(m.run.unfairness)),
        ("energy_j", format!("{:.2}", m.run.energy_j), exact(m.run.energy_j)),
        ("energy_cpu_j", format!("{:.2}", m.run.energy_cpu_j), exact(m.run.energy_cpu_j)),
        ("energy_dram_j", format!("{:.2}", m.run.energy_dram_j), exact(m.run.energy_dram_j)),
        ("edp_js", format!("{:.3}", m.run.edp_js), exact(m.run.edp_js)),
        (
            "instructions_per_joule",
            format!("{:.4e}", m.run.instructions_per_joule),
            exact(m.run.instructions_per_joule),
        ),
        ("llc_misses", format!("{:.4e}", m.llc_misses), count_text(m.llc_misses)),
        ("l1_hits", format!("{:.4e}", m.l1_hits), count_text(m.l1_hits)),
        ("ctx_switches", m.ctx_switches.to_string(), m.ctx_switches.to_string()),
        ("migrations", m.migrations.to_string(), m.migrations.to_string()),
        ("explored_pct", format!("{:.3}", m.explored_pct), exact(m.explored_pct)),
        ("policy_events", m.policy_events.to_string(), m.policy_events.to_string()),
        ("decide_p50_us", opt(m.decide_p50_us, 3), exact_opt(m.decide_p50_us)),
        ("decide_p99_us", opt(m.decide_p99_us, 3), exact_opt(m.decide_p99_us)),
    ];
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(r).map_err(|e| e.to_string())?),
        Format::Csv => {
            let mut head = vec!["policy".to_string(), "machine".into(), "workload".into(), "seed".into()];
            let mut vals = vec![r.policy.clone(), r.machine.clone(), r.workload.clone(), r.seed.to_string()];
            head.extend(rows.iter().map(|(k, _, _)| k.to_string()));
            vals.extend(rows.iter().map(|(_, _, v)| v.clone()));
            csv(&[head, vals]);
        }
        Format::Table => {
            println!(
                "{} on {} running {} (seed {}){}",
                r.policy,
                r.machine,
                r.workload,
                r.seed,
                if r.oracle { " [oracle]" } else { "" }
            );
            let mut t = vec![vec!["metric".to_string(), "value".into()]];
            t.extend(rows.iter().map(|(k, v, _)| vec![k.to_string(), v.clone()]));
            table(&t);
            println!();
            let mut j = vec![vec![
                "job".to_string(),
                "threads".into(),
                "turnaround_s".into(),
                "solo_s".into(),
                "slowdown".into(),
            ]];
            for job in &r.jobs {
                j.push(vec![
                    job.name.clone(),
                    job.threads.to_string(),
                    format!("{:.6}", job.turnaround_s),
                    opt(job.solo_s, 6),
                    opt(job.slowdown, 3),
                ]);
            }
            table(&j);
        }
    }
    Ok(())
}
