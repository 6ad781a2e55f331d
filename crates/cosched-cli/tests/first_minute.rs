//! The first minute: each bad input and friction a new user met,
//! mended, and held here (one test per kind of input).

mod common;

use common::{cosched, fails_cleanly, tmp};

/// A mix command that cannot start is refused before anything launches, saying why: a file
/// without the execute bit, a directory, a missing path (docs/formats.md: commands are checked
/// before launch). It was launched and reported as "Permission denied" with a makespan of 0.
#[test]
fn a_command_that_cannot_start_is_refused_before_launch() {
    let script = tmp("noexec.sh", "#!/bin/sh\necho hi\n"); // written without the execute bit
    fails_cleanly(&["run", "--", &script], &["noexec.sh", "is not executable", "chmod +x", "sh "]);
    let dir = std::path::Path::new(&script).parent().unwrap().to_str().unwrap().to_string();
    fails_cleanly(&["run", "--", &dir], &["is a directory, not a program"]);
    fails_cleanly(&["run", "--", "./no-such-file-here"], &["./no-such-file-here", "does not exist"]);
    let mix = tmp("noexec-mix.toml", &format!("name = \"m\"\n[[job]]\nname = \"a\"\ncmd = [\"{script}\"]\n"));
    fails_cleanly(&["run", "-w", &mix], &["noexec-mix.toml", "job[0].cmd", "is not executable", "job `a`"]);
}

/// `run --policies` says what a policy listed twice is for (it ran `linux#2` with no word why):
/// an A/A check of the host's noise, held by `tests/runtime_rounds.rs`.
#[test]
fn run_says_what_a_policy_listed_twice_is_for() {
    let help = String::from_utf8_lossy(&cosched(&["run", "--help"]).stdout).to_string();
    assert!(help.contains("A policy listed twice runs twice, the second named `NAME#2`: an A/A check"), "{help}");
}

