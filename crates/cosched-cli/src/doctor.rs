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

/// The programs the real-machine commands start besides the user's, with what needs each.
const HELPERS: [(&str, &str); 2] = [
    (
        cosched_machine::mix::BENCH,
        "calibrate, characterise (its pirates, bandits and compute loop) and the development mixes run it",
    ),
    ("sh", "characterise starts each co-runner after a delay through sh -c"),
];

/// A helper program: where it was found, or where it was looked for.
#[derive(serde::Serialize)]
struct Helper {
    name: &'static str,
    ok: bool,
    found: String,
    needed_by: &'static str,
}

fn helpers() -> Vec<Helper> {
    HELPERS
        .iter()
        .map(|&(name, needed_by)| {
            let (ok, found) = cosched_machine::mix::command_found(name);
            Helper { name, ok, found, needed_by }
        })
        .collect()
}

pub fn run(a: Args) -> Result<(), String> {
    let p = Probe::live();
    let rep = p.report();
    let helpers = helpers();
    // What `cosched run` without -m tells policies about this machine.
    let description = Description::of(&Host::live(), None, None).line();
    match a.format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(
                &serde_json::json!({ "probe": p, "report": rep, "helpers": helpers, "description": description })
            )
            .map_err(|e| e.to_string())?
        ),
        _ => {
            for c in &rep {
                println!("{} {:20} {} — {}", if c.ok { "ok  " } else { "MISS" }, c.name, c.found, c.consequence);
            }
            for h in &helpers {
                println!("{} {:20} {} — {}", if h.ok { "ok  " } else { "MISS" }, h.name, h.found, h.needed_by);
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
