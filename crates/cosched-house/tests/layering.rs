//! The workspace's layering (docs/architecture.md, "The crates and their one job each";
//! `docs/design-notes.md`, note 17), checked from the crates' manifests and
//! sources so that a change breaking it fails CI:
//! - the two backends (`cosched-sim`, `cosched-linux`) never depend on each
//!   other, directly or through another workspace crate, nor through
//!   dev-dependencies;
//! - `cosched-machine` (what both backends share) depends on the core only;
//! - the core has no I/O and no PyO3: its dependencies are an allow-list and
//!   its sources name no file, network, process, environment or clock API.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("workspace root")
}

/// Every crate under `crates/`: package name → (dependency names of every
/// kind, manifest directory).
fn manifests() -> BTreeMap<String, (BTreeSet<String>, PathBuf)> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(workspace_root().join("crates")).expect("crates/") {
        let dir = entry.expect("entry").path();
        let Ok(text) = std::fs::read_to_string(dir.join("Cargo.toml")) else { continue };
        let manifest: toml::Table = toml::from_str(&text).expect("manifest parses");
        let name = manifest["package"]["name"].as_str().expect("package.name").to_string();
        let mut deps = BTreeSet::new();
        for section in ["dependencies", "dev-dependencies", "build-dependencies"] {
            if let Some(t) = manifest.get(section).and_then(|v| v.as_table()) {
                deps.extend(t.keys().cloned());
            }
        }
        out.insert(name, (deps, dir));
    }
    out
}

/// Workspace crates `name` reaches through dependencies of any kind.
fn reaches(all: &BTreeMap<String, (BTreeSet<String>, PathBuf)>, name: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![name.to_string()];
    while let Some(n) = stack.pop() {
        for d in all.get(&n).map(|(d, _)| d.clone()).unwrap_or_default() {
            if all.contains_key(&d) && seen.insert(d.clone()) {
                stack.push(d);
            }
        }
    }
    seen
}

#[test]
fn the_backends_never_depend_on_each_other() {
    let all = manifests();
    assert!(all.contains_key("cosched-sim") && all.contains_key("cosched-linux"), "{:?}", all.keys());
    let linux = reaches(&all, "cosched-linux");
    assert!(!linux.contains("cosched-sim"), "cosched-linux reaches cosched-sim through {linux:?}");
    let sim = reaches(&all, "cosched-sim");
    assert!(!sim.contains("cosched-linux"), "cosched-sim reaches cosched-linux through {sim:?}");
}

#[test]
fn the_shared_machine_crate_sits_on_the_core_only() {
    let all = manifests();
    let machine = reaches(&all, "cosched-machine");
    assert_eq!(machine, BTreeSet::from(["cosched-core".to_string()]), "cosched-machine reaches {machine:?}");
    for backend in ["cosched-sim", "cosched-linux"] {
        assert!(reaches(&all, backend).contains("cosched-machine"), "{backend} should use cosched-machine");
    }
}

#[test]
fn the_core_has_no_io_and_no_pyo3() {
    let all = manifests();
    let (deps, dir) = &all["cosched-core"];
    // integer-blossom: the matching solver of `optimum` (std only, no I/O);
    // rand_distr: the normal and gamma draws of the Bayesian FM.
    let allowed = ["serde", "serde_json", "rand", "rand_chacha", "thiserror", "integer-blossom", "rand_distr"];
    let extra: Vec<_> = deps.iter().filter(|d| !allowed.contains(&d.as_str())).collect();
    assert!(extra.is_empty(), "cosched-core gained dependencies {extra:?} (allowed: {allowed:?})");
    let forbidden =
        ["std::fs", "std::net", "std::process", "std::env", "std::os", "std::io", "Instant", "SystemTime", "pyo3"];
    let mut checked = 0;
    for (p, text) in sources(dir) {
        for f in forbidden {
            assert!(!text.contains(f), "{} uses `{f}`: the core does no I/O", p.display());
        }
        checked += 1;
    }
    assert!(checked > 20, "only {checked} core sources found");
}

/// The policies are apart from the framework: the
/// policies crate sits on the core alone and does no I/O either, and no
/// module of the core names a policy (the core has no `cosched-policies`
/// dependency, and its sources name none of the policies' modules).
#[test]
fn the_policies_sit_on_the_framework_which_imports_none() {
    let all = manifests();
    let policies = reaches(&all, "cosched-policies");
    assert_eq!(policies, BTreeSet::from(["cosched-core".to_string()]), "cosched-policies reaches {policies:?}");
    let forbidden = ["std::fs", "std::net", "std::process", "std::env", "std::io", "Instant", "SystemTime", "pyo3"];
    for (p, text) in sources(&all["cosched-policies"].1) {
        for f in forbidden {
            assert!(!text.contains(f), "{} uses `{f}`: the policies do no I/O", p.display());
        }
    }
    assert!(!reaches(&all, "cosched-core").contains("cosched-policies"), "the core depends on the policies");
    for (p, text) in sources(&all["cosched-core"].1) {
        let code: String = text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
        let text = code;
        for name in
            ["cosched_policies", "crate::policies", "crate::efs", "crate::slits", "crate::rda", "crate::perf_fair"]
        {
            assert!(!text.contains(name), "{} names `{name}`: the framework imports no policy", p.display());
        }
    }
}

