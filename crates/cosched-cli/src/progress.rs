//! Progress on stderr for commands that run longer than a couple of
//! seconds: a bar on a terminal; when stderr is not a terminal (a pipe, a
//! log file, CI), one line at every tenth of the work once the command has
//! run [`QUIET`] (a short command prints nothing), so a piped run is never
//! silent for long and never floods the log.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// How long a command runs before it reports progress when piped.
pub const QUIET: std::time::Duration = std::time::Duration::from_secs(2);

/// Progress of one command's work, counted in `unit`s.
pub struct Progress {
    bar: Option<ProgressBar>,
    what: String,
    unit: &'static str,
    done: AtomicU64,
    total: AtomicU64,
    tenth: AtomicU64,
    start: Instant,
}

impl Progress {
    /// Progress of `what` (`spec-mix24 on xeon-e5645`), counted in `unit`s (`runs`).
    pub fn new(what: impl Into<String>, unit: &'static str) -> Progress {
        let what = what.into();
        if !std::io::stderr().is_terminal() {
            // Piped, the tenth-lines come only as work completes (`validate`'s first point took
            // 47 s): the heartbeat says it is still running at least every 10 s.
            begin(what.clone());
        }
        let bar = std::io::stderr().is_terminal().then(|| {
            let b = ProgressBar::new(0);
            let template = format!("{{bar:30}} {{pos}}/{{len}} {unit} {{elapsed}} {{msg}}");
            b.set_style(ProgressStyle::with_template(&template).expect("template"));
            b.set_message(what.clone());
            b
        });
        Progress {
            bar,
            what,
            unit,
            done: AtomicU64::new(0),
            total: AtomicU64::new(0),
            tenth: AtomicU64::new(0),
            start: Instant::now(),
        }
    }

    /// `n` more steps to come. The tenths count again from where the work
    /// now stands, so a search's later phase (after its first reached
    /// 10395/10395) prints its tenths too.
    pub fn add(&self, n: u64) {
        let total = self.total.fetch_add(n, Ordering::Relaxed) + n;
        let done = self.done.load(Ordering::Relaxed);
        self.tenth.store(done * 10 / total.max(1), Ordering::Relaxed);
        if let Some(b) = &self.bar {
            b.inc_length(n);
        }
    }

    /// One step done (from any thread).
    pub fn tick(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        match &self.bar {
            Some(b) => b.inc(1),
            None => {
                if let Some(line) = self.line_due(done) {
                    eprintln!("{line}");
                    wrote();
                }
            }
        }
    }

    /// The line a piped run prints at step `done`: one at each new tenth of
    /// the work, once it has run [`QUIET`].
    fn line_due(&self, done: u64) -> Option<String> {
        let total = self.total.load(Ordering::Relaxed).max(done);
        let tenth = done * 10 / total;
        (tenth > self.tenth.fetch_max(tenth, Ordering::Relaxed) && self.start.elapsed() >= QUIET).then(|| {
            format!("{}: {done}/{total} {} ({:.1} s)", self.what, self.unit, self.start.elapsed().as_secs_f64())
        })
    }

