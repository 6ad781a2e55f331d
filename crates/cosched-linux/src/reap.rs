//! Reaping an exited child with what the kernel counted of its time-sharing
//! (the refill a job pays after each switch is measured per job
//! before it is modelled): its CPU time, its voluntary and involuntary
//! context switches (`wait4` rusage: the process and the children it
//! waited for) and its migrations between CPUs (`se.nr_migrations` of
//! `/proc/PID/sched`, the leader thread only). The zombie is first seen with
//! `waitid(WNOWAIT)`, which leaves it unreaped, so its `/proc/PID/sched` can
//! still be read; only then is it reaped with `wait4`.

/// One reaped child.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reaped {
    /// Process id.
    pub pid: i32,
    /// Exit code (128 + signal number when killed).
    pub code: i32,
    /// User + system CPU time, s (its own and that of the children it waited for).
    pub cpu_s: f64,
    /// Context switches it asked for (sleeps, I/O, a freezer's stop): `ru_nvcsw`.
    pub voluntary: u64,
    /// Context switches the kernel imposed (its slice ended, a task preempted it): `ru_nivcsw`.
    pub involuntary: u64,
    /// Moves of the leader thread to another CPU (`se.nr_migrations`); `None` when
    /// the kernel has no `/proc/PID/sched` (built without `CONFIG_SCHED_DEBUG`).
    pub migrations: Option<u64>,
}

/// The value of `key` in the text of a `/proc/PID/sched` file
/// (`key    :    value` lines; values may be fractional, counts are not).
pub fn sched_field(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == key).then(|| v.trim().parse().ok()).flatten()
    })
}

/// The pid of an exited child not yet reaped (any child, or only `only`),
/// left unreaped (`waitid(WEXITED | WNOHANG | WNOWAIT)`); `None` when none has exited.
fn exited_child(only: Option<i32>) -> Option<i32> {
    // SAFETY: a zeroed siginfo is valid; waitid with WNOWAIT leaves the child to be reaped.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
    let (idtype, id) = match only {
        Some(pid) => (libc::P_PID, pid as libc::id_t),
        None => (libc::P_ALL, 0),
    };
    // SAFETY: waitid writes the siginfo it is given.
    if unsafe { libc::waitid(idtype, id, &mut info, flags) } != 0 {
        return None;
    }
    // SAFETY: si_pid is set by waitid when a child changed state, 0 otherwise.
    let pid = unsafe { info.si_pid() };
    (pid > 0).then_some(pid)
}

/// Reap one exited child, if any, with its time-sharing figures.
pub fn reap_any() -> Option<Reaped> {
    reap(None)
}

/// Reap one exited child (any, or only `only`), if one has exited.
fn reap(only: Option<i32>) -> Option<Reaped> {
    let pid = exited_child(only)?;
    let migrations =
        crate::sys::read_small(&format!("/proc/{pid}/sched")).and_then(|t| sched_field(&t, "se.nr_migrations"));
    let mut status = 0;
    // SAFETY: wait4 writes the status integer and the rusage struct.
    let (got, ru) = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        (libc::wait4(pid, &mut status, libc::WNOHANG, &mut ru), ru)
    };
    if got != pid {
        return None;
    }
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else if libc::WIFSIGNALED(status) {
        128 + libc::WTERMSIG(status)
    } else {
        -1
    };
    Some(Reaped {
        pid,
        code,
        cpu_s: tv(ru.ru_utime) + tv(ru.ru_stime),
        voluntary: ru.ru_nvcsw.max(0) as u64,
        involuntary: ru.ru_nivcsw.max(0) as u64,
        migrations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines as a 6.18 kernel writes them (recorded on the development guest).
    const SCHED: &str = "cat (2038, #threads: 1)\n\
        -------------------------------------------------------------------\n\
        se.exec_start                                :         99160.763364\n\
        se.sum_exec_runtime                          :             0.384309\n\
        se.nr_migrations                             :                    7\n\
        nr_switches                                  :                    4\n\
        nr_voluntary_switches                        :                    1\n\
        nr_involuntary_switches                      :                    3\n\
        numa_pages_migrated                          :                    0\n";

    #[test]
    fn sched_fields_are_read_by_their_exact_key() {
        assert_eq!(sched_field(SCHED, "se.nr_migrations"), Some(7));
        assert_eq!(sched_field(SCHED, "nr_involuntary_switches"), Some(3));
        assert_eq!(sched_field(SCHED, "nr_switches"), Some(4));
        // A fractional value is not a count; a missing key is none.
        assert_eq!(sched_field(SCHED, "se.sum_exec_runtime"), None);
        assert_eq!(sched_field(SCHED, "nr_migrations"), None);
    }

    #[test]
    fn a_child_is_reaped_with_its_switches_and_migrations() {
        // SAFETY: the child only spins and exits (no allocation after fork).
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            let t = std::time::Instant::now();
            while t.elapsed().as_millis() < 30 {
                std::hint::spin_loop();
            }
            // SAFETY: leaving the forked child without running the parent's destructors.
            unsafe { libc::_exit(3) };
        }
        let r = loop {
            // Only this child: the other tests' children are theirs to reap.
            if let Some(r) = reap(Some(pid)) {
                break r;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        };
        assert_eq!(r.code, 3);
        assert!(r.cpu_s > 0.0 && r.cpu_s < 10.0, "{r:?}");
        // The kernel has the file on this guest; on one without it the field is none, not 0.
        if std::path::Path::new("/proc/self/sched").exists() {
            assert!(r.migrations.is_some(), "{r:?}");
        }
    }
}
