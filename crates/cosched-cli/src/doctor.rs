//! `cosched doctor`: the live machine's capabilities, one line each, with the fix where there is one.

use crate::opts::Format;
use clap::Args as ClapArgs;
use cosched_linux::Probe;

#[derive(ClapArgs)]
pub struct Args {
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

pub fn run(a: Args) -> Result<(), String> {
    let p = Probe::live();
    let rep = p.report();
    match a.format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({ "probe": p, "report": rep }))
                .map_err(|e| e.to_string())?
        ),
        _ => {
            for c in &rep {
                println!("{} {:20} {} — {}", if c.ok { "ok  " } else { "MISS" }, c.name, c.found, c.consequence);
            }
        }
    }
    Ok(())
}
