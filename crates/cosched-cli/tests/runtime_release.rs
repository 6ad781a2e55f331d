//! The real runtime's fail-safe: SIGKILL of the scheduler at random
//! moments, SIGTERM, and chaos from outside leave no managed process frozen,
//! stopped or pinned.

mod common;

use common::real::*;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `cosched ARGS -w MIX` started in the background, its output where asked.
fn start_cosched(args: &[&str], mix: &std::path::Path, stdout: Stdio, stderr: Stdio) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_cosched"))
        .args(args)
        .args(["-w", mix.to_str().unwrap()])
        .stdout(stdout)
        .stderr(stderr)
        .spawn()
        .unwrap()
}

/// Trees of [`spinning_mix`] with 3 loops: 3 loops and 2 trees.
const TREES: usize = 5;

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
        let mut child = start_cosched(
            &["run", "-p", "g-rrs", "--quantum-ms", "15", "--freezer", freezer],
            &mix,
            Stdio::null(),
            Stdio::null(),
        );
        // The random moment is one of the run, counted from when its trees
        // are launched: on a busy host the launch itself took longer than
        // the shortest delay, so trees that were never launched were counted
        // as trees that died (docs/runtime.md, "Fail-safe under load").
        wait_launched(child.id(), &marker, TREES);
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        std::thread::sleep(Duration::from_millis(x % 500));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let result = wait_released(child.id(), &marker, &all);
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
                    assert!(alive.len() >= TREES, "round {round}: every tree survives, released: {alive:?}");
                }
            }
            Err(e) if freezer == "signals" && e == NONE_FOUND => {}
            Err(e) => panic!("round {round} ({freezer}): {e}"),
        }
    }
    sweep_marked(&format!("cosched-failsafe-{}-", std::process::id()));
}

/// SIGKILL of the scheduler *while it launches*: a child between `fork`
/// and `exec` joins its cgroup after the watchdog may have read it empty.
/// Under load a single-pass release left such a child in the run's cgroup
/// (`freezer:/cosched-PID/t1`, 2 rounds of 40); the drain must leave
/// nothing in a cgroup of ours, stopped or pinned. The moments are spread
/// over the launch as measured on this host in the first round.
#[test]
fn sigkill_while_the_scheduler_launches_leaves_nothing_in_its_cgroups() {
    let all = own_cpus();
    let mut x: u64 = 0x1234_5678_9ABC_DEF1;
    let mut launch = Duration::ZERO;
    for round in 0..24 {
        let marker = format!("cosched-launchkill-{}-{round}", std::process::id());
        let d = tmpdir(&format!("lkill{round}"));
        let mix = spinning_mix(&d, &marker, 3);
        let t = Instant::now();
        let mut child =
            start_cosched(&["run", "-p", "g-rrs", "--quantum-ms", "15"], &mix, Stdio::null(), Stdio::null());
        if round == 0 {
            wait_launched(child.id(), &marker, TREES);
            launch = t.elapsed();
        } else {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let at = launch.mul_f64((x % 1000) as f64 / 1000.0);
            std::thread::sleep(at.saturating_sub(t.elapsed()));
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let result = wait_released(child.id(), &marker, &all);
        for p in marked(&marker) {
            unsafe_kill(p);
        }
        match result {
            Ok(_) => {}
            Err(e) if e == NONE_FOUND => {}
            Err(e) => panic!("round {round} (launch measured {launch:?}): {e}"),
        }
    }
    // A child killed before its exec is not marked yet: sweep until quiet.
    sweep_marked(&format!("cosched-launchkill-{}-", std::process::id()));
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
    let child = start_cosched(&["run", "-p", "g-rrs", "--quantum-ms", "20"], &mix, Stdio::null(), Stdio::piped());
    let pid = child.id();
    wait_launched(pid, &marker, 3);
    let _ = Command::new("kill").args(["-TERM", &pid.to_string()]).status();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(143), "128 + SIGTERM, as docs/formats.md's exit statuses say");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("interrupted") && err.trim_end().lines().count() <= 2, "{err}");
    let t = Instant::now();
    while !marked(&marker).is_empty() && t.elapsed() < HANG {
        std::thread::sleep(Duration::from_millis(20));
    }
    let left = marked(&marker);
    for &p in &left {
        unsafe_kill(p);
    }
    assert!(left.is_empty(), "SIGTERM was forwarded to every tree: {left:?} still alive");
    assert_eq!(run_dirs(pid), Vec::<std::path::PathBuf>::new(), "the run's cgroups were removed");
}

