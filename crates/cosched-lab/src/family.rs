//! A family's random mixes drawn on a host: each job a
//! kind, a working set across the host's LLC and a time alone (synthetic
//! families: `cosched-bench` kernels with fixed work), or one of the
//! family's real programs. Mix `k` is drawn from ChaCha8 seeded with
//! `seed × 1,000,003 + k`, so it depends on the family file, `k` and the
//! host's calibration alone, and mix 3 of a report of 12 is mix 3 of a
//! report of 5.
//!
//! The work of a synthetic job is its drawn time alone times a nominal rate
//! of its kernel on the host (read from the calibration: the latency sweep,
//! the bandwidth, the clock). The rates only size the jobs; no prediction
//! reads them (the characterisation measures each job alone).

use cosched_machine::family::Family;
use cosched_machine::MachineSpec;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One job of a drawn mix.
#[derive(Clone, Debug, PartialEq)]
pub struct DrawnJob {
    /// Its name: the program's (real) or `mNN-J-kind` (synthetic).
    pub name: String,
    /// Its kind ([`cosched_machine::family::KINDS`]) or real program.
    pub program: String,
    /// Working set, MiB (synthetic kinds with memory).
    pub size_mb: Option<f64>,
    /// Time alone it was sized for, s (synthetic).
    pub alone_s: Option<f64>,
    /// The command.
    pub cmd: Vec<String>,
    /// Instances (a real program drawn twice in one mix).
    pub count: u32,
}

/// One drawn mix.
#[derive(Clone, Debug, PartialEq)]
pub struct DrawnMix {
    /// Its index in the family (from 1).
    pub index: u32,
    /// Its jobs.
    pub jobs: Vec<DrawnJob>,
}

/// Independent loads a core keeps in flight (the sizing of `random-access`
/// and `random-update`; 10-11 measured on the development guest, 2026-11-29).
const NOMINAL_MLP: f64 = 10.0;
/// Cycles per operation of `compute` and of an in-LLC line of `stream`
/// (3.6-4.1 measured on the development guest, 2026-11-29).
const CYCLES_PER_OP: f64 = 4.0;
/// Share of the host's bandwidth one `stream` reaches beyond the LLC (0.5 measured there).
const STREAM_SHARE: f64 = 0.5;

/// ns per dependent load over `mb` MiB on `host`: its measured latency sweep
/// (log-log interpolation, held beyond its ends), else the LLC hit latency
/// within the LLC and the idle memory latency beyond it.
fn latency_ns(host: &MachineSpec, mb: f64) -> f64 {
    match host.cache.latency_curve.as_deref() {
        Some(c) if !c.is_empty() => {
            let i = c.partition_point(|p| p[0] < mb);
            if i == 0 {
                return c[0][1];
            }
            if i == c.len() {
                return c[c.len() - 1][1];
            }
            let ([x0, y0], [x1, y1]) = (c[i - 1], c[i]);
            let t = (mb.ln() - x0.ln()) / (x1.ln() - x0.ln());
            (y0.ln() + t * (y1.ln() - y0.ln())).exp()
        }
        _ if mb <= host.cache.llc_mb => host.cache.llc_hit_cycles / host.freq_ghz,
        _ => host.memory.loaded_latency.first().map_or(100.0, |p| p[1]),
    }
}

/// Nominal operations per second of kernel `kind` over `mb` MiB on `host` (sizing only).
pub fn nominal_rate(host: &MachineSpec, kind: &str, mb: f64) -> f64 {
    let clock = host.freq_ghz * 1e9;
    let in_core = clock / CYCLES_PER_OP;
    match kind {
        "pointer-chase" => 1e9 / latency_ns(host, mb),
        "random-access" | "random-update" => (NOMINAL_MLP * 1e9 / latency_ns(host, mb)).min(clock / 8.0),
        "stream" if mb > host.cache.llc_mb => STREAM_SHARE * host.memory.bandwidth_gbs * 1e9 / 64.0,
        _ => in_core,
    }
}

/// Millions of operations, rounded to 3 significant digits (at least 0.001).
fn mops(ops: f64) -> f64 {
    let m = (ops / 1e6).max(0.001);
    let scale = 10f64.powi(2 - m.log10().floor() as i32);
    (m * scale).round() / scale
}

