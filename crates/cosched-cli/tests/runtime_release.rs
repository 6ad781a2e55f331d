//! The real runtime's fail-safe: SIGKILL of the scheduler at random
//! moments, SIGTERM, and chaos from outside leave no managed process frozen,
//! stopped or pinned.

mod common;

use common::real::*;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn sigkill_of_the_scheduler_at_random_moments_leaves_nothing_frozen_stopped_or_pinned() {
    let all = own_cpus();
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    for round in 0..20 {
        let marker = format!("cosched-failsafe-{}-{round}", std::process::id());
        // Two trees (one forks a child), three plain loops: more than the contexts, so some are frozen.
        let d = tmpdir(&format!("kill{round}"));
        let mix = spinning_mix(&d, &marker, 3);
        let v2 = ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"]
            .iter()
            .any(|p| std::path::Path::new(p).join("cgroup.controllers").exists());
        let freezer = match round % 4 {
            3 => "signals",
            1 if v2 => "v2",
            _ => "auto",
        };
        let mut child = Command::new(env!("CARGO_BIN_EXE_cosched"))
            .args(["run", "-p", "g-rrs", "--quantum-ms", "15", "--freezer", freezer, "-w", mix.to_str().unwrap()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        std::thread::sleep(Duration::from_millis(60 + x % 500));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let result = wait_released(&marker, &all);
        let pids = marked(&marker);
        for &p in &pids {
            unsafe_kill(p);
        }
        match result {
            Ok(alive) => {
                // With a freezer every tree survives the scheduler. With signals,
                // POSIX's orphaned-process-group rule makes the kernel send SIGHUP +
                // SIGCONT to a stopped group whose parent dies: nothing is left
                // stopped, but shells with the default SIGHUP action end
                // (docs/runtime.md, "Fail-safe").
                if freezer != "signals" {
                    assert!(alive.len() >= 5, "round {round}: every tree survives, released: {alive:?}");
                }
            }
            Err(e) if freezer == "signals" && e == NONE_FOUND => {}
            Err(e) => panic!("round {round} ({freezer}): {e}"),
        }
    }
}

#[test]
fn sigterm_stops_the_run_releases_and_terminates_every_tree() {
    let marker = format!("cosched-sigterm-{}", std::process::id());
    let d = tmpdir("term");
    let mix = d.join("mix.toml");
    std::fs::write(
        &mix,
        format!("[[job]]\nname = \"loop\"\ncmd = [\"sh\", \"-c\", \"while :; do :; done\", \"{marker}\"]\ncount = 3\n"),
    )
    .unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_cosched"))
        .args(["run", "-p", "g-rrs", "--quantum-ms", "20", "-w", mix.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    std::thread::sleep(Duration::from_millis(400));
    let _ = Command::new("kill").args(["-TERM", &pid.to_string()]).status();
    let t = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(t.elapsed() < Duration::from_secs(5));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("interrupted") && err.trim_end().lines().count() <= 2, "{err}");
    let t = Instant::now();
    while !marked(&marker).is_empty() && t.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left = marked(&marker);
    for &p in &left {
        unsafe_kill(p);
    }
    assert!(left.is_empty(), "SIGTERM was forwarded to every tree: {left:?} still alive");
    for root in ["/sys/fs/cgroup/freezer", "/sys/fs/cgroup"] {
        let run = std::path::Path::new(root).join(format!("cosched-{pid}"));
        assert!(!run.exists(), "{} was removed", run.display());
    }
}

/// Chaos (issue #18): in each seeded round, managed processes are killed and
/// stopped (then continued) from outside at random moments while a policy
/// runs them, and the scheduler is SIGKILLed at a random moment; afterwards
/// no surviving process is frozen, stopped, pinned or in a cgroup of ours.
#[test]
fn chaos_outside_kills_and_stops_then_sigkill_of_the_scheduler_leave_nothing_held() {
    let all = own_cpus();
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15; // the seed: the same moments every run
    let mut next = move |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    let policies = ["g-rrs", "p-rrs", "cfs", "rda-strict"];
    for round in 0..20 {
        let marker = format!("cosched-chaos-{}-{round}", std::process::id());
        let d = tmpdir(&format!("chaos{round}"));
        let mix = spinning_mix(&d, &marker, 4);
        let policy = policies[round % policies.len()];
        let mut child = Command::new(env!("CARGO_BIN_EXE_cosched"))
            .args(["run", "-p", policy, "-w", mix.to_str().unwrap()])
            .args(if policy.ends_with("rrs") { &["--quantum-ms", "15"][..] } else { &[] })
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stopped = vec![];
        for _ in 0..(2 + next(3)) {
            std::thread::sleep(Duration::from_millis(30 + next(150)));
            let pids = marked(&marker);
            if pids.is_empty() {
                continue;
            }
            let p = pids[next(pids.len() as u64) as usize];
            match next(3) {
                0 => {
                    let _ = Command::new("kill").args(["-9", &p.to_string()]).status();
                }
                1 => {
                    let _ = Command::new("kill").args(["-STOP", &p.to_string()]).status();
                    stopped.push(p);
                }
                _ => {
                    if let Some(q) = stopped.pop() {
                        let _ = Command::new("kill").args(["-CONT", &q.to_string()]).status();
                    }
                }
            }
        }
        std::thread::sleep(Duration::from_millis(next(200)));
        child.kill().unwrap(); // SIGKILL of the scheduler
        child.wait().unwrap();
        // What the outsider stopped, the outsider continues (before or after the scheduler's death).
        for q in stopped {
            let _ = Command::new("kill").args(["-CONT", &q.to_string()]).status();
        }
        let result = match wait_released(&marker, &all) {
            Err(e) if e == NONE_FOUND => Ok(vec![]), // every process ended meanwhile
            r => r,
        };
        for p in marked(&marker) {
            unsafe_kill(p);
        }
        if let Err(e) = result {
            panic!("round {round} ({policy}): {e}");
        }
    }
}
