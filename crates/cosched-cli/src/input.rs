//! Reading the text files people hand the CLI (CSV, traces, lists): one
//! place that names the file on failure and drops a UTF-8 byte-order mark,
//! which spreadsheet programs write at the start of a CSV; sizes bounded.

use cosched_machine::input;

/// The text of the data file `file` (bounded: [`cosched_machine::input`]),
/// without a leading byte-order mark.
pub fn read_text(file: &str) -> Result<String, String> {
    input::read_text(std::path::Path::new(file), file, input::Kind::Data).map_err(|e| e.to_string())
}

/// The text of the description file `path` (TOML or JSON; bounded).
pub fn read_config(path: &std::path::Path) -> Result<String, String> {
    input::read_text(path, &path.display().to_string(), input::Kind::Config).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_byte_order_mark_is_dropped_and_a_missing_file_named() {
        let p = std::env::temp_dir().join(format!("cosched-bom-{}.csv", std::process::id()));
        std::fs::write(&p, "\u{feff}value\n1\n").unwrap();
        assert_eq!(super::read_text(p.to_str().unwrap()).unwrap(), "value\n1\n");
        let _ = std::fs::remove_file(&p);
        assert!(super::read_text("/no/such/file.csv").unwrap_err().starts_with("/no/such/file.csv: cannot read"));
    }
}
