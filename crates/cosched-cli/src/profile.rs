//! `cosched profile TRACE`: find progress periods in a memory-access trace
//! (RDA §2.4) and suggest `pp_begin` annotations; predict working-set growth (§4.4).

use crate::opts::Format;
use crate::output::table;
use clap::{Args as ClapArgs, ValueEnum};
use cosched_core::text::quote;
use cosched_machine::input::BoundedLines;
use cosched_policies::rda::profile::{periods, windows, ProfileParams};
use cosched_policies::rda::LogFit;
use serde::Serialize;
use std::io::BufRead;

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum TraceFormat {
    /// `valgrind --tool=lackey --trace-mem=yes` output (L/S/M lines; I lines and `==` lines ignored).
    Lackey,
    /// One address per line, decimal or 0x-hexadecimal (a header row is allowed).
    Csv,
}

#[derive(ClapArgs)]
pub struct Args {
    /// Trace file (or `-` with --growth only).
    trace: String,
    /// Trace format.
    #[arg(long, value_enum, default_value = "lackey")]
    trace_format: TraceFormat,
    /// Accesses per window.
    #[arg(long, default_value_t = 100_000)]
    window: usize,
    /// Touches for a line to count in the working set.
    #[arg(long, default_value_t = 2)]
    min_touches: u32,
    /// Relative tolerance of similar windows.
    #[arg(long, default_value_t = 0.2)]
    similarity: f64,
    /// Minimum windows in a progress period.
    #[arg(long, default_value_t = 3)]
    min_windows: usize,
    /// Working-set growth: profiled `INPUT:WSS` pairs (comma-separated) for a logarithmic fit (RDA §4.4).
    #[arg(long)]
    growth: Option<String>,
    /// With --growth: the input size to predict the working set of.
    #[arg(long)]
    predict: Option<f64>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

/// The addresses of a trace, read line by line in constant memory; the
/// first malformed line stops the stream and is kept in `error`.
struct Addresses<'a> {
    file: &'a str,
    fmt: TraceFormat,
    lines: std::iter::Enumerate<BoundedLines<Box<dyn BufRead>>>,
    error: Option<String>,
    count: usize,
}

impl<'a> Addresses<'a> {
    fn open(file: &'a str, fmt: TraceFormat) -> Result<Addresses<'a>, String> {
        // A trace streamed through a FIFO (valgrind writing into it) is read as it comes; opening
        // it waits for the writer, which the user should be told rather than see nothing.
        use std::os::unix::fs::FileTypeExt;
        if std::fs::metadata(file).is_ok_and(|m| m.file_type().is_fifo()) {
            eprintln!("profile: {file} is a FIFO: waiting for a writer, then reading the trace as it comes");
        }
        let f = std::fs::File::open(file).map_err(|e| format!("{file}: cannot read: {e}"))?;
        let reader: Box<dyn BufRead> = Box::new(std::io::BufReader::new(f));
        Ok(Addresses { file, fmt, lines: BoundedLines::new(reader, file).enumerate(), error: None, count: 0 })
    }

    /// The address on line `i` (0-based), `None` for a line without one.
    fn parse(&self, i: usize, line: &str) -> Result<Option<u64>, String> {
        let (file, l) = (self.file, line.trim().trim_start_matches('\u{feff}'));
        if l.is_empty() {
            return Ok(None);
        }
        let addr = match self.fmt {
            TraceFormat::Lackey => {
                if l.starts_with("==") || l.starts_with('I') || l.starts_with("--") {
                    return Ok(None);
                }
                let mut parts = l.split_whitespace();
                match (parts.next(), parts.next()) {
                    (Some("L" | "S" | "M"), Some(rest)) => rest.split(',').next().unwrap_or(""),
                    _ => return Err(format!("{file}:{}: not a lackey line: `{}`", i + 1, quote(l))),
                }
            }
            TraceFormat::Csv => l.split(',').next().unwrap_or("").trim(),
        };
        let parsed = match self.fmt {
            TraceFormat::Lackey => u64::from_str_radix(addr, 16).ok(),
            TraceFormat::Csv => match addr.strip_prefix("0x").or_else(|| addr.strip_prefix("0X")) {
                Some(h) => u64::from_str_radix(h, 16).ok(),
                None => addr.parse().ok(),
            },
        };
        match parsed {
            Some(a) => Ok(Some(a)),
            None if i == 0 && matches!(self.fmt, TraceFormat::Csv) => Ok(None), // header
            None => Err(format!("{file}:{}: address: `{}` is not an address", i + 1, quote(addr))),
        }
    }
}

impl Iterator for Addresses<'_> {
    type Item = u64;
    fn next(&mut self) -> Option<u64> {
        while self.error.is_none() {
            let (i, line) = self.lines.next()?;
            let parsed = line.map_err(|e| e.to_string()).and_then(|l| self.parse(i, &l));
            match parsed {
                Ok(Some(a)) => {
                    self.count += 1;
                    return Some(a);
                }
                Ok(None) => {}
                Err(e) => self.error = Some(e),
            }
        }
        None
    }
}

