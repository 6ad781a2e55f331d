//! Identifiers and time.

/// Simulated or wall-clock time in nanoseconds since the start of a run.
pub type Nanos = u64;

/// One nanosecond-resolution second.
pub const SECOND: Nanos = 1_000_000_000;
/// One millisecond.
pub const MILLI: Nanos = 1_000_000;
/// One microsecond.
pub const MICRO: Nanos = 1_000;

macro_rules! id_type {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
        pub struct $name(pub u32);
        impl $name {
            /// The id as a vector index.
            #[inline]
            pub fn idx(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(
    /// A software thread (dense, 0..n within a run).
    ThreadId
);
id_type!(
    /// A job (a process: one or more threads).
    JobId
);
id_type!(
    /// A hardware context (an SMT strand, or a core without SMT).
    CtxId
);
id_type!(
    /// A progress period instance (RDA §2: one `pp_begin`/`pp_end` pair).
    PeriodId
);
