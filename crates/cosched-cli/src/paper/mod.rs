//! `cosched paper NAME`: rerun a paper's evaluation on the simulator and print
//! our figures beside the paper's (markdown on stdout, CSVs with `--out`).

pub(crate) mod efs;
mod evt;
mod perf_fair;
mod rda;
mod slits;

use clap::{Args as ClapArgs, Subcommand};
use cosched_core::policies::{self, PolicyOptions};
use cosched_machine::MachineSpec;
use cosched_sim::engine::{run, RunOutput, SimOptions};
use cosched_sim::{presets, Plan, WorkloadSpec};

#[derive(ClapArgs)]
pub struct Args {
    #[command(subcommand)]
    paper: Paper,
}

#[derive(Subcommand)]
enum Paper {
    /// EFS (Energy-Friendly Scheduler): Table 1, Figs. 4, 8, 9, 10 on `i5-2500`.
    Efs(efs::Args),
    /// Perf&Fair: Figs. 1-3 (unfairness, speedup over Linux, completion curve) on `xeon-e5645`.
    PerfFair(perf_fair::Args),
    /// SLITS: Figs. 1, 3-8, FM accuracy on simulator TIMs, decision time, on `xeon-x5550-16c`.
    Slits(slits::Args),
    /// Statistical thread assignment: POT estimates, sample size, SP-POT, random sampling on `ultrasparc-t2`.
    Evt(evt::Args),
    /// RDA: energy and performance of Strict and Compromise on the Table 2 workloads, and the overhead study, on `xeon-e5-2420`.
    Rda(rda::Args),
}

pub fn run_cmd(a: Args) -> Result<(), String> {
    match a.paper {
        Paper::Efs(a) => efs::run(a),
        Paper::PerfFair(a) => perf_fair::run_cmd(a),
        Paper::Slits(a) => slits::run_cmd(a),
        Paper::Evt(a) => evt::run_cmd(a),
        Paper::Rda(a) => rda::run_cmd(a),
    }
}

/// A workload of preset jobs, `(preset, instances)` each.
pub fn mix(name: &str, jobs: &[(&str, u32)]) -> Result<WorkloadSpec, String> {
    let mut s = format!("name = \"{name}\"\ndescription = \"{name}\"\n");
    for (p, n) in jobs {
        s += &format!("[[job]]\npreset = \"{p}\"\ninstances = {n}\n");
    }
    presets::workload_from_toml(name, &s).map_err(|e| e.to_string())
}

/// One run of `policy` with the machine's power table, seed 1, no timing.
pub fn run_one(m: &MachineSpec, plan: &Plan, policy: &str, opts: &PolicyOptions) -> Result<RunOutput, String> {
    let mut o = opts.clone();
    o.efs.power.get_or_insert_with(|| m.power_table());
    run(m, plan, policies::make(policy, &o)?, &SimOptions::default(), None)
}

/// Write `rows` (first row the header) as CSV into `dir/name`.
pub fn write_csv(dir: &Option<String>, name: &str, rows: &[Vec<String>]) -> Result<(), String> {
    let Some(d) = dir else { return Ok(()) };
    std::fs::create_dir_all(d).map_err(|e| format!("{d}: {e}"))?;
    let path = format!("{d}/{name}");
    let text: String = rows.iter().map(|r| r.join(",") + "\n").collect();
    std::fs::write(&path, text).map_err(|e| format!("{path}: {e}"))
}

/// Print rows as a markdown table.
pub fn markdown(rows: &[Vec<String>]) {
    for (i, r) in rows.iter().enumerate() {
        println!("| {} |", r.join(" | "));
        if i == 0 {
            println!("|{}", "---|".repeat(r.len()));
        }
    }
    println!();
}
