//! The absence probe of `cosched calibrate` (docs/model.md,
//! "Tenants of a shared host"): how fast the host's other tenants evict a
//! guest's LLC data while the thread that owns it is away.
//!
//! A pointer chase over half the effective LLC runs pinned to one CPU in
//! slices of [`RUN_MS`], stopped (`SIGSTOP`) for a pause of each length of
//! [`PAUSES_MS`] between slices, while a compute loop with no memory
//! footprint keeps the CPU busy (so the guest itself inserts nothing into
//! the LLC and the vCPU is not given away). The CPU time the chase needs
//! beyond its solo run, per pause, is the refill of what was lost; at the
//! DRAM latency that is a number of lines, a share of the working set.
//! Under the model's random replacement a line survives `N` insertions into
//! a `C`-line cache with probability `exp(−N/C)`, so a share `s` surviving a
//! pause `P` means the tenants inserted `−C·ln(s)/P` lines per second.

use crate::bench_child::{bench, finish, CalibrateError};
use serde::Serialize;
use std::time::Duration;

/// Length of each slice the chase runs between pauses, ms.
pub const RUN_MS: f64 = 5.0;
/// Pause lengths probed, ms: below, at and far above a kernel quantum.
pub const PAUSES_MS: [f64; 3] = [2.0, 8.0, 32.0];
/// Lost shares outside this band do not resolve a rate (nothing lost, or all).
const RESOLVED: (f64, f64) = (0.02, 0.98);

/// One pause length's measurement.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Absence {
    /// Working set of the chase, MiB.
    pub wss_mb: f64,
    /// Length of each pause, ms.
    pub pause_ms: f64,
    /// Pauses taken before the chase ended.
    pub pauses: f64,
    /// CPU time of the paused chase, s.
    pub cpu_s: f64,
    /// CPU time of the same chase run straight through just before, s.
    pub solo_cpu_s: f64,
}

impl Absence {
    /// CPU time each pause cost the chase when it resumed, s.
    pub fn refill_s(&self) -> f64 {
        ((self.cpu_s - self.solo_cpu_s) / self.pauses.max(1.0)).max(0.0)
    }

    /// Share of the working set lost during one pause: the refill's lines
    /// at `dram_ns` each (a chase's loads are dependent: one at a time), over
    /// the working set's lines.
    pub fn lost_share(&self, dram_ns: f64) -> f64 {
        let lines = self.wss_mb * 1024.0 * 1024.0 / 64.0;
        (self.refill_s() / (dram_ns * 1e-9) / lines).clamp(0.0, 1.0)
    }
}

/// The tenants' insertion rate, lines/s into an LLC of `llc_mb`, that the
/// probes imply: the median over the pause lengths whose lost share is
/// resolved; 0 when no pause lost anything; when every pause lost all, the
/// least rate that loses 98% in the shortest pause.
pub fn tenant_lines_per_s(probes: &[Absence], llc_mb: f64, dram_ns: f64) -> f64 {
    let cap = llc_mb * 1024.0 * 1024.0 / 64.0;
    let rate = |share_lost: f64, pause_ms: f64| -cap * (1.0 - share_lost).ln() / (pause_ms * 1e-3);
    let mut resolved: Vec<f64> = probes
        .iter()
        .map(|p| (p.lost_share(dram_ns), p.pause_ms))
        .filter(|(f, _)| (RESOLVED.0..=RESOLVED.1).contains(f))
        .map(|(f, ms)| rate(f, ms))
        .collect();
    resolved.sort_by(f64::total_cmp);
    match resolved.len() {
        0 if probes.iter().any(|p| p.lost_share(dram_ns) > RESOLVED.1) => {
            let shortest = probes.iter().map(|p| p.pause_ms).fold(f64::INFINITY, f64::min);
            rate(RESOLVED.1, shortest).round()
        }
        0 => 0.0,
        n if n % 2 == 1 => resolved[n / 2].round(),
        n => ((resolved[n / 2 - 1] + resolved[n / 2]) / 2.0).round(),
    }
}

/// Stops and continues a child; on drop it continues and kills it, so no
/// process calibrate started is ever left stopped.
struct Held(Option<std::process::Child>);

impl Held {
    fn signal(&self, sig: libc::c_int) {
        if let Some(c) = &self.0 {
            // SAFETY: kill(2) on our own child's pid, not yet reaped.
            unsafe { libc::kill(c.id() as libc::pid_t, sig) };
        }
    }

