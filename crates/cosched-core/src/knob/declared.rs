//! Options declared once: a typed options struct is
//! written with [`crate::options!`], and each field's keyword, kind, default
//! (the simulator's and the real runtime's), unit, one-line doc and paper
//! section become its [`KnobSpec`] ([`Declared::DECLARED`]). The faces build
//! their flags, keywords and `cosched list knobs` rows from those
//! declarations and set a field through [`Declared::set`] (one parser, one
//! refusal naming the field); a policy reads the typed field. Enums whose
//! variants are a knob's words are declared with [`crate::words!`].

use super::{Given, Kind, KnobError, KnobSpec, Value};
use std::any::Any;
use std::fmt::Debug;

/// A field type a declared option's checked value converts into.
pub trait FromValue: Sized {
    /// The field's value of `v` (of the kind its declaration gives).
    fn from_value(v: Value) -> Self;
    /// The value of a field declared without a default (`None`, off, empty);
    /// `None` when the type has none (its declaration must give a default).
    fn absent() -> Option<Self> {
        None
    }
}

/// `FromValue` for the types a [`Value`] variant holds as it is.
macro_rules! from_variant {
    ($($t:ty => $variant:ident, $what:literal, $absent:expr;)*) => {$(
        impl FromValue for $t {
            fn from_value(v: Value) -> $t {
                match v {
                    Value::$variant(x) => x,
                    v => unreachable!(concat!("declared as ", $what, ": {:?}"), v),
                }
            }
            fn absent() -> Option<$t> {
                $absent
            }
        }
    )*};
}

from_variant! {
    String => Text, "text", Some(String::new());
    f64 => Float, "a number", None;
    u64 => Int, "a whole number", None;
    bool => Switch, "a switch", Some(false);
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
    fn absent() -> Option<Option<T>> {
        Some(None)
    }
}

/// An enum whose variants are the words of a knob ([`crate::words!`]).
pub trait Word: Sized + Copy + 'static {
    /// Every word, in the order listings show them.
    const WORDS: &'static [&'static str];
    /// The variant's word.
    fn word(self) -> &'static str;
    /// The variant of `word`.
    fn from_word(word: &str) -> Option<Self>;
}

/// The kind of a knob taking one of `T`'s words.
pub const fn choice<T: Word>() -> Kind {
    Kind::Choice { choices: T::WORDS }
}

/// The kind of a knob taking any set of `T`'s words (`none`: the empty set).
pub const fn subset<T: Word>() -> Kind {
    Kind::Subset { choices: T::WORDS }
}

/// A set of words ([`Kind::Subset`]), in declared order.
impl<T: Word> FromValue for Vec<T> {
    fn from_value(v: Value) -> Vec<T> {
        let text = String::from_value(v);
        text.split(',').filter_map(T::from_word).collect()
    }
}

/// The word `text` as `T`'s variant (a value already checked against its kind).
pub fn word_of<T: Word>(v: Value) -> T {
    let w = String::from_value(v);
    T::from_word(&w).unwrap_or_else(|| unreachable!("`{w}` was checked against the words"))
}

/// Options whose fields are declared as [`KnobSpec`]s ([`crate::options!`]).
pub trait Declared: Clone + Debug + Send + Sync + 'static {
    /// What the options are of (`assign`, `EFS`), named in a refusal.
    const OF: &'static str;
    /// Every option's declaration, in field order.
    const DECLARED: &'static [KnobSpec];
    /// This struct as a group of a policy's knobs (the registry's entry).
    const GROUP: KnobGroup = KnobGroup { specs: Self::DECLARED, make: boxed::<Self> };

    /// Store the checked value of option `name`.
    fn put(&mut self, name: &str, v: Value);

    /// Every field at its declared default (`real`: the real runtime's).
    fn defaults(real: bool) -> Self;

    /// Set option `name` (its keyword) from `text`, checked against its
    /// declaration; the checked value is returned too (a set of given knobs keeps it).
    fn set(&mut self, name: &str, text: &str) -> Result<Value, KnobError> {
        self.give(name, Given::Text(text))
    }

    /// Set option `name` from a flag's text or a typed value, checked
    /// against its declaration; the checked value is returned too.
    fn give(&mut self, name: &str, given: Given) -> Result<Value, KnobError> {
        let k = Self::DECLARED
            .iter()
            .find(|k| k.name == name)
            .ok_or_else(|| KnobError::NotOption { name: name.to_string(), of: Self::OF })?;
        let v = k.read(given)?;
        self.put(k.name, v.clone());
        Ok(v)
    }
}

