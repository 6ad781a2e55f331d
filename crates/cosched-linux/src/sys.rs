//! Thin wrappers over the few kernel interfaces the runtime uses: procfs
//! (`/proc/PID/stat`, `/proc/PID/task`), CPU affinity
//! (`sched_setaffinity(2)`), signals and `prctl(2)`. Every call is per
//! process or per task; nothing here holds state.

use std::io;
use std::path::Path;

/// What `/proc/PID/stat` (or `/proc/PID/task/TID/stat`) says about a task
/// (proc(5), fields 3, 4, 5, 14, 15 and 39).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskStat {
    /// Scheduler state: `R` running or runnable, `S`/`D` sleeping, `T` stopped, `Z` zombie, …
    pub state: char,
    /// Parent process id.
    pub ppid: i32,
    /// Process group id.
    pub pgid: i32,
    /// User + system CPU time, clock ticks.
    pub cpu_ticks: u64,
    /// CPU the task last ran on.
    pub processor: u32,
}

/// Parse the text of a `stat` file. The command name (field 2) is in
/// parentheses and may itself contain spaces and parentheses, so fields are
/// counted from the last `)`.
pub fn parse_stat(text: &str) -> Option<TaskStat> {
    let rest = &text[text.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // f[0] is field 3 (state).
    let num = |i: usize| -> Option<u64> { f.get(i)?.parse().ok() };
    Some(TaskStat {
        state: f.first()?.chars().next()?,
        ppid: f.get(1)?.parse().ok()?,
        pgid: f.get(2)?.parse().ok()?,
        cpu_ticks: num(11)? + num(12)?,
        processor: num(36)? as u32,
    })
}

/// Read a small kernel file (procfs, sysfs, cgroupfs) without the `statx`
/// size probe of `std::fs::read_to_string`: these files report size 0, and
/// the event loop reads several per tick.
pub fn read_small(path: &str) -> Option<String> {
    use std::io::Read;
    let mut f = std::fs::File::open(path).ok()?;
    let mut buf = Vec::with_capacity(4096);
    let mut chunk = [0u8; 4096];
    loop {
        match f.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    String::from_utf8(buf).ok()
}

/// The stat of a process, `None` when it is gone.
pub fn proc_stat(pid: i32) -> Option<TaskStat> {
    parse_stat(&read_small(&format!("/proc/{pid}/stat"))?)
}

/// The stat of one thread of a process.
pub fn task_stat(pid: i32, tid: i32) -> Option<TaskStat> {
    parse_stat(&read_small(&format!("/proc/{pid}/task/{tid}/stat"))?)
}

fn numeric_entries(dir: &Path) -> Vec<i32> {
    let Ok(rd) = std::fs::read_dir(dir) else { return vec![] };
    let mut v: Vec<i32> = rd.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok()).collect();
    v.sort_unstable();
    v
}

/// Time the thread `tid` has spent on a CPU, ns (first field of
/// `/proc/TID/schedstat`); `None` when it is gone or schedstats are off.
pub fn run_ns(tid: i32) -> Option<u64> {
    read_small(&format!("/proc/{tid}/schedstat"))?.split_whitespace().next()?.parse().ok()
}

/// Every process on the machine.
pub fn all_pids() -> Vec<i32> {
    numeric_entries(Path::new("/proc"))
}

/// Thread ids of a process (empty when it is gone).
pub fn tids_of(pid: i32) -> Vec<i32> {
    numeric_entries(Path::new(&format!("/proc/{pid}/task")))
}

/// Kernel clock ticks per second (`sysconf(_SC_CLK_TCK)`).
pub fn clock_ticks() -> f64 {
    // SAFETY: sysconf has no memory-safety preconditions.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}

/// Pin one task to a set of CPUs (`sched_setaffinity(2)`).
pub fn set_affinity(tid: i32, cpus: &[u32]) -> io::Result<()> {
    // SAFETY: cpu_set_t is plain data; CPU_ZERO/CPU_SET write inside it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_ZERO(&mut set);
        for &c in cpus {
            libc::CPU_SET(c as usize, &mut set);
        }
        if libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The CPUs a task may run on.
pub fn get_affinity(tid: i32) -> io::Result<Vec<u32>> {
    // SAFETY: as above; the kernel fills the set.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok((0..libc::CPU_SETSIZE as usize).filter(|&c| libc::CPU_ISSET(c, &set)).map(|c| c as u32).collect())
    }
}

/// Send a signal to a process; a process that is already gone is not an error.
pub fn signal(pid: i32, sig: i32) {
    // SAFETY: kill(2) with a positive pid.
    if pid > 0 {
        unsafe {
            libc::kill(pid, sig);
        }
    }
}

/// Make this process the reaper of its orphaned descendants
/// (`PR_SET_CHILD_SUBREAPER`), so a job's grandchildren stay ours to reap.
pub fn become_subreaper() {
    // SAFETY: prctl with integer arguments.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

/// The name of signal `n` on Linux (1-31), as `kill -l` prints it with the `SIG` prefix.
pub fn signal_name(n: i32) -> Option<&'static str> {
    const NAMES: [&str; 31] = [
        "SIGHUP",
        "SIGINT",
        "SIGQUIT",
        "SIGILL",
        "SIGTRAP",
        "SIGABRT",
        "SIGBUS",
        "SIGFPE",
        "SIGKILL",
        "SIGUSR1",
        "SIGSEGV",
        "SIGUSR2",
        "SIGPIPE",
        "SIGALRM",
        "SIGTERM",
        "SIGSTKFLT",
        "SIGCHLD",
        "SIGCONT",
        "SIGSTOP",
        "SIGTSTP",
        "SIGTTIN",
        "SIGTTOU",
        "SIGURG",
        "SIGXCPU",
        "SIGXFSZ",
        "SIGVTALRM",
        "SIGPROF",
        "SIGWINCH",
        "SIGIO",
        "SIGPWR",
        "SIGSYS",
    ];
    usize::try_from(n).ok().and_then(|i| i.checked_sub(1)).and_then(|i| NAMES.get(i)).copied()
}

/// CPU time this process has used so far (user + system, all threads), seconds.
pub fn self_cpu_s() -> f64 {
    // SAFETY: getrusage fills the struct.
    unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut ru);
        let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
        tv(ru.ru_utime) + tv(ru.ru_stime)
    }
}

