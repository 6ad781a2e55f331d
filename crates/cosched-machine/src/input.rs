//! Reading what users hand us, bounded: every input file has a size cap
//! checked before it is read and counted while it is read, every line a
//! length cap, and only regular files are read whole (a FIFO would block
//! forever, `/dev/zero` never ends). Streams (a memory trace of many GB)
//! are read line by line in constant memory with the same line cap.
//!
//! The caps are stated in every refusal with the way to raise them: the
//! environment variable [`LIMIT_ENV`] (MiB) replaces the file cap of every
//! kind.

use crate::error::ConfigError;
use std::io::{BufRead, Read};
use std::path::Path;

/// The environment variable that replaces every file cap, in MiB.
pub const LIMIT_ENV: &str = "COSCHED_INPUT_LIMIT_MB";

/// The longest line any input may have, bytes (a lackey trace line is about
/// 30; a CSV row of thousands of cells fits).
pub const MAX_LINE: usize = 1 << 20;

/// What a file is, for its cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A TOML or JSON description (machine, workload, mix, profile, record):
    /// parsing costs tens of bytes of memory per byte of text, so 4 MiB
    /// (about 100,000 jobs; the largest preset is 11 KB).
    Config,
    /// A table of numbers (measurements, matrix cells, assignments): 64 MiB.
    Data,
}

impl Kind {
    /// The cap in bytes: [`LIMIT_ENV`] when set to a positive number, else the kind's default.
    pub fn cap(self) -> u64 {
        let default = match self {
            Kind::Config => 4 << 20,
            Kind::Data => 64 << 20,
        };
        std::env::var(LIMIT_ENV)
            .ok()
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|mb| mb.is_finite() && *mb > 0.0)
            .map_or(default, |mb| (mb * 1048576.0).min(u64::MAX as f64) as u64)
    }
}

fn mib(bytes: u64) -> String {
    format!("{} MiB", cosched_core::num::shortest((bytes as f64 / 1048576.0 * 100.0).round() / 100.0))
}

/// What a non-regular file is, in words, or `None` for a regular file.
fn irregular(path: &Path) -> std::io::Result<Option<&'static str>> {
    use std::os::unix::fs::FileTypeExt;
    let t = std::fs::metadata(path)?.file_type();
    Ok(if t.is_file() {
        None
    } else if t.is_dir() {
        Some("a directory")
    } else if t.is_fifo() {
        Some("a FIFO (it would block until something writes to it)")
    } else if t.is_char_device() || t.is_block_device() {
        Some("a device")
    } else if t.is_socket() {
        Some("a socket")
    } else {
        Some("not a regular file")
    })
}

/// The text of the regular file `path` (`name` is how errors cite it), at
/// most `kind`'s cap and [`MAX_LINE`] per line, valid UTF-8, with a
/// leading byte-order mark dropped (spreadsheets write one).
pub fn read_text(path: &Path, name: &str, kind: Kind) -> Result<String, ConfigError> {
    let err = |problem: String| ConfigError::whole(name, problem);
    if let Some(what) = irregular(path).map_err(|e| err(format!("cannot read: {e}")))? {
        return Err(err(format!("is {what}; give a regular file")));
    }
    let cap = kind.cap();
    let f = std::fs::File::open(path).map_err(|e| err(format!("cannot read: {e}")))?;
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let over = |n: String| err(format!("{n}, over the {} cap for this file (set {LIMIT_ENV} to raise it)", mib(cap)));
    if len > cap {
        return Err(over(format!("{len} bytes")));
    }
    // Counted while read too: the file may grow after the size was read.
    let mut bytes = Vec::with_capacity(len as usize);
    f.take(cap + 1).read_to_end(&mut bytes).map_err(|e| err(format!("cannot read: {e}")))?;
    if bytes.len() as u64 > cap {
        return Err(over(format!("more than {cap} bytes")));
    }
    if let Some((i, l)) = bytes.split(|&b| b == b'\n').enumerate().find(|(_, l)| l.len() > MAX_LINE) {
        let problem = format!("a line of {} bytes, over the {} line cap", l.len(), mib(MAX_LINE as u64));
        return Err(ConfigError::whole(name, problem).at_line(i + 1));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        ConfigError::whole(name, "not UTF-8 text").at_line(line)
    })?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    })
}