    /// The work is over: clear the bar.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

static STARTED: std::sync::OnceLock<(String, Instant)> = std::sync::OnceLock::new();

/// When the last progress line was written, ms after the process's first progress call.
static LAST_LINE_MS: AtomicU64 = AtomicU64::new(0);
static CLOCK: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();

/// Note that a progress line was written now.
fn wrote() {
    let ms = CLOCK.get_or_init(Instant::now).elapsed().as_millis() as u64;
    LAST_LINE_MS.store(ms, Ordering::Relaxed);
}

/// Longest silence of a long command on stderr before it says it is still working.
pub const HEARTBEAT: std::time::Duration = std::time::Duration::from_secs(8);

/// The environment variable that shortens [`HEARTBEAT`] (seconds, 0.5 to 8: a log
/// that wants a line more often; the tests use it to see every long command's heartbeat).
pub const HEARTBEAT_VAR: &str = "COSCHED_HEARTBEAT_S";

/// [`HEARTBEAT`], or the shorter one [`HEARTBEAT_VAR`] asks for (a value out of
/// its range is refused in one line and the default kept).
fn heartbeat() -> std::time::Duration {
    let Ok(v) = std::env::var(HEARTBEAT_VAR) else { return HEARTBEAT };
    match v.trim().parse::<f64>() {
        Ok(s) if (0.5..=HEARTBEAT.as_secs_f64()).contains(&s) => std::time::Duration::from_secs_f64(s),
        _ => {
            eprintln!(
                "note: {HEARTBEAT_VAR}=`{v}` is not a number of seconds from 0.5 to {}: kept {0} s",
                HEARTBEAT.as_secs()
            );
            HEARTBEAT
        }
    }
}

/// Name the long command now starting (`paper efs`): its steps are timed
/// from here, and a watcher writes one line whenever nothing was written for
/// [`HEARTBEAT`] (a run of minutes is never silent for ten seconds, piped or
/// not; [`HEARTBEAT_VAR`] shortens it).
pub fn begin(name: impl Into<String>) {
    let name = name.into();
    if STARTED.set((name.clone(), Instant::now())).is_err() {
        return;
    }
    wrote();
    let every = heartbeat();
    std::thread::spawn(move || loop {
        std::thread::sleep((every / 16).min(std::time::Duration::from_millis(500)));
        let clock = CLOCK.get_or_init(Instant::now);
        let now = clock.elapsed().as_millis() as u64;
        if now.saturating_sub(LAST_LINE_MS.load(Ordering::Relaxed)) >= every.as_millis() as u64 {
            let since = STARTED.get().map_or(0.0, |s| s.1.elapsed().as_secs_f64());
            eprintln!("{name}: still running ({since:.1} s)");
            wrote();
        }
    });
}

/// A step of a long command reached (a section heading printed on stdout):
/// one line on stderr with the time so far, unless stdout and stderr are
/// both a terminal (the heading is then on screen already).
pub fn step(heading: &str) {
    if std::io::stdout().is_terminal() && std::io::stderr().is_terminal() {
        return;
    }
    let (name, start) = STARTED.get_or_init(|| ("cosched".into(), Instant::now()));
    let first = heading.lines().next().unwrap_or_default().trim_start_matches('#').trim();
    let short: String = first.chars().take(100).collect();
    let more = if short.len() < first.len() { "…" } else { "" };
    eprintln!("{name}: {short}{more} ({:.1} s)", start.elapsed().as_secs_f64());
    wrote();
}

/// `println!` of a section heading, and [`step`] on it.
#[macro_export]
macro_rules! heading {
    ($($arg:tt)*) => {{
        let text = format!($($arg)*);
        println!("{text}");
        $crate::progress::step(&text);
    }};
}

/// The command line's destination for a library's progress lines, notes and
/// warnings ([`cosched_core::progress::Reporter`]): stderr, one line each.
pub struct Stderr;

impl cosched_core::progress::Progress for Stderr {
    fn line(&self, text: &str) {
        eprintln!("{text}");
        wrote();
    }
}

/// A reporter to stderr.
pub fn stderr() -> cosched_core::progress::Reporter {
    cosched_core::progress::Reporter::to(std::sync::Arc::new(Stderr))
}

#[cfg(test)]
mod line_tests {
    use super::*;

    #[test]
    fn a_later_phase_prints_its_tenths_after_the_first_phase_is_done() {
        let p = Progress {
            bar: None,
            what: "optimum".into(),
            unit: "runs",
            done: AtomicU64::new(0),
            total: AtomicU64::new(0),
            tenth: AtomicU64::new(0),
            start: Instant::now() - QUIET,
        };
        let step = |p: &Progress, lines: &mut Vec<String>| {
            let done = p.done.fetch_add(1, Ordering::Relaxed) + 1;
            lines.extend(p.line_due(done));
        };
        let mut lines = vec![];
        p.add(100);
        (0..100).for_each(|_| step(&p, &mut lines));
        assert_eq!(lines.len(), 10, "{lines:?}");
        assert!(lines[9].starts_with("optimum: 100/100 runs"), "{lines:?}");
        // A second phase of as many steps: its own tenths, against the new total.
        p.add(100);
        (0..100).for_each(|_| step(&p, &mut lines));
        assert_eq!(lines.len(), 15, "{lines:?}");
        assert!(lines[10].starts_with("optimum: 120/200 runs"), "{lines:?}");
        assert!(lines[14].starts_with("optimum: 200/200 runs"), "{lines:?}");
    }
}
