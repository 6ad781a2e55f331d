//! Where long work says how far it is: a library calls
//! [`Reporter::line`]; the face that started the work decides where the line
//! goes (the command line: stderr, as `progress: …`, `note: …`, `warning: …`;
//! Python: the same stream). No library prints: the layering test holds it.

use std::sync::Arc;

/// A face's destination for progress lines, notes and warnings.
pub trait Progress: Send + Sync {
    /// One line, already worded (no trailing newline).
    fn line(&self, text: &str);
}

/// A cheap, clonable handle on a [`Progress`], or on nothing (the default:
/// the work reports nothing, and builds no line).
#[derive(Clone, Default)]
pub struct Reporter(Option<Arc<dyn Progress>>);

impl Reporter {
    /// Report to `to`.
    pub fn to(to: Arc<dyn Progress>) -> Reporter {
        Reporter(Some(to))
    }

    /// Whether anyone listens (work may skip measuring what it would report).
    pub fn is_on(&self) -> bool {
        self.0.is_some()
    }

    /// Report the line `text` builds, if anyone listens.
    pub fn line(&self, text: impl FnOnce() -> String) {
        if let Some(p) = &self.0 {
            p.line(&text());
        }
    }
}

impl std::fmt::Debug for Reporter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.is_on() { "Reporter(on)" } else { "Reporter(off)" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    struct Lines(Mutex<Vec<String>>);
    impl Progress for Lines {
        fn line(&self, text: &str) {
            self.0.lock().unwrap().push(text.to_string());
        }
    }

    #[test]
    fn lines_reach_the_face_and_none_are_built_when_nobody_listens() {
        let lines = Arc::new(Lines(Mutex::new(vec![])));
        let r = Reporter::to(lines.clone());
        r.line(|| "progress: 1 of 2".into());
        assert!(r.is_on() && format!("{r:?}") == "Reporter(on)");
        assert_eq!(*lines.0.lock().unwrap(), ["progress: 1 of 2"]);
        let off = Reporter::default();
        off.line(|| panic!("built a line nobody reads"));
        assert!(!off.is_on());
    }
}
