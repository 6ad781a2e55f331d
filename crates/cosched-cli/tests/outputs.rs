//! Every output a command writes leaves what its path names as it was made:
//! a FIFO is written into and stays a FIFO, a character device is written into
//! and stays a device (renaming a file over it, as root, destroyed
//! `/dev/null`), a regular file is replaced whole. Each output flag and each
//! folder output is tried.

mod common;

use common::real::tmpdir as folder;
use common::{cosched, root};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

fn mkfifo(p: &Path) {
    assert!(std::process::Command::new("mkfifo").arg(p).status().unwrap().success(), "mkfifo {}", p.display());
}

/// A character device like /dev/null at `p`, where this process may make one (root).
fn mknod_null(p: &Path) -> bool {
    std::process::Command::new("mknod").arg(p).args(["c", "1", "3"]).status().is_ok_and(|s| s.success())
}

/// The commands with an output file, `OUT` where the path goes, besides the inputs they read.
fn file_outputs() -> Vec<(String, Vec<String>)> {
    let d = folder("inputs");
    let cells: String = (0..36)
        .map(|i| format!("{},{},{}\n", i / 6, i % 6, if i % 7 == 0 { String::new() } else { format!("{}", 1 + i % 5) }))
        .collect();
    let cells_path = d.join("cells.csv");
    std::fs::write(&cells_path, format!("row,col,value\n{cells}")).unwrap();
    let rec = root().join("docs/results/runtime/host-random-13-18");
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        ("simulate --trace".into(), s(&["simulate", "-m", "i5-2500", "-w", "mcf", "-p", "cfs", "--trace", "OUT"])),
        (
            "complete --model-out".into(),
            s(&["complete", cells_path.to_str().unwrap(), "--model", "sgd", "--model-out", "OUT"]),
        ),
        (
            "assign --dump".into(),
            s(&["assign", "-m", "ultrasparc-t2", "-w", "ipfwd-mem", "--samples", "500", "--dump", "OUT"]),
        ),
        (
            "characterise -o".into(),
            s(&[
                "characterise",
                "--from-record",
                rec.join("record.json").to_str().unwrap(),
                "-m",
                rec.join("host.toml").to_str().unwrap(),
                "-o",
                "OUT",
            ]),
        ),
    ]
}

/// Run `args` with `OUT` replaced by `out`, reading a FIFO while it runs; the bytes read.
fn run_into(args: &[String], out: &Path, fifo: bool) -> Vec<u8> {
    let reader = fifo.then(|| {
        let p = out.to_path_buf();
        std::thread::spawn(move || std::fs::read(p).unwrap())
    });
    let args: Vec<String> =
        args.iter().map(|a| if a == "OUT" { out.to_str().unwrap().to_string() } else { a.clone() }).collect();
    let o = cosched(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    reader.map(|r| r.join().unwrap()).unwrap_or_default()
}

#[test]
fn every_output_flag_writes_into_a_fifo_and_leaves_it_a_fifo() {
    for (what, args) in file_outputs() {
        let p = folder("fifo").join("out");
        mkfifo(&p);
        let got = run_into(&args, &p, true);
        assert!(!got.is_empty(), "{what}: nothing came through the FIFO");
        assert!(std::fs::symlink_metadata(&p).unwrap().file_type().is_fifo(), "{what}: the FIFO was replaced");
        // The same bytes as a regular file gets (written whole, through a rename).
        let f = p.with_file_name("regular");
        run_into(&args, &f, false);
        if what != "simulate --trace" {
            // (a trace is the same; its decision times are wall clock)
            assert_eq!(std::fs::read(&f).unwrap(), got, "{what}: the FIFO got other bytes than a file");
        }
        let names: Vec<_> = std::fs::read_dir(p.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 2, "{what}: a temporary left behind: {names:?}");
    }
}

#[test]
fn every_output_flag_writes_into_a_character_device_and_leaves_it_a_device() {
    let probe = folder("dev-probe").join("null");
    if !mknod_null(&probe) {
        eprintln!("skipped: this process cannot make a device node (mknod needs root)");
        return;
    }
    for (what, args) in file_outputs() {
        let p = folder("dev").join("null");
        assert!(mknod_null(&p));
        run_into(&args, &p, false);
        assert!(std::fs::symlink_metadata(&p).unwrap().file_type().is_char_device(), "{what}: the device was replaced");
    }
}

#[test]
fn a_folder_output_writes_into_a_fifo_in_its_place_and_leaves_it() {
    // `paper --out`: its tables are staged and then moved into the folder; a FIFO where one of
    // them goes is written into, not renamed over.
    let d = folder("paper");
    let fig = d.join("fig4.csv");
    mkfifo(&fig);
    let reader = {
        let f = fig.clone();
        std::thread::spawn(move || std::fs::read(f).unwrap())
    };
    let o = cosched(&["paper", "efs", "--seeds", "2", "--out", d.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let got = String::from_utf8(reader.join().unwrap()).unwrap();
    assert!(got.lines().count() > 1, "fig4.csv through the FIFO: {got}");
    assert!(std::fs::symlink_metadata(&fig).unwrap().file_type().is_fifo());
    assert!(d.join("fig6.csv").is_file());
}

#[test]
fn a_directory_in_an_output_files_place_is_refused_in_one_line_before_any_work() {
    let d = folder("dir");
    common::fails_cleanly(
        &["simulate", "-m", "i5-2500", "-w", "mcf", "--trace", d.to_str().unwrap()],
        &["--trace", "is a directory"],
    );
}
