//! The `cosched` front end as a library: the command-line interface (the
//! `cosched` binary is [`main`]) and the experiment entry points the Python
//! bindings (`crates/cosched-py`) call, so both front ends run the same code:
//! [`opts::RunOpts`] turns flags (or Python keyword knobs) into policy and
//! engine options, [`simulate::report`] runs one policy, [`compare::comparison`]
//! several over seeds, [`sweep::run_batch`] any grid of runs.
//!
//! The front end above every crate: it may import the core, the shared
//! machine crate, both backends, the lab and `cosched-host` (where the two
//! backends meet: the simulator's prediction against a real run).

pub mod assign;
mod calibrate;
mod calibrate_view;
mod characterise;
mod characterised;
pub mod compare;
pub mod complete;
mod counters_hint;
mod doctor;
mod dram;
mod draw_mixes;
pub use cosched_lab::error;
pub mod evt;
mod flags;
mod input;
pub mod knobs;
pub use cosched_lab::limits;
use cosched_lab::sweep;
pub mod list;
mod live;
pub mod new_policy;
pub mod optimum;
pub mod opts;
mod output;
mod paper;
pub mod policy_knobs;
mod probe;
mod profile;
mod progress;
mod rounds;
mod run;
mod run_view;
pub mod simulate;
mod validate;

use clap::error::ErrorKind;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::panic::AssertUnwindSafe;
use std::process::ExitCode;
use std::sync::Mutex;

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
    /// List policies, machine and workload presets, metrics, or every knob with its flag and default.
    List(list::Args),
    /// Run one policy on one machine and workload and report its metrics.
    Simulate(simulate::Args),
    /// Run several policies on the same machine and workload, over several
    /// seeds, with speedups against a baseline measured in the same run.
    Compare(compare::Args),
    /// Peak-Over-Threshold estimate of the best value a population of measurements can reach.
    Evt(evt::Args),
    /// Complete a sparse matrix (`row,col,value` lines; empty value = predict) with the Bayesian factorization machine (a std per cell; `--model sgd`: the self-tuning SGD FM).
    Complete(complete::Args),
    /// Random thread assignments measured on the simulated machine; the best found and the POT estimate of the optimum.
    Assign(assign::Args),
    /// The best static co-schedule of a workload on the simulated machine: exact (every distinct one
    /// simulated) when few enough, Jiang et al.'s pairwise matching, or the EVT estimate (of the best
    /// time-shared partition when threads outnumber contexts).
    Optimum(optimum::Args),
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
    /// Characterise a mix's commands without a PMU (alone, beside cache pirates and bandwidth bandits, and with --presence a compute loop) into a workload file the simulator runs.
    Characterise(characterise::Args),
    /// Draw a family's random mixes on a calibrated host (held-out mixes for `calibrate --check`).
    DrawMixes(draw_mixes::Args),
    /// Rerun a paper's evaluation on the simulator and print our figures beside the paper's.
    Paper(paper::Args),
    /// EFS Table 1 at the DRAM: one versus several read streams on the cycle-level controller of a
    /// machine's `[memory.dram]`, and the row-conflict table the bus model reads (`--toml`).
    Dram(dram::Args),
    /// Every calibration and check point of the machine presets: published figure, simulated value,
    /// error, tolerance, source, fitted or held out; exit 1 when a point leaves its tolerance.
    Validate(validate::Args),
    /// Start a Rust policy of your own: write crates/cosched-policies/src/families/NAME.rs from a
    /// template (a working round-robin, its knob, a scripted-stream test) and register it (docs/policies.md).
    NewPolicy(new_policy::Args),
    /// The micro-benchmark kernels of `cosched-bench` (pointer-chase, stream, compute, random-access,
    /// random-update, phases; pp-kernels only in `cosched-bench`, which links the progress-period
    /// C library), run from this binary: `cosched bench --help`.
    /// Calibration and characterisation run them this way when no `cosched-bench` is on PATH or
    /// beside cosched.
    #[command(disable_help_flag = true)]
    Bench {
        /// KIND and its flags, as `cosched-bench` takes them.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

/// The face turns a library's typed error into its one line here, in view
/// (`.one_line()?`): no library error converts itself into text through `?`
/// (so every error keeps its type until the face prints it; `crates/cosched-house/tests/layering.rs`).
pub(crate) trait OneLine<T> {
    /// The error as the line the command prints.
    fn one_line(self) -> Result<T, String>;
}

impl<T, E: std::fmt::Display> OneLine<T> for Result<T, E> {
    fn one_line(self) -> Result<T, String> {
        self.map_err(|e| e.to_string())
    }
}

/// Why a command failed, and with which exit status: 2 for bad input or a
/// refused run (every error given as a `String`), 1 when the command ran but
/// a job it ran failed (`cosched run`).
pub struct Failure {
    code: u8,
    message: String,
}

impl Failure {
    /// The command ran and found what it checks failing (`cosched validate`): exit status 1.
    pub fn check(message: String) -> Failure {
        Failure { code: 1, message }
    }

    /// Jobs that failed: exit status 1.
    pub fn jobs(message: String) -> Failure {
        Failure { code: 1, message }
    }

    /// A run stopped from outside (a timeout, Ctrl-C, SIGTERM), with its status (docs/formats.md, "Exit status").
    pub fn stopped(code: u8, message: String) -> Failure {
        Failure { code, message }
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure { code: 2, message }
    }
}

/// A real run refused at setup or stopped by a contract break: exit status 2
/// (its managed processes are already released).
impl From<cosched_lab::RunError> for Failure {
    fn from(e: cosched_lab::RunError) -> Failure {
        Failure { code: 2, message: e.to_string() }
    }
}

impl From<cosched_linux::runtime::RuntimeError> for Failure {
    fn from(e: cosched_linux::runtime::RuntimeError) -> Failure {
        Failure { code: 2, message: e.to_string() }
    }
}

/// The first failed write to stdout or stderr (`println!` panics on one):
/// a closed pipe (`cosched … | head`), a full disk (`> /dev/full`).
static OUTPUT_FAILED: Mutex<Option<String>> = Mutex::new(None);

/// `println!` panics when stdout cannot be written: record why quietly
/// instead of printing a panic, so that [`main_with`] ends with one error
/// line and status 2; every other panic is reported as usual.
fn quiet_on_failed_output() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        match msg.strip_prefix("failed printing to ") {
            Some(why) => {
                let mut slot = OUTPUT_FAILED.lock().unwrap_or_else(|e| e.into_inner());
                slot.get_or_insert_with(|| why.replacen(": ", " failed: ", 1));
            }
            None => default(info),
        }
    }));
}

