use super::*;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};

fn dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary folder")
}

/// The names in `d` (to see that no temporary is left behind).
fn names(d: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// Make a FIFO with the system's `mkfifo` (no root needed).
fn fifo(p: &Path) {
    let ok = std::process::Command::new("mkfifo").arg(p).status().expect("mkfifo runs").success();
    assert!(ok, "mkfifo {}", p.display());
}

#[test]
fn a_regular_file_is_written_whole_and_replaced_keeping_its_mode() {
    let d = dir();
    let p = d.path().join("out.json");
    write(&p, "--out out.json", b"first").unwrap();
    assert_eq!(std::fs::read(&p).unwrap(), b"first");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
    write(&p, "--out out.json", b"second").unwrap();
    assert_eq!(std::fs::read(&p).unwrap(), b"second");
    assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o640);
    assert_eq!(names(d.path()), ["out.json"]);
}

#[test]
fn an_output_dropped_before_commit_leaves_the_old_file_and_no_temporary() {
    let d = dir();
    let p = d.path().join("trace.json");
    std::fs::write(&p, "old").unwrap();
    {
        let mut o = Output::create(&p, "--trace trace.json").unwrap();
        o.write_all(b"half a tr").unwrap();
    }
    assert_eq!(std::fs::read(&p).unwrap(), b"old");
    assert_eq!(names(d.path()), ["trace.json"]);
}

#[test]
fn a_fifo_is_written_into_and_stays_a_fifo() {
    let d = dir();
    let p = d.path().join("pipe");
    fifo(&p);
    assert_eq!(check(&p, "--trace pipe").unwrap(), Target::Stream(p.clone()));
    let reader = {
        let p = p.clone();
        std::thread::spawn(move || std::fs::read(p).unwrap())
    };
    write(&p, "--trace pipe", b"through the pipe").unwrap();
    assert_eq!(reader.join().unwrap(), b"through the pipe");
    assert!(std::fs::symlink_metadata(&p).unwrap().file_type().is_fifo());
    assert_eq!(names(d.path()), ["pipe"]);
}

#[test]
fn a_character_device_is_written_into_and_stays_a_device() {
    // /dev/null itself: written into, never renamed over (no root needed to write it).
    let null = Path::new("/dev/null");
    assert_eq!(check(null, "--trace /dev/null").unwrap(), Target::Stream(null.to_path_buf()));
    write(null, "--trace /dev/null", b"gone").unwrap();
    assert!(std::fs::metadata(null).unwrap().file_type().is_char_device());
    // A device node of our own where this process may make one (root): the case that destroyed data.
    let d = dir();
    let p = d.path().join("null");
    let made = std::process::Command::new("mknod").arg(&p).args(["c", "1", "3"]).status().is_ok_and(|s| s.success());
    if !made {
        eprintln!("skipped the private device node: mknod needs root here");
        return;
    }
    write(&p, "--trace null", b"into the device").unwrap();
    assert!(std::fs::symlink_metadata(&p).unwrap().file_type().is_char_device());
    // A device that refuses the bytes is an error naming the output, and stays a device.
    let full = Path::new("/dev/full");
    if full.exists() {
        let e = write(full, "--trace /dev/full", &[0u8; 1 << 16]).unwrap_err().to_string();
        assert!(e.starts_with("--trace /dev/full: cannot write"), "{e}");
        assert!(std::fs::metadata(full).unwrap().file_type().is_char_device());
    }
}

#[test]
fn a_symlink_is_followed_and_stays_a_link() {
    let d = dir();
    let real = d.path().join("real.csv");
    let link = d.path().join("link.csv");
    std::fs::write(&real, "old").unwrap();
    std::os::unix::fs::symlink("real.csv", &link).unwrap();
    write(&link, "-o link.csv", b"new").unwrap();
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read(&real).unwrap(), b"new");
    // A dangling link creates its target.
    let dangling = d.path().join("dangling");
    std::os::unix::fs::symlink(d.path().join("made.csv"), &dangling).unwrap();
    write(&dangling, "-o dangling", b"made").unwrap();
    assert_eq!(std::fs::read(d.path().join("made.csv")).unwrap(), b"made");
    // A loop is refused by name.
    let a = d.path().join("a");
    std::os::unix::fs::symlink("b", &a).unwrap();
    std::os::unix::fs::symlink("a", d.path().join("b")).unwrap();
    assert!(target(&a, "-o a").unwrap_err().to_string().contains("symlinks in a row"));
}

#[test]
fn a_directory_a_missing_folder_and_an_empty_path_are_refused_in_one_line() {
    let d = dir();
    let e = check(d.path(), "--out X").unwrap_err().to_string();
    assert_eq!(e, "--out X: is a directory; give a file's path");
    let e = check(&d.path().join("no/such/file"), "--out Y").unwrap_err().to_string();
    assert!(e.starts_with("--out Y: the folder ") && e.ends_with("does not exist"), "{e}");
    let e = check(Path::new(""), "--out").unwrap_err().to_string();
    assert!(e.contains("is empty"), "{e}");
    assert_eq!(names(d.path()), Vec::<String>::new());
}

#[test]
fn dash_is_standard_output() {
    assert_eq!(target(Path::new("-"), "-o -").unwrap(), Target::Stdout);
}

#[test]
fn a_staged_file_is_placed_by_rename_or_copied_into_a_stream() {
    let d = dir();
    let staged = d.path().join("staged");
    std::fs::write(&staged, "table").unwrap();
    let to = d.path().join("fig.csv");
    place(&staged, &to, "--out fig.csv").unwrap();
    assert_eq!(std::fs::read(&to).unwrap(), b"table");
    assert!(!staged.exists());
    std::fs::write(&staged, "again").unwrap();
    place(&staged, Path::new("/dev/null"), "--out null").unwrap();
    assert!(!staged.exists());
    assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
}