    /// Whether the child has exited, without reaping it (its CPU time is
    /// still to be read by `finish`).
    fn exited(&self) -> bool {
        let Some(c) = &self.0 else { return true };
        // SAFETY: a zeroed siginfo is valid; waitid with WNOWAIT leaves the child to be reaped.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        let r = unsafe { libc::waitid(libc::P_PID, c.id() as libc::id_t, &mut info, flags) };
        // SAFETY: si_pid is set by waitid when a child changed state, 0 otherwise.
        r != 0 || unsafe { info.si_pid() } != 0
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.signal(libc::SIGCONT);
        if let Some(mut c) = self.0.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Probe on `cpu` a chase over `mb` MiB doing `mops` million loads, at every
/// pause length of [`PAUSES_MS`].
pub fn measure(cpu: u32, mb: f64, mops: f64) -> Result<Vec<Absence>, CalibrateError> {
    let chase = ["pointer-chase".to_string(), "--wss-mb".into(), format!("{mb}"), "--mops".into(), format!("{mops}")];
    let mut out = vec![];
    for &pause_ms in &PAUSES_MS {
        let (_, solo_cpu_s, _) = finish(bench(cpu, &chase)?)?;
        let spin = Held(Some(bench(cpu, &["compute".to_string(), "--seconds".into(), "3600".into()])?));
        spin.signal(libc::SIGSTOP);
        let mut run = Held(Some(bench(cpu, &chase)?));
        let mut pauses = 0.0;
        loop {
            std::thread::sleep(Duration::from_secs_f64(RUN_MS * 1e-3));
            if run.exited() {
                break;
            }
            run.signal(libc::SIGSTOP);
            spin.signal(libc::SIGCONT);
            std::thread::sleep(Duration::from_secs_f64(pause_ms * 1e-3));
            spin.signal(libc::SIGSTOP);
            run.signal(libc::SIGCONT);
            pauses += 1.0;
        }
        drop(spin);
        let (_, cpu_s, _) = finish(run.0.take().expect("the chase is held until here"))?;
        out.push(Absence { wss_mb: mb, pause_ms, pauses, cpu_s, solo_cpu_s });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(pause_ms: f64, lost: f64, dram_ns: f64) -> Absence {
        // A 4 MiB chase that lost `lost` of its lines in each of 100 pauses.
        let lines = 4.0 * 1024.0 * 1024.0 / 64.0;
        let refill = lost * lines * dram_ns * 1e-9;
        Absence { wss_mb: 4.0, pause_ms, pauses: 100.0, cpu_s: 0.2 + 100.0 * refill, solo_cpu_s: 0.2 }
    }

    #[test]
    fn the_rate_gives_back_the_survival_it_was_read_from() {
        // Closed form: survival exp(−λP/C) at each pause for one λ.
        let (llc_mb, dram_ns, lambda) = (8.0, 120.0, 2.0e7);
        let cap = llc_mb * 1024.0 * 1024.0 / 64.0;
        let probes: Vec<Absence> =
            PAUSES_MS.iter().map(|&p| probe(p, 1.0 - (-lambda * p * 1e-3 / cap).exp(), dram_ns)).collect();
        let got = tenant_lines_per_s(&probes, llc_mb, dram_ns);
        assert!((got / lambda - 1.0).abs() < 1e-6, "{got}");
    }

    #[test]
    fn nothing_lost_is_no_tenant_and_everything_lost_is_a_floor() {
        let none: Vec<Absence> = PAUSES_MS.iter().map(|&p| probe(p, 0.0, 100.0)).collect();
        assert_eq!(tenant_lines_per_s(&none, 8.0, 100.0), 0.0);
        let all: Vec<Absence> = PAUSES_MS.iter().map(|&p| probe(p, 1.0, 100.0)).collect();
        let floor = tenant_lines_per_s(&all, 8.0, 100.0);
        let cap = 8.0 * 1024.0 * 1024.0 / 64.0;
        // 98% lost within the shortest pause.
        assert!(((-floor * PAUSES_MS[0] * 1e-3 / cap).exp() - 0.02).abs() < 1e-6, "{floor}");
        // A chase faster than its solo run lost nothing.
        let faster = Absence { cpu_s: 0.1, ..probe(8.0, 0.0, 100.0) };
        assert_eq!(faster.refill_s(), 0.0);
    }
}
