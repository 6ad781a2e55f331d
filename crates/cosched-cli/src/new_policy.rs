//! `cosched new-policy NAME`: a Rust policy of your own in one file.
//! Writes `crates/cosched-core/src/policies/<name>.rs` from a
//! template (a working global round-robin with its declared knob and a
//! scripted-stream test), and registers it in `policies/mod.rs` (the module
//! and a registry entry, each above the marker line left there for it), so
//! after a rebuild it runs in `simulate`, `compare`, sweeps, Python and
//! `cosched run`. Everything is checked before anything is written; if the
//! registration cannot be written, the new file is removed again.

use clap::Args as ClapArgs;
use std::path::{Path, PathBuf};

/// The template (placeholders `{{name}}`, `{{Camel}}`).
const TEMPLATE: &str = include_str!("templates/policy.rs.txt");
/// The marker line the module declaration goes above.
pub const MODULE_MARKER: &str = "// `cosched new-policy NAME` adds its module above this line.";
/// The marker line the registry entry goes above.
pub const ENTRY_MARKER: &str = "        // `cosched new-policy NAME` adds its entry above this line.";
/// Longest name accepted.
const MAX_NAME: usize = 40;

#[derive(ClapArgs)]
pub struct Args {
    /// The policy's name: lowercase letters, digits and single hyphens, starting with a letter (`my-pairing`).
    name: String,
    /// The cosched workspace to add it to (the folder holding crates/cosched-core).
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
    if cosched_core::policies::find(name).is_some() || name == "linux" {
        return Err(format!("new-policy: `{name}` is already a policy's name (cosched list policies)"));
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
    TEMPLATE.replace("{{name}}", name).replace("{{Camel}}", &camel(name))
}

/// `mod.rs` with the module and the registry entry of `name` added above their markers.
pub fn register(mod_rs: &str, name: &str, file: &Path) -> Result<String, String> {
    let snake = name.replace('-', "_");
    let at = |marker: &str| {
        mod_rs.find(marker).ok_or_else(|| {
            format!(
                "{}: the line `{}` is missing: new-policy cannot tell where to register `{name}`",
                file.display(),
                marker.trim()
            )
        })
    };
    let (m, e) = (at(MODULE_MARKER)?, at(ENTRY_MARKER)?);
    if mod_rs.contains(&format!("\nmod {snake};")) {
        return Err(format!("{}: a module `{snake}` is already declared", file.display()));
    }
    let entry = format!(
        "        PolicyInfo {{\n            name: \"{name}\",\n            description: \"{name}: made by `cosched new-policy` (describe it here)\",\n            oracle: false,\n            knob_groups: &[{snake}::KNOBS],\n            make: |o| Ok(Box::new({snake}::{}::new(o))),\n        }},\n",
        camel(name)
    );
    let mut out = mod_rs.to_string();
    out.insert_str(e, &entry);
    out.insert_str(m, &format!("mod {snake};\n"));
    Ok(out)
}

/// `cosched new-policy`.
pub fn run(a: Args) -> Result<(), String> {
    check_name(&a.name)?;
    let dir = a.root.join("crates/cosched-core/src/policies");
    let mod_path = dir.join("mod.rs");
    let mod_rs = std::fs::read_to_string(&mod_path).map_err(|e| {
        format!("{}: cannot read ({e}): run from the root of a cosched checkout or give --root", mod_path.display())
    })?;
    let file = dir.join(format!("{}.rs", a.name.replace('-', "_")));
    if file.exists() {
        return Err(format!("{}: already exists; nothing written", file.display()));
    }
    let registered = register(&mod_rs, &a.name, &mod_path)?;
    std::fs::write(&file, render(&a.name)).map_err(|e| format!("{}: cannot write: {e}", file.display()))?;
    if let Err(e) = std::fs::write(&mod_path, registered) {
        let _ = std::fs::remove_file(&file);
        return Err(format!("{}: cannot write: {e}; {} removed again", mod_path.display(), file.display()));
    }
    println!("wrote {} and registered `{}` in {}", file.display(), a.name, mod_path.display());
    println!("next: cargo test -p cosched-core {}   # its scripted-stream tests", a.name.replace('-', "_"));
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
    }

    #[test]
    fn the_registry_of_this_workspace_has_both_markers_and_registration_is_refused_twice() {
        let real = include_str!("../../cosched-core/src/policies/mod.rs");
        let p = Path::new("mod.rs");
        let once = register(real, "my-pairing", p).unwrap();
        assert!(once.contains("mod my_pairing;\n// `cosched new-policy"));
        assert!(once.contains("make: |o| Ok(Box::new(my_pairing::MyPairing::new(o)))"));
        assert!(register(&once, "my-pairing", p).unwrap_err().contains("already declared"));
        assert!(register("mod x;", "y", p).unwrap_err().contains("is missing"));
        let text = render("my-pairing");
        assert!(text.contains("pub struct MyPairing") && text.contains("\"my-pairing\"") && !text.contains("{{"));
    }
}
