//! `cosched paper NAME`: rerun a paper's evaluation on the simulator
//! (`cosched_lab::paper`) and print our figures beside the paper's (markdown
//! on stdout as each part is done, CSVs with `--out`).

mod args;

use crate::OneLine;
pub use args::Args;
use cosched_lab::report::{Block, Sink};
use cosched_lab::RunError;

/// Prints each block of a study's report as it arrives, reports progress at
/// each heading, and writes its tables as CSV into the `--out` folder.
pub struct Printer<'a> {
    dir: &'a Option<String>,
    failed: Option<String>,
}

impl<'a> Printer<'a> {
    /// Check the `--out` folder, run `study` into a printer, and say why either failed.
    pub fn run(
        dir: &'a Option<String>,
        study: impl FnOnce(&mut dyn Sink) -> Result<(), RunError>,
    ) -> Result<(), String> {
        crate::output::check_out_dir("--out", dir.as_deref())?;
        let mut p = Printer { dir, failed: None };
        study(&mut p).one_line()?;
        p.failed.map_or(Ok(()), Err)
    }
}

impl Sink for Printer<'_> {
    fn put(&mut self, b: Block) {
        print!("{}", b.markdown());
        if let Block::Heading(t) = &b {
            crate::progress::step(t);
        }
        if let (Some(d), Some((name, text)), None) = (self.dir, b.csv(), &self.failed) {
            let path = format!("{d}/{name}");
            if let Err(e) = std::fs::create_dir_all(d).and_then(|_| std::fs::write(&path, text)) {
                self.failed = Some(format!("{path}: {e}"));
            }
        }
    }
}

/// Run `cosched paper NAME`.
pub fn run_cmd(a: Args) -> Result<(), String> {
    args::run(a)
}