/// One line saying the output could not be written, written to stderr if
/// stderr can still take it.
fn output_failed(why: &str) -> u8 {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "error: cannot write the output: {why}");
    2
}

/// One line for a command-line error: clap's message with the lines that
/// carry its substance (the missing argument, the valid values), then a
/// pointer to the help of the subcommand at fault.
fn clap_error_line(e: &clap::Error, argv: &[String]) -> String {
    let args: Vec<String> = argv.iter().skip(1).cloned().collect();
    let sub = args.first().filter(|a| !a.starts_with('-')).cloned();
    let help = match &sub {
        Some(s) if Cli::command().find_subcommand(s).is_some() => format!("cosched {s} --help"),
        _ => "cosched --help".to_string(),
    };
    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        let cmd = Cli::command();
        let names: Vec<String> = sub
            .as_deref()
            .and_then(|s| cmd.find_subcommand(s))
            .map(|c| c.get_subcommands().map(|x| x.get_name().to_string()).filter(|n| n != "help").collect())
            .unwrap_or_default();
        return if names.is_empty() {
            format!("a subcommand is required (see `{help}`)")
        } else {
            format!("which one? give one of: {} (see `{help}`)", names.join(", "))
        };
    }
    let text = e.render().to_string();
    let mut parts = vec![];
    for line in text.lines() {
        let l = line.trim();
        if l.is_empty() || l.starts_with("Usage:") || l.starts_with("For more information") {
            break;
        }
        parts.push(l.trim_start_matches("error: ").to_string());
    }
    let body = if parts.is_empty() { "invalid arguments".to_string() } else { parts.join(" ") };
    format!("{body} (see `{help}`)")
}

