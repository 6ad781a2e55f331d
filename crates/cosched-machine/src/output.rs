//! Writing what users name: every output path of every face (the CLI's
//! `--trace`, `-o`, `--out`, `paper --out`, the cache folder's files, the
//! Python package's reports and specs) goes through [`Output`], so an output
//! never destroys what its path names.
//!
//! * A regular file, or a path where nothing is yet, is written whole: into
//!   a temporary file beside it, renamed over it when complete, so a reader
//!   never sees half a file and a failed run leaves the old file as it was.
//! * A device or a FIFO (`/dev/null`, `/dev/stdout`, a pipe made with
//!   `mkfifo`) is written into directly: renaming a file over it would
//!   replace the node (as root, `--trace /dev/null` would destroy
//!   `/dev/null`).
//! * `-` is standard output.
//! * A symlink is followed (its target is written; the link stays a link).
//! * A directory, a socket or a path whose folder does not exist is refused
//!   with one line, before anything is written.

use crate::error::ConfigError;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// How many symlinks are followed before a path is refused as a loop (the
/// kernel's own limit, `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// What an output path names, decided before anything is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A regular file, or nothing yet (the path with its symlinks followed):
    /// written whole through a temporary file in its folder and a rename.
    File(PathBuf),
    /// A character or block device, or a FIFO: written into, never replaced.
    Stream(PathBuf),
    /// `-`: standard output.
    Stdout,
}

/// The path `path` names once its symlinks are followed (the last one's
/// target, relative targets read from the link's folder).
fn follow(path: &Path, name: &str) -> Result<PathBuf, ConfigError> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&p)
                    .map_err(|e| ConfigError::whole(name, format!("cannot read the link: {e}")))?;
                p = match p.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(ConfigError::whole(name, format!("more than {MAX_LINKS} symlinks in a row (a loop?)")))
}

