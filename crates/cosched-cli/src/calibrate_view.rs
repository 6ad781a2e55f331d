//! `cosched calibrate --check`'s output: the check
//! (`cosched_host::check`) and a replay (`cosched_host::replay`) as tables or JSON.

use crate::opts::Format;
use cosched_core::num::shortest;
use cosched_host::check::{Check, TARGET_MEDIAN, TARGET_WORST};
use cosched_host::replay::Replay;
use cosched_host::rounds::StopReason;

/// Print the check as tables.
pub fn print_check(c: &Check, model: &str) {
    // Aligned by display width: a job's name may hold wide characters.
    let mut rows =
        vec![["policy", "job", "measured", "95% interval", "predicted", "host-noise band", "error", "in s.e."]
            .map(String::from)
            .to_vec()];
    for j in &c.jobs {
        rows.push(vec![
            j.policy.clone(),
            j.job.clone(),
            format!("{:.3}", j.measured.mean),
            format!("{:.3}-{:.3}", j.measured.lo, j.measured.hi),
            format!("{:.3}", j.predicted),
            j.band.map_or("-".to_string(), |[lo, hi]| format!("{lo:.3}-{hi:.3}")),
            format!("{:.1}%", 100.0 * j.error),
            j.error_se.map_or("-".to_string(), |z| format!("{z:+.1}")),
        ]);
    }
    crate::output::table(&rows);
    println!(
        "(in s.e.: the error in standard errors of the measured mean; inside the 95% interval: {} of {} cells)",
        c.jobs.iter().filter(|j| j.inside).count(),
        c.jobs.len()
    );
    if let Some(s) = &c.stopped {
        let goal = format!("every measured slowdown within ±{}% of its mean", shortest(c.within_pct.unwrap_or(0.0)));
        match s.reason {
            StopReason::Reached => println!("rounds: {goal} after {} rounds", s.rounds),
            StopReason::MaxRounds => println!("rounds: the {}-round limit came before {goal}", s.rounds),
            StopReason::Budget => println!("rounds: the time budget ended after {} rounds, before {goal}", s.rounds),
        }
    }
    for m in &c.moved {
        println!(
            "the host moved under {}: its solo time spread {:.0}% across the rounds (above {:.0}%); cells measured on it: {}",
            m.job,
            100.0 * m.solo_spread,
            100.0 * cosched_host::check::MOVED,
            m.cells.join(", ")
        );
    }
    let mut rows = vec![["policy", "measured makespan s", "predicted makespan s"].map(String::from).to_vec()];
    for p in &c.policies {
        let m = &p.measured_makespan_s;
        rows.push(vec![
            p.policy.clone(),
            format!("{:.3} ±{:.3}", m.mean, (m.hi - m.lo) / 2.0),
            format!("{:.3}", p.predicted_makespan_s),
        ]);
    }
    println!();
    crate::output::table(&rows);
    let pct = |x: f64| 100.0 * x;
    println!(
        "\nslowdown error: median |error| {:.1}% (target ≤ {:.0}%), worst {:.1}% (target ≤ {:.0}%), {} of {} beyond",
        pct(c.median_abs_error),
        pct(TARGET_MEDIAN),
        pct(c.worst_abs_error),
        pct(TARGET_WORST),
        c.beyond_worst,
        c.jobs.len()
    );
    if let (Some(m), Some(w)) = (c.median_abs_error_pooled, c.worst_abs_error_pooled) {
        println!(
            "against the pooled measured slowdowns (the rounds' co-run time over their solo time): median |error| {:.1}%, worst {:.1}%",
            pct(m),
            pct(w)
        );
    }
    if let (Some(m), Some(w)) = (c.median_abs_error_without_tenants, c.worst_abs_error_without_tenants) {
        println!(
            "ablation, the host's other tenants taken out (cache.tenant_lines_per_s = 0): median |error| {:.1}%, worst {:.1}%",
            pct(m),
            pct(w)
        );
    }
    if c.banded > 0 {
        println!(
            "measured mean inside the prediction's host-noise band: {} of {} cells (about 95% for a model exact up to host noise)",
            c.in_band, c.banded
        );
    }
    for j in c.jobs.iter().filter(|j| j.error.abs() > TARGET_WORST) {
        println!("  {} under {}: {:+.1}%, {}", j.job, j.policy, 100.0 * j.error, j.reason());
    }
    println!(
        "best policy by makespan: measured {}, predicted {} ({}): {}",
        c.measured_best,
        c.predicted_best,
        c.best_words,
        if c.best_within_interval { "within the measured interval" } else { "NOT within the measured interval" }
    );
    println!("  {}", c.ties.words(c.policies.len()));
    let shared: Vec<_> =
        c.jobs.iter().filter_map(|j| Some((j.policy.clone(), j.job.clone(), j.time_sharing.as_ref()?))).collect();
    if !shared.is_empty() {
        cosched_host::time_sharing::lines(&shared).iter().for_each(|l| println!("{l}"));
    }
    println!("targets {} (`linux` simulated as `{model}`)", if c.targets_met() { "met" } else { "missed" });
}

/// Print a replay as a table, or as JSON.
pub fn print_replay(r: &Replay, format: Format) -> Result<(), String> {
    if format == Format::Json {
        println!("{}", serde_json::to_string_pretty(r).map_err(|e| e.to_string())?);
        return Ok(());
    }
    println!("replay of {} (`linux` as `{}`, {} rounds):", r.file, r.model, r.rounds);
    let cpu = r.cells.iter().any(|c| c.measured_cpu.is_some());
    let mut head = ["policy", "job", "measured", "recorded", "today", "recorded error", "today's error"].to_vec();
    if cpu {
        head.extend(["cpu measured (95% interval)", "cpu today"]);
    }
    let mut rows = vec![head.into_iter().map(String::from).collect::<Vec<_>>()];
    for c in &r.cells {
        let mut cpu_cells = vec![];
        if cpu {
            cpu_cells.push(c.measured_cpu.map_or("-".into(), |m| format!("{:.3} ({:.3}-{:.3})", m.mean, m.lo, m.hi)));
            cpu_cells.push(c.replayed_cpu.map_or("-".into(), |x| format!("{x:.3}")));
        }
        rows.push(vec![
            c.policy.clone(),
            c.job.clone(),
            format!("{:.3}", c.measured),
            format!("{:.3}", c.recorded),
            format!("{:.3}", c.replayed),
            format!("{:+.1}%", 100.0 * (c.recorded / c.measured - 1.0)),
            format!("{:+.1}%", 100.0 * (c.replayed / c.measured - 1.0)),
        ]);
        rows.last_mut().expect("just pushed").extend(cpu_cells);
    }
    crate::output::table(&rows);
    println!(
        "median |error| {:.1}% recorded, {:.1}% today; worst {:.1}% recorded, {:.1}% today; beyond 30%: {} recorded, {} today",
        100.0 * r.median_abs_error[0],
        100.0 * r.median_abs_error[1],
        100.0 * r.worst_abs_error[0],
        100.0 * r.worst_abs_error[1],
        r.beyond_worst[0],
        r.beyond_worst[1]
    );
    if let Some(e) = r.cpu_median_abs_error {
        println!(
            "CPU time over solo CPU time: median |error| {:.1}% today, inside the measured interval in {} of {} cells",
            100.0 * e,
            r.cpu_inside[0],
            r.cpu_inside[1]
        );
    }
    Ok(())
}
