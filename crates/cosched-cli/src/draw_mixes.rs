//! `cosched draw-mixes`: a family's random mixes drawn on a calibrated host
//! (held-out mixes nobody chose; `cosched_lab::family` draws, `cosched_machine::family`
//! reads the family). Writes `check-NN.toml` (one per mix, what `cosched
//! calibrate --check` runs) and `programs.toml` (every distinct job once, what
//! `cosched characterise` measures), each through `.part` and a rename.

use crate::output::{check_out_dir, table_string, write_whole};
use crate::OneLine;
use clap::Args as ClapArgs;
use cosched_lab::family::{draw, mix_text, programs_text, DrawnMix};
use cosched_machine::family::{Family, MAX_MIXES};
use std::path::PathBuf;

#[derive(ClapArgs)]
pub struct Args {
    /// Family file (data/mixes/host-random/family.toml: synthetic kinds; data/mixes/host-real/family.toml: real programs).
    #[arg(long)]
    family: PathBuf,
    /// Calibrated preset of this host (name or file from `cosched calibrate`): its LLC sizes the working sets, its latency sweep and bandwidth the work.
    #[arg(long, short = 'm')]
    machine: String,
    /// Folder to write check-NN.toml and programs.toml into (created if missing).
    #[arg(long, short = 'o')]
    out: PathBuf,
    /// Mixes FROM..=N, 1-1000 (default: the family's `mixes`, what its report uses).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(cosched_machine::family::MAX_MIXES)))]
    count: Option<u32>,
    /// The first mix drawn, 1-1000 (a later part of the family: mix k is the same whatever else is drawn).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=i64::from(cosched_machine::family::MAX_MIXES)))]
    from: u32,
}

/// One row per job of a drawn mix.
fn rows(m: &DrawnMix) -> Vec<Vec<String>> {
    m.jobs
        .iter()
        .map(|j| {
            vec![
                format!("{:02}", m.index),
                j.name.clone(),
                j.program.clone(),
                j.size_mb.map_or("-".into(), |x| format!("{x:.2}")),
                j.alone_s.map_or("-".into(), |x| format!("{x:.2}")),
                j.count.to_string(),
            ]
        })
        .collect()
}

/// `cosched draw-mixes`.
pub fn run(a: Args) -> Result<(), String> {
    let f = Family::load(&a.family).one_line()?;
    let host = cosched_machine::presets::machine(&a.machine).one_line()?;
    // The working sets are sized from the host's LLC: a paper's machine would size them for another.
    cosched_host::live::refuse_published("machine", &a.machine, &host).one_line()?;
    // A drawn mix whose program this host cannot start would fail only when it runs.
    for (i, p) in f.programs.iter().enumerate() {
        if let Some(problem) = cosched_machine::mix::program_problem(&p.cmd[0]) {
            return Err(format!(
                "{}: program[{i}].cmd: program `{}` (program `{}`) {problem}; install it (scripts/host-check \
                 installs the real family's programs)",
                a.family.display(),
                p.cmd[0],
                p.name
            ));
        }
    }
    let count = a.count.unwrap_or(f.mixes);
    if !(1..=MAX_MIXES).contains(&count) {
        return Err(format!("--count: must be 1..={MAX_MIXES}, got {count}"));
    }
    if !(1..=count).contains(&a.from) {
        return Err(format!("--from: must be 1..=--count ({count}), got {}", a.from));
    }
    let out = a.out.display().to_string();
    check_out_dir("--out", Some(&out))?;
    // A mix file left by another draw would be checked with these: refused, not deleted.
    let stale: Vec<String> = std::fs::read_dir(&a.out)
        .map_err(|e| format!("--out {out}: cannot read the folder: {e}"))?
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| {
            n.strip_prefix("check-")
                .and_then(|r| r.strip_suffix(".toml"))
                .and_then(|k| k.parse::<u32>().ok())
                .is_some_and(|k| !(a.from..=count).contains(&k))
        })
        .collect();
    if let Some(first) = stale.iter().min() {
        return Err(format!(
            "--out {out}: holds {first} ({} such file(s)), which this draw of mixes {}-{count} does not write: \
             give an empty folder or remove them",
            stale.len(),
            a.from
        ));
    }
    let mixes: Vec<DrawnMix> = (a.from..=count).map(|k| draw(&f, &host, k)).collect();
    for m in &mixes {
        write_whole(&a.out.join(format!("check-{:02}.toml", m.index)), &mix_text(&f, m))?;
    }
    write_whole(&a.out.join("programs.toml"), &programs_text(&f, &mixes))?;
    let mut table =
        vec![["mix", "job", "program", "working set MiB", "sized for s alone", "instances"].map(String::from).to_vec()];
    table.extend(mixes.iter().flat_map(rows));
    print!(
        "Family `{}` (seed {}), mixes {}-{count} on `{}` (LLC {} MiB): {} jobs\n\n{}",
        f.name,
        f.seed,
        a.from,
        host.name,
        host.cache.llc_mb,
        mixes.iter().map(|m| m.jobs.len()).sum::<usize>(),
        table_string(&table)
    );
    println!("\nWrote {out}/check-{:02}.toml … check-{count:02}.toml and {out}/programs.toml.", a.from);
    Ok(())
}
