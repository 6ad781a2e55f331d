//! Small formatting helpers.

pub use cosched_lab::report::csv_field;

/// Format an optional number with `prec` decimals, `-` when absent.
pub fn opt(v: Option<f64>, prec: usize) -> String {
    v.map_or("-".into(), |x| format!("{x:.prec$}"))
}

/// How many columns of a terminal `text` takes (a wide character, as in CJK
/// names, takes two; a combining mark none).
fn display_width(text: &str) -> usize {
    textwrap::core::display_width(text)
}

/// The widths of the columns of `rows`, in terminal columns.
fn widths(rows: &[Vec<String>]) -> Vec<usize> {
    let n = rows.iter().map(|r| r.len()).max().unwrap_or(0);
    (0..n).map(|i| rows.iter().filter_map(|r| r.get(i)).map(|c| display_width(c)).max().unwrap_or(0)).collect()
}

/// Columns 1.. split into groups that each fit `width` characters beside
/// column 0 (two spaces between columns); a column wider than that alone
/// makes a group of its own.
fn groups(widths: &[usize], width: usize) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = vec![];
    let mut used = usize::MAX;
    for (i, w) in widths.iter().enumerate().skip(1) {
        if used.saturating_add(2 + w) > width {
            out.push(vec![]);
            used = widths[0];
        }
        out.last_mut().expect("a group").push(i);
        used += 2 + w;
    }
    out
}

/// Print rows as an aligned table; when stdout is a terminal narrower than
/// the table, as several tables of groups of columns, each led by the first
/// column (piped output is always one table, so scripts see one layout).
pub fn table_fit(rows: &[Vec<String>]) {
    use std::io::IsTerminal;
    let w = widths(rows);
    let total = w.iter().sum::<usize>() + 2 * w.len().saturating_sub(1);
    let term = std::io::stdout().is_terminal().then(|| console::Term::stdout().size_checked()).flatten();
    match term {
        Some((_, cols)) if total > cols as usize => {
            for (k, g) in groups(&w, cols as usize).iter().enumerate() {
                if k > 0 {
                    println!();
                }
                let part: Vec<Vec<String>> = rows
                    .iter()
                    .map(|r| std::iter::once(0).chain(g.iter().copied()).filter_map(|i| r.get(i).cloned()).collect())
                    .collect();
                table(&part);
            }
        }
        _ => table(rows),
    }
}

/// Print rows as an aligned table (first row is the header).
pub fn table(rows: &[Vec<String>]) {
    print!("{}", table_string(rows));
}

/// Rows as an aligned table (first row is the header), each line ended by a newline.
pub fn table_string(rows: &[Vec<String>]) -> String {
    use std::fmt::Write;
    let widths = widths(rows);
    let mut text = String::new();
    for (k, r) in rows.iter().enumerate() {
        let line: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let pad = " ".repeat(widths[i] - display_width(c));
                if i == 0 {
                    format!("{c}{pad}")
                } else {
                    format!("{pad}{c}")
                }
            })
            .collect();
        let _ = writeln!(text, "{}", line.join("  ").trim_end());
        if k == 0 {
            let _ = writeln!(text, "{}", widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>().join("  "));
        }
    }
    text
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

/// Write `text` to the output `path` whole (a regular file through a temporary and a
/// rename; a device or FIFO written into, never replaced; see `cosched_machine::output`).
pub fn write_whole(path: &std::path::Path, text: &str) -> Result<(), String> {
    cosched_machine::output::write(path, &path.display().to_string(), text.as_bytes()).map_err(|e| e.to_string())
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

/// Check before any work that the output `path` can be written: a regular file's folder
/// takes a new file, a device or FIFO may be written; a directory or a missing folder is
/// refused. Nothing is created or opened (a FIFO's open would wait for a reader).
pub fn check_out_file(flag: &str, path: Option<&std::path::Path>) -> Result<(), String> {
    let Some(p) = path else { return Ok(()) };
    cosched_machine::output::check(p, &format!("{flag} {}", p.display())).map(|_| ()).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::groups;

    #[test]
    fn wide_characters_take_two_columns_and_stay_aligned() {
        let rows =
            vec![vec!["job".to_string(), "s".into()], vec!["計算".into(), "1.0".into()], vec!["ab".into(), "2".into()]];
        let text = super::table_string(&rows);
        let lines: Vec<&str> = text.lines().collect();
        // "計算" is four columns wide: the first column is four wide, and every line ends at one column.
        assert_eq!(lines, ["job     s", "----  ---", "計算  1.0", "ab      2"]);
    }

    #[test]
    fn columns_wrap_in_groups_that_fit_beside_the_first() {
        // First column 10 wide; each further column plus its two spaces must fit in 30.
        assert_eq!(groups(&[10, 8, 8, 8, 20], 30), vec![vec![1, 2], vec![3], vec![4]]);
        // A column too wide for any group stands alone; everything fits: one group.
        assert_eq!(groups(&[10, 40, 5], 30), vec![vec![1], vec![2]]);
        assert_eq!(groups(&[4, 4, 4], 200), vec![vec![1, 2]]);
    }
}
