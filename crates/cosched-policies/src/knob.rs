//! Policy knobs of the registered policies (`cosched_policies::registry`):
//! the vocabulary is the core's ([`cosched_core::knob`], re-exported here),
//! and this module adds what needs the registry: every declared knob, the
//! typed values of one run ([`PolicyKnobs`]), and which policies read each knob. The
//! command line's flags, `cosched run`, Python's keywords and `cosched list
//! policies --format json` are built from these declarations, and a knob the
//! chosen policy does not read is refused ([`unread`]).

pub use cosched_core::knob::*;
use std::collections::BTreeMap;

/// Every registered policy's knobs, typed: one declared struct per group
/// ([`KnobGroup`]), at the backend's defaults until set, and which knobs the
/// user gave. A face sets a knob by keyword from its text ([`PolicyKnobs::set`]:
/// the declaration checks it and names the flag in a refusal); a policy reads
/// its struct ([`PolicyKnobs::get`]).
/// Two are equal when they are the same backend's and the same knobs were
/// given the same values (the structs are a function of those).
#[derive(Clone, Debug)]
pub struct PolicyKnobs {
    groups: Vec<Box<dyn AnyKnobs>>,
    real: bool,
    given: BTreeMap<&'static str, Value>,
}

impl PartialEq for PolicyKnobs {
    fn eq(&self, other: &PolicyKnobs) -> bool {
        (self.real, &self.given) == (other.real, &other.given)
    }
}

impl Eq for PolicyKnobs {}

impl std::hash::Hash for PolicyKnobs {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (self.real, &self.given).hash(h);
    }
}

impl PolicyKnobs {
    /// Every registered struct at its defaults (`real`: the real runtime's).
    pub fn defaults(real: bool) -> PolicyKnobs {
        let mut groups: Vec<Box<dyn AnyKnobs>> = vec![];
        for g in crate::registry().iter().flat_map(|p| p.knob_groups()) {
            let first = g.specs.first().map(|k| k.name);
            if !groups.iter().any(|h| h.specs().first().map(|k| k.name) == first) {
                groups.push((g.make)(real));
            }
        }
        PolicyKnobs { groups, real, given: BTreeMap::new() }
    }

    /// Set knob `name` from `text`, as given by the user.
    pub fn set(&mut self, name: &str, text: &str) -> Result<(), KnobError> {
        self.give(name, Given::Text(text))
    }

    /// Set knob `name` from a flag's text or a typed value, as given by the user.
    pub fn give(&mut self, name: &str, given: Given) -> Result<(), KnobError> {
        let g = self
            .groups
            .iter_mut()
            .find(|g| g.specs().iter().any(|k| k.name == name))
            .ok_or_else(|| KnobError::Unknown { name: name.to_string() })?;
        let v = g.set_given(name, given)?;
        if let Some(k) = g.specs().iter().find(|k| k.name == name) {
            self.given.insert(k.name, v);
        }
        Ok(())
    }

    /// The knobs the user gave, in name order.
    pub fn given(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.given.keys().copied()
    }

    /// The knob struct `T` (registered by some policy; a programming error otherwise).
    pub fn get<T: Declared>(&self) -> &T {
        self.groups
            .iter()
            .find_map(|g| g.as_any().downcast_ref::<T>())
            .unwrap_or_else(|| panic!("no registered policy reads the knobs of {}", T::OF))
    }

    /// The knob struct `T`, to change (the lab's ablations set fields directly).
    pub fn get_mut<T: Declared>(&mut self) -> &mut T {
        self.groups
            .iter_mut()
            .find_map(|g| g.as_any_mut().downcast_mut::<T>())
            .unwrap_or_else(|| panic!("no registered policy reads the knobs of {}", T::OF))
    }
}

/// Every declared knob, once, in declaration order of the registry.
pub fn all() -> Vec<&'static KnobSpec> {
    let mut out: Vec<&'static KnobSpec> = vec![];
    for p in crate::registry() {
        for k in p.knobs() {
            if !out.iter().any(|o| o.name == k.name) {
                out.push(k);
            }
        }
    }
    out
}

/// The declaration of knob `name`.
pub fn spec(name: &str) -> Option<&'static KnobSpec> {
    all().into_iter().find(|k| k.name == name)
}

/// The policies that read knob `name`.
pub fn readers(name: &str) -> Vec<&'static str> {
    crate::registry().iter().filter(|p| p.knobs().any(|k| k.name == name)).map(|p| p.name).collect()
}

