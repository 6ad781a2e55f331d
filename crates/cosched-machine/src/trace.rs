//! Schedules as Chrome/Perfetto trace JSON (the "Trace Event Format"): one
//! track per hardware context, one complete ("X") slice per stretch a thread
//! ran there. Opens in ui.perfetto.dev and chrome://tracing.

use cosched_core::{Nanos, Topology};
use std::io::{self, Write};

/// One stretch of a thread on a context, for traces (the simulator's
/// threads, or the real runtime's managed trees).
#[derive(Clone, Copy, Debug)]
pub struct TraceSlice {
    /// Context.
    pub ctx: u32,
    /// Thread.
    pub thread: u32,
    /// Its job instance.
    pub job: u32,
    /// Start, ns.
    pub start: Nanos,
    /// End, ns.
    pub end: Nanos,
}

/// Streams slices into a trace file.
pub struct ChromeTrace<W: Write> {
    out: W,
    first: bool,
    job_names: Vec<String>,
    error: Option<io::Error>,
}

impl<W: Write> ChromeTrace<W> {
    /// Start a trace: writes the header and one named track per context;
    /// `job_names` labels slices by their `job` index (simulated job
    /// instances, or the real runtime's mix entries).
    pub fn new(mut out: W, topo: &Topology, job_names: Vec<String>) -> io::Result<ChromeTrace<W>> {
        write!(out, "{{\"displayTimeUnit\":\"ns\",\"traceEvents\":[")?;
        let mut t = ChromeTrace { out, first: true, job_names, error: None };
        t.raw(r#"{"name":"process_name","ph":"M","pid":0,"args":{"name":"machine"}}"#.to_string())?;
        for (i, c) in topo.contexts.iter().enumerate() {
            let name = format!("ctx {i} (core {}, llc {}, socket {})", c.core, c.llc, c.socket);
            t.raw(format!(
                r#"{{"name":"thread_name","ph":"M","pid":0,"tid":{i},"args":{{"name":{}}}}}"#,
                serde_json::to_string(&name).expect("string")
            ))?;
        }
        Ok(t)
    }

    fn raw(&mut self, s: String) -> io::Result<()> {
        if !self.first {
            self.out.write_all(b",\n")?;
        }
        self.first = false;
        self.out.write_all(s.as_bytes())
    }

    /// Record one slice (errors are kept and reported by [`ChromeTrace::finish`]).
    pub fn slice(&mut self, s: TraceSlice) {
        if self.error.is_some() {
            return;
        }
        let job = self.job_names.get(s.job as usize).map(String::as_str).unwrap_or("?");
        let name = serde_json::to_string(&format!("t{} {job}", s.thread)).expect("string");
        let line = format!(
            r#"{{"name":{name},"cat":"run","ph":"X","pid":0,"tid":{},"ts":{:.3},"dur":{:.3},"args":{{"thread":{},"job":{}}}}}"#,
            s.ctx,
            s.start as f64 / 1000.0,
            (s.end - s.start) as f64 / 1000.0,
            s.thread,
            s.job
        );
        if let Err(e) = self.raw(line) {
            self.error = Some(e);
        }
    }

    /// Close the JSON and flush; the writer is handed back (an
    /// [`crate::output::Output`] is then committed).
    pub fn finish(mut self) -> io::Result<W> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.write_all(b"]}\n")?;
        self.out.flush()?;
        Ok(self.out)
    }
}
