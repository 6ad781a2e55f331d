//! `RunConfig::end_with`: the run ends with the measured job, and the
//! co-runners still alive are released and sent SIGTERM (how
//! `cosched characterise` keeps a co-runner from outliving its job).

use cosched_linux::mix::Mix;
use cosched_linux::runtime::{run, RunConfig};

#[test]
fn the_run_ends_with_the_lead_job_and_its_co_runner_is_terminated() {
    let mix = Mix::parse(
        "m.toml",
        "[[job]]\nname = \"lead\"\ncmd = [\"sleep\", \"0.2\"]\n[[job]]\nname = \"co\"\ncmd = [\"sleep\", \"600\"]\n",
    )
    .unwrap();
    let mut cfg = RunConfig::new(mix, "linux");
    cfg.end_with = Some(0);
    let r = run(cfg).unwrap();
    assert!(!r.interrupted);
    let by = |n: &str| r.jobs.iter().find(|j| j.name == n).unwrap();
    assert_eq!(by("lead").exit_code, Some(0));
    // Killed by SIGTERM (128 + 15), long before its 600 s.
    assert_eq!(by("co").exit_code, Some(128 + libc::SIGTERM));
    assert!(by("co").turnaround_s.unwrap() < 600.0);
}
