//! Rows of a comparison that are identical in every simulated column, and
//! why: a policy that finds nothing to act on in a workload (RDA without
//! declared progress periods, §3; `linux-cache` without a multi-threaded
//! process; SLITS's objectives when no pick has a choice, §4.3) makes the
//! decisions of the policy it refines, and a deterministic simulation then
//! gives the same outcome bit for bit.

use cosched_sim::experiment::Report;
use serde::Serialize;

cosched_core::metric_fields! {
    /// Policies whose runs were identical on every seed, and what each found to act on.
    #[derive(Serialize, Clone, Debug, PartialEq)]
    pub struct IdenticalRows {
        /// The policies, in the comparison's order.
        pub policies: Vec<String>,
        /// Each policy's own account of what it found to act on (`Policy::found`), for those that gave one.
        pub found: Vec<Finding>,
    }
}

cosched_core::metric_fields! {
    /// What one policy found to act on over its runs (`Policy::found`, read from its first seed's run).
    #[derive(Serialize, Clone, Debug, PartialEq)]
    pub struct Finding {
        /// The policy.
        pub policy: String,
        /// Its phrase.
        pub found: String,
    }
}

/// Whether two runs are the same simulated outcome: every metric but the
/// measured decision times (wall clock of this host), and every job's turnaround.
fn same_outcome(a: &Report, b: &Report) -> bool {
    let (x, y) = (&a.metrics, &b.metrics);
    x.run == y.run
        && x.instructions == y.instructions
        && x.llc_misses == y.llc_misses
        && x.l1_hits == y.l1_hits
        && x.ctx_switches == y.ctx_switches
        && x.migrations == y.migrations
        && x.explored_pct == y.explored_pct
        && a.jobs.len() == b.jobs.len()
        && a.jobs.iter().zip(&b.jobs).all(|(p, q)| p.turnaround_s == q.turnaround_s)
}

/// The groups of two or more policies of `names` whose runs (`runs_of(p)`:
/// policy `p`'s report on each seed) are the same outcome on every seed.
pub fn identical_rows<'a>(names: &[String], runs_of: &dyn Fn(usize) -> Vec<&'a Report>) -> Vec<IdenticalRows> {
    let runs: Vec<Vec<&Report>> = (0..names.len()).map(runs_of).collect();
    let mut group_of: Vec<Option<usize>> = vec![None; names.len()];
    let mut groups: Vec<Vec<usize>> = vec![];
    for p in 0..names.len() {
        if group_of[p].is_some() {
            continue;
        }
        let same: Vec<usize> = (p + 1..names.len())
            .filter(|&q| group_of[q].is_none())
            .filter(|&q| {
                runs[p].len() == runs[q].len() && runs[p].iter().zip(&runs[q]).all(|(a, b)| same_outcome(a, b))
            })
            .collect();
        if same.is_empty() {
            continue;
        }
        let mut g = vec![p];
        g.extend(same);
        for &q in &g {
            group_of[q] = Some(groups.len());
        }
        groups.push(g);
    }
    groups
        .into_iter()
        .map(|g| IdenticalRows {
            policies: g.iter().map(|&p| names[p].clone()).collect(),
            found: g
                .iter()
                .filter_map(|&p| {
                    let found = runs[p].first().and_then(|r| r.found.clone())?;
                    Some(Finding { policy: names[p].clone(), found })
                })
                .collect(),
        })
        .collect()
}

/// One line per group, for under a table: which rows are identical, and why
/// as each policy found it (policies that found the same say it once).
pub fn identical_lines(groups: &[IdenticalRows]) -> Vec<String> {
    groups
        .iter()
        .map(|g| {
            let mut said: Vec<(Vec<&str>, &str)> = vec![];
            for Finding { policy, found } in &g.found {
                match said.iter_mut().find(|(_, x)| x == found) {
                    Some((ps, _)) => ps.push(policy),
                    None => said.push((vec![policy.as_str()], found.as_str())),
                }
            }
            let why = if said.is_empty() {
                "the same decisions on every seed".to_string()
            } else {
                said.iter().map(|(ps, f)| format!("{}: {f}", ps.join(", "))).collect::<Vec<_>>().join("; ")
            };
            format!("identical rows: {} (the same simulated outcome on every seed; {why})", g.policies.join(" = "))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(ps: &[&str], found: &[(&str, &str)]) -> IdenticalRows {
        IdenticalRows {
            policies: ps.iter().map(|p| p.to_string()).collect(),
            found: found.iter().map(|(p, f)| Finding { policy: p.to_string(), found: f.to_string() }).collect(),
        }
    }

    #[test]
    fn a_shared_finding_is_said_once_and_a_silent_group_says_so() {
        let g = group(
            &["cfs", "rda-strict", "rda-compromise"],
            &[("rda-strict", "no periods"), ("rda-compromise", "no periods")],
        );
        assert_eq!(
            identical_lines(&[g]),
            ["identical rows: cfs = rda-strict = rda-compromise (the same simulated outcome on every seed; \
              rda-strict, rda-compromise: no periods)"]
        );
        let lines = identical_lines(&[group(&["a", "b"], &[])]);
        assert!(lines[0].ends_with("(the same simulated outcome on every seed; the same decisions on every seed)"));
    }
}
