//! "Did you mean …?" for mistyped names (presets, policies): the closest
//! known name by edit distance, when it is close enough to be a typo.

/// Edit distance between `a` and `b` counting insertions, deletions,
/// substitutions and transpositions of neighbours as one edit each (optimal
/// string alignment; `mfc` is one edit from `mcf`).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

/// The known name closest to `name`, if at most a third of its length (and
/// at least 1, at most 3) edits away; ties go to the first listed.
pub fn closest<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).clamp(1, 3);
    known
        .into_iter()
        .map(|k| (edit_distance(name, k), k))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, k)| k)
}

/// `" (did you mean `X`?)"` when a close name exists, else empty.
pub fn did_you_mean<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    closest(name, known).map(|k| format!(" (did you mean `{k}`?)")).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_and_suggestions() {
        assert_eq!(edit_distance("mfc", "mcf"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        let known = ["mcf", "milc", "lbm", "canneal"];
        assert_eq!(closest("mfc", known), Some("mcf"));
        assert_eq!(closest("xyz", known), None);
        assert_eq!(closest("cannael", known), Some("canneal"));
        assert_eq!(closest("mcff", known), Some("mcf"));
        assert_eq!(did_you_mean("zzzzzz", known), "");
        assert_eq!(did_you_mean("g-rr", ["g-rrs", "p-rrs"]), " (did you mean `g-rrs`?)");
    }
}
