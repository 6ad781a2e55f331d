//! `cosched assign`: random thread assignments measured on the simulated
//! machine, the best one found, and the POT estimate of the optimum
//! (statistical thread assignment §4-6), optionally with SP-POT pruning.

use crate::flags::Flags;
use crate::opts::Format;
use crate::output::table;
use crate::progress::Progress;
use crate::OneLine;
use clap::Args as ClapArgs;
pub use cosched_lab::assign::{report, AssignOptions, AssignmentReport};
use cosched_lab::RunError;

/// `cosched assign`'s arguments.
#[derive(ClapArgs)]
pub struct Args {
    #[command(flatten)]
    options: Flags<AssignOptions>,
    /// Write every measured assignment's performance to this CSV (for `cosched evt`).
    #[arg(long)]
    dump: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

/// `cosched assign`: print the report (and `--dump` the measurements).
pub fn run(a: Args) -> Result<(), String> {
    crate::output::check_out_file("--dump", a.dump.as_deref().map(std::path::Path::new))?;
    let bar = Progress::new(format!("assign: {} on {}", a.options.workload, a.options.machine), "assignments");
    let mut dump = |perf: &[(usize, f64)], predicted: &[f64]| -> Result<(), RunError> {
        bar.finish();
        let Some(path) = &a.dump else { return Ok(()) };
        // In sample (measurement) order, with the predictor's score beside the
        // measurement; written before the estimate, so a failed fit loses nothing.
        let text: String = std::iter::once("sample,gips,predicted\n".to_string())
            .chain(perf.iter().zip(predicted).map(|((i, p), q)| format!("{i},{p},{q}\n")))
            .collect();
        crate::output::write_whole(std::path::Path::new(path), &text).map_err(RunError::option)
    };
    let rep = report(&a.options, &|n| bar.add(n as u64), &|| bar.tick(), &mut dump).one_line()?;
    if rep.pot.gpd_rejected_everywhere {
        eprintln!("{}: warning: {}", a.options.workload, crate::evt::REJECTED);
    }
    print(&rep, a.format)
}

fn print(rep: &AssignmentReport, format: Format) -> Result<(), String> {
    match format {
        crate::opts::Format::Json => println!("{}", serde_json::to_string_pretty(rep).map_err(|e| e.to_string())?),
        _ => {
            let p = &rep.pot;
            let mut rows = vec![
                vec!["quantity".to_string(), "value".into()],
                vec!["assignment population (placements)".into(), rep.population.clone()],
                vec!["samples drawn / measured".into(), format!("{} / {}", rep.samples, rep.measured)],
                vec!["best measured (GIPS)".into(), format!("{:.5}", rep.best)],
                vec!["POT upper bound (GIPS)".into(), format!("{:.5}", p.upb)],
                vec![format!("{:.0}% interval", p.confidence * 100.0), format!("[{:.5}, {:.5}]", p.ci.0, p.ci.1)],
                vec!["gap best→bound".into(), format!("{:.3}%", p.gap / p.upb * 100.0)],
                vec![
                    "threshold / exceedances / ξ".into(),
                    format!("{:.5} / {} / {:.4}", p.threshold, p.exceedances, p.fit.xi),
                ],
                vec!["P(sample holds a top-1% assignment)".into(), format!("{:.4}", rep.prob_sample_has_top_1pct)],
            ];
            if let Some(pl) = &rep.plain_pot {
                rows.push(vec![
                    "plain POT bound (all measured)".into(),
                    format!("{:.5} (SP-POT differs by {:+.3}%)", pl.upb, (p.upb / pl.upb - 1.0) * 100.0),
                ]);
            }
            table(&rows);
            println!("best assignment (context of each thread): {:?}", rep.best_assignment);
        }
    }
    Ok(())
}
