//! The cache folder: what is kept between runs on this host (the bound
//! beside `compare`, this host's calibration and the characterisations of
//! `run --characterise`). One rule for every face: `COSCHED_CACHE_DIR` when
//! set, else `$XDG_CACHE_HOME/cosched`, else `$HOME/.cache/cosched`; the
//! folder is created and proved writable before any work starts, so a folder
//! that cannot keep anything is found in the first second, not after a
//! calibration.

use std::path::{Path, PathBuf};

/// The environment variable naming the cache folder.
pub const VAR: &str = "COSCHED_CACHE_DIR";

/// Why there is no usable cache folder.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    /// [`VAR`] is set to nothing (it once meant the current folder).
    #[error("{VAR} is set but empty: give it a folder, or unset it for ~/.cache/cosched")]
    Empty,
    /// Neither [`VAR`], `XDG_CACHE_HOME` nor `HOME` names a folder.
    #[error("no cache folder: set {VAR} (neither XDG_CACHE_HOME nor HOME is set)")]
    Unnamed,
    /// The folder (`named`: as the user gave it) could not be created.
    #[error("cache folder {named}: cannot create it: {source}")]
    Create {
        /// The folder, as given.
        named: String,
        /// Why.
        source: std::io::Error,
    },
    /// What the folder's path names is not a folder.
    #[error("cache folder {named}: not a folder")]
    NotAFolder {
        /// The folder, as given.
        named: String,
    },
    /// Nothing can be written in the folder.
    #[error("cache folder {named}: cannot write in it: {source}")]
    NotWritable {
        /// The folder, as given.
        named: String,
        /// Why.
        source: std::io::Error,
    },
}

/// Whether the folder was named by [`VAR`] (a user's choice: a face refuses
/// it when unusable) rather than defaulted (a face may go on without it).
pub fn given() -> bool {
    std::env::var_os(VAR).is_some()
}

/// The cache folder, created and proved writable (a file made in it and
/// removed). An empty [`VAR`] is refused rather than read as the current
/// folder.
pub fn folder() -> Result<PathBuf, FolderError> {
    let var = std::env::var_os(VAR);
    let given = var.is_some();
    let dir = match (var, std::env::var_os("XDG_CACHE_HOME"), std::env::var_os("HOME")) {
        (Some(d), _, _) if d.is_empty() => return Err(FolderError::Empty),
        (Some(d), _, _) => PathBuf::from(d),
        (None, Some(x), _) if !x.is_empty() => PathBuf::from(x).join("cosched"),
        (None, _, Some(h)) if !h.is_empty() => PathBuf::from(h).join(".cache/cosched"),
        _ => return Err(FolderError::Unnamed),
    };
    let named = if given { format!("{VAR}={}", dir.display()) } else { dir.display().to_string() };
    if let Err(source) = std::fs::create_dir_all(&dir) {
        return Err(FolderError::Create { named, source });
    }
    if !dir.is_dir() {
        return Err(FolderError::NotAFolder { named });
    }
    writable(&dir).map_err(|source| FolderError::NotWritable { named, source })?;
    Ok(dir)
}

/// Make a file of a name no one else uses in `dir` and remove it.
fn writable(dir: &Path) -> std::io::Result<()> {
    let probe = dir.join(format!(".cosched-probe-{}", std::process::id()));
    std::fs::OpenOptions::new().write(true).create_new(true).open(&probe)?;
    std::fs::remove_file(&probe)
}

/// Write `text` to `path` inside the cache folder whole or not at all,
/// through the one output rule of every face (`cosched_machine::output`: a
/// regular file through a temporary and a rename, a device or FIFO written
/// into, a directory refused), its folder created first.
pub fn keep(path: &Path, text: &str) -> Result<(), cosched_machine::ConfigError> {
    let name = path.display().to_string();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| cosched_machine::ConfigError::whole(&name, format!("cannot create its folder: {e}")))?;
    }
    cosched_machine::output::write(path, &name, text.as_bytes())
}

/// The text of a kept file of at most `limit` bytes (`None`: absent, not a
/// regular file, larger, or unreadable: a miss, never an error).
pub fn read_kept(path: &Path, limit: u64) -> Option<String> {
    let m = std::fs::metadata(path).ok()?;
    if !m.is_file() || m.len() > limit {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_file_is_written_whole_and_a_non_regular_path_is_left_alone() {
        let dir = std::env::temp_dir().join(format!("cosched-cache-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let f = dir.join("sub/a.json");
        keep(&f, "one").unwrap();
        keep(&f, "two").unwrap();
        assert_eq!(read_kept(&f, 100).as_deref(), Some("two"));
        assert_eq!(read_kept(&f, 2), None, "a file past the limit is a miss");
        assert_eq!(read_kept(&dir.join("none"), 100), None);
        // A folder where the file would go: refused, the folder kept.
        let d = dir.join("sub/b.json");
        std::fs::create_dir_all(&d).unwrap();
        assert!(keep(&d, "x").is_err());
        assert!(d.is_dir());
        assert_eq!(read_kept(&d, 100), None);
        let left: Vec<_> = std::fs::read_dir(dir.join("sub")).unwrap().flatten().map(|e| e.file_name()).collect();
        assert_eq!(left.len(), 2, "no temporary file left behind: {left:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
