//! `cosched dram`: EFS Table 1 (§5.2) at the DRAM alone. One versus 2, 4 and 8 read streams on
//! the cycle-level controller of a machine's `[memory.dram]` (device timings, FR-FCFS, open
//! page), and the row-conflict table the memory-bus model reads, regenerated from the controller
//! (`--toml`: the `[memory.dram]` block to paste into the machine's file).

use crate::output::table;
use crate::OneLine;
use clap::Args as ClapArgs;
use cosched_lab::dram_check;

#[derive(ClapArgs)]
pub struct Args {
    /// Machine preset or file with a `[memory.dram]` section.
    #[arg(short, long, default_value = "i5-2500")]
    machine: String,
    /// Print the machine's `[memory.dram]` block with its table regenerated, instead of the check.
    #[arg(long)]
    toml: bool,
}

/// Run `cosched dram`.
pub fn run(a: Args) -> Result<(), String> {
    let m = cosched_lab::paper::machine(&a.machine).one_line()?;
    if a.toml {
        print!("{}", dram_check::toml_block(&m).one_line()?);
        return Ok(());
    }
    let t = dram_check::check(&m).one_line()?;
    println!(
        "# {}: {} read streams of {} lines each, {} outstanding, on the cycle-level controller (parallel / serial: 1 = no cost to each other)",
        m.name,
        dram_check::STREAMS.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", "),
        cosched_sim::dram::table::LINES,
        cosched_sim::dram::table::MLP
    );
    table(&t.markdown_rows());
    if let Some(cell) = dram_check::stale_cell(&m).one_line()? {
        return Err(format!(
            "{}: memory.dram.stretch is not what the controller measures ({cell}); `cosched dram -m {} --toml` regenerates it",
            m.name, m.name
        ));
    }
    Ok(())
}