/// What `path` names as an output (`name` is how errors cite it, e.g.
/// `--trace out.json`): a regular file to write whole, a device or FIFO to
/// write into, or standard output; a directory, a socket or a missing folder
/// is refused.
pub fn target(path: &Path, name: &str) -> Result<Target, ConfigError> {
    use std::os::unix::fs::FileTypeExt;
    if path.as_os_str() == "-" {
        return Ok(Target::Stdout);
    }
    if path.as_os_str().is_empty() {
        return Err(ConfigError::whole(name, "is empty; give a file's path (or - for standard output)"));
    }
    let resolved = follow(path, name)?;
    match std::fs::metadata(&resolved) {
        Ok(m) => {
            let t = m.file_type();
            if t.is_file() {
                Ok(Target::File(resolved))
            } else if t.is_fifo() || t.is_char_device() || t.is_block_device() {
                Ok(Target::Stream(resolved))
            } else if t.is_dir() {
                Err(ConfigError::whole(name, "is a directory; give a file's path"))
            } else if t.is_socket() {
                Err(ConfigError::whole(name, "is a socket; give a file's path, a device or a FIFO"))
            } else {
                Err(ConfigError::whole(name, "is not a regular file, a device or a FIFO"))
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let dir = folder(&resolved);
            match std::fs::metadata(&dir) {
                Ok(m) if m.is_dir() => Ok(Target::File(resolved)),
                Ok(_) => Err(ConfigError::whole(name, format!("{} is not a folder", dir.display()))),
                Err(_) => Err(ConfigError::whole(name, format!("the folder {} does not exist", dir.display()))),
            }
        }
        Err(e) => Err(ConfigError::whole(name, format!("cannot write there: {e}"))),
    }
}

/// The folder a file path is written in (`.` for a bare name).
fn folder(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Check, before any work, that `path` can be written as an output: what
/// [`target`] checks, and that its folder takes a new file (a regular file's)
/// or that the node may be written (a device's or FIFO's, without opening it:
/// opening a FIFO waits for a reader). Nothing is left behind.
pub fn check(path: &Path, name: &str) -> Result<Target, ConfigError> {
    let t = target(path, name)?;
    match &t {
        Target::File(p) => {
            temporary(p).map_err(|e| ConfigError::whole(name, format!("cannot write there: {e}")))?;
        }
        Target::Stream(p) => {
            rustix::fs::access(p, rustix::fs::Access::WRITE_OK)
                .map_err(|e| ConfigError::whole(name, format!("cannot write there: {}", io::Error::from(e))))?;
        }
        Target::Stdout => {}
    }
    Ok(t)
}

/// A temporary file in `p`'s folder, named after it (`.NAME.XXXXXX.part`),
/// with the mode an ordinary new file gets (0666 less the umask).
fn temporary(p: &Path) -> io::Result<tempfile::NamedTempFile> {
    use std::os::unix::fs::PermissionsExt;
    let base = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    tempfile::Builder::new()
        .prefix(&format!(".{base}."))
        .suffix(".part")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(folder(p))
}

/// Where the bytes go while an [`Output`] is open.
enum Sink {
    File { part: BufWriter<tempfile::NamedTempFile>, to: PathBuf },
    Stream(BufWriter<std::fs::File>),
    Stdout(io::Stdout),
}

/// An output being written (it is [`Write`]): [`Output::commit`] makes it
/// whole; dropped without it, a regular file's temporary is removed and the
/// file is as it was.
pub struct Output {
    name: String,
    sink: Sink,
}

impl Output {
    /// Open `path` as an output (`name` cites it in errors); see [`target`].
    /// A FIFO's open waits for a reader, as a shell's `>` does.
    pub fn create(path: &Path, name: &str) -> Result<Output, ConfigError> {
        let err = |e: io::Error| ConfigError::whole(name, format!("cannot write there: {e}"));
        let sink = match target(path, name)? {
            Target::File(to) => Sink::File { part: BufWriter::new(temporary(&to).map_err(err)?), to },
            Target::Stream(p) => {
                Sink::Stream(BufWriter::new(std::fs::OpenOptions::new().write(true).open(p).map_err(err)?))
            }
            Target::Stdout => Sink::Stdout(io::stdout()),
        };
        Ok(Output { name: name.to_string(), sink })
    }

    /// Finish: flush, and put a regular file in place (keeping the mode of
    /// the file it replaces). An error names the output and leaves the old
    /// file as it was.
    pub fn commit(self) -> Result<(), ConfigError> {
        use std::os::unix::fs::PermissionsExt;
        let name = self.name;
        let err = |e: io::Error| ConfigError::whole(&name, format!("cannot write: {e}"));
        match self.sink {
            Sink::File { part, to } => {
                let part = part.into_inner().map_err(|e| err(e.into_error()))?;
                part.as_file().sync_all().map_err(err)?;
                if let Ok(m) = std::fs::metadata(&to) {
                    let mode = m.permissions().mode() & 0o7777;
                    part.as_file().set_permissions(std::fs::Permissions::from_mode(mode)).map_err(err)?;
                }
                part.persist(&to).map_err(|e| err(e.error))?;
                Ok(())
            }
            Sink::Stream(mut w) => w.flush().map_err(err),
            Sink::Stdout(mut s) => s.flush().map_err(err),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.sink {
            Sink::File { part, .. } => part.write(buf),
            Sink::Stream(w) => w.write(buf),
            Sink::Stdout(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.sink {
            Sink::File { part, .. } => part.flush(),
            Sink::Stream(w) => w.flush(),
            Sink::Stdout(s) => s.flush(),
        }
    }
}

/// Write `bytes` to the output `path` whole (see [`Output`]); `name` cites it.
pub fn write(path: &Path, name: &str, bytes: &[u8]) -> Result<(), ConfigError> {
    let mut out = Output::create(path, name)?;
    out.write_all(bytes).map_err(|e| ConfigError::whole(name, format!("cannot write: {e}")))?;
    out.commit()
}

/// Put the finished file `staged` (written in the same folder tree) at the
/// output `path`: renamed over a regular file or nothing, copied into a
/// device or FIFO (and then removed), refused otherwise.
pub fn place(staged: &Path, path: &Path, name: &str) -> Result<(), ConfigError> {
    let err = |e: io::Error| ConfigError::whole(name, format!("cannot write: {e}"));
    match target(path, name)? {
        Target::File(to) => std::fs::rename(staged, to).map_err(err),
        Target::Stream(_) | Target::Stdout => {
            let bytes = std::fs::read(staged).map_err(err)?;
            write(path, name, &bytes)?;
            std::fs::remove_file(staged).map_err(err)
        }
    }
}

#[cfg(test)]
#[path = "output_tests.rs"]
mod tests;
