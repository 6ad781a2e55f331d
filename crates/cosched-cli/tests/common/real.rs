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

pub const NONE_FOUND: &str = "no managed process found";

/// Poll for up to 5 s until every process marked `marker` is released (one
/// that ended meanwhile counts as released): the pids found, or the reason
/// one is still held ([`NONE_FOUND`] when none is left).
pub fn wait_released(marker: &str, all: &str) -> Result<Vec<i32>, String> {
    let t = Instant::now();
    loop {
        let pids = marked(marker);
        let r = if pids.is_empty() {
            Err(NONE_FOUND.to_string())
        } else {
            pids.iter().try_for_each(|&p| match released(p, all) {
                Err(e) if e == "gone" => Ok(()),
                r => r,
            })
        };
        if r.is_ok() || t.elapsed() > Duration::from_secs(5) {
            return r.map(|_| pids);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
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
