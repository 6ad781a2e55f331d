//! Helpers shared by this crate's unit tests.

use std::path::Path;

/// Write `text` to `root/rel`, creating directories (recorded sysfs/powercap trees).
pub(crate) fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}
