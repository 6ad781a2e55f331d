//! A study's report as data: headings, paragraphs, tables and CSV files in
//! the order the study produces them. A study writes into a [`Sink`]; the
//! command line's sink prints each block as it arrives (and reports progress
//! at each heading), [`Report`] keeps them (Python, tests). Rendering to
//! markdown text is here, so every face shows the same bytes.

use crate::table::{Step, Table};

/// One block of a report.
pub enum Block {
    /// A heading line (markdown `#`/`##` with its blank line); a face may
    /// report progress here.
    Heading(String),
    /// A paragraph or line shown as is.
    Line(String),
    /// A table shown as markdown and written as CSV file `csv`.
    Table {
        /// The table.
        table: Table,
        /// Its CSV file name (`fig4.csv`).
        csv: String,
    },
    /// Rows shown as a markdown table (first row the header), no file.
    Rows(Vec<Vec<String>>),
    /// Rows written only as CSV file `name` (first row the header).
    File {
        /// The CSV file name.
        name: String,
        /// Its rows.
        rows: Vec<Vec<String>>,
    },
}

impl Block {
    /// The block's markdown text as shown (each line ending in a newline),
    /// empty for a file-only block.
    pub fn markdown(&self) -> String {
        match self {
            Block::Heading(s) | Block::Line(s) => format!("{s}\n"),
            Block::Table { table, .. } => markdown(&table.markdown_rows()),
            Block::Rows(rows) => markdown(rows),
            Block::File { .. } => String::new(),
        }
    }

    /// The CSV file this block writes: its name and text (RFC 4180 quoting).
    pub fn csv(&self) -> Option<(&str, String)> {
        self.csv_rows().map(|(name, rows)| (name, csv_text(&rows)))
    }

    /// The CSV file this block writes: its name and rows (first row the header).
    pub fn csv_rows(&self) -> Option<(&str, Vec<Vec<String>>)> {
        match self {
            Block::Table { table, csv } => Some((csv, table.csv_rows())),
            Block::File { name, rows } => Some((name, rows.clone())),
            _ => None,
        }
    }
}

/// Where a study writes its report.
pub trait Sink {
    /// Take the next block.
    fn put(&mut self, block: Block);

    /// A heading (its markdown `#`s and trailing newline included by the caller).
    fn heading(&mut self, text: String) {
        self.put(Block::Heading(text));
    }

    /// A line or paragraph.
    fn line(&mut self, text: String) {
        self.put(Block::Line(text));
    }

    /// A table shown and written as `csv`.
    fn table(&mut self, table: Table, csv: &str) {
        self.put(Block::Table { table, csv: csv.to_string() });
    }

    /// Rows shown as a markdown table.
    fn rows(&mut self, rows: Vec<Vec<String>>) {
        self.put(Block::Rows(rows));
    }

    /// Rows written as CSV file `name` only.
    fn file(&mut self, name: &str, rows: Vec<Vec<String>>) {
        self.put(Block::File { name: name.to_string(), rows });
    }

    /// A step: `## name`, its paragraphs, its table.
    fn step(&mut self, s: Step) {
        self.heading(format!("## {}\n", s.name));
        for t in s.text {
            self.line(format!("{t}\n"));
        }
        self.table(s.table, s.csv);
    }
}

/// A report kept as data.
#[derive(Default)]
pub struct Report {
    /// The blocks in order.
    pub blocks: Vec<Block>,
}

impl Sink for Report {
    fn put(&mut self, block: Block) {
        self.blocks.push(block);
    }
}

impl Report {
    /// The whole report as markdown text (what the command line prints).
    pub fn markdown(&self) -> String {
        self.blocks.iter().map(Block::markdown).collect()
    }

    /// The CSV files the report writes, by name.
    pub fn files(&self) -> Vec<(&str, String)> {
        self.blocks.iter().filter_map(Block::csv).collect()
    }
}

/// Rows as a markdown table with its trailing blank line.
fn markdown(rows: &[Vec<String>]) -> String {
    let mut s = String::new();
    for (i, r) in rows.iter().enumerate() {
        s += &format!("| {} |\n", r.join(" | "));
        if i == 0 {
            s += &format!("|{}\n", "---|".repeat(r.len()));
        }
    }
    s + "\n"
}

/// One CSV field, quoted when it holds a comma, a quote or a newline (RFC 4180).
pub fn csv_field(f: &str) -> String {
    if f.contains([',', '"', '\n']) {
        format!("\"{}\"", f.replace('"', "\"\""))
    } else {
        f.to_string()
    }
}

/// Rows as CSV text, one line per row.
pub fn csv_text(rows: &[Vec<String>]) -> String {
    rows.iter().map(|r| r.iter().map(|f| csv_field(f)).collect::<Vec<_>>().join(",") + "\n").collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Cell;

    #[test]
    fn a_report_renders_markdown_in_order_and_quotes_csv_fields() {
        let mut r = Report::default();
        r.heading("# T\n".into());
        let mut t = Table::new(&["a", "b"]);
        t.push(vec!["x,y".into(), Cell::value(&[1.0, 2.0, 3.0], 1)]);
        r.table(t, "t.csv");
        r.file("f.csv", vec![vec!["q\"".into()]]);
        assert_eq!(r.markdown(), "# T\n\n| a | b |\n|---|---|\n| x,y | 2.0 ±2.5 |\n\n");
        let files = r.files();
        assert_eq!(files[0].0, "t.csv");
        assert!(files[0].1.starts_with("a,b,b ci95\n\"x,y\",2,"), "{}", files[0].1);
        assert_eq!(files[1], ("f.csv", "\"q\"\"\"\n".to_string()));
    }
}
