//! The house rules CI holds (`docs/design-notes.md`,
//! note 51): no source file over [`MAX_LINES`] lines, and no import circle
//! between the files of a crate. Both are read from the sources, so a change
//! that breaks them fails `cargo test`.
//!
//! An import is a path a file names through `crate::`, `super::` or
//! `self::`, or through a child module it declares (`child::item`), in a
//! `use` or inline, resolved to the file that defines the deepest module of
//! that path. A file and the files of its own submodules
//! (a `mod.rs` or `lib.rs` and what it declares) count like any others: a
//! child using its parent's items while the parent calls into the child is a
//! circle too. A parent re-exporting a child's item (`pub use child::item`)
//! is its API, not a use, and no edge. The circles found when parent-child
//! edges were first counted were each resolved by direction (the shared items
//! moved into a module both use); none is allowed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The most lines a source file may have (the aim is 400).
const MAX_LINES: usize = 500;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("workspace root")
}

/// Every file under `dir` with one of `exts`, skipping build output and virtual environments.
fn files(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let mut out = vec![];
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries {
            let p = e.expect("entry").path();
            let name = p.file_name().unwrap_or_default().to_string_lossy().into_owned();
            if p.is_dir() {
                if !["target", ".venv", "node_modules", "__pycache__", "corpus", "artifacts"].contains(&name.as_str())
                    && !name.starts_with('.')
                {
                    stack.push(p);
                }
            } else if p.extension().is_some_and(|x| exts.iter().any(|e| x == *e)) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Files over `max` lines among `paths`, as "path: N lines".
fn too_long(paths: &[PathBuf], max: usize, root: &Path) -> Vec<String> {
    paths
        .iter()
        .filter_map(|p| {
            let n = std::fs::read_to_string(p).ok()?.lines().count();
            (n > max).then(|| format!("{}: {n} lines", p.strip_prefix(root).unwrap_or(p).display()))
        })
        .collect()
}

#[test]
fn no_source_file_is_over_the_limit() {
    let root = workspace_root();
    let mut paths = vec![];
    for dir in ["crates", "python", "scripts", "fuzz"] {
        paths.extend(files(&root.join(dir), &["rs", "py"]));
    }
    assert!(paths.len() > 100, "only {} source files found", paths.len());
    let long = too_long(&paths, MAX_LINES, &root);
    assert!(long.is_empty(), "source files over {MAX_LINES} lines (split them by what they do): {long:#?}");
}

/// The check itself: a file of `MAX_LINES + 1` lines fails, one of `MAX_LINES` passes.
#[test]
fn the_size_check_fails_on_a_file_one_line_over() {
    let dir = std::env::temp_dir().join(format!("cosched-house-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (over, at) = (dir.join("over.rs"), dir.join("at.rs"));
    std::fs::write(&over, "//\n".repeat(MAX_LINES + 1)).expect("write");
    std::fs::write(&at, "//\n".repeat(MAX_LINES)).expect("write");
    let long = too_long(&[over, at], MAX_LINES, &dir);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(long, [format!("over.rs: {} lines", MAX_LINES + 1)]);
}

/// A crate's files by module path (`lib.rs` is `[]`, `a/mod.rs` and `a.rs` are `[a]`).
fn modules(src: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    let mut out = BTreeMap::new();
    for p in files(src, &["rs"]) {
        let rel = p.strip_prefix(src).expect("under src");
        let mut parts: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
        if parts.first().is_some_and(|f| f == "bin") {
            continue; // each binary is a crate of its own, importing the library by name
        }
        let last = parts.pop().expect("file name");
        let stem = last.trim_end_matches(".rs").to_string();
        if !(stem == "mod" || (parts.is_empty() && (stem == "lib" || stem == "main"))) {
            parts.push(stem);
        }
        out.insert(parts, p);
    }
    out
}

/// `use` trees expanded: `a::{b, c::{d, e}}` gives `a::b`, `a::c::d`, `a::c::e`.
fn expand(tree: &str) -> Vec<String> {
    let tree: String = tree.split_whitespace().collect();
    let Some(open) = tree.find('{') else { return vec![tree] };
    let prefix = &tree[..open];
    let close = tree.rfind('}').filter(|&c| c > open).unwrap_or(tree.len());
    let inner = &tree[open + 1..close];
    let (mut parts, mut depth, mut start) = (vec![], 0, 0);
    for (i, ch) in inner.char_indices() {
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts.into_iter().filter(|p| !p.is_empty()).flat_map(|p| expand(&format!("{prefix}{p}"))).collect()
}

/// `text` without its inline `#[cfg(test)] mod NAME { … }` blocks (test-only
/// imports are no dependency of the crate); everything else is kept.
fn without_test_modules(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..i]);
        let after = &rest[i..];
        let line_end = after.find(['{', ';']).unwrap_or(after.len());
        if after[..line_end].contains("mod ") && after[line_end..].starts_with('{') {
            // Skip to the brace that closes the module.
            let mut depth = 0usize;
            let mut end = after.len();
            for (k, ch) in after[line_end..].char_indices() {
                match ch {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = line_end + k + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            rest = &after[end..];
        } else {
            out.push_str("#[cfg(test)]");
            rest = &after["#[cfg(test)]".len()..];
        }
    }
    out.push_str(rest);
    out
}

/// The crate-relative paths a source names (inline test modules aside), each with whether it is
/// named by a re-export (`pub use`, `pub(crate) use`, …). A bare path into a child module the file
/// declares (`child::item`, `use child::…`) is named as `self::child::item`.
fn named_paths(text: &str) -> Vec<(String, bool)> {
    let code: String =
        without_test_modules(text).lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
    let children = declared_children(&code);
    let relative = |p: &str| ["crate::", "super::", "self::"].iter().any(|r| p.starts_with(r));
    let child_path = |p: &str| children.iter().any(|c| p.strip_prefix(c.as_str()).is_some_and(|r| r.starts_with("::")));
    let mut out = vec![];
    // `use` items, which may span lines and hold brace groups; their text is then blanked, so the
    // inline scan below does not count them again.
    let mut scanned = String::with_capacity(code.len());
    let mut rest = code.as_str();
    while let Some(i) = rest.find("use ") {
        let before = rest[..i].chars().last();
        let after = &rest[i + 4..];
        let end = after.find(';').unwrap_or(after.len());
        let item = after[..end].trim_start();
        let word = before.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        let head = rest[..i].trim_end();
        let reexport = word
            && (head.ends_with("pub")
                || (head.ends_with(')') && head.rfind("pub(").is_some_and(|k| !head[k..].contains('\n'))));
        if word && (relative(item) || child_path(item)) {
            for path in expand(item) {
                let path = if relative(&path) { path } else { format!("self::{path}") };
                out.push((path, reexport));
            }
        }
        scanned.push_str(&rest[..i + 4]);
        if word {
            scanned.extend(std::iter::repeat_n(' ', end));
        } else {
            scanned.push_str(&after[..end]);
        }
        rest = &after[end.min(after.len())..];
    }
    scanned.push_str(rest);
    // Inline paths.
    let code = scanned;
    for (i, _) in code.match_indices("::") {
        let head = &code[..i];
        let start = head.rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).map_or(0, |k| k + 1);
        let tail = &code[i..];
        let end = tail.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).unwrap_or(tail.len());
        let path = &code[start..i + end];
        if relative(path) {
            out.push((path.to_string(), false));
        } else if child_path(path) && !code[..start].ends_with("::") {
            out.push((format!("self::{path}"), false));
        }
    }
    out
}

/// The child modules a source declares (`mod name;`, any visibility).
fn declared_children(code: &str) -> Vec<String> {
    code.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let l =
                l.strip_prefix("pub").map_or(l, |r| r.trim_start_matches(|c: char| c != ' ' && c != 'm').trim_start());
            let name = l.strip_prefix("mod ")?.trim_end().strip_suffix(';')?;
            name.chars().all(|c| c.is_alphanumeric() || c == '_').then(|| name.to_string())
        })
        .collect()
}