/// Chaos: in each seeded round, managed processes are killed and
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
        let mut child = start_cosched(
            &[&["run", "-p", policy][..], if policy.ends_with("rrs") { &["--quantum-ms", "15"][..] } else { &[] }]
                .concat(),
            &mix,
            Stdio::null(),
            Stdio::null(),
        );
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
        let result = match wait_released(child.id(), &marker, &all) {
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
    sweep_marked(&format!("cosched-chaos-{}-", std::process::id()));
}

/// A tree whose every process ignores SIGTERM (a shell that traps it and
/// its child) is ended by `--timeout-s` and by Ctrl-C (SIGINT of the
/// scheduler): SIGTERM, the grace, then SIGKILL of the whole tree; the
/// report and the one error line name what had to be killed, and nothing
/// is left running, in a cgroup of ours or pinned.
#[test]
fn timeout_and_ctrl_c_kill_a_tree_that_ignores_sigterm_after_the_grace() {
    let all = own_cpus();
    // The stubborn shell must have set its trap before SIGTERM comes: under
    // SIGINT the test waits for its child (forked after the trap); the
    // timeout is then 4 times that measured start-up, at least 1 s.
    let mut timeout_s = 1.0f64;
    for how in ["sigint", "timeout"] {
        let marker = format!("cosched-stubborn-{}-{how}", std::process::id());
        let d = tmpdir(&format!("stubborn-{how}"));
        let mix = d.join("mix.toml");
        let ignore = "trap '' TERM INT HUP";
        std::fs::write(
            &mix,
            format!(
                "[[job]]\nname = \"stubborn\"\ncmd = [\"sh\", \"-c\", \"{ignore}; sh -c \\\"{ignore}; while :; do :; done\\\" {marker}-child & while :; do :; done\", \"{marker}\"]\n\
                 [[job]]\nname = \"polite\"\ncmd = [\"sh\", \"-c\", \"while :; do :; done\", \"{marker}\"]\n"
            ),
        )
        .unwrap();
        let timeout = format!("{timeout_s}");
        let mut args = vec!["run", "-p", "g-rrs", "--quantum-ms", "20", "--grace-s", "0.5", "--format", "json"];
        if how == "timeout" {
            args.extend(["--timeout-s", &timeout]);
        }
        let t = Instant::now();
        let child = start_cosched(&args, &mix, Stdio::piped(), Stdio::piped());
        let pid = child.id();
        if how == "sigint" {
            wait_launched(pid, &marker, 2);
            // The child's own `$0`, not the parent's script that names it:
            // the parent matches before its trap is set (the CI failure of
            // stop 77: SIGTERM ended the tree, nothing had to be killed).
            while with_arg(&format!("{marker}-child")).is_empty() {
                assert!(t.elapsed() < HANG, "the stubborn tree never forked its child");
                std::thread::sleep(Duration::from_millis(2));
            }
            timeout_s = (4.0 * t.elapsed().as_secs_f64()).ceil().max(1.0);
            let _ = Command::new("kill").args(["-INT", &pid.to_string()]).status();
        }
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let left = marked(&marker);
        for &p in &left {
            unsafe_kill(p);
        }
        // docs/formats.md, "Exit status": 124 for a timeout, 130 for Ctrl-C.
        assert_eq!(out.status.code(), Some(if how == "timeout" { 124 } else { 130 }), "{how}: {err}");
        let last = err.trim_end().lines().last().unwrap_or_default();
        let reason =
            if how == "timeout" { format!("timed out after {timeout} s") } else { "interrupted by SIGINT".into() };
        assert!(
            last.starts_with("error: the run")
                && last.contains(&reason)
                && last.ends_with("had to be killed: stubborn"),
            "{how}: {err}"
        );
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["stop"]["killed"], serde_json::json!(["stubborn"]), "{how}");
        assert_eq!(report["stop"]["terminated"], serde_json::json!(["stubborn", "polite"]), "{how}");
        assert!(left.is_empty(), "{how}: {left:?} still alive after the grace");
        assert!(wait_released(pid, &marker, &all).is_err_and(|e| e == NONE_FOUND), "{how}");
    }
}