#[derive(Serialize)]
struct Report {
    accesses: usize,
    windows: usize,
    periods: Vec<cosched_policies::rda::profile::Period>,
    growth: Option<(LogFit, Option<f64>)>,
}

pub fn run(a: Args) -> Result<(), String> {
    for (name, ok) in
        [("--window", a.window > 0), ("--min-windows", a.min_windows > 0), ("--similarity", a.similarity >= 0.0)]
    {
        if !ok {
            return Err(format!("{name}: must be positive"));
        }
    }
    let growth = match &a.growth {
        Some(g) => {
            let pts: Vec<(f64, f64)> = g
                .split(',')
                .map(|p| {
                    let (x, y) = p.split_once(':').ok_or(format!("--growth: `{p}` is not INPUT:WSS"))?;
                    Ok((
                        x.trim().parse().map_err(|_| format!("--growth: `{x}` is not a number"))?,
                        y.trim().parse().map_err(|_| format!("--growth: `{y}` is not a number"))?,
                    ))
                })
                .collect::<Result<_, String>>()?;
            let fit = LogFit::fit(&pts).ok_or("--growth: needs at least two distinct positive input sizes")?;
            Some((fit, a.predict.map(|x| fit.predict(x))))
        }
        None => None,
    };
    let (acc, w, found) = if a.trace == "-" && growth.is_some() {
        (0, 0, vec![])
    } else {
        let mut addrs = Addresses::open(&a.trace, a.trace_format)?;
        let p = ProfileParams {
            window: a.window,
            min_touches: a.min_touches,
            similarity: a.similarity,
            min_windows: a.min_windows,
        };
        let w = windows(&mut addrs, &p);
        if let Some(e) = addrs.error {
            return Err(e);
        }
        let f = periods(&w, &p);
        (addrs.count, w.len(), f)
    };
    let rep = Report { accesses: acc, windows: w, periods: found, growth };
    match a.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&rep).map_err(|e| e.to_string())?),
        _ => {
            println!(
                "{} accesses, {} windows of {}, {} progress period(s)",
                rep.accesses,
                rep.windows,
                a.window,
                rep.periods.len()
            );
            let mut rows = vec![vec![
                "windows".to_string(),
                "WSS KiB".into(),
                "footprint KiB".into(),
                "reuse".into(),
                "suggested annotation".into(),
            ]];
            for p in &rep.periods {
                rows.push(vec![
                    format!("{}-{}", p.start_window, p.end_window),
                    format!("{:.1}", p.wss / 1024.0),
                    format!("{:.1}", p.footprint / 1024.0),
                    format!("{:.1}", p.reuse),
                    p.annotation.clone(),
                ]);
            }
            table(&rows);
            if !rep.periods.is_empty() {
                println!(
                    "wrap each period as `int64_t pp = <annotation>; …the period's loop… pp_end(pp);` \
                     with #include <cosched/pp.h> (pkg-config cosched-pp; scripts/install-pp)"
                );
            }
            if let Some((f, pred)) = &rep.growth {
                println!("working-set growth: WSS = {:.4} + {:.4}·ln(input), R² {:.4}", f.a, f.b, f.r2);
                if let (Some(x), Some(y)) = (a.predict, pred) {
                    println!("predicted WSS for input {x}: {y:.4}");
                }
            }
        }
    }
    Ok(())
}
