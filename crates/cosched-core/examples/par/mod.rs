//! Shared by the examples: map `f` over `0..n` on every core (std threads,
//! no dependency), results in index order.

/// `(0..n).map(f)` computed on `available_parallelism` threads, round-robin.
pub fn par_map<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let workers = std::thread::available_parallelism().map_or(2, |w| w.get());
    let mut out: Vec<Option<T>> = (0..n).map(|_| None).collect();
    std::thread::scope(|s| {
        let hs: Vec<_> = (0..workers)
            .map(|w| {
                let f = &f;
                s.spawn(move || (w..n).step_by(workers).map(|j| (j, f(j))).collect::<Vec<_>>())
            })
            .collect();
        for h in hs {
            for (j, t) in h.join().expect("worker") {
                out[j] = Some(t);
            }
        }
    });
    out.into_iter().map(|t| t.expect("computed")).collect()
}