/// What a scheduler killed before its watchdog started leaves — its run's
/// cgroup directory, the cgroup its writability check made, its temporary
/// folder — is swept by the next start, named by a pid that is gone.
#[test]
fn a_start_sweeps_what_a_killed_start_left() {
    let mut gone = Command::new("true").spawn().unwrap();
    gone.wait().unwrap();
    let pid = gone.id();
    // The hierarchy the runtime itself picks on this host (none: signals).
    let method = cosched_linux::method::Method::detect();
    let root = method.root().filter(|r| std::fs::create_dir(r.join(format!("cosched-probe-{pid}"))).is_ok());
    let tmp = std::env::temp_dir().join(format!("cosched-run-{pid}"));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut left = vec![tmp.clone()];
    match root {
        Some(r) => {
            std::fs::create_dir(r.join(format!("cosched-{pid}"))).unwrap();
            left.extend([r.join(format!("cosched-probe-{pid}")), r.join(format!("cosched-{pid}"))]);
        }
        None => eprintln!("SKIPPED (cgroups): no writable cgroup hierarchy here; the temporary folder only"),
    }
    let o = Command::new(env!("CARGO_BIN_EXE_cosched")).args(["run", "--", "true"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let kept: Vec<_> = left.iter().filter(|p| p.exists()).collect();
    assert!(kept.is_empty(), "a start left what a dead run made: {kept:?}");
}

/// Every long real command a stop signal ends exits with the status
/// docs/formats.md gives ("Exit status": 130 for Ctrl-C, 143 for SIGTERM),
/// whatever error its run's stop became on the way: the interleaved rounds
/// of `run --policies` and a characterisation's measurements, not only a
/// single `run`. Nothing it launched is left running.
#[test]
fn a_stop_signal_ends_the_rounds_and_a_characterisation_with_its_status() {
    let cases = [("rounds", "INT", 130), ("rounds", "TERM", 143), ("characterise", "INT", 130)];
    for (what, sig, want) in cases {
        let marker = format!("cosched-stopped-{}-{what}-{sig}", std::process::id());
        let d = tmpdir(&format!("stopped-{what}-{sig}"));
        let mix = d.join("mix.toml");
        std::fs::write(
            &mix,
            format!("[[job]]\nname = \"spin\"\ncmd = [\"sh\", \"-c\", \"while :; do :; done\", \"{marker}\"]\n"),
        )
        .unwrap();
        let out_file = d.join("out.toml");
        let args: Vec<&str> = match what {
            "rounds" => vec!["run", "--policies", "linux,g-rrs", "--repeat", "2"],
            _ => vec!["characterise", "-m", "kvm-epyc-2c", "-o", out_file.to_str().unwrap()],
        };
        let child = start_cosched(&args, &mix, Stdio::null(), Stdio::piped());
        let pid = child.id();
        wait_launched(pid, &marker, 1);
        let _ = Command::new("kill").args([&format!("-{sig}"), &pid.to_string()]).status();
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let left = marked(&marker);
        for &p in &left {
            unsafe_kill(p);
        }
        assert_eq!(out.status.code(), Some(want), "{what} SIG{sig}: {err}");
        assert!(err.contains(&format!("interrupted by SIG{sig}")), "{what}: {err}");
        assert!(left.is_empty(), "{what} SIG{sig}: {left:?} still alive");
        assert!(!out_file.exists(), "{what}: an interrupted characterisation wrote its output");
    }
}
