//! `cosched list`.

use crate::opts::Format;
use crate::OneLine;
use clap::{Args as ClapArgs, ValueEnum};
use cosched_core::metrics::registry::Better;
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
}

impl From<Listed> for What {
    fn from(l: Listed) -> What {
        match l {
            Listed::Policies => What::Policies,
            Listed::Machines => What::Machines,
            Listed::Workloads => What::Workloads,
            Listed::Metrics => What::Metrics,
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
    let items = items(a.what.into()).one_line()?;
    print(&items, a.format)
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
