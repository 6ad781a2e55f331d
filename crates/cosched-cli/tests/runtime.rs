//! `cosched run` on this machine, for real: mixes of real processes, whole
//! trees controlled, bad input, counter-driven policies, progress periods,
//! interleaved rounds (the fail-safe tests are in `runtime_release.rs`, the
//! characterisation's in `runtime_characterise.rs`).

mod common;

use common::cosched;
use common::real::*;

#[test]
fn a_mix_runs_to_completion_and_a_job_that_cannot_start_does_not_stop_it() {
    let d = tmpdir("mix");
    // A job whose program exists but names an interpreter that does not: its
    // launch fails at spawn time, the rest of the mix runs, and the run exits 1
    // naming it (a program missing altogether, or a missing cwd, is refused
    // before launch: tests/first_hour.rs and tests/any_input.rs).
    let ghost = d.join("ghost");
    std::fs::write(&ghost, "#!/no/such/interpreter\n").unwrap();
    std::fs::set_permissions(&ghost, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mix = d.join("mix.toml");
    std::fs::write(
        &mix,
        format!(
            "[[job]]\nname = \"busy\"\ncmd = [\"sh\", \"-c\", \"{BUSY}\"]\ncount = 3\n\
             [[job]]\nname = \"quick\"\ncmd = [\"true\"]\n\
             [[job]]\nname = \"ghost\"\ncmd = [\"{}\"]\n",
            ghost.display()
        ),
    )
    .unwrap();
    for policy in ["linux", "g-rrs", "cfs", "p-rrs"] {
        // A knob only the round-robin policies read is given to those only (others refuse it).
        let quantum: &[&str] = if policy.ends_with("rrs") { &["--quantum-ms", "20"] } else { &[] };
        let o =
            cosched(&[&["run", "-p", policy, "-w", mix.to_str().unwrap(), "--format", "json"][..], quantum].concat());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{policy}: {err}");
        assert!(err.contains("warning: ghost: cannot start"), "{err}");
        assert!(err.contains("error: 1 job(s) failed: ghost did not start"), "{err}");
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let jobs = v["jobs"].as_array().unwrap();
        assert_eq!(jobs.len(), 5);
        for j in &jobs[..4] {
            assert!(j["turnaround_s"].as_f64().unwrap() > 0.0, "{policy}: {j}");
            assert_eq!(j["exit_code"], 0, "{policy}: {j}");
        }
        assert!(jobs[4]["error"].as_str().unwrap().contains("cannot start"));
        assert!(v["provenance"]["energy"].as_str().is_some());
    }
    let good = d.join("good.toml");
    std::fs::write(
        &good,
        format!("[[job]]\nname = \"busy\"\ncmd = [\"sh\", \"-c\", \"{BUSY}\"]\ncount = 3\n[[job]]\nname = \"quick\"\ncmd = [\"true\"]\n"),
    )
    .unwrap();
    let mix = good;
    // The trace is Chrome/Perfetto JSON with slices on the contexts, under a policy and under linux.
    for policy in ["g-rrs", "linux"] {
        let trace = d.join(format!("{policy}.json"));
        let o = cosched(&["run", "-p", policy, "-w", mix.to_str().unwrap(), "--trace", trace.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0));
        let t: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
        let slices: Vec<&serde_json::Value> =
            t["traceEvents"].as_array().unwrap().iter().filter(|e| e["ph"] == "X").collect();
        assert!(!slices.is_empty(), "{policy}: no slices");
        assert!(slices.iter().all(|s| s["dur"].as_f64().unwrap() >= 0.0));
    }
}

#[test]
fn a_forked_grandchild_is_pinned_with_its_tree() {
    let d = tmpdir("tree");
    let out = d.join("out");
    let script = format!("sh -c '{BUSY}; grep Cpus_allowed_list /proc/self/status'");
    let o = cosched(&[
        "run",
        "-p",
        "g-rrs",
        "--quantum-ms",
        "50",
        "--output-dir",
        out.to_str().unwrap(),
        "--",
        "sh",
        "-c",
        &script,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(out.join("sh.out")).unwrap();
    let list = text.trim().strip_prefix("Cpus_allowed_list:").unwrap().trim();
    assert!(!list.contains(['-', ',']), "the grandchild runs pinned to one CPU, found `{list}`");
}

#[test]
fn bad_runs_fail_with_one_line() {
    let d = tmpdir("bad");
    let bad = d.join("bad.toml");
    std::fs::write(&bad, "[[job]]\nname = \"a\"\ncmd = []\n").unwrap();
    // Without -m this host is described by sysfs alone: no memory-bus rate, so EFS refuses before launching.
    let refused = d.join("refused.toml");
    std::fs::write(&refused, "[[job]]\nname = \"a\"\ncmd = [\"sh\", \"-c\", \"sleep 5\", \"cosched-refused-run\"]\n")
        .unwrap();
    let counters = d.join("counters.json");
    std::fs::write(&counters, r#"{"a": {"instructions": 1e9, "cycles": 1e9, "llc_accesses": 1e7, "llc_misses": 1e6}}"#)
        .unwrap();
    for (args, needle) in [
        (vec!["run", "-w", bad.to_str().unwrap()], "bad.toml: job[0].cmd: must name a program"),
        (vec!["run", "-p", "nope", "--", "true"], "unknown policy `nope`"),
        (vec!["run"], "nothing to run"),
        (vec!["run", "-p", "efs", "--", "true"], "needs per-thread hardware counters"),
        (vec!["run", "--quantum-ms", "0", "--", "true"], "--quantum-ms: must be from 0.001 ms (1 µs)"),
        (vec!["run", "-p", "cfs", "--quantum-ms", "5", "--", "true"], "--quantum-ms: policy `cfs` does not read it"),
        (
            vec!["run", "-p", "efs", "--counters", counters.to_str().unwrap(), "-w", refused.to_str().unwrap()],
            "efs needs the memory-bus rate mu",
        ),
        (vec!["run", "-m", "i5-2500", "--calibration", "kvm-epyc-2c", "--", "true"], "cannot be used with"),
        // A paper's machine is no calibration of this host (-m may name one: it describes, not calibrates).
        (vec!["run", "--calibration", "i5-2500", "--", "true"], "--calibration: `i5-2500` is a published machine"),
    ] {
        let o = cosched(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    // A policy that refuses this machine refuses before anything is launched.
    assert!(marked("cosched-refused-run").is_empty());
}

#[test]
fn counter_driven_policies_run_on_recorded_counters_and_slits_on_a_probed_profile() {
    let d = tmpdir("counters");
    let mix = d.join("mix.toml");
    std::fs::write(
        &mix,
        format!(
            "[[job]]\nname = \"a\"\ncmd = [\"sh\", \"-c\", \"{BUSY}\"]\ncount = 2\n\
             [[job]]\nname = \"b\"\ncmd = [\"sh\", \"-c\", \"{BUSY}\"]\ncount = 2\n"
        ),
    )
    .unwrap();
    let rates = d.join("rates.json");
    std::fs::write(
        &rates,
        r#"{"a": {"instructions": 2e9, "cycles": 2.5e9, "llc_accesses": 1e7, "llc_misses": 5e6, "l1_accesses": 8e8, "l1_misses": 1e7},
            "b": {"instructions": 3e9, "cycles": 2.5e9, "llc_accesses": 1e5, "llc_misses": 1e4, "l1_accesses": 1e9, "l1_misses": 1e5}}"#,
    )
    .unwrap();
    let m = mix.to_str().unwrap();
    for policy in ["efs", "perf-fair", "slits-fairness", "slits-contention"] {
        let o = cosched(&[
            "run",
            "-p",
            policy,
            "-m",
            "kvm-epyc-2c",
            "--counters",
            rates.to_str().unwrap(),
            "-w",
            m,
            "--format",
            "json",
        ]);
        assert_eq!(o.status.code(), Some(0), "{policy}: {}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert!(v["jobs"].as_array().unwrap().iter().all(|j| j["exit_code"] == 0), "{policy}: {v}");
        assert!(v["provenance"]["policy counters"].as_str().unwrap().starts_with("recorded"), "{policy}");
    }
    // A rates file that misses a job is refused before anything runs.
    let partial = d.join("partial.json");
    std::fs::write(&partial, r#"{"a": {"instructions": 1e9, "cycles": 1e9}}"#).unwrap();
    let o = cosched(&["run", "-p", "slits-fairness", "--counters", partial.to_str().unwrap(), "-w", m]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("partial.json: no rates for job `b`"));
    // Without counters the same policies are refused, pointing at the alternatives.
    let o = cosched(&["run", "-p", "slits-contention", "-w", m]);
    assert_eq!(o.status.code(), Some(2));
    if !String::from_utf8_lossy(&o.stderr).contains("not wired") {
        assert!(String::from_utf8_lossy(&o.stderr).contains("--profile"));
    }
    // Co-run probing, then SLITS on the probed profile.
    let prof = d.join("profile.json");
    let o = cosched(&["probe", "-w", m, "--pairs", "1", "-o", prof.to_str().unwrap(), "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["profile"]["jobs"], serde_json::json!(["a", "b"]));
    assert!(v["profile"]["observed"].as_array().unwrap().len() >= 3, "{v}");
    assert_eq!(v["completed"].as_array().unwrap().len(), 2);
    let o =
        cosched(&["run", "-p", "slits-contention", "--profile", prof.to_str().unwrap(), "-w", m, "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["provenance"]["policy counters"].as_str().unwrap().contains("probed profile"), "{v}");
}

#[test]
fn a_sleeping_tree_is_detected_as_blocked_and_gives_up_its_context() {
    // SLITS reschedules only when a thread stalls or exits (Lazy Reschedule), so
    // without blocking detection the sleeper would hold its context for 3 s and
    // the two busy jobs would share the other one.
    let d = tmpdir("block");
    let busy = "i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done";
    let mix = d.join("mix.toml");
    std::fs::write(
        &mix,
        format!(
            "[[job]]\nname = \"sleeper\"\ncmd = [\"sleep\", \"3\"]\n\
             [[job]]\nname = \"busy\"\ncmd = [\"sh\", \"-c\", \"{busy}\"]\ncount = 2\n"
        ),
    )
    .unwrap();
    let rates = d.join("rates.json");
    std::fs::write(
        &rates,
        r#"{"sleeper": {"instructions": 1e9, "cycles": 1e9}, "busy": {"instructions": 2e9, "cycles": 1e9}}"#,
    )
    .unwrap();
    let trace = d.join("trace.json");
    let o = cosched(&[
        "run",
        "-p",
        "slits-contention",
        "--counters",
        rates.to_str().unwrap(),
        "-w",
        mix.to_str().unwrap(),
        "--format",
        "json",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let jobs = v["jobs"].as_array().unwrap();
    assert!(jobs[0]["turnaround_s"].as_f64().unwrap() >= 2.9, "{v}");
    // One CPU: nothing can run side by side.
    if !own_cpus().contains([',', '-']) {
        return;
    }
    // Judged on the schedule, not on wall-clock margins (which a loaded host
    // stretches): had the sleeper kept its context, the busy jobs would have
    // taken turns on the other one and never run at the same time.
    let t: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let events = t.as_array().or_else(|| t["traceEvents"].as_array()).expect("trace events");
    let slices = |job: &str| -> Vec<(u64, f64, f64)> {
        events
            .iter()
            .filter(|e| e["ph"] == "X" && e["name"].as_str().is_some_and(|n| n.ends_with(job)))
            .map(|e| {
                let ts = e["ts"].as_f64().unwrap();
                (e["tid"].as_u64().unwrap(), ts, ts + e["dur"].as_f64().unwrap())
            })
            .collect()
    };
    let (a, b) = (slices("busy#0"), slices("busy#1"));
    let side_by_side: f64 = a
        .iter()
        .flat_map(|x| b.iter().filter(move |y| y.0 != x.0).map(move |y| (x.2.min(y.2) - x.1.max(y.1)).max(0.0)))
        .sum();
    let shorter = [&a, &b].iter().map(|s| s.iter().map(|x| x.2 - x.1).sum::<f64>()).fold(f64::MAX, f64::min);
    assert!(
        side_by_side >= 0.5 * shorter,
        "the busy jobs ran side by side for {side_by_side:.0} µs of the shorter one's {shorter:.0} µs: {v}"
    );
}

/// `cosched-bench pp-kernels` under rda-strict: real programs declaring real
/// periods through the C library. Sizes come from the preset the run uses
/// (kvm-epyc-2c's LLC): two instances declaring under 2/5 of it each fit
/// together and are admitted at once; declaring 3/4 of it each they do not
/// fit together, so periods wait (frozen) for each other.
#[test]
fn rda_strict_admits_real_periods_of_the_pp_kernels_and_makes_oversized_ones_wait() {
    let bench = std::path::Path::new(env!("CARGO_BIN_EXE_cosched")).with_file_name("cosched-bench");
    assert!(bench.exists(), "{} missing: cargo test --workspace builds it", bench.display());
    let d = tmpdir("ppk");
    let llc = cosched_machine::presets::machine("kvm-epyc-2c").unwrap().cache.llc_mb;
    let (fit, wait) = (((llc / 2.5) as u64).max(1), (llc * 0.75) as u64);
    assert!(2.0 * (fit as f64) < llc && (wait as f64) < llc && 2.0 * (wait as f64) > llc, "LLC {llc} MiB");
    for (case, mb, kernels) in [("fit", fit, 100), ("wait", wait, 40)] {
        let mix = d.join(format!("{case}.toml"));
        std::fs::write(
            &mix,
            format!(
                "name = \"{case}\"\n[[job]]\nname = \"k\"\ncmd = [\"{}\", \"pp-kernels\", \"--kernels\", \"{kernels}\", \"--wss-mb\", \"{mb}\", \"--mops\", \"8\"]\ncount = 2\n",
                bench.display()
            ),
        )
        .unwrap();
        let out = d.join(format!("out-{case}"));
        let o = cosched(&[
            "run",
            "-p",
            "rda-strict",
            "-m",
            "kvm-epyc-2c",
            "-w",
            mix.to_str().unwrap(),
            "--output-dir",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{case}: {}", String::from_utf8_lossy(&o.stderr));
        let mut waited = 0;
        for f in std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension() == Some("out".as_ref()))
        {
            let text = std::fs::read_to_string(&f).unwrap();
            let v: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
            assert_eq!(v["served"], true, "{case}: the runtime served the periods: {v}");
            assert_eq!(v["kernels"], kernels);
            assert!(v["pp_round_trip_us_p50"].is_null() || v["pp_round_trip_us_p50"].as_f64().unwrap() > 0.0);
            waited += v["waited"].as_u64().unwrap();
        }
        if case == "wait" {
            assert!(
                waited >= kernels as u64 / 2,
                "{case}: oversized periods should wait for each other ({waited} waited)"
            );
        }
    }
}

/// Every run names the machine description it used; a preset that
/// contradicts this host is warned about with both values, its LLC only where
/// the policy reads the LLC's capacity (RDA's monitor does, Linux does not).
#[test]
fn a_run_names_its_description_and_warns_where_a_preset_contradicts_this_host() {
    let m = cosched_machine::presets::machine("xeon-e5645").unwrap();
    let host = cosched_linux::host::Host::live();
    let o = cosched(&["run", "-m", "xeon-e5645", "--format", "json", "--", "true"]);
    assert_eq!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    let more_contexts = m.n_contexts() > host.topology.n_contexts();
    assert_eq!(err.contains(&format!("describes {} hardware contexts", m.n_contexts())), more_contexts, "{err}");
    assert!(!err.contains("this host's sysfs says"), "Linux reads no LLC capacity: {err}");
    let llc = m.cache.llc_mb * 1024.0 * 1024.0;
    let llc_differs = host.llc_bytes.is_some_and(|h| (llc / h - 1.0).abs() > 0.01);
    let o = cosched(&["run", "-m", "xeon-e5645", "-p", "rda-strict", "--format", "json", "--", "true"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("this host's sysfs says").count(), usize::from(llc_differs), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let d = v["provenance"]["machine description"].as_str().unwrap();
    assert!(d.starts_with("preset `xeon-e5645`"), "{d}");
    // Without -m: this host.
    let o = cosched(&["run", "--format", "json", "--", "true"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let d = v["provenance"]["machine description"].as_str().unwrap();
    assert!(d.starts_with("this host (sysfs)"), "{d}");
    assert!(d.contains(&format!("{} contexts", host.topology.n_contexts())), "{d}");
}

/// Pair slowdowns predicted from a characterisation `characterise` judged untrustworthy: the run
/// says so before it starts and its report names the jobs (`untrusted fits`), in a single run and
/// in interleaved rounds; `--accept-untrusted` belongs to `--characterise` alone.
#[test]
fn predictions_on_untrustworthy_fits_are_named_in_the_report() {
    let d = tmpdir("untrusted");
    let mix = d.join("mix.toml");
    std::fs::write(&mix, "[[job]]\nname = \"a\"\ncmd = [\"true\"]\n[[job]]\nname = \"b\"\ncmd = [\"true\"]\n").unwrap();
    let programs = d.join("programs.toml");
    std::fs::write(
        &programs,
        "name = \"p\"\n[[job]]\nname = \"a\"\npreset = \"mcf\"\nuntrusted = \"a: its solo runs spread 56%\"\n\
         [[job]]\nname = \"b\"\npreset = \"mcf\"\n",
    )
    .unwrap();
    let (mix, programs) = (mix.to_str().unwrap(), programs.to_str().unwrap());
    let base = ["run", "-w", mix, "--programs", programs, "-m", "kvm-epyc-2c-nov24"];
    let o = cosched(&[&base[..], &["-p", "slits-contention", "--format", "json"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("predictions rest on fits not to be trusted: a: its solo runs spread 56%"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let why = v["provenance"]["untrusted fits"].as_str().unwrap_or_default();
    assert!(why.ends_with("a: its solo runs spread 56%") && !why.contains("b:"), "{v}");
    let o = cosched(&[&base[..], &["--policies", "slits-contention", "--baseline", "linux", "--repeat", "1"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    let line = out.lines().nth(1).unwrap_or_default();
    assert!(line.starts_with("untrusted fits: ") && line.ends_with("a: its solo runs spread 56%"), "{out}");
    let o = cosched(&[&base[..], &["-p", "slits-contention", "--accept-untrusted"]].concat());
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--accept-untrusted goes with --characterise") && err.lines().count() == 1, "{err}");
    let _ = std::fs::remove_dir_all(d);
}
