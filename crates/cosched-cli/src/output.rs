//! Small formatting helpers.

/// Quote a CSV field when needed.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Format an optional number with `prec` decimals, `-` when absent.
pub fn opt(v: Option<f64>, prec: usize) -> String {
    v.map_or("-".into(), |x| format!("{x:.prec$}"))
}

/// Print rows as an aligned table (first row is the header).
pub fn table(rows: &[Vec<String>]) {
    let n = rows.iter().map(|r| r.len()).max().unwrap_or(0);
    let widths: Vec<usize> =
        (0..n).map(|i| rows.iter().filter_map(|r| r.get(i)).map(|c| c.chars().count()).max().unwrap_or(0)).collect();
    for (k, r) in rows.iter().enumerate() {
        let line: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, c)| if i == 0 { format!("{c:<w$}", w = widths[i]) } else { format!("{c:>w$}", w = widths[i]) })
            .collect();
        println!("{}", line.join("  ").trim_end());
        if k == 0 {
            println!("{}", widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>().join("  "));
        }
    }
}

/// Print rows as CSV.
pub fn csv(rows: &[Vec<String>]) {
    for r in rows {
        println!("{}", r.iter().map(|c| csv_field(c)).collect::<Vec<_>>().join(","));
    }
}

/// A mean and its 95% interval as three CSV cells (`<metric>_mean`, `_lo`,
/// `_hi`, numbers for pandas), empty where the metric is not defined.
pub fn ci_cells(m: Option<&cosched_core::stats::MeanCi>) -> [String; 3] {
    m.map_or([String::new(), String::new(), String::new()], |m| [m.mean, m.lo, m.hi].map(|v| format!("{v}")))
}
