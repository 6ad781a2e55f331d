//! `cosched-bench`: the micro-benchmarks of `cosched_linux::bench`, as a program of its own
//! (`cosched bench` runs the same kernels from the `cosched` binary); this program links the
//! progress-period C library, which `pp-kernels` measures.

fn main() {
    let pp = cosched_linux::bench::PpCalls {
        begin: cosched_pp::pp_begin,
        end: cosched_pp::pp_end,
        llc: cosched_pp::COSCHED_PP_LLC,
    };
    cosched_linux::bench::main(std::env::args().skip(1).collect(), Some(pp))
}
