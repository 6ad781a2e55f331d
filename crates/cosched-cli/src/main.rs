//! `cosched`: compare, run and analyse contention-aware schedulers on a
//! simulated multicore and on this Linux machine (everything is in the
//! library, `src/lib.rs`, which the Python bindings share).

fn main() -> std::process::ExitCode {
    cosched_cli::main()
}