/// The library crates (everything below the faces).
const LIBRARIES: [&str; 7] = [
    "cosched-core",
    "cosched-policies",
    "cosched-machine",
    "cosched-sim",
    "cosched-linux",
    "cosched-lab",
    "cosched-host",
];

/// Every source of the library crates, with its text.
fn library_sources() -> Vec<(PathBuf, String)> {
    let all = manifests();
    LIBRARIES.iter().flat_map(|c| sources(&all[*c].1)).collect()
}

/// Sources of a crate's `src/`, with their text.
fn sources(dir: &std::path::Path) -> Vec<(PathBuf, String)> {
    let mut out = vec![];
    let mut stack = vec![dir.join("src")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("src dir") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&p).expect("source");
                out.push((p, text));
            }
        }
    }
    out
}

/// The backend half of the policy contract (statuses, timers,
/// validation of decisions) is written once, in `cosched-core/src/dispatch`;
/// each backend implements its `Backend` trait and applies no decision itself.
#[test]
fn the_backend_half_of_the_contract_lives_in_the_core_dispatcher() {
    let all = manifests();
    for backend in ["cosched-sim", "cosched-linux"] {
        let srcs = sources(&all[backend].1);
        assert!(
            srcs.iter().any(|(_, t)| t.contains("impl Backend for")),
            "{backend} does not implement cosched_core::dispatch::Backend"
        );
        for (p, text) in &srcs {
            for line in text.lines() {
                let applies = line.contains("Decision::") && line.contains("} =>");
                assert!(
                    !applies,
                    "{} matches on a decision itself ({}): leave that to the dispatcher",
                    p.display(),
                    line.trim()
                );
            }
        }
    }
    let core = sources(&all["cosched-core"].1);
    let matching: Vec<_> = core
        .iter()
        .filter(|(_, t)| t.lines().any(|l| l.contains("Decision::") && l.contains("} =>")))
        .map(|(p, _)| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(matching, ["apply.rs"], "only the dispatcher applies decisions");
}

/// The experiments library sits on the core, the machine crate and the
/// simulator only: no face (command line, Python) and no real machine.
#[test]
fn the_lab_sits_on_the_core_the_machine_and_the_simulator() {
    let all = manifests();
    let lab = reaches(&all, "cosched-lab");
    let want: BTreeSet<String> =
        ["cosched-core", "cosched-policies", "cosched-machine", "cosched-sim"].map(String::from).into();
    assert_eq!(lab, want, "cosched-lab reaches {lab:?}");
    let (deps, dir) = &all["cosched-lab"];
    for face in ["clap", "indicatif", "pyo3", "nix"] {
        assert!(!deps.contains(face), "cosched-lab depends on {face}: it has no face");
    }
    for (p, text) in sources(dir) {
        for call in ["println!", "print!(", "eprintln!", "eprint!("] {
            assert!(!text.contains(call), "{} prints (`{call}`): the lab returns data, its faces print", p.display());
        }
    }
}

/// The experiments that run real processes (`cosched-host`) sit
/// above the lab and the real runtime, below both faces: the command
/// line and Python call them; they parse no command line and print nothing.
#[test]
fn the_host_experiments_sit_above_the_lab_and_the_runtime_below_the_faces() {
    let all = manifests();
    let host = reaches(&all, "cosched-host");
    for below in ["cosched-lab", "cosched-linux"] {
        assert!(host.contains(below), "cosched-host should sit on {below}: {host:?}");
    }
    for face in ["cosched-cli", "cosched-py"] {
        assert!(!host.contains(face), "cosched-host reaches the face {face} through {host:?}");
        assert!(reaches(&all, face).contains("cosched-host"), "{face} should call cosched-host");
    }
    let (deps, _) = &all["cosched-host"];
    for face in ["clap", "indicatif", "pyo3"] {
        assert!(!deps.contains(face), "cosched-host depends on {face}: it has no face");
    }
}

/// The Python extension links the lab and the host experiments, not the command line.
#[test]
fn the_python_bindings_reach_the_lab_not_the_command_line() {
    let all = manifests();
    let py = reaches(&all, "cosched-py");
    assert!(py.contains("cosched-lab"), "cosched-py should use cosched-lab: {py:?}");
    assert!(!py.contains("cosched-cli"), "cosched-py reaches cosched-cli through {py:?}");
    for c in std::iter::once("cosched-py".to_string()).chain(py) {
        let deps = &all[&c].0;
        assert!(!deps.contains("clap") && !deps.contains("indicatif"), "{c} links clap or indicatif into the wheel");
    }
}

/// Below the faces, errors are typed: no public function of a library crate
/// returns `Result<_, String>` (the CLI and the Python bindings turn typed
/// errors into their one line).
#[test]
fn no_library_function_returns_a_string_error() {
    let all = manifests();
    let mut found = vec![];
    for c in LIBRARIES {
        for (p, text) in sources(&all[c].1) {
            let mut sig = String::new();
            for line in text.lines() {
                let t = line.trim_start();
                if t.starts_with("pub fn ") || (!sig.is_empty() && !sig.contains('{') && !sig.ends_with(';')) {
                    sig.push_str(t);
                    if t.contains('{') || t.ends_with(';') {
                        if sig.contains(", String>") && !sig.starts_with("pub fn from(") {
                            let name = sig.split('(').next().unwrap_or_default().to_string();
                            found.push(format!("{}: {name}", p.display()));
                        }
                        sig.clear();
                    }
                }
            }
        }
    }
    assert!(found.is_empty(), "public functions returning Result<_, String>: {found:#?}");
}

/// No library error turns itself into text: no `impl From<E> for String`
/// below the faces, so `?` cannot quietly drop a typed error to a string;
/// the command line turns one into its line in view
/// (`.one_line()?`).
#[test]
fn no_library_error_converts_itself_into_a_string() {
    let mut found = vec![];
    let py = sources(&manifests()["cosched-py"].1);
    for (p, text) in library_sources().into_iter().chain(py) {
        let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        for (i, _) in flat.match_indices("impl From<") {
            let head = &flat[i..flat.len().min(i + 200)];
            if head.split('{').next().is_some_and(|h| h.trim_end().ends_with("for String")) {
                found.push(format!("{}: {}", p.display(), head.split('{').next().unwrap_or_default()));
            }
        }
        if text.contains("error_to_text!") {
            found.push(format!("{}: error_to_text!", p.display()));
        }
    }
    assert!(found.is_empty(), "library errors converting into String: {found:#?}");
}

/// The run errors the faces map carry typed failures, not lines (a face
/// tells them apart by type): no variant of `RunError` or of the failures it wraps is a bare
/// `String` (a name such as a workload's is a named field, data).
#[test]
fn the_run_errors_carry_no_line_of_text() {
    let lab = &manifests()["cosched-lab"].1;
    let mut found = vec![];
    for file in ["src/error.rs", "src/failure.rs"] {
        let text = std::fs::read_to_string(lab.join(file)).unwrap();
        found.extend(bare_text_variants(&text).into_iter().map(|v| format!("{file}: {v}")));
    }
    assert!(found.is_empty(), "variants carrying a bare line of text: {found:#?}");
    // The rule on a made-up enum: a `(String)` variant is found, a named field is not.
    let made_up =
        "/// E.\npub enum E {\n    /// A.\n    A { workload: String },\n    /// B.\n    B(String),\n}\nimpl E {}";
    assert_eq!(bare_text_variants(made_up).len(), 1);
}

/// The `(String)` tuple variants of the enums declared in `text`.
fn bare_text_variants(text: &str) -> Vec<String> {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut found = vec![];
    for (start, _) in flat.match_indices("pub enum ") {
        let body = &flat[start..];
        let end = body.find(" } ").map_or(body.len(), |e| e + 2);
        for (i, _) in body[..end].match_indices("(String)") {
            found.push(body[i.saturating_sub(40)..i + 8].to_string());
        }
    }
    found
}

/// A program's own code, a face of its own that parses its arguments and prints: a binary
/// (`src/bin/`), and the benchmark kernels `cosched-bench` and `cosched bench` share
/// (`cosched-linux/src/bench/`, the one program two binaries run).
fn is_program(p: &std::path::Path) -> bool {
    let path = p.to_string_lossy().replace('\\', "/");
    p.components().any(|x| x.as_os_str() == "bin") || path.contains("cosched-linux/src/bench/")
}

/// One progress mechanism, reported by the faces: no
/// library crate prints; progress lines, notes and warnings go through
/// `cosched_core::progress::Reporter` to whatever the face gave it (the
/// benchmark binary and test-module files `*tests.rs` aside; inline test
/// modules print nothing either).
#[test]
fn no_library_prints() {
    let mut found = vec![];
    for (p, text) in library_sources() {
        let name = p.file_name().unwrap_or_default().to_string_lossy().into_owned();
        if is_program(&p) || name.ends_with("tests.rs") {
            continue;
        }
        for call in ["println!", "print!(", "eprintln!", "eprint!("] {
            if text.contains(call) {
                found.push(format!("{} (`{call}`)", p.display()));
            }
        }
    }
    assert!(found.is_empty(), "library sources that print (report through a Reporter instead): {found:#?}");
}

/// Where a library may still spell a command-line flag, and why (below
/// the faces an option is named by its field; a message that
/// needs the flag derives it from the name, `flag_of("max_events")`, so a
/// renamed option renames every message). Each entry is (file suffix, flag).
const FLAGS_ALLOWED: [(&str, &str, &str); 18] = [
    // Arguments of the `cosched-bench` program (its own flags, not cosched's).
    ("", "--wss-mb", "cosched-bench's argument"),
    ("", "--mops", "cosched-bench's argument"),
    ("", "--seconds", "cosched-bench's argument"),
    ("", "--gbs", "cosched-bench's argument"),
    ("", "--mb", "cosched-bench's argument"),
    ("cosched-lab/src/family.rs", "--phase-mops", "cosched-bench's argument (the phases kernel)"),
    ("cosched-lab/src/family.rs", "--compute-mops", "cosched-bench's argument (the phases kernel)"),
    // Text in files of docs/results or in listings the docs quote: moving it is an
    // output change, which rides on the performance issue's documented one.
    ("cosched-linux/src/runtime/meter.rs", "--machine", "a provenance line in docs/results/runtime"),
    ("cosched-linux/src/runtime/meter.rs", "--calibration", "a provenance line in docs/results/runtime"),
    ("cosched-linux/src/describe.rs", "--calibration", "a description line in docs/results/runtime"),
    ("cosched-lab/src/paper/rda.rs", "--pp-cost-us", "report text in docs/results/rda"),
    ("cosched-lab/src/paper/perf_fair.rs", "--pf-validity", "report text in docs/results/perf-fair"),
    ("cosched-core/src/metrics/registry.rs", "--no-timing", "a metric's meaning (`list metrics`, docs/formats.md)"),
    ("cosched-policies/src/families/quintet/mod.rs", "--quintet-", "the policy's description (`list policies`)"),
    ("cosched-policies/src/families/rda.rs", "--rda-factor", "the policy's description (`list policies`)"),
    ("cosched-linux/src/runtime/report.rs", "--solo", "a provenance line in docs/results/runtime"),
    ("cosched-lab/src/dram_check.rs", "--toml", "a comment written into data/machines presets"),
    ("cosched-lab/src/knobs.rs", "--copies", "a knob's help line (`--help`, `list knobs`, Python's `knobs()`)"),
];

/// The flags (`--name`) spelled inside string literals of `text`, test modules left out.
fn spelled_flags(text: &str) -> Vec<String> {
    let code = text.split("#[cfg(test)]\nmod tests {").next().unwrap_or(text);
    let code = code.split("#[cfg(test)]\npub(crate) mod tests {").next().unwrap_or(code);
    let mut found = vec![];
    for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
        // Inside a string literal: an odd number of quotes before the flag.
        for (i, _) in line.match_indices("--") {
            let rest = &line[i + 2..];
            let quotes = line[..i].matches('"').count() - line[..i].matches("\\\"").count();
            if quotes % 2 == 1 && rest.starts_with(|c: char| c.is_ascii_lowercase()) {
                let name: String = rest.chars().take_while(|c| c.is_ascii_lowercase() || *c == '-').collect();
                found.push(format!("--{name}"));
            }
        }
    }
    found
}

/// No library spells a command-line flag outside [`FLAGS_ALLOWED`]: the
/// face maps a field to its flag.
#[test]
fn no_library_spells_a_command_line_flag() {
    let mut found = vec![];
    for (p, text) in library_sources() {
        let path = p.to_string_lossy().replace('\\', "/");
        if is_program(&p) || path.ends_with("tests.rs") {
            continue;
        }
        for flag in spelled_flags(&text) {
            let allowed = FLAGS_ALLOWED.iter().any(|(file, f, _)| path.ends_with(file) && flag.starts_with(f));
            if !allowed {
                found.push(format!("{path}: {flag}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "flags spelled below the faces (name the field; derive the flag with flag_of): {found:#?}"
    );
    // The rule on made-up lines: a flag in a literal is found, one in a comment or outside a literal is not.
    let made_up = "let a = \"raise it with --max-events\";\n// --not-this\nlet b = x--y;\n";
    assert_eq!(spelled_flags(made_up), ["--max-events"]);
}
