//! Signals the scheduler handles: SIGINT/SIGTERM end the run (every tree
//! released and terminated), SIGCHLD prompts reaping. The handlers only
//! store to atomics.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, Ordering};

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

/// Install the handlers and clear any earlier stop request.
pub(super) fn install() {
    SIGNALLED.store(0, Ordering::Relaxed);
    RECEIVED.store(0, Ordering::Relaxed);
    // SAFETY: the handlers only store to atomics.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t);
        libc::signal(libc::SIGCHLD, on_child as extern "C" fn(libc::c_int) as libc::sighandler_t);
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

/// Restore the default dispositions.
pub(super) fn restore() {
    // SAFETY: restoring default dispositions.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
        libc::signal(libc::SIGTERM, libc::SIG_DFL);
        libc::signal(libc::SIGCHLD, libc::SIG_DFL);
    }
}
