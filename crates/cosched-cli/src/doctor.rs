//! `cosched doctor`: the live machine's capabilities, one line each, with the fix where there is one.

use crate::opts::Format;
use clap::Args as ClapArgs;
use cosched_linux::describe::Description;
use cosched_linux::host::Host;
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
    // What `cosched run` without -m tells policies about this machine.
    let description = Description::of(&Host::live(), None, None).line();
    match a.format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({ "probe": p, "report": rep, "description": description }))
                .map_err(|e| e.to_string())?
        ),
        _ => {
            for c in &rep {
                println!("{} {:20} {} — {}", if c.ok { "ok  " } else { "MISS" }, c.name, c.found, c.consequence);
            }
            if p.pmu == cosched_linux::PmuStatus::Available {
                for (ev, r) in cosched_linux::counters::PerfSource::event_support() {
                    match r {
                        Ok(()) => println!("ok   {:20} event {ev} opens", "counter event"),
                        Err(e) => println!("MISS {:20} event {ev}: {e} — policies reading it see 0", "counter event"),
                    }
                }
            }
            println!("note {:20} without -m, `cosched run` describes this machine as {description}", "description");
            println!(
                "note {:20} without counters, efs/perf-fair/slits-* run on `cosched run --counters FILE` (recorded rates) and slits-* on `--profile` from `cosched probe`",
                "runtime"
            );
        }
    }
    Ok(())
}
