//! Helpers of the real-runtime tests (`runtime.rs`, `runtime_release.rs`):
//! scratch directories, a busy loop, and whether a process was released
//! (not stopped, not in a cosched cgroup, not pinned).

use std::process::Command;
use std::time::{Duration, Instant};

pub fn tmpdir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("cosched-rt-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A shell loop doing a fixed amount of work.
pub const BUSY: &str = "i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done";

/// The CPUs this test may run on: what the scheduler (started by it) restores
/// a released process to, whatever the host has online or CI has restricted.
pub fn own_cpus() -> String {
    cpus_allowed(std::process::id() as i32).expect("own /proc status")
}

pub fn cpus_allowed(pid: i32) -> Option<String> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    s.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:")).map(|v| v.trim().to_string())
}

/// Processes whose command line contains `marker`.
pub fn marked(marker: &str) -> Vec<i32> {
    let mut v = vec![];
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else { continue };
        let Ok(cmd) = std::fs::read(format!("/proc/{pid}/cmdline")) else { continue };
        if String::from_utf8_lossy(&cmd).contains(marker) && pid != std::process::id() as i32 {
            v.push(pid);
        }
    }
    v
}

/// Processes one of whose arguments is exactly `arg` (a shell's `$0`), not
/// merely a command line containing it: a parent whose `-c` script names
/// its child's `$0` is not the child.
pub fn with_arg(arg: &str) -> Vec<i32> {
    let mut v = vec![];
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else { continue };
        let Ok(cmd) = std::fs::read(format!("/proc/{pid}/cmdline")) else { continue };
        if cmd.split(|&b| b == 0).any(|a| a == arg.as_bytes()) {
            v.push(pid);
        }
    }
    v
}

/// Wait until the scheduler `sched` has launched `n` trees marked `marker`
/// (children of it whose command line holds the marker): a test that kills
/// the scheduler "at a random moment of the run" starts its clock here, not
/// at the spawn, which a busy host delays by hundreds of milliseconds. Panics
/// after `HANG` (a hang, not a margin). Returns how long it took.
pub fn wait_launched(sched: u32, marker: &str, n: usize) -> Duration {
    let t = Instant::now();
    loop {
        let launched = marked(marker)
            .into_iter()
            .filter(|&p| {
                let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).unwrap_or_default();
                let ppid = stat.rfind(')').and_then(|i| stat[i + 2..].split_whitespace().nth(1)?.parse::<u32>().ok());
                ppid == Some(sched)
            })
            .count();
        if launched >= n {
            return t.elapsed();
        }
        assert!(t.elapsed() < HANG, "the scheduler {sched} launched {launched} of {n} trees in {HANG:?}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// How long a real-process test waits for something that must happen before
/// it calls it a hang (not a measurement margin: the waits poll and return
/// as soon as the thing happens).
pub const HANG: Duration = Duration::from_secs(60);

pub const NONE_FOUND: &str = "no managed process found";

/// Poll (up to [`HANG`]) until the run of scheduler `sched` is released:
/// its cgroup directories removed (the watchdog's or the guard's last act)
/// and every process marked `marker` released (one that ended meanwhile
/// counts as released). Returns the pids found, or the reason one is still
/// held ([`NONE_FOUND`] when none is left).
pub fn wait_released(sched: u32, marker: &str, all: &str) -> Result<Vec<i32>, String> {
    let t = Instant::now();
    loop {
        let pids = marked(marker);
        let r = if let Some(dir) = run_dirs(sched).into_iter().next() {
            Err(format!("{} still exists", dir.display()))
        } else if pids.is_empty() {
            Err(NONE_FOUND.to_string())
        } else {
            pids.iter().try_for_each(|&p| match released(p, all) {
                Err(e) if e == "gone" => Ok(()),
                r => r,
            })
        };
        if r.is_ok() || r.as_ref().is_err_and(|e| e == NONE_FOUND) || t.elapsed() > HANG {
            return r.map(|_| pids);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The cgroup directories of scheduler `sched`'s run that exist now.
pub fn run_dirs(sched: u32) -> Vec<std::path::PathBuf> {
    ["/sys/fs/cgroup/freezer", "/sys/fs/cgroup", "/sys/fs/cgroup/unified"]
        .iter()
        .map(|r| std::path::Path::new(r).join(format!("cosched-{sched}")))
        .filter(|d| d.exists())
        .collect()
}

pub fn released(pid: i32, all: &str) -> Result<(), String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).map_err(|e| e.to_string())?;
    let state = stat[stat.rfind(')').unwrap() + 2..].chars().next().unwrap();
    if state == 'T' {
        return Err(format!("{pid} is stopped"));
    }
    let cg = std::fs::read_to_string(format!("/proc/{pid}/cgroup")).unwrap_or_default();
    if cg.lines().any(|l| l.contains("/cosched-")) {
        return Err(format!("{pid} is still in a cosched cgroup: {cg}"));
    }
    let allowed = cpus_allowed(pid).ok_or("gone")?;
    if allowed != all {
        return Err(format!("{pid} is pinned to {allowed}"));
    }
    Ok(())
}

pub fn unsafe_kill(pid: i32) {
    let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
}

/// A mix file in `dir`: `loops` endless shell loops and two trees (a shell
/// whose child loops), every process's command line marked `marker`.
pub fn spinning_mix(dir: &std::path::Path, marker: &str, loops: u32) -> std::path::PathBuf {
    let mix = dir.join("mix.toml");
    std::fs::write(
        &mix,
        format!(
            "[[job]]\nname = \"loop\"\ncmd = [\"sh\", \"-c\", \"while :; do :; done\", \"{marker}\"]\ncount = {loops}\n\
             [[job]]\nname = \"tree\"\ncmd = [\"sh\", \"-c\", \"sh -c 'while :; do :; done' {marker}-child & wait\", \"{marker}\"]\ncount = 2\n"
        ),
    )
    .unwrap();
    mix
}

/// Kill every process whose command line holds `prefix` until none has been
/// seen for `QUIET` polls in a row: a child that was between `fork` and
/// `exec` when its round's processes were killed carries the marker only
/// once it has exec'd, so one pass can miss it and leave it spinning.
pub fn sweep_marked(prefix: &str) {
    const QUIET: u32 = 25; // polls of 20 ms with nothing found
    let t = Instant::now();
    let mut quiet = 0;
    while quiet < QUIET && t.elapsed() < HANG {
        let left = marked(prefix);
        if left.is_empty() {
            quiet += 1;
        } else {
            quiet = 0;
            left.into_iter().for_each(unsafe_kill);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