/// The module path a crate-relative `path` named from module `here` resolves to.
fn resolve(here: &[String], path: &str) -> Vec<String> {
    let segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let mut at: Vec<String> = here.to_vec();
    let mut i = 0;
    match segs.first() {
        Some(&"crate") => {
            at.clear();
            i = 1;
        }
        Some(&"self") => i = 1,
        Some(&"super") => {
            // `super` of `a/b.rs` ([a, b]) is [a]; of `a/mod.rs` ([a]) it is [].
            while segs.get(i) == Some(&"super") {
                at.pop();
                i += 1;
            }
        }
        _ => return vec![],
    }
    at.extend(segs[i..].iter().map(|s| s.to_string()));
    at
}

/// Import edges between a crate's files (a parent's re-exports of its descendants left out).
fn edges(src: &Path) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let mods = modules(src);
    let mut out: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for (here, file) in &mods {
        let text = std::fs::read_to_string(file).expect("source");
        for (path, reexport) in named_paths(&text) {
            let mut target = resolve(here, &path);
            while !target.is_empty() && !mods.contains_key(&target) {
                target.pop();
            }
            // A file naming itself is no edge; nor is a parent re-exporting a descendant's item
            // (its API, not its use). Every other edge counts, a child's to its parent and a
            // parent's to its child included.
            let own_api = reexport && target.starts_with(here);
            if target != *here && !own_api {
                out.entry(file.clone()).or_default().insert(mods[&target].clone());
            }
        }
    }
    out
}

