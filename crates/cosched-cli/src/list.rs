//! `cosched list`.

use crate::opts::Format;
use crate::OneLine;
use clap::{Args as ClapArgs, ValueEnum};
use cosched_core::metrics::registry::Better;
use cosched_lab::knobs::{knobs, Knob};
pub use cosched_lab::list::{items, Item, ListedKnob, What};

/// What `cosched list` lists.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum Listed {
    /// Scheduling policies (`cosched_policies::registry`).
    Policies,
    /// Machine presets (`data/machines`).
    Machines,
    /// Workload presets (`data/workloads`).
    Workloads,
    /// Every metric a command prints: name, unit, which way is better (`cosched_core::metrics::registry`).
    Metrics,
    /// Every knob of a simulated run: the machine and workload, each policy
    /// family's declared options (`cosched_core::options!`), the engine's; the
    /// Python keyword, the flag, the default and the help line (Python: `cosched.knobs()`).
    Knobs,
}

impl Listed {
    /// The lab's listing, for all but the knobs.
    fn what(self) -> Option<What> {
        match self {
            Listed::Policies => Some(What::Policies),
            Listed::Machines => Some(What::Machines),
            Listed::Workloads => Some(What::Workloads),
            Listed::Metrics => Some(What::Metrics),
            Listed::Knobs => None,
        }
    }
}

/// `cosched list`'s arguments.
#[derive(ClapArgs)]
pub struct Args {
    /// What to list.
    what: Listed,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

/// `cosched list`: print the items.
pub fn run(a: Args) -> Result<(), String> {
    let Some(what) = a.what.what() else { return print_knobs(&knobs(), a.format) };
    let items = items(what).one_line()?;
    print(&items, a.format)
}

/// `cosched list knobs`: one row per knob, the real runtime's default beside
/// the simulator's where they differ.
fn print_knobs(rows: &[Knob], format: Format) -> Result<(), String> {
    let real = |k: &Knob| cosched_policies::knob::spec(&k.name).map(|s| s.real_default).unwrap_or_default();
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(rows).map_err(|e| e.to_string())?),
        Format::Csv => {
            println!("name,flag,kind,default,real_default,help");
            for k in rows {
                let help = crate::output::csv_field(&k.help);
                println!(
                    "{},{},{},{},{},{help}",
                    k.name,
                    k.flag,
                    k.kind,
                    crate::output::csv_field(&k.default),
                    real(k)
                );
            }
        }
        Format::Table => {
            let shown = |k: &Knob| match (k.default.as_str(), real(k)) {
                ("", _) if k.switch => "off".to_string(),
                ("", _) => "-".to_string(),
                (d, "") => d.to_string(),
                (d, r) => format!("{d} (run: {r})"),
            };
            let w = rows.iter().map(|k| k.name.len()).max().unwrap_or(4);
            let f = rows.iter().map(|k| k.flag.len()).max().unwrap_or(4);
            let d = rows.iter().map(|k| shown(k).chars().count()).max().unwrap_or(4);
            for k in rows {
                println!("{:w$}  {:f$}  {:d$}  {}", k.name, k.flag, shown(k), k.help);
            }
        }
    }
    Ok(())
}

fn print(items: &[Item], format: Format) -> Result<(), String> {
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(items).map_err(|e| e.to_string())?),
        Format::Csv => {
            println!("name,description");
            for i in items {
                println!("{},{}", i.name, crate::output::csv_field(&i.description));
            }
        }
        Format::Table => {
            let w = items.iter().map(|i| i.name.len()).max().unwrap_or(4);
            for i in items {
                let extra = match (i.contexts, i.threads, i.oracle) {
                    _ if i.unit.is_some() => format!(
                        "[{}{}] ",
                        i.unit.unwrap_or_default(),
                        match i.better {
                            Some(Better::Higher) => ", higher is better",
                            Some(Better::Lower) => ", lower is better",
                            _ => "",
                        }
                    ),
                    (Some(c), _, _) => format!("[{c} contexts] "),
                    (_, Some(1), _) => "[1 thread] ".into(),
                    (_, Some(t), _) => format!("[{t} threads] "),
                    (_, _, Some(true)) => "[oracle] ".into(),
                    _ => String::new(),
                };
                println!("{:w$}  {extra}{}", i.name, i.description);
            }
        }
    }
    Ok(())
}
