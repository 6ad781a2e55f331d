//! `cosched-bench`: the micro-benchmarks of `cosched_linux::bench`, as a program of its own
//! (`cosched bench` runs the same kernels from the `cosched` binary).

fn main() {
    cosched_linux::bench::main(std::env::args().skip(1).collect())
}
