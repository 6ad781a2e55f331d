//! A CFS run queue (`struct cfs_rq`: the tree in vruntime order, the
//! current thread, `min_vruntime`, its load) and a task's scheduling entity
//! (`struct sched_entity`: vruntime, weight, EEVDF's deadline and lag).

use crate::ids::{Nanos, ThreadId};
use std::collections::BTreeSet;

#[derive(Clone, Default)]
pub(crate) struct Rq {
    pub tree: BTreeSet<(u64, u32)>,
    pub curr: Option<ThreadId>,
    pub exec_start: Nanos,
    pub min_vruntime: u64,
    pub load: u64,
    pub nr: u32,
}

#[derive(Clone, Copy)]
pub(crate) struct Task {
    pub vruntime: u64,
    pub weight: u64,
    pub cpu: u32,
    /// When it last stopped running (or arrived).
    pub last_ran: Nanos,
    /// EEVDF: virtual deadline (`se->deadline`).
    pub deadline: u64,
    /// EEVDF: lag kept while dequeued (`se->vlag`), virtual ns.
    pub vlag: i64,
    /// EEVDF RUN_TO_PARITY: picked and not yet through its slice.
    pub protected: bool,
}