/// The knobs `given` that none of `policies` reads: the one-line refusal
/// naming the policies that do read each, or, when some of `policies` read
/// every given knob, one note per knob that only some of them read.
pub fn unread(given: &[&str], policies: &[&str]) -> Result<Vec<String>, KnobError> {
    let mut notes = vec![];
    for &k in given {
        let who = readers(k);
        let flag = flag_of(k);
        let reading: Vec<&str> = policies.iter().copied().filter(|p| who.contains(p)).collect();
        if reading.is_empty() {
            return Err(KnobError::NotRead {
                knob: k.to_string(),
                policies: policies.iter().map(|p| p.to_string()).collect(),
                readers: who,
            });
        }
        if reading.len() < policies.len() {
            notes.push(format!("{flag} applies to {} only", reading.join(", ")));
        }
    }
    Ok(notes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PolicyOptions;

    /// A valid value of `k` other than its default, from the declaration alone.
    fn other(k: &KnobSpec) -> String {
        let d = k.default;
        match k.kind {
            Kind::Float { min, max } => {
                let d: f64 = d.parse().unwrap_or(min.max(1.0));
                let v = if d * 2.0 <= max && d > 0.0 {
                    d * 2.0
                } else if d == 0.0 {
                    (min + max.min(1.0)) / 2.0 + 0.5
                } else {
                    (min + d) / 2.0
                };
                assert!(v != d && v >= min && v <= max, "{}: {v}", k.name);
                v.to_string()
            }
            Kind::Int { min, max } => {
                let d: u64 = d.parse().unwrap();
                (if d < max { d + 1 } else { d.max(min + 1) - 1 }).to_string()
            }
            Kind::Switch => "true".into(),
            Kind::Choice { choices } => choices.iter().find(|c| **c != d).unwrap().to_string(),
            Kind::Subset { choices } => choices[0].to_string(),
            Kind::Text => "0".into(),
        }
    }

    /// The options' Debug text without the knobs they were made from (what the policies read).
    fn built(o: PolicyOptions) -> String {
        format!("{:?}", PolicyOptions { knobs: PolicyKnobs::defaults(false), ..o })
    }

    #[test]
    fn the_declared_defaults_are_the_default_options() {
        let o = PolicyOptions::from_knobs(&PolicyKnobs::defaults(false), 1).unwrap();
        assert_eq!(format!("{o:?}"), format!("{:?}", PolicyOptions::default()));
        let real = PolicyOptions::from_knobs(&PolicyKnobs::defaults(true), 1).unwrap();
        assert_eq!(real.quantum, 100 * crate::ids::MILLI, "the real runtime's quantum");
        // The FM's own defaults are SLITS's declared ones (quintet uses them as they are).
        let fm = crate::learn::FmParams::default();
        assert_eq!((fm.k, fm.learning_rate, fm.reg_v), (8, 0.02, 0.005));
        assert_eq!(format!("{:?}", o.slits.fm), format!("{fm:?}"));
    }

    #[test]
    fn every_knob_changes_the_options_its_policies_are_built_from() {
        let base = built(PolicyOptions::from_knobs(&PolicyKnobs::defaults(false), 1).unwrap());
        for k in all() {
            let mut v = PolicyKnobs::defaults(false);
            v.set(k.name, &other(k)).unwrap_or_else(|e| panic!("{e}"));
            let o = PolicyOptions::from_knobs(&v, 1).unwrap_or_else(|e| panic!("{}: {e}", k.name));
            assert_ne!(built(o), base, "{} does not reach the options", k.name);
            assert!(!readers(k.name).is_empty(), "{} is read by no policy", k.name);
            assert_eq!(v.given().collect::<Vec<_>>(), [k.name]);
        }
    }

    #[test]
    fn values_outside_the_declaration_are_refused_naming_the_flag() {
        let mut v = PolicyKnobs::defaults(false);
        assert_eq!(
            v.set("quantum_ms", "0").unwrap_err().to_string(),
            "--quantum-ms: must be from 0.001 ms (1 µs) to 3600000 ms (1 hour), got 0"
        );
        assert_eq!(v.set("rda_factor", "-1").unwrap_err().to_string(), "--rda-factor: must be from 1 to 64, got -1");
        assert_eq!(v.set("slits_k", "x").unwrap_err().to_string(), "--slits-k: `x` is not a whole number");
        assert!(v.set("efs_objective", "speed").unwrap_err().to_string().contains("energy, energy-delay"));
        assert_eq!(
            v.set("quintet_without", "pairing,bus").unwrap_err().to_string(),
            "--quintet-without: unknown word `bus`: expected none or any of pairing, progress, admission, periods, pipes"
        );
        v.set("quintet_without", "periods, pairing,pairing").unwrap();
        assert_eq!(
            v.get::<crate::QuintetKnobs>().quintet_without,
            [crate::Mechanism::Pairing, crate::Mechanism::Periods]
        );
        assert!(v.set("no_such", "1").is_err());
    }

    #[test]
    fn an_unread_knob_is_refused_naming_its_readers_or_noted_when_some_read_it() {
        let e = unread(&["quantum_ms"], &["cfs"]).unwrap_err().to_string();
        let readers = readers("quantum_ms");
        assert!(readers.starts_with(&["g-rrs", "p-rrs", "wss"]) && readers.contains(&"static"), "{readers:?}");
        assert_eq!(e, format!("--quantum-ms: policy `cfs` does not read it; it is read by {}", readers.join(", ")));
        assert_eq!(unread(&["quantum_ms"], &["cfs", "g-rrs"]).unwrap(), ["--quantum-ms applies to g-rrs only"]);
        assert!(unread(&["efs_window_ms"], &["efs"]).unwrap().is_empty());
        assert!(unread(&["assignment"], &["cfs", "efs"])
            .unwrap_err()
            .to_string()
            .contains("policies `cfs`, `efs` do not read it"));
    }
}
