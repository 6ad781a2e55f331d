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

/// Check before any work that `dir` (an output folder, created if missing)
/// can be written, so a long run never ends failing to write.
pub fn check_out_dir(flag: &str, dir: Option<&str>) -> Result<(), String> {
    let Some(d) = dir else { return Ok(()) };
    std::fs::create_dir_all(d).map_err(|e| format!("{flag} {d}: cannot create the folder: {e}"))?;
    let probe = std::path::Path::new(d).join(format!(".cosched-write-check-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(|e| format!("{flag} {d}: cannot write there: {e}"))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Check before any work that the file `path` can be written (its folder
/// exists and takes a file there); a file that did not exist is not left behind.
pub fn check_out_file(flag: &str, path: Option<&std::path::Path>) -> Result<(), String> {
    let Some(p) = path else { return Ok(()) };
    let existed = p.exists();
    if p.is_dir() {
        return Err(format!("{flag} {}: is a folder, not a file", p.display()));
    }
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(p)
        .map_err(|e| format!("{flag} {}: cannot write there: {e}", p.display()))?;
    if !existed {
        let _ = std::fs::remove_file(p);
    }
    Ok(())
}
