//! Any input (issue #28): counts are bounded before anything is allocated,
//! runs have an event budget, results are never NaN, and errors blame the
//! right thing before the work. One test per numbered item of the issue.

mod common;

use common::{cosched, fails_cleanly, tmp};
use std::time::{Duration, Instant};

/// Item 3: every count a user can type is refused above its bound, with
/// the bound and why, at once (no allocation, no panic).
#[test]
fn counts_past_their_bounds_are_refused_at_once() {
    let t = Instant::now();
    fails_cleanly(
        &["assign", "-m", "ultrasparc-t2", "-w", "ipfwd-mem", "--samples", "1000000000000"],
        &["--samples", "from 1 to 1000000", "each assignment"],
    );
    fails_cleanly(
        &["compare", "-m", "i5-2500", "-w", "mcf", "--policies", "cfs", "--seeds", "1000000000"],
        &["--seeds", "10000"],
    );
    fails_cleanly(&["paper", "evt", "--samples", "99999999999"], &["--samples"]);
    fails_cleanly(&["paper", "slits", "--seeds", "99999999"], &["--seeds"]);
    fails_cleanly(&["simulate", "-p", "slits-contention", "--slits-k", "100000000"], &["--slits-k", "256"]);
    fails_cleanly(&["simulate", "-p", "efs", "--efs-newton-iters", "99999999"], &["--efs-newton-iters"]);
    fails_cleanly(&["run", "--repeat", "99999999", "--", "true"], &["--repeat", "1000"]);
    fails_cleanly(
        &["simulate", "-m", "i5-2500", "-w", "spec-mix24", "-p", "g-rrs", "--quantum-ms", "1e-9"],
        &["--quantum-ms", "1 µs"],
    );
    fails_cleanly(&["simulate", "-p", "g-rrs", "--quantum-ms", "1e300"], &["--quantum-ms", "1 hour"]);
    assert!(t.elapsed() < Duration::from_secs(30), "refusals are immediate");
}

/// Item 3: a run past its event budget ends with one line naming the budget
/// and the flag that raises it, within seconds of reaching it.
#[test]
fn a_runaway_workload_ends_at_its_event_budget() {
    let w = tmp(
        "runaway.toml",
        "name = \"runaway\"\n[[job]]\nname = \"loop\"\niterations = 4000000000\n[[job.phase]]\ninstructions = 1e6\n\
         ipc = 1.0\nllc_apki = 1.0\nllc_mpki = 0.1\nmrc_ref_mb = 8\nfootprint_mb = 1\n",
    );
    let t = Instant::now();
    fails_cleanly(
        &["simulate", "-m", "i5-2500", "-w", &w, "--max-events", "200000"],
        &["runaway.toml", "event budget of 200000 events", "--max-events"],
    );
    assert!(t.elapsed() < Duration::from_secs(20), "took {:?}", t.elapsed());
    fails_cleanly(&["simulate", "--max-events", "0"], &["--max-events"]);
}
