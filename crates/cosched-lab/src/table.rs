//! A study's tables as data: text cells and mean ±95% interval cells over
//! seeds (every figure and table with its interval; a difference whose
//! interval holds 0 is reported as "no difference"), rendered by the faces
//! as markdown rows or CSV rows; and a study's named steps.

use cosched_core::stats::{mean_ci, seeds_to_resolve, MeanCi};

/// One cell of a result table.
pub enum Cell {
    /// Plain text (a name, a count).
    Text(String),
    /// A quantity measured once per seed: mean ±95% interval with `digits` decimals.
    Value {
        /// Mean and 95% interval over seeds.
        ci: MeanCi,
        /// Decimals shown.
        digits: usize,
    },
    /// A difference against a reference (a saving or a speedup, %): as `Value`,
    /// signed, and marked "no difference" when its interval contains 0.
    Diff {
        /// Mean and 95% interval over seeds.
        ci: MeanCi,
        /// Decimals shown.
        digits: usize,
    },
}

impl Cell {
    /// Mean ± interval of `xs` (one value per seed).
    pub fn value(xs: &[f64], digits: usize) -> Cell {
        Cell::Value { ci: mean_ci(xs), digits }
    }

    /// A difference against a reference, one value per seed.
    pub fn diff(xs: &[f64], digits: usize) -> Cell {
        Cell::Diff { ci: mean_ci(xs), digits }
    }

    /// How many seeds a difference needs: "resolved" when
    /// its interval already excludes 0, else the seeds at which an interval of
    /// the observed spread would exclude 0 around the observed mean
    /// ([`cosched_core::stats::seeds_to_resolve`]), or "> 10,000"; "n/a" from one seed.
    pub fn resolve(xs: &[f64]) -> Cell {
        let ci = mean_ci(xs);
        if ci.n < 2 {
            return "n/a (one seed)".into();
        }
        if ci.lo > 0.0 || ci.hi < 0.0 {
            return "resolved".into();
        }
        match seeds_to_resolve(xs, 10_000) {
            Some(n) => format!("about {n}").into(),
            None => "> 10,000".into(),
        }
    }

    fn half(ci: &MeanCi) -> f64 {
        (ci.hi - ci.lo) / 2.0
    }

    /// The cell as markdown text (intervals as "mean ±h").
    pub fn markdown(&self) -> String {
        match self {
            Cell::Text(s) => s.clone(),
            Cell::Value { ci, digits } if ci.n < 2 => format!("{:.*}", *digits, ci.mean),
            Cell::Value { ci, digits } => format!("{:.*} ±{:.*}", *digits, ci.mean, *digits, Cell::half(ci)),
            Cell::Diff { ci, digits } if ci.n < 2 => format!("{:+.*}", *digits, ci.mean),
            Cell::Diff { ci, digits } => {
                let nd = if ci.lo <= 0.0 && ci.hi >= 0.0 { " (no difference)" } else { "" };
                format!("{:+.*} ±{:.*}{nd}", *digits, ci.mean, *digits, Cell::half(ci))
            }
        }
    }

    /// CSV fields: text, or the mean and the interval's half-width (two numeric columns).
    pub fn csv(&self) -> Vec<String> {
        match self {
            Cell::Text(s) => vec![s.clone()],
            Cell::Value { ci, .. } | Cell::Diff { ci, .. } => {
                let h = if ci.n < 2 { 0.0 } else { Cell::half(ci) };
                vec![format!("{}", ci.mean), format!("{h}")]
            }
        }
    }
}

impl From<&str> for Cell {
    fn from(s: &str) -> Cell {
        Cell::Text(s.to_string())
    }
}

impl From<String> for Cell {
    fn from(s: String) -> Cell {
        Cell::Text(s)
    }
}

/// One step of a study: its name (a figure, a table, an ablation), the
/// paragraphs shown before its table (what the paper says there, verbatim
/// with its section; how we measured), the table, and the CSV file it is
/// written to.
pub struct Step {
    /// The step's name (`Fig. 5 analogue: sample size and the estimate`).
    pub name: String,
    /// Paragraphs before the table, in order.
    pub text: Vec<String>,
    /// Our result.
    pub table: Table,
    /// The CSV file name of the table (`pot.csv`).
    pub csv: &'static str,
}

/// A table: a header and rows of cells. Columns holding intervals get a
/// second CSV column `<name> ci95` (the half-width).
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<Cell>>,
}

impl Table {
    /// An empty table with these column names.
    pub fn new(header: &[&str]) -> Table {
        Table { header: header.iter().map(|s| s.to_string()).collect(), rows: vec![] }
    }

    /// Append a row (as many cells as columns).
    pub fn push(&mut self, row: Vec<Cell>) {
        debug_assert_eq!(row.len(), self.header.len());
        self.rows.push(row);
    }

    /// Rows for markdown: intervals as "mean ±h".
    pub fn markdown_rows(&self) -> Vec<Vec<String>> {
        let mut out = vec![self.header.clone()];
        out.extend(self.rows.iter().map(|r| r.iter().map(Cell::markdown).collect()));
        out
    }

    /// Rows for CSV: a column with intervals anywhere is split into mean and `ci95`.
    pub fn csv_rows(&self) -> Vec<Vec<String>> {
        let split: Vec<bool> = (0..self.header.len())
            .map(|c| self.rows.iter().any(|r| matches!(r[c], Cell::Value { .. } | Cell::Diff { .. })))
            .collect();
        let mut head = vec![];
        for (h, &s) in self.header.iter().zip(&split) {
            head.push(h.clone());
            if s {
                head.push(format!("{h} ci95"));
            }
        }
        let mut out = vec![head];
        for r in &self.rows {
            let mut line = vec![];
            for (c, &s) in r.iter().zip(&split) {
                let mut f = c.csv();
                if s && f.len() == 1 {
                    f.push(String::new());
                }
                line.extend(f);
            }
            out.push(line);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_become_two_numeric_csv_columns_and_zero_crossings_no_difference() {
        let mut t = Table::new(&["case", "saving %"]);
        t.push(vec!["a".into(), Cell::diff(&[1.9, 2.0, 2.1], 1)]);
        t.push(vec!["b".into(), Cell::diff(&[-1.0, 1.0, 0.5], 1)]);
        t.push(vec!["c".into(), "n/a".into()]);
        let csv = t.csv_rows();
        assert_eq!(csv[0], vec!["case", "saving %", "saving % ci95"]);
        let (m, h): (f64, f64) = (csv[1][1].parse().unwrap(), csv[1][2].parse().unwrap());
        assert!((m - 2.0).abs() < 1e-12, "{m}");
        assert!((h - 4.303 * 0.1 / 3f64.sqrt()).abs() < 1e-9, "{h}");
        assert_eq!(csv[3], vec!["c", "n/a", ""]);
        let md = t.markdown_rows();
        assert!(!md[1][1].contains("no difference"), "{}", md[1][1]);
        assert!(md[2][1].ends_with("(no difference)"), "{}", md[2][1]);
    }

    #[test]
    fn resolve_says_resolved_or_how_many_seeds() {
        let text = |c: Cell| match c {
            Cell::Text(s) => s,
            _ => panic!("not text"),
        };
        assert_eq!(text(Cell::resolve(&[1.9, 2.0, 2.1])), "resolved");
        assert_eq!(text(Cell::resolve(&[0.0, 1.0, 2.0])), "about 7");
        assert_eq!(text(Cell::resolve(&[-1.0, 0.0, 1.0])), "> 10,000");
        assert_eq!(text(Cell::resolve(&[0.5])), "n/a (one seed)");
    }
}
