//! `cosched paper NAME`: rerun a paper's evaluation on the simulator
//! (`cosched_lab::paper`) and print our figures beside the paper's (markdown
//! on stdout as each part is done, CSVs with `--out`).

mod args;
mod printer;

pub use args::Args;

/// Run `cosched paper NAME`.
pub fn run_cmd(a: Args) -> Result<(), String> {
    args::run(a)
}
