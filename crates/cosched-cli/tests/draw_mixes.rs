//! Held-out mixes: `cosched draw-mixes` draws a family's held-out mixes on a
//! calibrated host, the same files for the same family, seed and host, and
//! refuses a bad family in one line naming the file and the field.

mod common;

use common::{fails_cleanly, root, tmp};
use std::process::{Command, Output};

/// `cosched ARGS` with a folder first on PATH holding an executable of every program the
/// committed families start (draw-mixes refuses a family whose program this host lacks; the
/// test is of the draw, not of which Debian packages this host has).
fn draw(args: &[&str]) -> Output {
    use std::os::unix::fs::PermissionsExt;
    let stubs = std::env::temp_dir().join(format!("cosched-draw-stubs-{}", std::process::id()));
    std::fs::create_dir_all(&stubs).unwrap();
    for fam in ["host-random", "host-real"] {
        let f = cosched_machine::family::Family::load(&root().join(format!("data/mixes/{fam}/family.toml"))).unwrap();
        for p in f.programs {
            let stub = stubs.join(&p.cmd[0]);
            std::fs::write(&stub, "#!/bin/sh\nexit 0\n").unwrap();
            std::fs::set_permissions(&stub, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    let path = format!("{}:{}", stubs.display(), std::env::var("PATH").unwrap_or_default());
    Command::new(env!("CARGO_BIN_EXE_cosched")).args(args).env("PATH", path).output().expect("run cosched")
}

/// Both committed families draw, byte for byte the same twice; every drawn mix and the
/// programs file parse as mix files (`cosched run` and `cosched characterise` read them).
#[test]
fn the_committed_families_draw_the_same_mixes_twice() {
    for fam in ["host-random", "host-real"] {
        let family = root().join(format!("data/mixes/{fam}/family.toml"));
        let family = family.to_str().unwrap();
        let dirs: Vec<String> = (0..2)
            .map(|i| {
                let d = std::env::temp_dir().join(format!("cosched-draw-{}-{fam}-{i}", std::process::id()));
                let _ = std::fs::remove_dir_all(&d);
                let o = draw(&["draw-mixes", "--family", family, "-m", "kvm-epyc-2c", "-o", d.to_str().unwrap()]);
                assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
                let out = String::from_utf8_lossy(&o.stdout).to_string();
                assert!(out.contains(&format!("Family `{fam}`")) && out.contains("check-12.toml"), "{out}");
                d.to_str().unwrap().to_string()
            })
            .collect();
        let mut names: Vec<String> = std::fs::read_dir(&dirs[0])
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names.len(), 13, "{names:?}");
        for n in &names {
            let a = std::fs::read(format!("{}/{n}", dirs[0])).unwrap();
            assert_eq!(a, std::fs::read(format!("{}/{n}", dirs[1])).unwrap(), "{fam}: {n} differs");
            let text = String::from_utf8(a).unwrap();
            cosched_machine::mix::Mix::parse(n, &text).unwrap_or_else(|e| panic!("{fam}/{n}: {e}"));
        }
        // A later part of the family draws the same mixes as the whole: mix k is a function of k.
        let part = std::env::temp_dir().join(format!("cosched-draw-{}-{fam}-from", std::process::id()));
        let p = part.to_str().unwrap();
        let o = draw(&["draw-mixes", "--family", family, "-m", "kvm-epyc-2c", "-o", p, "--from", "7"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(!part.join("check-06.toml").exists());
        for k in 7..=12 {
            let n = format!("check-{k:02}.toml");
            assert_eq!(
                std::fs::read(part.join(&n)).unwrap(),
                std::fs::read(format!("{}/{n}", dirs[0])).unwrap(),
                "{n}"
            );
        }
    }
}

/// A bad family is refused before anything is written, naming the file and the field.
#[test]
fn a_bad_family_names_its_field() {
    let bad = tmp("fam-bad.toml", "name = \"b\"\nseed = 1\nmixes = 2\njobs = [3, 1]\nkinds = [\"stream\"]\n");
    let out = std::env::temp_dir().join(format!("cosched-draw-bad-{}", std::process::id()));
    let o = out.to_str().unwrap();
    fails_cleanly(
        &["draw-mixes", "--family", &bad, "-m", "kvm-epyc-2c", "-o", o],
        &["fam-bad.toml", "jobs", "low <= high"],
    );
    assert!(!out.exists(), "nothing written for a bad family");
    let kind = tmp("fam-kind.toml", "name = \"b\"\nseed = 1\nmixes = 2\njobs = [1, 3]\nkinds = [\"gups\"]\n");
    fails_cleanly(
        &["draw-mixes", "--family", &kind, "-m", "kvm-epyc-2c", "-o", o],
        &["kinds[0]", "`gups` is not a kind"],
    );
    let ok = tmp("fam-ok.toml", "name = \"b\"\nseed = 1\nmixes = 2\njobs = [1, 3]\nkinds = [\"stream\"]\n");
    // A folder holding another draw's mix files is refused, naming one, and keeps them.
    let used = std::env::temp_dir().join(format!("cosched-draw-used-{}", std::process::id()));
    std::fs::create_dir_all(&used).unwrap();
    std::fs::write(used.join("check-07.toml"), "x").unwrap();
    let u = used.to_str().unwrap();
    fails_cleanly(&["draw-mixes", "--family", &ok, "-m", "kvm-epyc-2c", "-o", u], &["check-07.toml", "does not write"]);
    assert_eq!(std::fs::read_to_string(used.join("check-07.toml")).unwrap(), "x");
    assert!(!used.join("check-01.toml").exists(), "nothing written");
    // The flag's range, 1-1000, named by the flag before the family is read.
    for bad in ["0", "-1", "1001"] {
        fails_cleanly(
            &["draw-mixes", "--family", &ok, "-m", "kvm-epyc-2c", "-o", o, "--count", bad],
            &["--count", "is not in 1..=1000"],
        );
    }
}

/// A paper's machine where this host's calibration is asked for, and a family whose program this
/// host cannot start, are refused before anything is drawn.
#[test]
fn a_published_machine_and_a_missing_program_are_refused_before_anything_is_written() {
    let ok = tmp("fam-ok2.toml", "name = \"b\"\nseed = 1\nmixes = 2\njobs = [1, 3]\nkinds = [\"stream\"]\n");
    let out = std::env::temp_dir().join(format!("cosched-draw-refused-{}", std::process::id()));
    let o = out.to_str().unwrap();
    fails_cleanly(
        &["draw-mixes", "--family", &ok, "-m", "i5-2500", "-o", o],
        &["--machine", "`i5-2500` is a published machine description", "cosched calibrate"],
    );
    let missing = tmp(
        "fam-missing.toml",
        "name = \"b\"\nseed = 1\nmixes = 2\njobs = [1, 3]\n[[program]]\nname = \"gone\"\ncmd = [\"no-such-program-cosched\"]\n",
    );
    fails_cleanly(
        &["draw-mixes", "--family", &missing, "-m", "kvm-epyc-2c", "-o", o],
        &["fam-missing.toml", "program[0].cmd", "`no-such-program-cosched`", "not found on PATH"],
    );
    assert!(!out.exists(), "nothing written");
}
