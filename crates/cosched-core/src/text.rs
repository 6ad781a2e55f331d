//! Text from users as it may be printed: control characters escaped (a
//! workload or policy named `"\u{1b}]0;pwned\u{7}"` must not set the
//! terminal's title) and long values cut to a quotable length (an error
//! about a 50 MB token quotes its start, not the token).

use std::borrow::Cow;

/// How many characters of a user's value an error message quotes.
pub const QUOTE_CHARS: usize = 80;

/// Whether `s` holds a character [`printable`] would escape (names with
/// one are refused where they are read).
pub fn has_control(s: &str) -> bool {
    matches!(printable(s), Cow::Owned(_))
}

/// `s` with every control character (C0, DEL, C1) and bidirectional
/// override escaped as Rust writes it (`\u{1b}`, `\n`); unchanged (and not
/// copied) when it has none.
pub fn printable(s: &str) -> Cow<'_, str> {
    let bad = |c: char| c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    if !s.chars().any(bad) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if bad(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// [`printable`] `s`, cut to [`QUOTE_CHARS`] characters with its length
/// said when longer (`abc… (52428800 bytes)`).
pub fn quote(s: &str) -> String {
    let p = printable(s);
    if p.chars().count() <= QUOTE_CHARS {
        return p.into_owned();
    }
    let head: String = p.chars().take(QUOTE_CHARS - 1).collect();
    format!("{head}… ({} bytes)", s.len())
}

/// Up to `max` [`quote`]d names joined with `, `, then `and N more`.
pub fn list<S: AsRef<str>>(names: &[S], max: usize) -> String {
    let mut s: Vec<String> = names.iter().take(max).map(|n| quote(n.as_ref())).collect();
    if names.len() > max {
        s.push(format!("and {} more", names.len() - max));
    }
    s.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_plain_text_is_borrowed() {
        assert!(matches!(printable("mcf-0"), Cow::Borrowed("mcf-0")));
        assert_eq!(printable("\u{1b}]0;pwned\u{7}"), "\\u{1b}]0;pwned\\u{7}");
        assert_eq!(printable("a\nb\u{202e}c"), "a\\nb\\u{202e}c");
        assert_eq!(printable("naïve ✓"), "naïve ✓");
    }

    #[test]
    fn long_values_are_cut_with_their_length() {
        let big = "x".repeat(50_000_000);
        let q = quote(&big);
        assert_eq!(q.chars().count(), QUOTE_CHARS + " (50000000 bytes)".len());
        assert!(q.ends_with("… (50000000 bytes)"));
        assert_eq!(quote(&"y".repeat(QUOTE_CHARS)), "y".repeat(QUOTE_CHARS));
        assert_eq!(list(&["a", "b", "c"], 2), "a, b, and 1 more");
        assert_eq!(list(&["a"], 2), "a");
    }
}
