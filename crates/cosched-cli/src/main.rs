//! `cosched`: compare, run and analyse contention-aware schedulers on a
//! simulated multicore and on this Linux machine.
//!
//! The front end above every crate: it may import the core, the shared
//! machine crate and both backends, and it is where the two backends meet
//! (`calibrate_check`: the simulator's prediction against a real run).

mod assign;
mod calibrate;
mod calibrate_check;
mod compare;
mod doctor;
mod evt;
mod list;
mod opts;
mod output;
mod paper;
mod probe;
mod profile;
mod run;
mod simulate;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Contention-aware scheduling on multicore machines: simulate the papers'
/// schedulers and baselines on modelled machines and workloads, and run
/// them on this Linux machine with real programs.
#[derive(Parser)]
#[command(name = "cosched", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// List policies, machine presets or workload presets.
    List(list::Args),
    /// Run one policy on one machine and workload and report its metrics.
    Simulate(simulate::Args),
    /// Run several policies on the same machine and workload, over several
    /// seeds, with speedups against a baseline measured in the same run.
    Compare(compare::Args),
    /// Peak-Over-Threshold estimate of the best value a population of measurements can reach.
    Evt(evt::Args),
    /// Random thread assignments measured on the simulated machine; the best found and the POT estimate of the optimum.
    Assign(assign::Args),
    /// Find progress periods in a memory-access trace (valgrind lackey or CSV) and suggest annotations.
    Profile(profile::Args),
    /// What this machine offers the schedulers (counters, RAPL, cgroups, SMT, LLC), and what follows.
    Doctor(doctor::Args),
    /// Run real commands on this machine under a policy (user-level scheduler: freeze/thaw, affinity, progress periods).
    Run(run::Args),
    /// Co-run probing on this machine: solo and sparse pair runs of a mix's jobs, FM-completed (profiles without a PMU).
    Probe(probe::Args),
    /// Measure this machine with cosched-bench and write a machine preset; --check compares simulated and real slowdowns.
    Calibrate(calibrate::Args),
    /// Rerun a paper's evaluation on the simulator and print our figures beside the paper's.
    Paper(paper::Args),
}

fn main() -> ExitCode {
    if std::env::args().nth(1).as_deref() == Some(cosched_linux::watchdog::WATCHDOG_ARG) {
        return ExitCode::from(cosched_linux::watchdog::watchdog_main() as u8);
    }
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            // One line, like every other error: clap's first line plus a pointer to --help.
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or("invalid arguments").trim_start_matches("error: ");
            eprintln!("error: {first} (see `cosched --help`)");
            return ExitCode::from(2);
        }
    };
    let r = match cli.cmd {
        Cmd::List(a) => list::run(a),
        Cmd::Simulate(a) => simulate::run(a),
        Cmd::Compare(a) => compare::run(a),
        Cmd::Paper(a) => paper::run_cmd(a),
        Cmd::Evt(a) => evt::run(a),
        Cmd::Doctor(a) => doctor::run(a),
        Cmd::Profile(a) => profile::run(a),
        Cmd::Assign(a) => assign::run(a),
        Cmd::Run(a) => run::run(a),
        Cmd::Probe(a) => probe::run(a),
        Cmd::Calibrate(a) => calibrate::run(a),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