/// `--assignment`: a negative entry is the knob's value, refused naming the entry (it was clap's
/// "unexpected argument"); an empty one says so (it printed an empty file name); one entry per
/// thread exactly (one too many was accepted).
#[test]
fn an_assignment_is_one_context_per_thread_and_its_errors_name_it() {
    let base = ["simulate", "-m", "i5-2500", "-w", "spec-mix8", "-p", "static", "--assignment"];
    fn with<'a>(base: &[&'a str], a: &'a str) -> Vec<&'a str> {
        base.iter().copied().chain([a]).collect()
    }
    fails_cleanly(&with(&base, "-1,0"), &["--assignment", "thread 0", "`-1` is not a context id"]);
    fails_cleanly(&with(&base, ""), &["--assignment", "is empty"]);
    fails_cleanly(&with(&base, "0,1,2,3,0,1,2,3,0"), &["assignment has 9 entries", "8 threads"]);
    let o = cosched(&with(&base, "0,1,2,3,0,1,2,3"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// An event budget reached in a job's solo run says it was the solo run, and counts its threads
/// (it said "0 of 1 threads finished" of a 24-thread mix).
#[test]
fn an_event_budget_reached_alone_names_the_solo_run() {
    fails_cleanly(
        &["simulate", "-m", "xeon-e5645", "-w", "spec-mix24", "--max-events", "100"],
        &["the solo run of job `", "event budget of 100 events", "0 of 1 threads", "--max-events"],
    );
}

/// A job ended by a signal is named with it ("exited with status 137" alone hid the SIGKILL).
#[test]
fn a_job_ended_by_a_signal_names_the_signal() {
    let o = cosched(&["run", "--quiet", "--", "sh", "-c", "kill -9 $$"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("sh exited with status 137 (128 + 9: ended by SIGKILL)"), "{err}");
}

/// `complete` with no cell to predict says so (it printed a bare header and exit 0).
#[test]
fn complete_without_a_cell_to_predict_says_so() {
    let full = tmp("full.csv", "a,x,1\na,y,2\nb,x,1.5\nb,y,2.5\n");
    fails_cleanly(&["complete", &full], &["full.csv", "no cell to predict", "row,col,"]);
}

/// Help that agrees with behaviour: `characterise` lists `-m` once (the second, and
/// `--calibration`, came from `run`'s options); `run` does not offer the simulator's oracle
/// readings, and refuses them by name.
#[test]
fn help_lists_what_the_command_reads() {
    let help = String::from_utf8_lossy(&cosched(&["characterise", "--help"]).stdout).to_string();
    assert_eq!(help.matches("-m, --machine").count(), 1, "{help}");
    assert!(!help.contains("--calibration"), "{help}");
    let help = String::from_utf8_lossy(&cosched(&["run", "--help"]).stdout).to_string();
    assert!(help.contains("[possible values: model, capacity]"), "{help}");
    assert!(!help.contains("possible values: fm, round-robin, random, oracle"), "{help}");
    fails_cleanly(&["run", "--efs-admission", "oracle", "-p", "efs", "--", "true"], &["--efs-admission", "'oracle'"]);
}

/// A real run's quantum is at least a millisecond (0.001 ms was accepted and cost 22.5% of a core).
#[test]
fn a_real_quantum_below_a_millisecond_is_refused() {
    fails_cleanly(
        &["run", "-p", "g-rrs", "--quantum-ms", "0.001", "--", "true"],
        &["--quantum-ms 0.001", "below 1 ms"],
    );
}

/// A long command piped is never silent for 10 s: `validate` of one machine (about
/// 16 s here, its first point alone most of it) writes a line on stderr at least every 10 s.
#[test]
fn a_long_command_piped_speaks_at_least_every_ten_seconds() {
    let (longest, total) = longest_silence(&["validate", "xeon-e5-2420"], None);
    assert!(longest <= std::time::Duration::from_secs(10), "silent for {longest:?} in {total:?}");
}

/// The longest silence on stderr (piped) of `cosched ARGS`, and how long it ran; with `beat`,
/// the heartbeat shortened to that many seconds (`COSCHED_HEARTBEAT_S`). It must succeed.
fn longest_silence(args: &[&str], beat: Option<&str>) -> (std::time::Duration, std::time::Duration) {
    use std::io::BufRead;
    use std::time::{Duration, Instant};
    let start = Instant::now();
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_cosched"));
    cmd.args(args).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped());
    if let Some(b) = beat {
        cmd.env("COSCHED_HEARTBEAT_S", b);
    }
    let mut child = cmd.spawn().unwrap();
    let (mut last, mut longest) = (start, Duration::ZERO);
    for line in std::io::BufReader::new(child.stderr.take().unwrap()).lines() {
        let _ = line.unwrap();
        longest = longest.max(last.elapsed());
        last = Instant::now();
    }
    assert!(child.wait().unwrap().success(), "{args:?} failed");
    (longest.max(last.elapsed()), start.elapsed())
}

/// Every command that can run long has the heartbeat (`simulate` at a large size
/// and `evt` on a large file were silent for a minute): with it shortened to 1 s, none is silent
/// for 3 s, though each runs longer than that here (a command without it would be silent
/// throughout: the check fails only if the command ran past 3 s).
#[test]
fn every_long_command_has_the_heartbeat() {
    // One million values of a seeded uniform generator (an LCG): the tail fit takes seconds.
    let mut x: u64 = 1;
    let mut text = String::from("x\n");
    for _ in 0..1_000_000 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        text.push_str(&format!("{:.6}\n", (x >> 11) as f64 / (1u64 << 53) as f64));
    }
    let big = tmp("heartbeat.csv", &text);
    // A real run whose only job detached and prints nothing: the scheduler waits for its tree.
    let detached = vec!["run", "-p", "linux", "--", "sh", "-c", "sleep 5 & exit 0"];
    for args in [vec!["evt", big.as_str()], vec!["simulate", "-w", "canneal", "--threads", "32768"], detached] {
        let (longest, total) = longest_silence(&args, Some("1"));
        assert!(
            longest <= std::time::Duration::from_secs(3) || total <= std::time::Duration::from_secs(3),
            "{args:?}: silent for {longest:?} of {total:?}"
        );
    }
}

/// The default comparison explains itself: every pair of rows identical in every
/// simulated column is named under the table with what the policies found to act on, every
/// policy above the bound on average is marked in its row, and every line fits 160 characters.
#[test]
fn the_comparison_names_identical_rows_and_marks_policies_above_the_bound() {
    let policies = "cfs,eevdf,linux-cache,rda-strict,rda-compromise,slits-contention,slits-fairness,perf,efs";
    let out = cosched(&["compare", "--policies", policies, "--seeds", "2"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let lines: Vec<&str> = text.lines().collect();
    let wide: Vec<&&str> = lines.iter().filter(|l| l.chars().count() > 160).collect();
    assert!(wide.is_empty(), "lines wider than 160 characters: {wide:#?}");
    // The table: a header, a rule, one row per policy. Cells are split at two spaces or more.
    let cells =
        |l: &str| -> Vec<String> { l.split("  ").map(str::trim).filter(|c| !c.is_empty()).map(String::from).collect() };
    let head = cells(lines[1]);
    let (gap, p99) = (
        head.iter().position(|h| h == "gap_to_bound_pct").expect("the gap column"),
        head.iter().position(|h| h == "decide_p99_us").expect("the decision-time column"),
    );
    let rows: Vec<Vec<String>> = lines[3..3 + policies.split(',').count()].iter().map(|l| cells(l)).collect();
    let notes = lines[3 + rows.len()..].join("\n");
    // Rows equal in every column but the measured decision time are named together, in one line.
    let simulated = |r: &Vec<String>| -> Vec<String> {
        r.iter().enumerate().filter(|(i, _)| *i != 0 && *i != p99).map(|(_, c)| c.clone()).collect()
    };
    let mut pairs = 0;
    for (i, a) in rows.iter().enumerate() {
        for b in &rows[i + 1..] {
            if simulated(a) == simulated(b) {
                pairs += 1;
                let named = notes.lines().any(|l| {
                    l.starts_with("identical rows:")
                        && [&a[0], &b[0]].iter().all(|p| l.contains(&format!(" {p} ")) || l.contains(&format!(" {p}(")))
                });
                assert!(named, "{} and {} are identical but not named together:\n{notes}", a[0], b[0]);
            }
        }
    }
    assert!(pairs >= 3, "eevdf = linux-cache, rda-* = cfs and slits-* were identical on this workload:\n{text}");
    assert!(notes.contains("no job declared a progress period"), "{notes}");
    // A policy above the bound on average (a negative mean gap) is marked, and only such a one.
    for r in &rows {
        let mean: f64 = r[gap].split_whitespace().next().unwrap().parse().expect("a gap");
        assert_eq!(r[gap].ends_with(" *"), mean < 0.0, "{}: {}", r[0], r[gap]);
    }
    assert!(rows.iter().any(|r| r[gap].ends_with(" *")), "perf was above the bound here:\n{text}");
    assert!(notes.contains("above the bound on average"), "{notes}");
    // The columns asked for are checked before any run.
    fails_cleanly(&["compare", "--columns", ""], &["--columns", "the list is empty"]);
    fails_cleanly(&["compare", "--columns", "foo"], &["--columns", "`foo` is not a column"]);
}

/// A counter-driven policy on a host without counters: the refusal names the exact
/// commands that run it here (SLITS: calibrate, characterise, run with --programs; EFS and
/// Perf&Fair: a PMU or recorded rates). On a host with a PMU the run simply goes ahead.
#[test]
fn a_counter_driven_policy_without_counters_names_the_commands_that_run_it() {
    let mix = tmp("hint-mix.toml", "name = \"m\"\n[[job]]\nname = \"a\"\ncmd = [\"true\"]\n");
    let out = cosched(&["run", "-p", "slits-contention", "-w", &mix]);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    if out.status.success() {
        return; // this host has a PMU
    }
    assert_eq!(out.status.code(), Some(2), "{err}");
    let programs = mix.strip_suffix(".toml").unwrap().to_string() + ".programs.toml";
    for needle in [
        "needs per-thread hardware counters".to_string(),
        "cosched calibrate -o host.toml".into(),
        format!("cosched characterise -w {mix} -m host.toml -o {programs}"),
        format!("cosched run -p slits-contention -w {mix} -m host.toml --programs {programs}"),
    ] {
        assert!(err.contains(&needle), "missing `{needle}` in: {err}");
    }
    // A machine given is the one the commands use; EFS says what it needs instead.
    let out = cosched(&["run", "-p", "slits-fairness", "-w", &mix, "-m", "kvm-epyc-2c"]);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(err.contains(&format!("-w {mix} -m kvm-epyc-2c --programs")) && !err.contains("calibrate"), "{err}");
    let out = cosched(&["run", "-p", "efs", "-w", &mix]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--counters FILE"));
}

/// `run --characterise`: slits-* on a host without counters in one command, from a build of
/// `cosched` alone (the README's first command builds no `cosched-bench`: the binary runs in a
/// folder of its own, with no `cosched-bench` on PATH, and runs the kernels as `cosched bench`).
/// The first run characterises the mix's commands on the named machine and keeps the result in the
/// cache folder; the second, with the same commands and machine, reuses it and says so; the run's
/// provenance says the pair slowdowns were predicted, not probed. (With a PMU nothing is done.)
/// Fits judged untrustworthy (a busy host) are scheduled on only with `--accept-untrusted`, and
/// named in the report; without it, a kept characterisation holding them is measured again and
/// the run refused in one line if they are untrustworthy again.
#[test]
fn run_characterise_makes_the_characterisation_once_and_reuses_it() {
    let mix = tmp(
        "characterise-mix.toml",
        "name = \"one\"\n[[job]]\nname = \"a\"\ncmd = [\"sh\", \"-c\", \"i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done\"]\n",
    );
    let cache = std::path::Path::new(&mix).parent().unwrap().join("cache");
    let _ = std::fs::remove_dir_all(&cache);
    let alone = std::path::Path::new(&mix).parent().unwrap().join("alone");
    std::fs::create_dir_all(&alone).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_cosched"), alone.join("cosched")).unwrap();
    let run = |extra: &[&str]| {
        let args = ["run", "-p", "slits-contention", "-w", &mix, "-m", "kvm-epyc-2c", "--characterise"];
        std::process::Command::new(alone.join("cosched"))
            .env("PATH", "/usr/bin:/bin")
            .args(args.iter().chain(extra).chain(&["--format", "json"]))
            .env("COSCHED_CACHE_DIR", &cache)
            .output()
            .unwrap()
    };
    let first = run(&["--accept-untrusted"]);
    let err = String::from_utf8_lossy(&first.stderr).to_string();
    assert!(first.status.success(), "{err}");
    if err.contains("this host has counters") {
        return;
    }
    let kept: Vec<_> =
        std::fs::read_dir(&cache).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert!(kept.len() == 1 && kept[0].starts_with("programs-") && kept[0].ends_with(".toml"), "{kept:?}");
    assert!(err.contains("each job alone and beside cache pirates"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    let provenance = v["provenance"]["policy counters"].as_str().unwrap().to_string();
    assert!(provenance.contains("predicted by the simulator for characterised programs"), "{provenance}");
    // Whether the host let the fit be trusted, the report says it as the characterisation did.
    let untrusted = err.contains("not characterisable on this host as measured");
    assert_eq!(v["provenance"]["untrusted fits"].is_string(), untrusted, "{v}\n{err}");
    let second = run(&["--accept-untrusted"]);
    let err = String::from_utf8_lossy(&second.stderr).to_string();
    assert!(second.status.success(), "{err}");
    assert!(
        err.contains("were characterised on this machine before") && !err.contains("beside cache pirates"),
        "{err}"
    );
    let third = run(&[]);
    let err = String::from_utf8_lossy(&third.stderr).to_string();
    if !untrusted {
        assert!(third.status.success() && err.contains("were characterised on this machine before"), "{err}");
        return;
    }
    assert!(err.contains("holds 1 fit(s) not to be trusted: measuring again"), "{err}");
    if third.status.success() {
        assert!(!err.contains("not characterisable on this host as measured"), "{err}");
    } else {
        assert_eq!(third.status.code(), Some(2), "{err}");
        let last = err.lines().last().unwrap_or_default();
        assert!(
            last.starts_with("error: --characterise: 1 of the mix's jobs") && last.contains("--accept-untrusted"),
            "{err}"
        );
        assert!(third.stdout.is_empty(), "nothing scheduled");
    }
}

/// A command given after `--` is named as the command in `run`'s report (it was "mix true",
/// a mix named after the program), and the run's figures are a table of their own.
#[test]
fn run_names_a_single_command_as_a_command() {
    let out = cosched(&["run", "-p", "g-rrs", "--", "true"]);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.starts_with("policy g-rrs on the command `true` (freezer: "), "{text}");
    assert!(text.lines().any(|l| l.starts_with("run ") && l.contains("value")), "{text}");
}

/// A calibrated machine file (`cosched calibrate` writes one assumed power value) is used without
/// a note about `power.core_active_w` (every use printed one); a hand-written file's shorthand is
/// still noted (tests/first_hour.rs).
#[test]
fn a_calibrated_file_is_used_without_a_note_about_its_own_power_value() {
    let calibrated = tmp("calibrated.toml", &common::preset("machines", "kvm-epyc-2c"));
    assert!(std::fs::read_to_string(&calibrated).unwrap().contains("core_active_w = [8.0]"));
    let o = cosched(&["simulate", "-m", &calibrated, "-w", "mcf", "-p", "cfs", "--no-timing"]);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "{err}");
    assert!(!err.contains("core_active_w"), "{err}");
}

/// An interrupted `paper --out DIR` leaves `DIR` as it was (SIGINT left 5 of 12 CSVs
/// with nothing marking them): the CSVs written so far are in `DIR/.incomplete/`, and a whole
/// rerun moves every one into `DIR` and leaves no `.incomplete/`.
#[test]
fn an_interrupted_paper_rerun_leaves_its_folder_as_it_was() {
    use std::io::BufRead;
    let dir = std::path::Path::new(&tmp("paper-out-marker", "")).with_file_name("paper-out");
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.to_str().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_cosched"))
        .args(["paper", "efs", "--seeds", "1", "--no-timing", "--out", out])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupted once a table or two is written (each heading is a line on stderr when piped).
    let staged = dir.join(".incomplete");
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    while std::fs::read_dir(&staged).map_or(0, |d| d.count()) < 2 {
        if lines.next().is_none() {
            break;
        }
    }
    nix_kill(child.id(), 2);
    let status = child.wait().unwrap();
    let csvs = |d: &std::path::Path| -> usize {
        std::fs::read_dir(d)
            .map_or(0, |r| r.filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "csv")).count())
    };
    if status.success() {
        // It finished before the signal arrived: then it is whole.
        assert!(!staged.exists() && csvs(&dir) > 0);
        return;
    }
    assert_eq!(csvs(&dir), 0, "an interrupted rerun wrote into its folder");
    let written = csvs(&staged);
    assert!(written >= 1, "what it wrote is not in .incomplete/");
    // A whole rerun: every CSV in the folder, nothing staged left.
    let o = cosched(&["paper", "efs", "--seeds", "1", "--no-timing", "--out", out]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!staged.exists() && csvs(&dir) > written, "{:?}", std::fs::read_dir(&dir).unwrap().collect::<Vec<_>>());
}

/// Send `signal` to process `pid` (kill(1)); it may have ended already.
fn nix_kill(pid: u32, signal: i32) {
    let _ = std::process::Command::new("kill").args([format!("-{signal}"), pid.to_string()]).status();
}

/// A characterisation's rounds: more at first than at most is refused by `--max-rounds`, before
/// anything is measured (the mix's one job is a busy loop that is never started).
#[test]
fn characterise_refuses_fewer_most_rounds_than_first_rounds() {
    let out = std::env::temp_dir().join(format!("cosched-max-rounds-{}.toml", std::process::id()));
    let out = out.to_string_lossy();
    let mix = tmp("max-rounds-mix.toml", "[[job]]\nname = \"spin\"\ncmd = [\"sh\", \"-c\", \"while :; do :; done\"]\n");
    fails_cleanly(
        &["characterise", "-m", "kvm-epyc-2c", "-w", &mix, "-o", &out, "--max-rounds", "2", "--repeat", "5"],
        &["--max-rounds: must be at least --repeat (5), got 2"],
    );
    assert!(!std::path::Path::new(&*out).exists(), "a refused characterisation wrote {out}");
}