/// A MiB figure to 0.01.
fn mib(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn num(x: f64) -> String {
    cosched_core::num::shortest(x)
}

/// The command of a synthetic job of `kind` over `mb` MiB lasting about `alone_s` alone on `host`.
fn synthetic_cmd(host: &MachineSpec, kind: &str, mb: f64, alone_s: f64) -> Vec<String> {
    let mut cmd = vec!["cosched-bench".to_string(), kind.to_string()];
    let s = |v: &str| v.to_string();
    match kind {
        "compute" => cmd.extend([s("--mops"), num(mops(nominal_rate(host, kind, mb) * alone_s))]),
        "phases" => {
            // Two periods of a stream phase and a compute phase, each a quarter of the time alone.
            let mem = mops(nominal_rate(host, "stream", mb) * alone_s / 4.0);
            let cpu = mops(nominal_rate(host, "compute", mb) * alone_s / 4.0);
            cmd.extend([s("--wss-mb"), num(mb), s("--phase-mops"), num(mem), s("--compute-mops"), num(cpu)]);
            cmd.extend([s("--mops"), num(mops(2.0 * (mem + cpu) * 1e6))]);
        }
        _ => cmd.extend([s("--wss-mb"), num(mb), s("--mops"), num(mops(nominal_rate(host, kind, mb) * alone_s))]),
    }
    cmd
}

/// Mix `k` (from 1) of family `f` on `host`.
pub fn draw(f: &Family, host: &MachineSpec, k: u32) -> DrawnMix {
    let mut rng = ChaCha8Rng::seed_from_u64(f.seed.wrapping_mul(1_000_003).wrapping_add(u64::from(k)));
    let n = rng.gen_range(f.jobs[0]..=f.jobs[1]);
    let mut jobs: Vec<DrawnJob> = vec![];
    for j in 1..=n {
        if f.programs.is_empty() {
            let kind = f.kinds[rng.gen_range(0..f.kinds.len())].clone();
            let (lo, hi) = (f.size_llc[0].ln(), f.size_llc[1].ln());
            let mb = mib((lo + rng.gen::<f64>() * (hi - lo)).exp() * host.cache.llc_mb).max(0.01);
            let alone_s = f.alone_s[0] + rng.gen::<f64>() * (f.alone_s[1] - f.alone_s[0]);
            let memory = kind != "compute";
            jobs.push(DrawnJob {
                name: format!("m{k:02}-{j}-{kind}"),
                cmd: synthetic_cmd(host, &kind, mb, alone_s),
                program: kind,
                size_mb: memory.then_some(mb),
                alone_s: Some((alone_s * 100.0).round() / 100.0),
                count: 1,
            });
        } else {
            let p = &f.programs[rng.gen_range(0..f.programs.len())];
            match jobs.iter_mut().find(|x| x.name == p.name) {
                Some(x) => x.count += 1,
                None => jobs.push(DrawnJob {
                    name: p.name.clone(),
                    program: p.name.clone(),
                    size_mb: None,
                    alone_s: None,
                    cmd: p.cmd.clone(),
                    count: 1,
                }),
            }
        }
    }
    DrawnMix { index: k, jobs }
}

/// A TOML string (quoted and escaped).
fn toml_str(s: &str) -> String {
    serde_json::to_string(s).expect("a string serialises")
}

/// The mix file of `m` (`cosched calibrate --check`'s input), naming the family.
pub fn mix_text(f: &Family, m: &DrawnMix) -> String {
    let mut t = format!(
        "# Mix {} of family `{}` (seed {}), drawn by `cosched draw-mixes`: a held-out mix (no calibration or fitting step saw it).\n\
         name = {}\n",
        m.index,
        f.name,
        f.seed,
        toml_str(&format!("{}-{:02}", f.name, m.index))
    );
    for j in &m.jobs {
        t.push_str(&job_text(&j.name, &j.cmd, j.count));
    }
    t
}

fn job_text(name: &str, cmd: &[String], count: u32) -> String {
    let args: Vec<String> = cmd.iter().map(|a| toml_str(a)).collect();
    let count = if count > 1 { format!("count = {count}\n") } else { String::new() };
    format!("\n[[job]]\nname = {}\ncmd = [{}]\n{count}", toml_str(name), args.join(", "))
}

/// The programs file of `mixes` (`cosched characterise`'s input): each distinct job once.
pub fn programs_text(f: &Family, mixes: &[DrawnMix]) -> String {
    let mut t = format!(
        "# The programs of mixes {}-{} of family `{}` (seed {}), one instance each: `cosched characterise` measures them.\n\
         name = {}\n",
        mixes.first().map_or(0, |m| m.index),
        mixes.last().map_or(0, |m| m.index),
        f.name,
        f.seed,
        toml_str(&format!("{}-programs", f.name))
    );
    let mut seen = std::collections::BTreeSet::new();
    for j in mixes.iter().flat_map(|m| &m.jobs) {
        if seen.insert(j.name.clone()) {
            t.push_str(&job_text(&j.name, &j.cmd, 1));
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn family(extra: &str) -> Family {
        let src = format!("name = \"t\"\nseed = 7\nmixes = 20\njobs = [2, 6]\n{extra}");
        Family::parse("t.toml", &src).expect("family")
    }

    fn host() -> MachineSpec {
        cosched_machine::presets::machine("kvm-epyc-2c").expect("preset")
    }

    #[test]
    fn a_mix_is_a_function_of_the_family_its_index_and_the_host() {
        let f = family(
            "kinds = [\"stream\", \"random-access\", \"random-update\", \"pointer-chase\", \"phases\", \"compute\"]\n",
        );
        let h = host();
        for k in 1..=f.mixes {
            let (a, b) = (draw(&f, &h, k), draw(&f, &h, k));
            assert_eq!(a, b, "mix {k} drawn twice");
            assert!((2..=6).contains(&a.jobs.len()), "mix {k}: {} jobs", a.jobs.len());
            for j in &a.jobs {
                if let Some(mb) = j.size_mb {
                    let r = mb / h.cache.llc_mb;
                    assert!((0.25 - 0.01..=8.0 + 0.01).contains(&r), "{}: {mb} MiB", j.name);
                }
                let s = j.alone_s.expect("synthetic");
                assert!((0.6..=2.0).contains(&s), "{}: {s} s", j.name);
            }
        }
        assert_ne!(draw(&f, &h, 1), draw(&f, &h, 2));
        let other = Family { seed: 8, ..f.clone() };
        assert_ne!(draw(&f, &h, 1), draw(&other, &h, 1), "another seed draws another mix");
        // Every kind shows up over the family's mixes.
        let kinds: std::collections::BTreeSet<String> =
            (1..=f.mixes).flat_map(|k| draw(&f, &h, k).jobs).map(|j| j.program).collect();
        assert_eq!(kinds.len(), 6, "{kinds:?}");
    }

    #[test]
    fn drawn_files_parse_as_mixes_and_programs() {
        let f = family("kinds = [\"phases\", \"compute\"]\n");
        let h = host();
        let mixes: Vec<DrawnMix> = (1..=3).map(|k| draw(&f, &h, k)).collect();
        for m in &mixes {
            let mix = cosched_machine::mix::Mix::parse("m.toml", &mix_text(&f, m)).expect("a mix file");
            assert_eq!(mix.jobs.len(), m.jobs.len());
        }
        let p = cosched_machine::mix::Mix::parse("p.toml", &programs_text(&f, &mixes)).expect("a programs file");
        assert_eq!(p.jobs.len(), mixes.iter().map(|m| m.jobs.len()).sum::<usize>());
    }

    #[test]
    fn real_programs_drawn_twice_become_two_instances() {
        let f = family("[[program]]\nname = \"a\"\ncmd = [\"true\"]\n[[program]]\nname = \"b\"\ncmd = [\"false\"]\n");
        let h = host();
        for k in 1..=f.mixes {
            let m = draw(&f, &h, k);
            let n: u32 = m.jobs.iter().map(|j| j.count).sum();
            assert!((2..=6).contains(&n));
            assert!(m.jobs.len() <= 2);
        }
    }

    #[test]
    fn nominal_rates_follow_the_latency_sweep() {
        let h = host();
        let (small, big) = (h.cache.llc_mb / 4.0, h.cache.llc_mb * 8.0);
        assert!(nominal_rate(&h, "pointer-chase", small) > 2.0 * nominal_rate(&h, "pointer-chase", big));
        assert!(nominal_rate(&h, "random-access", big) > 5.0 * nominal_rate(&h, "pointer-chase", big));
        assert_eq!(mops(1_234_567.0), 1.23);
        assert_eq!(mops(98_765_432.0), 98.8);
    }
}
