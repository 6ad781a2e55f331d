//! A program's own progress reports (phases): the lines
//! `progress … <OPS> ops <T> s` that `cosched-bench` prints (operations done
//! and seconds since it started), read from a run's stdout into the series
//! `characterise` keeps, so that a program whose rate changes over its run can
//! be characterised per phase. Its own clock and count, not CPU time: a
//! program on its own core uses all of it whether or not a co-runner slows it.

use cosched_machine::characterised::{Series, MAX_SERIES};
use std::io::Read;
use std::path::Path;

/// Most bytes of a run's stdout read for its reports (the rest is ignored).
pub const MAX_OUTPUT_BYTES: u64 = 64 << 20;

/// The report a line makes, if it is one: `progress` first, `<OPS> ops <T> s` last, both
/// finite, non-negative numbers.
pub fn report_of(line: &str) -> Option<[f64; 2]> {
    let t: Vec<&str> = line.split_whitespace().collect();
    let n = t.len();
    if n < 5 || t[0] != "progress" || t[n - 3] != "ops" || t[n - 1] != "s" {
        return None;
    }
    let num = |s: &str| s.parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0);
    Some([num(t[n - 2])?, num(t[n - 4])?])
}

/// The series of `text`'s reports: in time order, operations never falling (a report that goes
/// back is dropped), thinned evenly to at most [`MAX_SERIES`] points (the last kept).
pub fn series_of(text: &str) -> Series {
    let mut s: Series = vec![];
    for p in text.lines().filter_map(report_of) {
        if s.last().is_none_or(|q| p[0] > q[0] && p[1] >= q[1]) {
            s.push(p);
        }
    }
    if s.len() > MAX_SERIES {
        let step = s.len().div_ceil(MAX_SERIES);
        let last = *s.last().unwrap_or(&[0.0, 0.0]);
        s = s.into_iter().step_by(step).collect();
        if s.last() != Some(&last) {
            s.pop();
            s.push(last);
        }
    }
    s
}

/// The series of the stdout a run left at `path` (empty when it is missing or holds no report).
pub fn series_in(path: &Path) -> Series {
    let mut text = String::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(MAX_OUTPUT_BYTES).read_to_string(&mut text));
    if read.is_err() {
        // Not UTF-8 throughout or unreadable: the program reports nothing we can read.
        return vec![];
    }
    series_of(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_are_read_and_other_lines_ignored() {
        assert_eq!(report_of("progress 1000 ops/s 2500 ops 0.25 s"), Some([0.25, 2500.0]));
        for not in ["progress 1000 ops/s", "progress x ops 1 s", "done 5 ops 1 s", "progress -1 ops 1 s", ""] {
            assert_eq!(report_of(not), None, "{not}");
        }
        let text =
            "hello\nprogress 10 ops/s 1 ops 0.1 s\nprogress 10 ops/s 0.5 ops 0.2 s\nprogress 5 ops/s 2 ops 0.3 s\n";
        // The report going back in operations is dropped.
        assert_eq!(series_of(text), vec![[0.1, 1.0], [0.3, 2.0]]);
    }

    #[test]
    fn a_long_series_is_thinned_to_the_bound_keeping_its_last_point() {
        let text: String = (1..=10_000).map(|k| format!("progress 1 ops/s {k} ops {k} s\n")).collect();
        let s = series_of(&text);
        assert!(s.len() <= MAX_SERIES && s.len() > MAX_SERIES / 2, "{}", s.len());
        assert_eq!(s.last(), Some(&[10_000.0, 10_000.0]));
        assert!(series_in(Path::new("/no/such/file")).is_empty());
    }
}