/// Busy and total jiffies of every CPU from `/proc/stat` (index = CPU number).
pub fn cpu_jiffies() -> Vec<(u64, u64)> {
    let Some(text) = read_small("/proc/stat") else { return vec![] };
    let mut out = vec![];
    for line in text.lines() {
        // Per-CPU lines only ("cpu0 …"); the aggregate line is "cpu  …".
        let Some(rest) = line.strip_prefix("cpu").filter(|r| r.starts_with(|c: char| c.is_ascii_digit())) else {
            continue;
        };
        let mut it = rest.split_whitespace();
        let Some(Ok(cpu)) = it.next().map(str::parse::<usize>) else { continue };
        let v: Vec<u64> = it.filter_map(|x| x.parse().ok()).collect();
        if v.len() < 4 {
            continue;
        }
        let total: u64 = v.iter().take(8).sum();
        let idle = v[3] + v.get(4).copied().unwrap_or(0);
        if out.len() <= cpu {
            out.resize(cpu + 1, (0, 0));
        }
        out[cpu] = (total - idle, total);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_are_named_as_kill_l_names_them() {
        assert_eq!(signal_name(9), Some("SIGKILL"));
        assert_eq!(signal_name(15), Some("SIGTERM"));
        assert_eq!(signal_name(31), Some("SIGSYS"));
        assert_eq!((signal_name(0), signal_name(32)), (None, None));
        // The table agrees with libc's numbering.
        assert_eq!(signal_name(libc::SIGSEGV), Some("SIGSEGV"));
        assert_eq!(signal_name(libc::SIGCHLD), Some("SIGCHLD"));
    }

    #[test]
    fn stat_with_spaces_and_parentheses_in_the_name() {
        let line = "4242 (a (weird) name) S 17 4242 4242 0 -1 4194560 100 0 0 0 7 3 0 0 20 0 1 0 \
                    12345 1000 100 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";
        let s = parse_stat(line).unwrap();
        assert_eq!(s, TaskStat { state: 'S', ppid: 17, pgid: 4242, cpu_ticks: 10, processor: 1 });
        assert_eq!(parse_stat("garbage"), None);
        assert_eq!(parse_stat("1 (x) R 0"), None);
    }

    #[test]
    fn own_process_is_visible_and_affinity_round_trips() {
        let me = std::process::id() as i32;
        // SAFETY: gettid has no preconditions.
        let tid = unsafe { libc::gettid() };
        assert_eq!(task_stat(me, tid).unwrap().state, 'R');
        assert!(proc_stat(me).is_some());
        assert!(tids_of(me).contains(&me));
        let cpus = get_affinity(me).unwrap();
        assert!(!cpus.is_empty());
        set_affinity(me, &cpus).unwrap();
        assert!(run_ns(tid).unwrap() > 0);
        assert_eq!(get_affinity(me).unwrap(), cpus);
        let j = cpu_jiffies();
        let online = std::fs::read_to_string("/sys/devices/system/cpu/online").unwrap();
        let n = crate::probe::parse_cpu_list(&online).unwrap().into_iter().max().unwrap() as usize + 1;
        assert_eq!(j.len(), n, "one entry per CPU, not one per jiffy of the aggregate line");
    }
}
