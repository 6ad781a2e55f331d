//! `cosched profile` on a real program: a small C program that sweeps a
//! 512 KiB array is compiled and traced under `valgrind --tool=lackey` inside
//! the test; the profiler must report its working set within 10%.

use std::path::PathBuf;
use std::process::Command;

fn have(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success())
}

#[test]
fn profiler_finds_the_working_set_of_a_traced_c_program() {
    if !have("valgrind") || !have("cc") {
        eprintln!("SKIPPED: valgrind or cc not installed (the test needs both)");
        return;
    }
    let dir: PathBuf = std::env::temp_dir().join(format!("cosched-profile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("sweep.c");
    std::fs::write(
        &src,
        "#include <stdlib.h>\nint main(void) {\n  enum { N = 512 * 1024 / 8 };\n  volatile double *a = malloc(N * sizeof(double));\n  for (int i = 0; i < N; i++) a[i] = i;\n  double s = 0;\n  for (int r = 0; r < 20; r++) for (int i = 0; i < N; i++) s += a[i];\n  return s < 0;\n}\n",
    )
    .unwrap();
    let exe = dir.join("sweep");
    assert!(Command::new("cc").args(["-O1", "-o"]).arg(&exe).arg(&src).status().unwrap().success());
    let trace = dir.join("trace.txt");
    let st = Command::new("valgrind")
        .args(["--tool=lackey", "--trace-mem=yes"])
        .arg(format!("--log-file={}", trace.display()))
        .arg(&exe)
        .status()
        .unwrap();
    assert!(st.success());
    let out = Command::new(env!("CARGO_BIN_EXE_cosched"))
        .args(["profile", trace.to_str().unwrap(), "--window", "131072", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let periods = v["periods"].as_array().unwrap();
    assert!(!periods.is_empty());
    let wss = periods.iter().map(|p| p["wss"].as_f64().unwrap()).fold(0.0, f64::max);
    assert!((wss / (512.0 * 1024.0) - 1.0).abs() < 0.10, "WSS {wss} bytes vs the 512 KiB array");
    assert_eq!(periods[0]["level"], "high");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_traces_and_growth_fits() {
    let dir = std::env::temp_dir().join(format!("cosched-profile-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "addr\n0x10\nzz\n").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_cosched"))
        .args(["profile", bad.to_str().unwrap(), "--trace-format", "csv"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad.csv:3") && err.contains("zz") && err.lines().count() == 1, "{err}");
    let o = Command::new(env!("CARGO_BIN_EXE_cosched"))
        .args(["profile", "-", "--growth", "100:1.5,200:2.0,400:2.5", "--predict", "1600"])
        .output()
        .unwrap();
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("predicted WSS for input 1600: 3.5000"), "{text}");
}

/// A trace streamed through a FIFO: `profile` says it is waiting for a writer before it blocks,
/// then reads what comes.
#[test]
fn a_fifo_trace_is_announced_then_read_as_it_comes() {
    use std::io::{Read, Write};
    use std::os::unix::fs::FileTypeExt;
    let dir = std::env::temp_dir().join(format!("cosched-profile-fifo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("trace.fifo");
    let _ = std::fs::remove_file(&fifo);
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let mut child = Command::new(env!("CARGO_BIN_EXE_cosched"))
        .args(["profile", fifo.to_str().unwrap(), "--trace-format", "csv"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The note comes before the open blocks: read it before anything writes. Should it never come,
    // the child is killed after a minute, so the read ends and the test fails instead of hanging.
    let noted = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (flag, pid) = (noted.clone(), child.id().to_string());
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(60));
        if !flag.load(std::sync::atomic::Ordering::SeqCst) {
            let _ = Command::new("kill").args(["-9", &pid]).status();
        }
    });
    let mut err = child.stderr.take().unwrap();
    // Its first line (stderr is unbuffered: it may come in pieces).
    let mut first = vec![];
    let mut byte = [0u8; 1];
    while err.read(&mut byte).unwrap() == 1 && byte[0] != b'\n' {
        first.push(byte[0]);
    }
    noted.store(true, std::sync::atomic::Ordering::SeqCst);
    let note = String::from_utf8_lossy(&first).to_string();
    assert!(note.contains("is a FIFO: waiting for a writer"), "{note}");
    let mut w = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    let trace: String = (0..4096u64).map(|i| format!("0x{:x}\n", i * 64)).collect();
    w.write_all(format!("addr\n{trace}").as_bytes()).unwrap();
    drop(w);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{note}");
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo(), "the FIFO stays a FIFO");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The suggested annotation compiles against the header.
#[test]
fn suggested_annotation_compiles_against_the_c_header() {
    if !have("cc") {
        eprintln!("SKIPPED: cc not installed");
        return;
    }
    let dir = std::env::temp_dir().join(format!("cosched-profile-ann-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A 64 KiB array swept 40 times: one period with high reuse.
    let mut trace = String::from("addr\n");
    for _ in 0..40 {
        for i in 0..(64 * 1024 / 8) {
            trace += &format!("{:#x}\n", 0x1000_0000u64 + i * 8);
        }
    }
    let csv = dir.join("sweep.csv");
    std::fs::write(&csv, trace).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cosched"))
        .args(["profile", csv.to_str().unwrap(), "--trace-format", "csv", "--window", "16384", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ann = v["periods"][0]["annotation"].as_str().expect("a period with an annotation").to_string();
    assert!(ann.starts_with("pp_begin(COSCHED_PP_LLC, "), "{ann}");
    let src = dir.join("annotated.c");
    std::fs::write(
        &src,
        format!("#include <stdint.h>\n#include \"cosched/pp.h\"\nint main(void) {{\n  int64_t pp = {ann};\n  return pp_end(pp);\n}}\n"),
    )
    .unwrap();
    let include = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../include");
    let cc = Command::new("cc").arg("-fsyntax-only").arg("-Werror").arg("-I").arg(&include).arg(&src).output().unwrap();
    assert!(cc.status.success(), "`{ann}` does not compile: {}", String::from_utf8_lossy(&cc.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}