/// Parse the command line; numeric flags accept negative numbers so that
/// `--seeds -1` gets the flag's own range error, not "unexpected argument",
/// and a real-valued flag takes any value starting with `-` (`--budget-s -inf`
/// reaches the flag's own check: a negative infinity is not a number clap's
/// negative-number test knows).
fn parse(argv: &[String]) -> Result<Cli, clap::Error> {
    fn real(a: clap::Arg) -> clap::Arg {
        if a.get_value_parser().type_id() == std::any::TypeId::of::<f64>() {
            a.allow_hyphen_values(true)
        } else {
            a
        }
    }
    let negative = |c: clap::Command| c.allow_negative_numbers(true).mut_args(real);
    let cmd = Cli::command().mut_subcommands(move |c| negative(c).mut_subcommands(negative));
    Cli::from_arg_matches(&cmd.try_get_matches_from(argv)?)
}

/// The `cosched` command: parse the command line, run the subcommand, print
/// one `error:` line and return status 2 (bad input) or 1 (failed check or job).
pub fn main() -> ExitCode {
    ExitCode::from(main_with(std::env::args().collect()))
}

/// [`main`] on the given arguments (`argv[0]` is the program name): the
/// Python package's `cosched` entry point runs the CLI in-process through it.
pub fn main_with(argv: Vec<String>) -> u8 {
    if argv.get(1).map(String::as_str) == Some(cosched_linux::watchdog::WATCHDOG_ARG) {
        return cosched_linux::watchdog::watchdog_main() as u8;
    }
    let cli = match parse(&argv) {
        Ok(c) => c,
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            return 0;
        }
        Err(e) => {
            eprintln!("error: {}", clap_error_line(&e, &argv));
            return 2;
        }
    };
    quiet_on_failed_output();
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
        let r = dispatch(cli.cmd);
        // What is still buffered must reach the file too (a full disk shows here).
        use std::io::Write;
        std::io::stdout().flush().map(|_| r).map_err(|e| format!("stdout failed: {e}"))
    }));
    let failed = || OUTPUT_FAILED.lock().unwrap_or_else(|e| e.into_inner()).clone();
    match outcome {
        Ok(Ok(Ok(()))) => 0,
        Ok(Ok(Err(f))) => {
            eprintln!("error: {}", f.message);
            // A command whose real run a stop signal ended exits as the signal asks (130, 143),
            // whichever error its run's stop became on the way (a check's, a characterisation's).
            if f.code == 2 {
                cosched_linux::runtime::stop_status().unwrap_or(f.code)
            } else {
                f.code
            }
        }
        Ok(Err(why)) => output_failed(&why),
        // A reader that went away (`| head`) or a full disk: one line, status 2.
        Err(p) => match failed() {
            Some(why) => output_failed(&why),
            None => std::panic::resume_unwind(p),
        },
    }
}

fn dispatch(cmd: Cmd) -> Result<(), Failure> {
    match cmd {
        Cmd::List(a) => list::run(a).map_err(Failure::from),
        Cmd::Simulate(a) => simulate::run(a).map_err(Failure::from),
        Cmd::Compare(a) => compare::run(a).map_err(Failure::from),
        Cmd::Paper(a) => paper::run_cmd(a).map_err(Failure::from),
        Cmd::Evt(a) => evt::run(a).map_err(Failure::from),
        Cmd::Complete(a) => complete::run(a).map_err(Failure::from),
        Cmd::Validate(a) => validate::run(a),
        Cmd::Dram(a) => dram::run(a).map_err(Failure::from),
        Cmd::Doctor(a) => doctor::run(a).map_err(Failure::from),
        Cmd::Profile(a) => profile::run(a).map_err(Failure::from),
        Cmd::Assign(a) => assign::run(a).map_err(Failure::from),
        Cmd::Optimum(a) => optimum::run(a).map_err(Failure::from),
        Cmd::Run(a) => run::run(a),
        Cmd::Probe(a) => probe::run(a).map_err(Failure::from),
        Cmd::Calibrate(a) => calibrate::run(a).map_err(Failure::from),
        Cmd::Characterise(a) => characterise::run(a).map_err(Failure::from),
        Cmd::DrawMixes(a) => draw_mixes::run(a).map_err(Failure::from),
        Cmd::NewPolicy(a) => new_policy::run(a).map_err(Failure::from),
        Cmd::Bench { args } => cosched_linux::bench::main(args, None),
    }
}