/// The declared default of field `name` of `specs` as its type.
pub fn default_of<T: FromValue>(specs: &[KnobSpec], name: &str, real: bool) -> T {
    let k = specs.iter().find(|k| k.name == name).unwrap_or_else(|| unreachable!("`{name}` is declared"));
    match k.default_for(real) {
        "" => T::absent().unwrap_or_else(|| panic!("`{name}` is declared without a default its type needs")),
        d => T::from_value(k.parse(d).unwrap_or_else(|e| panic!("declared default: {e}"))),
    }
}

/// A declared options struct behind a pointer: what a registry holds for
/// each group of knobs, whatever its type.
pub trait AnyKnobs: Debug + Send + Sync {
    /// Its declarations.
    fn specs(&self) -> &'static [KnobSpec];
    /// Set option `name` from a flag's text or a typed value ([`Declared::give`]), returning the checked value.
    fn set_given(&mut self, name: &str, given: Given) -> Result<Value, KnobError>;
    /// For reading it back as its type.
    fn as_any(&self) -> &dyn Any;
    /// For changing it as its type.
    fn as_any_mut(&mut self) -> &mut dyn Any;
    /// A copy.
    fn clone_box(&self) -> Box<dyn AnyKnobs>;
}

impl<T: Declared> AnyKnobs for T {
    fn specs(&self) -> &'static [KnobSpec] {
        T::DECLARED
    }
    fn set_given(&mut self, name: &str, given: Given) -> Result<Value, KnobError> {
        self.give(name, given)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
    fn clone_box(&self) -> Box<dyn AnyKnobs> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn AnyKnobs> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

fn boxed<T: Declared>(real: bool) -> Box<dyn AnyKnobs> {
    Box::new(T::defaults(real))
}

/// A declared options struct as a policy registers it: its declarations and
/// how to make it at its defaults ([`Declared::GROUP`]).
#[derive(Clone, Copy)]
pub struct KnobGroup {
    /// The knobs, in field order.
    pub specs: &'static [KnobSpec],
    /// The struct at its defaults (`true`: the real runtime's).
    pub make: fn(bool) -> Box<dyn AnyKnobs>,
}

/// `$v` if given, else `$d` (the optional parts of a declaration).
#[doc(hidden)]
#[macro_export]
macro_rules! __knob_or {
    (; $d:expr) => {
        $d
    };
    ($v:expr; $d:expr) => {
        $v
    };
}

/// An options struct declared once: the struct (each field `pub`, with its
/// doc), its [`Declared`] implementation (a [`KnobSpec`] per field) and its
/// `Default` (every declared default; a field declared with `""` starts at
/// its type's absent value: `None`, off, empty). Each field is
/// `name: Type = (KIND, "DEFAULT" [, real "REAL DEFAULT"] [, unit "UNIT"] [, paper "SECTION"])`;
/// the struct's paper section stands for a field's that gives none.
#[macro_export]
macro_rules! options {
    (
        $(#[doc = $sdoc:literal])*
        pub struct $name:ident of $of:literal, $paper:literal {
            $(
                $(#[doc = $doc:literal])+
                $field:ident : $ty:ty = (
                    $kind:expr, $default:literal
                    $(, real $real:literal)? $(, unit $unit:literal)? $(, paper $fpaper:literal)?
                )
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

        impl $crate::knob::Declared for $name {
            const OF: &'static str = $of;
            const DECLARED: &'static [$crate::knob::KnobSpec] = &[$(
                $crate::knob::KnobSpec {
                    name: stringify!($field),
                    kind: $kind,
                    default: $default,
                    real_default: $crate::__knob_or!($($real)?; ""),
                    unit: $crate::__knob_or!($($unit)?; ""),
                    doc: concat!($($doc),+).trim_ascii(),
                    paper: $crate::__knob_or!($($fpaper)?; $paper),
                }
            ),+];

            fn put(&mut self, name: &str, v: $crate::knob::Value) {
                match name {
                    $(stringify!($field) => self.$field = $crate::knob::FromValue::from_value(v),)+
                    other => unreachable!("option `{other}` is not declared"),
                }
            }

            fn defaults(real: bool) -> $name {
                use $crate::knob::Declared;
                $name {
                    $($field: $crate::knob::default_of(<$name as Declared>::DECLARED, stringify!($field), real),)+
                }
            }
        }

        impl Default for $name {
            fn default() -> $name {
                <$name as $crate::knob::Declared>::defaults(false)
            }
        }
    };
}

/// [`Word`] and [`FromValue`] for an enum whose variants are a knob's words:
/// `words!(Objective { Energy = "energy", EnergyDelay = "energy-delay" })`.
#[macro_export]
macro_rules! words {
    ($t:ident { $($variant:ident = $word:literal),+ $(,)? }) => {
        impl $crate::knob::Word for $t {
            const WORDS: &'static [&'static str] = &[$($word),+];
            fn word(self) -> &'static str {
                match self {
                    $($t::$variant => $word,)+
                }
            }
            fn from_word(word: &str) -> Option<$t> {
                match word {
                    $($word => Some($t::$variant),)+
                    _ => None,
                }
            }
        }

        impl $crate::knob::FromValue for $t {
            fn from_value(v: $crate::knob::Value) -> $t {
                $crate::knob::word_of(v)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A colour.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Colour {
        /// Red.
        Red,
        /// Dark blue.
        DarkBlue,
    }
    crate::words!(Colour { Red = "red", DarkBlue = "dark-blue" });

    crate::options! {
        /// Options of a test.
        pub struct Test of "test", "a test" {
            /// A number.
            rate: f64 = (Kind::Float { min: 0.0, max: 1.0 }, "0.5", real "0.25", unit "1/s"),
            /// A count that may be absent.
            count: Option<usize> = (Kind::Int { min: 1, max: 9 }, ""),
            /// A switch on by default,
            /// over two lines.
            check: bool = (Kind::Switch, "true", paper "§2"),
            /// A colour.
            colour: Colour = (choice::<Colour>(), "red"),
            /// Colours.
            colours: Vec<Colour> = (subset::<Colour>(), "none"),
        }
    }

    #[test]
    fn defaults_set_and_refusals_follow_the_declarations() {
        let mut t = Test::default();
        assert_eq!((t.rate, t.count, t.check, t.colour), (0.5, None, true, Colour::Red));
        assert!(t.colours.is_empty());
        assert_eq!(Test::defaults(true).rate, 0.25);
        t.set("count", "3").unwrap();
        t.set("check", "false").unwrap();
        t.set("colour", "dark-blue").unwrap();
        t.set("colours", "dark-blue, red").unwrap();
        assert_eq!((t.count, t.check, t.colour), (Some(3), false, Colour::DarkBlue));
        assert_eq!(t.colours, [Colour::Red, Colour::DarkBlue], "in declared order");
        assert_eq!(t.set("rate", "2").unwrap_err().to_string(), "--rate: must be from 0 to 1 1/s, got 2");
        assert!(t.set("colour", "green").unwrap_err().to_string().contains("must be red, dark-blue"));
        let e = t.set("nope", "1").unwrap_err();
        assert_eq!((e.knob(), e.problem().as_str()), (Some("nope"), "is not an option of test"));
        let [rate, _, check, colour, _] = Test::DECLARED else { panic!() };
        assert_eq!((rate.unit, rate.paper, check.paper), ("1/s", "a test", "§2"));
        assert_eq!(check.doc, "A switch on by default, over two lines.");
        assert!(matches!(colour.kind, Kind::Choice { choices: ["red", "dark-blue"] }));
        assert_eq!(Colour::DarkBlue.word(), "dark-blue");
    }

    #[test]
    fn a_typed_value_is_checked_as_its_text_is() {
        let mut t = Test::default();
        let v = |x: Value| Given::Value(x);
        // A whole number is a number too, and lands on the same field as its text would.
        t.give("rate", v(Value::Int(1))).unwrap();
        assert_eq!(t.rate, 1.0);
        t.give("colours", v(Value::Text("dark-blue,red".into()))).unwrap();
        assert_eq!(t.colours, [Colour::Red, Colour::DarkBlue]);
        // The same refusals, word for word, as the text's.
        for (name, typed, text) in [
            ("rate", Value::Float(2.0), "2"),
            ("count", Value::Float(-1.0), "-1"),
            ("colour", Value::Text("green".into()), "green"),
        ] {
            let a = t.give(name, v(typed)).unwrap_err().to_string();
            assert_eq!(a, t.set(name, text).unwrap_err().to_string(), "{name}");
        }
        // A value of the wrong kind is refused naming both.
        let e = t.give("check", v(Value::Int(1))).unwrap_err().to_string();
        assert_eq!(e, "--check: must be true or false, got a whole number");
    }

    #[test]
    fn a_group_makes_its_struct_at_either_backends_defaults() {
        let mut g = (Test::GROUP.make)(true);
        assert_eq!(g.specs().len(), 5);
        g.set_given("rate", Given::Text("0.75")).unwrap();
        let copy = g.clone();
        assert_eq!(copy.as_any().downcast_ref::<Test>().map(|t| t.rate), Some(0.75));
    }
}
