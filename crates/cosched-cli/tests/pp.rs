//! Progress periods for real programs: a C program compiled against
//! `include/cosched/pp.h` through the installed pkg-config file runs under
//! `cosched run`; RDA Strict makes the second period wait for the first,
//! `linux` admits both at once, and with no server the calls return at once.
//! The server rejects processes the run does not manage.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cosched-pp-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Install the library with scripts/install-pp and build the C client with pkg-config.
fn build_client(dir: &Path) -> PathBuf {
    let prefix = dir.join("prefix");
    let st = Command::new("bash").arg(root().join("scripts/install-pp")).arg(&prefix).status().unwrap();
    assert!(st.success(), "scripts/install-pp failed");
    let pc = Command::new("pkg-config")
        .args(["--cflags", "--libs", "cosched-pp"])
        .env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig"))
        .output()
        .unwrap();
    assert!(pc.status.success(), "pkg-config: {}", String::from_utf8_lossy(&pc.stderr));
    let flags: Vec<String> = String::from_utf8(pc.stdout).unwrap().split_whitespace().map(String::from).collect();
    let exe = dir.join("pp_client");
    let o = Command::new("cc")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/pp_client.c"))
        .args(&flags)
        .arg(format!("-Wl,-rpath,{}", prefix.join("lib").display()))
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(o.status.success(), "cc: {}", String::from_utf8_lossy(&o.stderr));
    exe
}

/// The LLC capacity, MiB, of the description a run with `machine` uses:
/// the preset's `cache.llc_mb`, or this host's sysfs L3 without one (`None`:
/// this host reports no L3, and RDA cannot start without a size).
fn described_llc_mb(machine: Option<&str>) -> Option<f64> {
    let bytes = match machine {
        Some(m) => cosched_machine::presets::machine(m).unwrap().cache.llc_mb * 1024.0 * 1024.0,
        None => cosched_linux::host::Host::live().llc_bytes?,
    };
    Some(bytes / (1024.0 * 1024.0))
}

/// A period size in whole MiB (the C client's unit) that fits the LLC alone
/// and not twice: ⌈¾ LLC⌉ (flooring would let two 1 MiB periods share a 2 MiB L3).
fn oversized_pair_mb(llc_mb: f64) -> u64 {
    let mb = (0.75 * llc_mb).ceil() as u64;
    assert!(
        mb as f64 <= llc_mb && 2.0 * mb as f64 > llc_mb,
        "LLC {llc_mb} MiB: no whole-MiB size fits once but not twice"
    );
    mb
}

