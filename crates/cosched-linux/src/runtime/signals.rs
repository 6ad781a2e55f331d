//! Signals the scheduler handles: SIGINT/SIGTERM end the run (every tree
//! released and terminated), SIGCHLD prompts reaping. The handlers only
//! store to atomics.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicUsize, Ordering};

/// The signal that asked the run to stop (0: none).
pub(super) static SIGNALLED: AtomicI32 = AtomicI32::new(0);
/// How many stop signals arrived (a second one skips the grace period).
static RECEIVED: AtomicU32 = AtomicU32::new(0);
/// A child changed state since the last reap.
pub(super) static CHILD_EXITED: AtomicBool = AtomicBool::new(true);

extern "C" fn on_signal(sig: libc::c_int) {
    SIGNALLED.store(sig, Ordering::Relaxed);
    RECEIVED.fetch_add(1, Ordering::Relaxed);
}

extern "C" fn on_child(_: libc::c_int) {
    CHILD_EXITED.store(true, Ordering::Relaxed);
}

/// The signals handled during a run.
const HANDLED: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGCHLD];
/// The dispositions [`install`] replaced, in [`HANDLED`]'s order, so that
/// [`restore`] gives an embedding process (Python, whose SIGINT raises
/// KeyboardInterrupt) its own handlers back; the `cosched` binary had the defaults.
static PREVIOUS: [AtomicUsize; 3] =
    [AtomicUsize::new(libc::SIG_DFL), AtomicUsize::new(libc::SIG_DFL), AtomicUsize::new(libc::SIG_DFL)];

/// Install the handlers and clear any earlier stop request.
pub(super) fn install() {
    SIGNALLED.store(0, Ordering::Relaxed);
    RECEIVED.store(0, Ordering::Relaxed);
    let stop = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    let child = on_child as extern "C" fn(libc::c_int) as libc::sighandler_t;
    for ((sig, handler), previous) in HANDLED.into_iter().zip([stop, stop, child]).zip(&PREVIOUS) {
        // SAFETY: the handlers only store to atomics.
        let old = unsafe { libc::signal(sig, handler) };
        // A second install (a run inside a run's lifetime) keeps the first one's record.
        if old != stop && old != child && old != libc::SIG_ERR {
            previous.store(old, Ordering::Relaxed);
        }
    }
}

/// The stop signal's name (`SIGINT`, `SIGTERM`), if one arrived.
pub(super) fn stop_signal() -> Option<&'static str> {
    match SIGNALLED.load(Ordering::Relaxed) {
        0 => None,
        libc::SIGINT => Some("SIGINT"),
        _ => Some("SIGTERM"),
    }
}

/// How many stop signals have arrived since [`install`].
pub(super) fn count() -> u32 {
    RECEIVED.load(Ordering::Relaxed)
}

/// Restore the dispositions [`install`] replaced.
pub(super) fn restore() {
    for (sig, previous) in HANDLED.into_iter().zip(&PREVIOUS) {
        // SAFETY: restoring a disposition this process had before the run.
        unsafe { libc::signal(sig, previous.load(Ordering::Relaxed)) };
    }
}