/// Lines of a stream read in constant memory: each at most [`MAX_LINE`]
/// bytes (a longer one, or a stream with no newline such as `/dev/zero`,
/// ends the iteration with an error naming the line), invalid UTF-8 replaced.
pub struct BoundedLines<R> {
    reader: R,
    name: String,
    line_no: usize,
    buf: Vec<u8>,
    done: bool,
}

impl<R: BufRead> BoundedLines<R> {
    /// Lines of `reader`; errors cite `name`.
    pub fn new(reader: R, name: &str) -> BoundedLines<R> {
        BoundedLines { reader, name: name.to_string(), line_no: 0, buf: Vec::new(), done: false }
    }
}

impl<R: BufRead> Iterator for BoundedLines<R> {
    type Item = Result<String, ConfigError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        self.buf.clear();
        self.line_no += 1;
        let cite = |problem: String| ConfigError::whole(&self.name, problem).at_line(self.line_no);
        let read = (&mut self.reader).take(MAX_LINE as u64 + 1).read_until(b'\n', &mut self.buf);
        match read {
            Ok(0) => {
                self.done = true;
                None
            }
            Ok(_) if self.buf.len() > MAX_LINE => {
                self.done = true;
                Some(Err(cite(format!("a line longer than the {} line cap", mib(MAX_LINE as u64)))))
            }
            Ok(_) => {
                while matches!(self.buf.last(), Some(b'\n' | b'\r')) {
                    self.buf.pop();
                }
                Some(Ok(String::from_utf8_lossy(&self.buf).into_owned()))
            }
            Err(e) => {
                self.done = true;
                Some(Err(cite(format!("cannot read: {e}"))))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(tag: &str, body: &[u8]) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!("cosched-input-{tag}-{}", std::process::id()));
        std::fs::write(&p, body).unwrap();
        p
    }

    #[test]
    fn a_file_over_the_cap_is_refused_before_it_is_read() {
        let cap = Kind::Config.cap() as usize;
        let p = tmp("big", &vec![b'#'; cap + 1]);
        let e = read_text(&p, "big.toml", Kind::Config).unwrap_err().to_string();
        assert!(e.starts_with("big.toml: ") && e.contains("over the 4 MiB cap") && e.contains(LIMIT_ENV), "{e}");
        let _ = std::fs::remove_file(&p);
    }

    #[test]
    fn devices_fifos_and_directories_are_refused_in_one_line() {
        for (path, what) in [("/dev/zero", "a device"), ("/tmp", "a directory")] {
            let e = read_text(Path::new(path), path, Kind::Data).unwrap_err().to_string();
            assert!(e.contains(what) && !e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn a_long_line_is_named_and_a_bom_dropped() {
        let mut body = b"a\n".to_vec();
        body.extend(vec![b'x'; MAX_LINE + 1]);
        let p = tmp("line", &body);
        let e = read_text(&p, "t.csv", Kind::Data).unwrap_err().to_string();
        assert!(e.starts_with("t.csv:2: ") && e.contains("line cap"), "{e}");
        std::fs::write(&p, "\u{feff}value\n1\n").unwrap();
        assert_eq!(read_text(&p, "t.csv", Kind::Data).unwrap(), "value\n1\n");
        std::fs::write(&p, b"ok\n\xff\n").unwrap();
        assert_eq!(read_text(&p, "t.csv", Kind::Data).unwrap_err().to_string(), "t.csv:2: not UTF-8 text");
        let _ = std::fs::remove_file(&p);
    }

    #[test]
    fn bounded_lines_stop_at_the_cap_in_constant_memory() {
        let zero = std::io::BufReader::new(std::fs::File::open("/dev/zero").unwrap());
        let mut it = BoundedLines::new(zero, "/dev/zero");
        let e = it.next().unwrap().unwrap_err().to_string();
        assert!(e.starts_with("/dev/zero:1: ") && e.contains("line cap"), "{e}");
        assert!(it.next().is_none());
        let lines: Vec<String> = BoundedLines::new(&b"a\r\nb\n\nc"[..], "x").collect::<Result<_, _>>().unwrap();
        assert_eq!(lines, ["a", "b", "", "c"]);
    }
}
