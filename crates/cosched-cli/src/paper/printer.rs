//! The printer of `cosched paper NAME`: each block of a study's report on stdout as it arrives,
//! its tables as CSV into the `--out` folder, written whole.

use crate::OneLine;
use cosched_lab::report::{Block, Sink};
use cosched_lab::RunError;

/// Prints each block of a study's report as it arrives, reports progress at
/// each heading, and writes its tables as CSV into the `--out` folder: first
/// into its [`STAGING`] subfolder, moved into the folder only once the whole
/// study has run, so an interrupted or failed rerun leaves the folder as it
/// was and what it wrote marked as incomplete.
pub struct Printer<'a> {
    dir: &'a Option<String>,
    failed: Option<String>,
    written: Vec<String>,
}

/// The subfolder of `--out` a study's CSVs are written to until the study has run whole.
pub const STAGING: &str = ".incomplete";

impl<'a> Printer<'a> {
    /// Check the `--out` folder, run `study` into a printer, and say why either failed.
    pub fn run(
        dir: &'a Option<String>,
        study: impl FnOnce(&mut dyn Sink) -> Result<(), RunError>,
    ) -> Result<(), String> {
        crate::output::check_out_dir("--out", dir.as_deref())?;
        if let Some(d) = dir {
            let staging = format!("{d}/{STAGING}");
            let _ = std::fs::remove_dir_all(&staging); // a rerun interrupted before this one
            std::fs::create_dir_all(&staging).map_err(|e| format!("--out {d}: cannot create {staging}: {e}"))?;
        }
        let mut p = Printer { dir, failed: None, written: vec![] };
        let ran = study(&mut p).one_line();
        let Some(d) = dir else { return ran };
        let staging = format!("{d}/{STAGING}");
        if let Err(e) = ran {
            return Err(format!("{e} (the tables written before it are in {staging}/; {d} is as it was)"));
        }
        if let Some(e) = p.failed {
            return Err(e);
        }
        for name in &p.written {
            let (from, to) = (format!("{staging}/{name}"), format!("{d}/{name}"));
            // Renamed over a regular file; copied into a device or FIFO, never replacing it.
            cosched_machine::output::place(from.as_ref(), to.as_ref(), &format!("--out {to}"))
                .map_err(|e| e.to_string())?;
        }
        std::fs::remove_dir(&staging).map_err(|e| format!("--out {d}: cannot remove {staging}: {e}"))
    }
}

impl Sink for Printer<'_> {
    fn put(&mut self, b: Block) {
        print!("{}", b.markdown());
        if let Block::Heading(t) = &b {
            crate::progress::step(t);
        }
        if let (Some(d), Some((name, text)), None) = (self.dir, b.csv(), &self.failed) {
            let path = format!("{d}/{STAGING}/{name}");
            match std::fs::write(&path, text) {
                Ok(()) if !self.written.iter().any(|w| w == name) => self.written.push(name.to_string()),
                Ok(()) => {}
                Err(e) => self.failed = Some(format!("{path}: {e}")),
            }
        }
    }
}
