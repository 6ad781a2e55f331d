//! Options declared once. A study's options struct is written with
//! `cosched_core::options!` (the policies' knobs are declared the same way):
//! each field's keyword, kind, default and help line become its [`KnobSpec`]
//! ([`Declared::DECLARED`]), from which the command line builds its flags and
//! Python checks its keywords, and through which both set a value from text
//! ([`Declared::set`]). Conventions the faces share: a
//! switch on by default is turned off by `--no-<keyword>` (Python:
//! `keyword=False`), and its help line says what turning it off does;
//! `machine` and `workload` have the short flags `-m` and `-w`.

use cosched_policies::knob::KnobSpec;
pub use cosched_policies::knob::{Declared, FromValue};

/// The command-line flag of a declared option, without dashes: a switch on
/// by default is turned off by `no-<keyword>`.
pub fn long(k: &KnobSpec) -> String {
    let name = k.name.replace('_', "-");
    if matches!(k.kind, cosched_policies::knob::Kind::Switch) && k.default == "true" {
        format!("no-{name}")
    } else {
        name
    }
}

/// The short flag of a declared option (`-m` machine, `-w` workload).
pub fn short(k: &KnobSpec) -> Option<char> {
    match k.name {
        "machine" => Some('m'),
        "workload" => Some('w'),
        _ => None,
    }
}

/// Float option `name` of declared options `T` checked against its declaration (the range a
/// face's text meets), for options built in code.
pub(crate) fn check_float<T: Declared>(name: &str, v: f64) -> Result<(), crate::error::RunError> {
    let spec = T::DECLARED.iter().find(|k| k.name == name).expect("a declared option");
    spec.accept(cosched_core::knob::Value::Float(v))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use cosched_policies::knob::Kind;

    cosched_core::options! {
        /// Options of a test.
        pub struct Test of "test", "a test" {
            /// A switch on by default.
            check: bool = (Kind::Switch, "true"),
            /// The workload.
            workload: String = (Kind::Text, ""),
        }
    }

    #[test]
    fn a_default_on_switch_is_turned_off_by_its_no_flag_and_the_workload_has_its_short_flag() {
        let [check, workload] = Test::DECLARED else { panic!() };
        assert_eq!((long(check), short(check)), ("no-check".into(), None));
        assert_eq!((long(workload), short(workload)), ("workload".into(), Some('w')));
        let e = crate::RunError::from(Test::default().set("nope", "1").unwrap_err());
        assert_eq!(e.in_keywords(), "nope: is not an option of test");
    }
}
