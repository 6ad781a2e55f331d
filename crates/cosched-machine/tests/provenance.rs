//! Every constant of every machine preset has a provenance: published, computed from published
//! figures, measured on the host, assumed (saying on what), or fitted to named check points,
//! which must then be fitted points (`MachineSpec::provenance`; docs/model.md, "Why trust the
//! simulator").

use cosched_machine::presets::{machine, machine_names, machine_text};
use cosched_machine::spec::provenance_tag;

/// The dotted keys of every value in a preset file but its labels, sources and check points.
fn constants(v: &toml::Value, prefix: &str, out: &mut Vec<String>) {
    if let toml::Value::Table(t) = v {
        for (k, x) in t {
            let label = ["name", "description", "sources", "origin", "provenance", "check"].contains(&k.as_str());
            if prefix.is_empty() && label {
                continue;
            }
            let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
            match x {
                toml::Value::Table(_) => constants(x, &key, out),
                _ => out.push(key),
            }
        }
    }
}

#[test]
fn every_constant_of_every_preset_has_a_provenance_and_fitted_ones_name_fitted_points() {
    let mut problems = vec![];
    let mut checked = 0;
    for name in machine_names() {
        let text = machine_text(name).expect("a preset's text");
        let value: toml::Value = toml::from_str(text).expect("a preset parses");
        let m = machine(name).expect("a preset loads");
        let mut keys = vec![];
        constants(&value, "", &mut keys);
        for key in &keys {
            checked += 1;
            // The entry of the key itself, or of the nearest section holding it.
            let mut at = key.as_str();
            let entry = loop {
                if let Some(e) = m.provenance.get(at) {
                    break Some(e);
                }
                match at.rfind('.') {
                    Some(i) => at = &at[..i],
                    None => break None,
                }
            };
            match entry.and_then(|e| provenance_tag(e).map(|t| (e, t))) {
                None => problems.push(format!("{name}: `{key}` has no provenance entry")),
                Some((e, ('A', _))) if e.trim_end().len() < 8 => {
                    problems.push(format!("{name}: `{key}` is assumed without saying on what"))
                }
                Some((_, ('F', points))) => {
                    for p in points {
                        match m.checks.iter().find(|c| c.name == p) {
                            None => problems
                                .push(format!("{name}: `{key}` is fitted to `{p}`, which is no check point of it")),
                            Some(c) if !c.fitted => {
                                problems.push(format!("{name}: `{key}` is fitted to `{p}`, a point marked held out"))
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        for k in m.provenance.keys() {
            if !keys.iter().any(|c| c == k || c.starts_with(&format!("{k}."))) {
                problems.push(format!("{name}: provenance names `{k}`, which is no constant of it"));
            }
        }
    }
    assert!(checked > 100, "only {checked} constants found");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_provenance_entry_without_a_tag_is_refused_naming_it() {
    let text = machine_text("i5-2500").expect("preset");
    let text = text.replacen("[provenance]", "[provenance]\n\"memory.dram\" = \"the datasheet\"", 1);
    assert!(text.contains("the datasheet"), "the preset has a [provenance] table");
    let err = cosched_machine::MachineSpec::from_toml("bad.toml", &text).expect_err("refused").to_string();
    assert!(err.contains("bad.toml") && err.contains("provenance.memory.dram") && err.contains("[F:"), "{err}");
}
