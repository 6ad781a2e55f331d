//! The aggregation state of `linux-cache` (the Linux "Cache aware scheduling" series v4, read
//! as `cache.rs` describes): what the run queues' owner holds and the aggregation reads and
//! updates. Apart from `cache.rs` so that the owner (`mod.rs`) names the state and only the state:
//! the aggregation uses the owner, never the other way round.

use std::collections::BTreeMap;

/// The aggregation state of `linux-cache`.
#[derive(Clone, Default)]
pub(crate) struct CacheAware {
    /// Job of each thread seen.
    pub(super) job: Vec<u32>,
    /// Live threads of each job (arrived, not exited).
    pub(super) live: BTreeMap<u32, Vec<u32>>,
    /// Preferred LLC of each job.
    pub(super) preferred: BTreeMap<u32, u32>,
    /// Each job's RSS when last read, bytes.
    pub(super) rss: BTreeMap<u32, Option<f64>>,
    /// Capacity of one LLC, bytes (from the view).
    pub(super) llc_bytes: Option<f64>,
}
