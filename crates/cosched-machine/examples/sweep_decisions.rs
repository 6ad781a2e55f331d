//! The adaptive pirate sweep's first decision on recorded characterisations, under the
//! round-paired noise test and under runs read as independent across rounds (design note
//! 65). For each job of each `record.json` given: its fixed sweep's slowdowns, the pirate
//! each test would add first, and the pirates the measurement added.
//!
//! `cargo run -p cosched-machine --example sweep_decisions -- docs/results/runtime/*/record.json`

use cosched_machine::characterised::{CoRun, Record};
use cosched_machine::pirate_sweep::next_pirate;

fn main() -> Result<(), String> {
    // Jobs; pirates added first by each test; of those, between two pirates (not below the least).
    let (mut jobs, mut paired_n, mut independent_n, mut paired_in, mut independent_in) = (0, 0, 0, 0, 0);
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
        let rec: Record = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
        for j in &rec.jobs {
            let Some(r) = j.pirates.first().map(|p| p.runs.len()).filter(|&r| r > 0) else { continue };
            // The fixed sweep: its first four pirates and the rounds they ran in.
            let mut fixed = j.clone();
            fixed.pirates.truncate(4);
            fixed.solo_runs.truncate(r);
            let paired = next_pirate(&fixed);
            // A bandit with one run more hides the rounds: runs read as independent.
            let mut independent = fixed.clone();
            independent.bandits = vec![CoRun { runs: vec![1.0; r + 1], ..fixed.pirates[0].clone() }];
            let independent = next_pirate(&independent);
            let slowdowns: Vec<String> =
                fixed.pirates.iter().map(|p| format!("{}:{:.2}", p.size, p.slowdown)).collect();
            let added: Vec<String> = j.pirates.iter().skip(4).map(|p| p.size.to_string()).collect();
            let show = |x: Option<f64>| x.map_or("none".to_string(), |s| format!("{s} MiB"));
            println!(
                "{path} {}: {} | paired: {} | independent: {} | measured: [{}]",
                j.name,
                slowdowns.join(" "),
                show(paired),
                show(independent),
                added.join(" ")
            );
            jobs += 1;
            paired_n += usize::from(paired.is_some());
            independent_n += usize::from(independent.is_some());
            let least = fixed.pirates.iter().map(|p| p.size).fold(f64::INFINITY, f64::min);
            paired_in += usize::from(paired.is_some_and(|s| s > least));
            independent_in += usize::from(independent.is_some_and(|s| s > least));
        }
    }
    println!(
        "{jobs} jobs with runs kept: a pirate added first by the paired test to {paired_n} \
         ({paired_in} between two pirates), by the independent one to {independent_n} ({independent_in})"
    );
    Ok(())
}