/// (name, id, t_call, t_admitted, t_end) of each instance.
fn periods(out: &Path, names: &[&str]) -> Vec<(String, i64, f64, f64, f64)> {
    names
        .iter()
        .map(|n| {
            let text = std::fs::read_to_string(out.join(format!("{n}.out"))).unwrap();
            let f: Vec<&str> = text.split_whitespace().collect();
            (
                f[0].to_string(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
                f[4].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn c_program_periods_wait_under_rda_strict_and_not_under_linux() {
    let dir = tmpdir("c");
    let exe = build_client(&dir);
    // Without a server: id 0 at once.
    let o = Command::new(&exe).args(["solo", "8", "10"]).env_remove("COSCHED_PP_SOCKET").output().unwrap();
    assert!(o.status.success());
    let f: Vec<String> = String::from_utf8(o.stdout).unwrap().split_whitespace().map(String::from).collect();
    assert_eq!(f[1], "0", "fail-open id");
    // Two periods of 3/4 of the described LLC each: Strict admits one at a time.
    // Sized from the description the run uses: the preset given with -m.
    let machine = "xeon-e5645";
    let mb = oversized_pair_mb(described_llc_mb(Some(machine)).unwrap());
    let mix = dir.join("mix.toml");
    std::fs::write(
        &mix,
        format!("[[job]]\nname = \"pp\"\ncmd = [\"{}\", \"pp\", \"{mb}\", \"300\"]\ncount = 2\n", exe.display()),
    )
    .unwrap();
    for policy in ["rda-strict", "linux"] {
        let out = dir.join(format!("out-{policy}"));
        let o = Command::new(env!("CARGO_BIN_EXE_cosched"))
            .args(["run", "-p", policy, "-m", machine, "-w", mix.to_str().unwrap(), "--output-dir"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{policy}: {}", String::from_utf8_lossy(&o.stderr));
        let mut p = periods(&out, &["pp#0", "pp#1"]);
        assert!(p.iter().all(|x| x.1 > 0), "{policy}: ids {p:?}");
        p.sort_by(|a, b| a.3.partial_cmp(&b.3).unwrap());
        let (first, second) = (&p[0], &p[1]);
        if policy == "rda-strict" {
            assert!(second.3 >= first.4 - 0.01, "the second period is admitted after the first ends: {p:?}");
            assert!(second.3 - second.2 > 0.2, "the second caller waited in pp_begin: {p:?}");
        } else {
            assert!(p.iter().all(|x| x.3 - x.2 < 0.1), "linux admits at once: {p:?}");
            assert!(second.3 < first.4, "linux runs both periods together: {p:?}");
        }
    }
}

#[test]
fn without_a_preset_strict_sizes_periods_by_this_hosts_sysfs_llc() {
    let dir = tmpdir("host");
    let exe = build_client(&dir);
    let Some(llc) = described_llc_mb(None) else {
        // No L3 in sysfs: RDA cannot start and says why, before launching anything.
        let o = Command::new(env!("CARGO_BIN_EXE_cosched"))
            .args(["run", "-p", "rda-strict", "--", "true"])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&o.stderr).contains("LLC capacity"));
        return;
    };
    let mb = oversized_pair_mb(llc);
    let mix = dir.join("mix.toml");
    std::fs::write(
        &mix,
        format!("[[job]]\nname = \"pp\"\ncmd = [\"{}\", \"pp\", \"{mb}\", \"300\"]\ncount = 2\n", exe.display()),
    )
    .unwrap();
    let out = dir.join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_cosched"))
        .args(["run", "-p", "rda-strict", "-w", mix.to_str().unwrap(), "--format", "json", "--output-dir"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let desc = report["provenance"]["machine description"].as_str().unwrap();
    assert!(desc.starts_with("this host (sysfs)") && desc.contains("LLC "), "{desc}");
    let mut p = periods(&out, &["pp#0", "pp#1"]);
    p.sort_by(|a, b| a.3.partial_cmp(&b.3).unwrap());
    assert!(p[1].3 >= p[0].4 - 0.01, "the second period is admitted after the first ends: {p:?}");
}

#[test]
fn the_server_rejects_unmanaged_processes_and_malformed_requests() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cosched"))
        .args(["run", "-p", "rda-strict", "-m", "xeon-e5645", "--", "sleep", "3"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let sock = std::env::temp_dir().join(format!("cosched-run-{}/pp.sock", child.id()));
    let t = Instant::now();
    let mut s = loop {
        if let Ok(s) = UnixStream::connect(&sock) {
            break s;
        }
        assert!(t.elapsed() < Duration::from_secs(5), "no socket at {}", sock.display());
        std::thread::sleep(Duration::from_millis(20));
    };
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut r = BufReader::new(s.try_clone().unwrap());
    let mut ask = |line: &[u8]| {
        s.write_all(line).unwrap();
        let mut reply = String::new();
        r.read_line(&mut reply).unwrap();
        reply
    };
    assert!(ask(b"HELLO\n").starts_with("ERR unknown request"));
    assert!(ask(b"BEGIN llc 12 sometimes\n").starts_with("ERR unknown reuse"));
    assert!(ask(b"\xff\x00\n").starts_with("ERR not UTF-8"));
    let reply = ask(b"BEGIN llc 1048576 high\n");
    assert!(reply.starts_with("ERR process") && reply.contains("not managed by this run"), "{reply}");
    child.kill().unwrap();
    child.wait().unwrap();
}
