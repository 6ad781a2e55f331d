//! `cosched new-policy NAME`: a Rust policy of your own in one file.
//! Writes `crates/cosched-policies/src/families/<name>.rs` from a template
//! (a working global round-robin with its declared knob, its registry entry
//! and scripted-stream tests) and patches nothing: the file declares its
//! `REGISTERED` entry and the policies crate's build finds it, so after a
//! rebuild it runs in `simulate`, `compare`, sweeps, Python and `cosched run`.
//! Everything is checked before the file is written.

use clap::Args as ClapArgs;
use std::path::PathBuf;

/// The template (placeholders `{{name}}`, `{{snake}}`, `{{Camel}}`).
const TEMPLATE: &str = include_str!("templates/policy.rs.txt");
/// Longest name accepted.
const MAX_NAME: usize = 40;

#[derive(ClapArgs)]
pub struct Args {
    /// The policy's name: lowercase letters, digits and single hyphens, starting with a letter (`my-pairing`).
    name: String,
    /// The cosched workspace to add it to (the folder holding crates/cosched-policies).
    #[arg(long, default_value = ".")]
    root: PathBuf,
}

/// Rust's strict, reserved and edition keywords (The Rust Reference,
/// "Keywords"): none can name the policy's module. Policy names have no
/// `_`, so only the words without one are listed.
const RUST_KEYWORDS: [&str; 51] = [
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for", "if", "impl", "in",
    "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self", "static", "struct", "super", "trait",
    "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn", "abstract", "become", "box", "do",
    "final", "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// The name's problem, if any: the grammar, its length, no Rust keyword, and no clash with a registered policy.
pub fn check_name(name: &str) -> Result<(), String> {
    let ok_chars = name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    let starts = name.chars().next().is_some_and(|c| c.is_ascii_lowercase());
    if !ok_chars || !starts || name.ends_with('-') || name.contains("--") {
        return Err(format!(
            "new-policy: `{name}` is not a policy name: lowercase letters, digits and single hyphens, starting with a letter (e.g. my-pairing)"
        ));
    }
    if name.len() > MAX_NAME {
        return Err(format!("new-policy: `{name}` has {} characters, at most {MAX_NAME}", name.len()));
    }
    if RUST_KEYWORDS.contains(&name) {
        return Err(format!(
            "new-policy: `{name}` is a Rust keyword, so `mod {name};` would not compile: choose another name (e.g. my-{name})"
        ));
    }
    if cosched_policies::find(name).is_some() || name == "linux" {
        return Err(format!("new-policy: `{name}` is already a policy's name (cosched list policies)"));
    }
    let knob = format!("{}_quantum_ms", name.replace('-', "_"));
    if cosched_policies::knob::spec(&knob).is_some() {
        return Err(format!("new-policy: `{name}` would declare `{knob}`, already a knob (cosched list knobs)"));
    }
    Ok(())
}

/// `my-pairing` → `MyPairing`.
fn camel(name: &str) -> String {
    name.split('-')
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
        })
        .collect()
}

/// The new policy's file text.
pub fn render(name: &str) -> String {
    TEMPLATE.replace("{{name}}", name).replace("{{snake}}", &name.replace('-', "_")).replace("{{Camel}}", &camel(name))
}

/// The folder the policy families live in, under a checkout's root.
pub const FAMILIES: &str = "crates/cosched-policies/src/families";

/// `cosched new-policy`: one new file; nothing else is written or patched.
pub fn run(a: Args) -> Result<(), String> {
    check_name(&a.name)?;
    let dir = a.root.join(FAMILIES);
    if !dir.is_dir() {
        return Err(format!(
            "{}: no such folder: run from the root of a cosched checkout or give --root",
            dir.display()
        ));
    }
    let snake = a.name.replace('-', "_");
    let (file, folder) = (dir.join(format!("{snake}.rs")), dir.join(&snake));
    if file.exists() || folder.exists() {
        return Err(format!("{}: already exists; nothing written", file.display()));
    }
    crate::output::write_whole(&file, &render(&a.name))?;
    println!("wrote {} (it registers itself: the build finds its `REGISTERED`)", file.display());
    println!("next: cargo test -p cosched-policies {snake}   # its scripted-stream tests");
    println!("      cargo run --release --bin cosched -- compare --policies cfs,{}", a.name);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_grammar_and_do_not_clash() {
        assert!(check_name("my-pairing").is_ok());
        assert!(check_name("p2").is_ok());
        for bad in ["", "My", "2x", "a--b", "a-", "a_b", "a b", &"x".repeat(41)] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
        assert!(check_name("cfs").unwrap_err().contains("already a policy's name"));
        for kw in ["type", "self", "crate", "loop", "async", "gen"] {
            assert!(check_name(kw).unwrap_err().contains("is a Rust keyword"), "{kw}");
        }
        assert_eq!(camel("my-pairing-2"), "MyPairing2");
        // Its knob would be the Perf&Fair family's.
        assert!(check_name("pf").unwrap_err().contains("`pf_quantum_ms`, already a knob"));
    }

    #[test]
    fn the_file_registers_itself_and_fills_every_placeholder() {
        let text = render("my-pairing");
        assert!(text.contains("pub struct MyPairing") && text.contains("\"my-pairing\"") && !text.contains("{{"));
        assert!(text.contains("pub(crate) const REGISTERED: super::Registered"), "what the build looks for");
        assert!(text.contains("make: |o| Ok(Box::new(MyPairing::new(o.knobs.get::<MyPairingKnobs>())))"));
        assert!(text.contains("pub struct MyPairingKnobs") && text.contains("        my_pairing_quantum_ms: f64 ="));
    }
}