/// Circles of a graph: its strongly connected components of two files or more.
fn circles(g: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    let nodes: BTreeSet<&PathBuf> = g.keys().chain(g.values().flatten()).collect();
    let reach = |from: &PathBuf| {
        let (mut seen, mut stack) = (BTreeSet::new(), vec![from.clone()]);
        while let Some(n) = stack.pop() {
            for m in g.get(&n).into_iter().flatten() {
                if seen.insert(m.clone()) {
                    stack.push(m.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&PathBuf, BTreeSet<PathBuf>> = nodes.iter().map(|n| (*n, reach(n))).collect();
    let mut out: Vec<Vec<PathBuf>> = vec![];
    for n in &nodes {
        let scc: Vec<PathBuf> = nodes
            .iter()
            .filter(|m| reached[*n].contains(**m) && reached[*m].contains(*n))
            .map(|m| (*m).clone())
            .collect();
        if scc.len() > 1 && !out.contains(&scc) {
            out.push(scc);
        }
    }
    out
}

#[test]
fn no_import_circle_between_files() {
    let root = workspace_root();
    let mut found = vec![];
    let mut crates = 0;
    for entry in std::fs::read_dir(root.join("crates")).expect("crates/") {
        let src = entry.expect("entry").path().join("src");
        if !src.is_dir() {
            continue;
        }
        crates += 1;
        for c in circles(&edges(&src)) {
            found.push(c.iter().map(|p| p.strip_prefix(&root).unwrap_or(p).display().to_string()).collect::<Vec<_>>());
        }
    }
    assert!(crates >= 8, "only {crates} crates found");
    assert!(found.is_empty(), "files that import each other (make the dependency run one way): {found:#?}");
}

/// The check itself, on a made-up crate: two sibling files naming each other
/// form a circle; once one of them stops naming the other, none is found.
#[test]
fn the_circle_check_finds_a_made_up_circle() {
    let dir = std::env::temp_dir().join(format!("cosched-circle-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("paper")).expect("temp dir");
    let write = |p: &str, t: &str| std::fs::write(src.join(p), t).expect("write");
    write("lib.rs", "pub mod paper;\npub mod table;\n");
    write("table.rs", "pub struct Table;\n");
    write("paper/mod.rs", "mod efs;\nmod figs;\npub use efs::run;\npub struct Trial;\n");
    write(
        "paper/efs.rs",
        "use super::figs::{fig6, pct};\nuse super::Trial;\nuse crate::table::Table;\npub fn run() {}\n",
    );
    // The import after a test-only module declaration still counts; the test module's own does not.
    write(
        "paper/figs.rs",
        "#[cfg(test)]\nmod figs_tests;\n#[cfg(test)]\nmod tests {\n    use crate::table::Table;\n}\nuse super::{efs::run, Trial};\npub fn fig6() {}\npub fn pct() {}\n",
    );
    let found = circles(&edges(&src));
    let names: Vec<Vec<String>> =
        found.iter().map(|c| c.iter().map(|p| p.strip_prefix(&src).unwrap().display().to_string()).collect()).collect();
    // figs.rs no longer names efs.rs: no circle.
    write("paper/figs.rs", "use super::Trial;\npub fn fig6() {}\npub fn pct() {}\n");
    let after = circles(&edges(&src));
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(names, [vec!["paper/efs.rs".to_string(), "paper/figs.rs".to_string()]]);
    assert!(after.is_empty(), "{after:?}");
}

/// A parent and its child are a circle when each uses the other: the parent calling into the
/// child (`efs::run()`, or a private `use efs::run`) while the child uses the parent's item. The
/// parent re-exporting the child's item (`pub use efs::run`) is its API, not a use, and no edge.
#[test]
fn the_circle_check_finds_a_made_up_parent_child_circle() {
    let dir = std::env::temp_dir().join(format!("cosched-circle-pc-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("paper")).expect("temp dir");
    let write = |p: &str, t: &str| std::fs::write(src.join(p), t).expect("write");
    let names = |src: &Path| -> Vec<Vec<String>> {
        circles(&edges(src))
            .iter()
            .map(|c| c.iter().map(|p| p.strip_prefix(src).unwrap().display().to_string()).collect())
            .collect()
    };
    write("lib.rs", "pub mod paper;\n");
    write("paper/efs.rs", "use super::Trial;\npub fn run(_: Trial) {}\n");
    let both = ["paper/efs.rs".to_string(), "paper/mod.rs".to_string()];
    write("paper/mod.rs", "mod efs;\npub struct Trial;\npub fn all() {\n    efs::run(Trial);\n}\n");
    let inline = names(&src);
    write("paper/mod.rs", "mod efs;\nuse efs::run;\npub struct Trial;\npub fn all() {\n    run(Trial);\n}\n");
    let imported = names(&src);
    write("paper/mod.rs", "mod efs;\npub use efs::run;\npub struct Trial;\n");
    let reexported = names(&src);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(inline, [both.to_vec()]);
    assert_eq!(imported, [both.to_vec()]);
    assert!(reexported.is_empty(), "{reexported:?}");
}

// No tracker number and no pointer outside the repository in what anyone reads: a rule of the
// whole repository (sources, scripts, the package, the pages), held by
// `scripts/no_outside_references.py` (run by `scripts/test-all`, tested by
// python/tests/test_no_outside_references.py).
