//! Numbers as people read them in messages and tables:
//! the shortest text that parses back to the same `f64`, in exponent form
//! when plain digits would be long (`1e-9`, `1e300`, never 300 digits).

/// The shortest round-trip text of `v`: `4`, `0.25`, `1e-9`, `-1e308`,
/// `NaN`, `inf`.
pub fn shortest(v: f64) -> String {
    // `{:?}` is Rust's shortest round-trip form, in exponent notation
    // outside 1e-5 ≤ |v| < 1e16; only its `.0` on whole numbers is dropped.
    let s = format!("{v:?}");
    match s.strip_suffix(".0") {
        Some(whole) => whole.to_string(),
        None => s,
    }
}

/// `v` rounded to `digits` significant digits, in [`shortest`]'s form
/// (`14.786458815107553` → `14.7865` at 6, `5` → `5`): a value a message
/// quotes for a reader, not to be parsed back exactly (the JSON carries that).
pub fn significant(v: f64, digits: usize) -> String {
    if !v.is_finite() || digits == 0 {
        return shortest(v);
    }
    let prec = digits - 1;
    shortest(format!("{v:.prec$e}").parse().unwrap_or(v))
}

/// `v` with `prec` decimals, in exponent form (`prec` significant decimals)
/// when plain digits would be longer than a table cell should be
/// (|v| ≥ 10¹², or 0 < |v| < 10⁻⁴).
pub fn fixed(v: f64, prec: usize) -> String {
    let a = v.abs();
    if v.is_finite() && (a >= 1e12 || (a > 0.0 && a < 1e-4)) {
        format!("{v:.prec$e}")
    } else {
        format!("{v:.prec$}")
    }
}

/// `Some(v)` when `v` is finite, so no NaN or infinity is ever printed as a result.
pub fn finite(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

/// A count the model carries as a real number (instructions, LLC misses:
/// fractional because work is modelled as rates) as the whole number it
/// counts, as the real machine's counters give it; `None` beyond 2⁵³ or not
/// finite, where it stays the number it is.
pub fn whole_count(v: f64) -> Option<i64> {
    (v.is_finite() && v.abs() < 9.0e15).then(|| v.round() as i64)
}

/// [`whole_count`] as text (a CSV cell), else [`shortest`].
pub fn count_text(v: f64) -> String {
    whole_count(v).map_or_else(|| shortest(v), |n| n.to_string())
}

/// Serialize a count as [`whole_count`] gives it, else as the number it is.
pub fn serialize_count<S: serde::Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    match whole_count(*v) {
        Some(n) => s.serialize_i64(n),
        None => s.serialize_f64(*v),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn significant_digits_round_and_keep_the_shortest_form() {
        use super::significant;
        assert_eq!(significant(14.786458815107553, 6), "14.7865");
        assert_eq!(significant(5.0, 6), "5");
        assert_eq!(significant(-0.000123456789, 3), "-0.000123");
        assert_eq!(significant(1.23456e300, 4), "1.235e300");
        assert_eq!(significant(f64::NAN, 6), "NaN");
    }

    #[test]
    fn a_count_is_written_whole() {
        #[derive(serde::Serialize)]
        struct C {
            #[serde(serialize_with = "super::serialize_count")]
            n: f64,
        }
        assert_eq!(serde_json::to_string(&C { n: 6816258434.74573 }).unwrap(), r#"{"n":6816258435}"#);
        assert_eq!(serde_json::to_string(&C { n: 1e300 }).unwrap(), r#"{"n":1e+300}"#);
    }

    use super::*;

    #[test]
    fn shortest_round_trips_and_stays_short() {
        for (v, s) in [
            (4.0, "4"),
            (0.25, "0.25"),
            (1e-9, "1e-9"),
            (1e300, "1e300"),
            (-1e308, "-1e308"),
            (12345.5, "12345.5"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "inf"),
        ] {
            assert_eq!(shortest(v), s);
        }
        assert_eq!(fixed(12.5, 3), "12.500");
        assert_eq!(fixed(-1e308, 3), "-1.000e308");
        assert_eq!(fixed(2e-9, 2), "2.00e-9");
        assert_eq!(fixed(0.0, 2), "0.00");
        for v in [0.1, 1.0 / 3.0, 6.02e23, -2.5e-310, f64::MAX, f64::MIN_POSITIVE] {
            let s = shortest(v);
            assert_eq!(s.parse::<f64>().unwrap(), v, "{s}");
            assert!(s.len() <= 24, "{s}");
        }
    }
}
