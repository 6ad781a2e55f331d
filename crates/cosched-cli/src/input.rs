//! Reading the text files people hand the CLI (CSV, traces, lists): one
//! place that names the file on failure and drops a UTF-8 byte-order mark,
//! which spreadsheet programs write at the start of a CSV (issue #28 item 8).

/// The text of `file`, without a leading byte-order mark.
pub fn read_text(file: &str) -> Result<String, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: cannot read: {e}"))?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    })
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
