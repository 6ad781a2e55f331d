//! Options declared once. A study's options struct is written with
//! [`declared!`]: each field's keyword, kind, default and help line become
//! its [`KnobSpec`] ([`Declared::DECLARED`]), from which the command line
//! builds its flags and Python checks its keywords, and through which both
//! set a value from text ([`Declared::set`]). Conventions the faces share: a
//! switch on by default is turned off by `--no-<keyword>` (Python:
//! `keyword=False`), and its help line says what turning it off does;
//! `machine` and `workload` have the short flags `-m` and `-w`.

use crate::error::RunError;
use cosched_policies::knob::{KnobSpec, Value};

/// A field type a declared option's parsed value converts into.
pub trait FromValue: Sized {
    /// The field's value of `v` (the kind the declaration gives).
    fn from_value(v: Value) -> Self;
}

/// `FromValue` for the types a [`Value`] variant holds as it is.
macro_rules! from_variant {
    ($($t:ty => $variant:ident, $what:literal;)*) => {$(
        impl FromValue for $t {
            fn from_value(v: Value) -> $t {
                match v {
                    Value::$variant(x) => x,
                    v => unreachable!(concat!("declared as ", $what, ": {:?}"), v),
                }
            }
        }
    )*};
}

from_variant! {
    String => Text, "text";
    f64 => Float, "a number";
    u64 => Int, "a whole number";
    bool => Switch, "a switch";
}

impl FromValue for u32 {
    fn from_value(v: Value) -> u32 {
        u32::try_from(u64::from_value(v)).expect("declared within 32 bits")
    }
}

impl FromValue for usize {
    fn from_value(v: Value) -> usize {
        usize::try_from(u64::from_value(v)).unwrap_or(usize::MAX)
    }
}

impl<T: FromValue> FromValue for Option<T> {
    fn from_value(v: Value) -> Option<T> {
        Some(T::from_value(v))
    }
}

/// Options whose fields are declared as [`KnobSpec`]s.
pub trait Declared: Sized {
    /// What the options are of (`assign`), named in a refusal.
    const OF: &'static str;
    /// Every option's declaration, in field order.
    const DECLARED: &'static [KnobSpec];

    /// Store the parsed value of option `name`.
    fn put(&mut self, name: &str, v: Value);

    /// Set option `name` (its keyword) from `text`, checked against its declaration.
    fn set(&mut self, name: &str, text: &str) -> Result<(), RunError> {
        let k = Self::DECLARED
            .iter()
            .find(|k| k.name == name)
            .ok_or_else(|| RunError::knob(name, format!("is not an option of {}", Self::OF)))?;
        self.put(k.name, k.parse(text)?);
        Ok(())
    }
}

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

/// An options struct, its [`Declared`] implementation and its `Default`
/// (every declared default; a field declared without one starts at its
/// type's default: `None`, `false`).
#[macro_export]
macro_rules! declared {
    (
        $(#[doc = $sdoc:literal])*
        pub struct $name:ident of $of:literal, $paper:literal {
            $(
                $(#[doc = $doc:literal])+
                $field:ident : $ty:ty = ($kind:expr, $default:literal)
            ),+ $(,)?
        }
    ) => {
        $(#[doc = $sdoc])*
        #[derive(Clone, Debug)]
        pub struct $name {
            $(
                $(#[doc = $doc])+
                pub $field: $ty,
            )+
        }

        impl $crate::declared::Declared for $name {
            const OF: &'static str = $of;
            const DECLARED: &'static [cosched_policies::knob::KnobSpec] = &[$(
                cosched_policies::knob::KnobSpec {
                    name: stringify!($field),
                    kind: $kind,
                    default: $default,
                    real_default: "",
                    unit: "",
                    doc: concat!($($doc),+),
                    paper: $paper,
                }
            ),+];

            fn put(&mut self, name: &str, v: cosched_policies::knob::Value) {
                match name {
                    $(stringify!($field) => self.$field = $crate::declared::FromValue::from_value(v),)+
                    other => unreachable!("option `{other}` is not declared"),
                }
            }
        }

        impl Default for $name {
            fn default() -> $name {
                use $crate::declared::Declared;
                let mut o = $name { $($field: Default::default(),)+ };
                for k in <$name as Declared>::DECLARED {
                    if !k.default.is_empty() {
                        o.set(k.name, k.default).unwrap_or_else(|e| panic!("declared default: {e}"));
                    }
                }
                o
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use cosched_policies::knob::Kind;

    declared! {
        /// Options of a test.
        pub struct Test of "test", "a test" {
            /// A number.
            rate: f64 = (Kind::Float { min: 0.0, max: 1.0 }, "0.5"),
            /// A count that may be absent.
            count: Option<usize> = (Kind::Int { min: 1, max: 9 }, ""),
            /// A switch on by default,
            /// over two lines.
            check: bool = (Kind::Switch, "true"),
        }
    }

    #[test]
    fn defaults_set_and_refusals_follow_the_declarations() {
        let mut t = Test::default();
        assert_eq!((t.rate, t.count, t.check), (0.5, None, true));
        t.set("count", "3").unwrap();
        t.set("check", "false").unwrap();
        assert_eq!((t.count, t.check), (Some(3), false));
        assert_eq!(t.set("rate", "2").unwrap_err().to_string(), "--rate: must be from 0 to 1, got 2");
        assert_eq!(t.set("nope", "1").unwrap_err().in_keywords(), "nope: is not an option of test");
        let check = &Test::DECLARED[2];
        assert_eq!((long(check), check.doc.trim()), ("no-check".into(), "A switch on by default, over two lines."));
    }
}
